"""Every lesson runs top to bottom in a real Jupyter kernel, from a copy outside the repository (the shared
`executed_notebooks` run of tools/execute_lessons.py, which skips cells flagged as nbdev_test does)."""
import json

from conftest import ROOT, enabled_test_flags

NBS = sorted((ROOT / "nbs").glob("*.ipynb"))


def test_there_are_lessons():
    assert len(NBS) >= 2, NBS


def test_every_lesson_runs_from_a_copy_outside_the_repository(lesson_run):
    returncode, log, executed = lesson_run
    print(log[-3000:])
    assert returncode == 0, f"a lesson failed (flags={enabled_test_flags()!r}):\n{log[-20000:]}"
    assert sorted(executed) == sorted(nb.name for nb in NBS if not nb.name.startswith("_"))


def test_every_notebook_has_its_colab_badge_and_setup_cell():
    from relpos_lessons.colab import colab_cells_ok, read_settings
    cfg = read_settings(ROOT / "settings.ini")
    stale = [nb.name for nb in NBS if not colab_cells_ok(json.loads(nb.read_text()), nb.name, cfg)]
    assert not stale, f"these notebooks lack the current Colab cells (run relpos-colab-sync): {stale}"


def test_every_lesson_starts_with_title_and_summary():
    for nb in NBS:
        first = "".join(json.loads(nb.read_text())["cells"][0]["source"])
        assert first.startswith("# ") and "\n> " in first, f"{nb.name}: first cell must be '# Title' then '> summary'"
