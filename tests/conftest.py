"""Shared helpers for the test suite: the repository root and the virtual environment's tools."""
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent  # the virtual environment that runs pytest


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
