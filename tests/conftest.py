"""Shared helpers for the test suite: the repository root, the virtual environment's tools, and the lessons
executed once per test run (`executed_notebooks`)."""
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent  # the virtual environment that runs pytest
EXECUTOR = ROOT / "tools" / "execute_lessons.py"
# Kernels run side by side (the lesson run beside the browser test's Voila) on a small machine: one thread each, so
# that torch's thread pools do not fight over the cores. The lessons' tensors are small; nothing depends on threads.
ONE_THREAD = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


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


_LESSON_RUN: dict = {}


def _start_lesson_run() -> dict:
    """Start tools/execute_lessons.py on every notebook of nbs/ (once per session), in the background: it runs
    while the first tests (the browser test's Voila) run, and `lesson_run` waits for it."""
    if _LESSON_RUN: return _LESSON_RUN
    out = Path(tempfile.mkdtemp(prefix="relpos-executed-"))
    scratch = Path(tempfile.mkdtemp(prefix="relpos-executed-work-"))
    cmd = [sys.executable, str(EXECUTOR), "--out", str(out), "--workers", "2", "--flags", enabled_test_flags()]
    # tests/test_site.py builds the website from this run: panels display as precomputed frames there
    env = {**os.environ, **ONE_THREAD, "IPYTHONDIR": str(site_ipython_dir(scratch / "ipython"))}
    # fewer precomputed frames per panel than the published site (2.5 s of rendering each): the site test only needs
    # frames that move; tools/site.sh keeps the full budget
    env.setdefault("RELPOS_SITE_FRAME_BUDGET", "1.0")
    log = open(scratch / "execute.log", "w+")
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, text=True)
    _LESSON_RUN.update(out=out, scratch=scratch, proc=proc, log=log)
    return _LESSON_RUN


def pytest_collection_finish(session):
    "Start the lesson run as soon as the tests are collected, if any selected test needs it."
    if any("lesson_run" in getattr(item, "fixturenames", ()) for item in session.items): _start_lesson_run()


def pytest_sessionfinish(session, exitstatus):
    if not _LESSON_RUN: return
    proc = _LESSON_RUN["proc"]
    if proc.poll() is None:
        proc.kill(); proc.wait()
    _LESSON_RUN["log"].close()
    for key in ("out", "scratch"): shutil.rmtree(_LESSON_RUN[key], ignore_errors=True)


@pytest.fixture(scope="session")
def lesson_run():
    """Every notebook of nbs/ executed once, from a copy outside the repository, by tools/execute_lessons.py
    (a real Jupyter kernel, widget state stored). Returns (exit status, log, {name: executed notebook Path})."""
    run = _start_lesson_run()
    try:
        returncode = run["proc"].wait(timeout=1800)
    except subprocess.TimeoutExpired:
        run["proc"].kill(); run["proc"].wait()
        returncode = "timeout (1800 s)"
    run["log"].seek(0)
    log = "\n".join(l for l in run["log"].read().splitlines() if "running over TCP" not in l)
    return returncode, log, {p.name: p for p in sorted(run["out"].glob("*.ipynb"))}


@pytest.fixture(scope="session")
def executed_notebooks(lesson_run):
    "{name: Path} of every executed notebook (with outputs and widget state), run once per test session."
    return lesson_run[2]
