"""Shared helpers for the test suite: the repository root, the virtual environment's tools, and the lessons
executed once per test run (`executed_notebooks`)."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent  # the virtual environment that runs pytest
EXECUTOR = ROOT / "tools" / "execute_lessons.py"


def tool(name: str) -> str:
    "Path of a console script installed next to the running Python."
    path = BIN / name
    if not path.exists():
        pytest.fail(f"{name} is not installed in {BIN}; run the README's test command, which sets up .venv")
    return str(path)


@pytest.fixture
def root():
    return ROOT


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def enabled_test_flags() -> str:
    "Test flags enabled for this run: RELPOS_TEST_FLAGS (`tools/test.sh --slow` sets it to 'slow')."
    return os.environ.get("RELPOS_TEST_FLAGS", "")


def site_ipython_dir(path: Path) -> Path:
    "An IPYTHONDIR whose start-up file shows every viz.Panel as precomputed frames (tools/site/frames.py)."
    import importlib.util
    spec = importlib.util.spec_from_file_location("relpos_site_frames", ROOT / "tools" / "site" / "frames.py")
    frames = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(frames)
    return frames.make_ipython_dir(path)


@pytest.fixture(scope="session")
def lesson_run(tmp_path_factory):
    """Every notebook of nbs/ executed once, from a copy outside the repository, by tools/execute_lessons.py
    (a real Jupyter kernel, widget state stored). Returns (exit status, log, {name: executed notebook Path})."""
    out = tmp_path_factory.mktemp("executed")
    cmd = [sys.executable, str(EXECUTOR), "--out", str(out), "--workers", "2", "--flags", enabled_test_flags()]
    # tests/test_site.py builds the website from this run: panels display as precomputed frames there
    env = {**os.environ, "IPYTHONDIR": str(site_ipython_dir(tmp_path_factory.mktemp("ipython")))}
    run = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800)
    log = "\n".join(l for l in (run.stdout + "\n" + run.stderr).splitlines() if "running over TCP" not in l)
    return run.returncode, log, {p.name: p for p in sorted(out.glob("*.ipynb"))}


@pytest.fixture(scope="session")
def executed_notebooks(lesson_run):
    "{name: Path} of every executed notebook (with outputs and widget state), run once per test session."
    return lesson_run[2]
