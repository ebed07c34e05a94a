"""README and index.ipynb list the same lessons; the README's test command is what CI runs;
the installed package needs no development tool."""
import json
import re
from pathlib import Path

from conftest import ROOT

LINK = re.compile(r"nbs/(\d\d[a-z]?_[A-Za-z0-9_]+\.ipynb)")


def _lessons_in(text):
    seen = []
    for name in LINK.findall(text):
        if name not in seen: seen.append(name)
    return seen


def test_readme_and_index_list_the_same_lessons_as_nbs():
    on_disk = sorted(p.name for p in (ROOT / "nbs").glob("[0-9][0-9]*_*.ipynb"))
    readme = _lessons_in((ROOT / "README.md").read_text())
    index_text = "".join("".join(c["source"]) for c in json.loads((ROOT / "nbs/index.ipynb").read_text())["cells"])
    index = _lessons_in(index_text)
    assert readme == on_disk, f"README lesson list {readme} differs from nbs/ {on_disk}"
    assert index == on_disk, f"index.ipynb lesson list {index} differs from nbs/ {on_disk}"


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci/run").read_text()
    assert "bash tools/test.sh" in readme and "bash tools/lab.sh" in readme
    assert re.search(r"^bash tools/test\.sh\s*$", ci, re.M), ".ci/run must call the README's test command"


def test_package_does_not_need_development_tools():
    for py in (ROOT / "relpos_lessons").glob("*.py"):
        src = py.read_text()
        for dev in ("nbdev", "fastcore", "execnb", "pytest", "hypothesis", "playwright"):
            assert not re.search(rf"^\s*(import|from)\s+{dev}\b", src, re.M), f"{py.name} imports {dev}"
    settings = (ROOT / "settings.ini").read_text()
    req = re.search(r"^requirements\s*=\s*(.*)$", settings, re.M).group(1)
    assert "nbdev" not in req and "torch>=2.5" in req.split()  # FlexAttention (relpos_lessons.flex) needs torch 2.5


def test_readme_is_built_from_index():
    import subprocess, sys
    out = subprocess.run([sys.executable, str(ROOT / "tools/build_readme.py"), "--check"], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
