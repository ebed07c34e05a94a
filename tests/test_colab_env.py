"""A Colab-like environment: a fresh virtual environment (no system site-packages) with only
`pip install "<checkout>[lessons]"` (not editable, no development extras), ipykernel and ipywidgets==7.7.1
(Colab's version), plus a pinned CPU torch installed first as Colab has its own. Every import statement of every
lesson must work there, and lessons run there in a real kernel from a folder outside the repository.

The environment is cached under ~/.cache/relpos-lessons/ (keyed on settings.ini and setup.py); the package itself
is reinstalled (without its dependencies, a few seconds) only when its code changed. By default two lessons run
in full there (the shared `executed_notebooks` run covers all of them in the development environment); set
RELPOS_TEST_COLAB=all to run every lesson there."""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, EXECUTOR, enabled_test_flags

TORCH = "torch==2.13.0"  # never an unpinned torch: it would pull CUDA wheels
KERNEL_SIDE = ["ipykernel", "ipywidgets==7.7.1"]  # what Colab provides besides the package
FULL_RUN = ["00_attention.ipynb", "01_sinusoidal.ipynb"]
CACHE = Path(os.environ.get("RELPOS_COLAB_VENV_CACHE", Path.home() / ".cache" / "relpos-lessons"))


def _digest(paths) -> str:
    h = hashlib.sha256()
    for p in paths: h.update(p.name.encode()); h.update(p.read_bytes())
    return h.hexdigest()[:16]


def _source_copy(dest: Path) -> Path:
    "The files a pip install needs, copied out of the checkout (an in-tree build would leave build/ behind)."
    shutil.rmtree(dest, ignore_errors=True); dest.mkdir(parents=True)
    for name in ("setup.py", "settings.ini", "README.md", "pyproject.toml", "MANIFEST.in", "LICENSE"):
        if (ROOT / name).exists(): shutil.copy(ROOT / name, dest / name)
    shutil.copytree(ROOT / "relpos_lessons", dest / "relpos_lessons", ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def _pip(py, *args, timeout=1200):
    out = subprocess.run([str(py), "-m", "pip", "install", "--disable-pip-version-check", "-q", *args],
                         capture_output=True, text=True, timeout=timeout)
    assert out.returncode == 0, f"pip install {' '.join(args)} failed:\n{out.stdout[-2000:]}\n{out.stderr[-4000:]}"


@pytest.fixture(scope="session")
def colab_python():
    venv = CACHE / f"colab-venv-{_digest([ROOT / 'settings.ini', ROOT / 'setup.py'])}"
    py = venv / "bin" / "python"
    ready = venv / ".relpos-ready"
    if not ready.exists():
        shutil.rmtree(venv, ignore_errors=True)
        for old in CACHE.glob("colab-venv-*"): shutil.rmtree(old, ignore_errors=True)  # one cached environment
        venv.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)  # no --system-site-packages
        _pip(py, TORCH)
        _pip(py, f"{_source_copy(venv / 'src')}[lessons]", *KERNEL_SIDE)
        ready.write_text("ok\n")
    code = _digest(sorted((ROOT / "relpos_lessons").rglob("*.py")) + sorted((ROOT / "relpos_lessons").rglob("*.json")))
    stamp = venv / ".relpos-code"
    if not stamp.exists() or stamp.read_text() != code:
        _pip(py, "--no-deps", "--force-reinstall", str(_source_copy(venv / "src")))  # the current code, not editable
        stamp.write_text(code)
    return py


def lesson_imports() -> list[str]:
    "Every top-level import statement in the lessons' code cells (Colab set-up cells aside)."
    found = set()
    for nb in sorted((ROOT / "nbs").glob("*.ipynb")):
        for cell in json.loads(nb.read_text())["cells"]:
            src = "".join(cell["source"])
            if cell["cell_type"] != "code" or src.startswith("#| hide\n# Colab set-up"): continue
            for line in src.splitlines():
                if re.match(r"(import|from)\s+[\w.]+", line) and not line.startswith("from __future__"):
                    found.add(line.split("#")[0].strip())
    return sorted(found)


def test_colab_environment_is_isolated_and_minimal(colab_python):
    out = subprocess.run([str(colab_python), "-c", "import sys, json, importlib.metadata as m; "
                          "print(json.dumps([sys.prefix != sys.base_prefix, m.version('torch'), m.version('ipywidgets'), "
                          "sorted(d.metadata['Name'].lower() for d in m.distributions())]))"],
                         capture_output=True, text=True, check=True)
    isolated, torch_version, widgets_version, names = json.loads(out.stdout)
    assert isolated and torch_version.startswith("2.13.0") and widgets_version == "7.7.1"
    for dev in ("nbdev", "execnb", "pytest", "voila", "playwright"):  # (ipywidgets 7 itself pulls notebook, jupyterlab)
        assert dev not in names, f"{dev} is in the Colab-like environment: it must hold only [lessons] + kernel"
    cfg = (colab_python.parents[1] / "pyvenv.cfg").read_text()
    assert "include-system-site-packages = false" in cfg


def test_everything_the_lessons_import_is_installed_by_the_lessons_extra(colab_python):
    imports = lesson_imports()
    assert any("hypothesis" in i for i in imports) and any("fastcore" in i for i in imports)
    script = "\n".join(imports)
    out = subprocess.run([str(colab_python), "-c", script], capture_output=True, text=True, cwd=CACHE)
    assert out.returncode == 0, f"an import of the lessons fails with only [lessons] installed:\n{out.stderr[-3000:]}"


def test_lessons_run_in_the_colab_like_environment(colab_python, tmp_path):
    which = None if os.environ.get("RELPOS_TEST_COLAB") == "all" else [str(ROOT / "nbs" / n) for n in FULL_RUN]
    cmd = [sys.executable, str(EXECUTOR), "--out", str(tmp_path), "--python", str(colab_python),
           "--flags", enabled_test_flags()] + (which or [])
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=1800)
    log = "\n".join(l for l in (out.stdout + out.stderr).splitlines() if "running over TCP" not in l)
    print(log[-2000:])
    assert out.returncode == 0, f"lessons failed in the Colab-like environment:\n{log[-8000:]}"
