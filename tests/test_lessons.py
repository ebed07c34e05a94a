"""Every lesson runs top to bottom, as nbdev_test runs it, from a copy outside the repository."""
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from conftest import ROOT, tool

NBS = sorted((ROOT / "nbs").glob("*.ipynb"))


def test_there_are_lessons():
    assert len(NBS) >= 2, NBS


def test_every_lesson_runs_from_a_copy_outside_the_repository():
    flags = os.environ.get("RELPOS_TEST_FLAGS", "")
    with tempfile.TemporaryDirectory(prefix="relpos-lessons-") as d:
        for nb in NBS: shutil.copy(nb, d)
        cmd = [tool("nbdev_test"), "--path", d, "--n_workers", "2", "--timing"] + (["--flags", flags] if flags else [])
        out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=1800)
        print(out.stdout[-3000:])
        assert out.returncode == 0, f"nbdev_test failed (flags={flags!r}):\n{out.stdout[-5000:]}\n{out.stderr[-20000:]}"


def test_every_notebook_has_its_colab_badge_and_setup_cell():
    from relpos_lessons.colab import colab_cells_ok, read_settings
    cfg = read_settings(ROOT / "settings.ini")
    stale = [nb.name for nb in NBS if not colab_cells_ok(json.loads(nb.read_text()), nb.name, cfg)]
    assert not stale, f"these notebooks lack the current Colab cells (run relpos-colab-sync): {stale}"


def test_every_lesson_starts_with_title_and_summary():
    for nb in NBS:
        first = "".join(json.loads(nb.read_text())["cells"][0]["source"])
        assert first.startswith("# ") and "\n> " in first, f"{nb.name}: first cell must be '# Title' then '> summary'"
