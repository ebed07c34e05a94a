"""The package is generated from the notebooks, and the notebooks are committed clean.

Both checks run nbdev_export and nbdev_clean on a scratch copy of the tree, so the
working tree is never modified, and name the files that would change."""
import shutil
import subprocess
import tempfile
from pathlib import Path

from conftest import ROOT, tool

IGNORE = shutil.ignore_patterns(".venv", "venv", ".git", "_docs", "_proc", "__pycache__", "*.egg-info",
                                ".pytest_cache", ".hypothesis", ".ipynb_checkpoints")


def _git(cwd, *args):
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout


def _changed_after(commands):
    with tempfile.TemporaryDirectory() as d:
        copy = Path(d) / "repo"
        shutil.copytree(ROOT, copy, ignore=IGNORE)
        _git(copy, "init", "-q")
        _git(copy, "add", "-A")
        _git(copy, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "snapshot")
        for cmd in commands:
            out = subprocess.run(cmd, cwd=copy, capture_output=True, text=True)
            assert out.returncode == 0, f"{' '.join(cmd)} failed:\n{out.stdout}\n{out.stderr}"
        return [line[3:] for line in _git(copy, "status", "--porcelain").splitlines()]


def test_package_in_sync_with_notebooks():
    changed = _changed_after([[tool("nbdev_export")]])
    assert not changed, ("nbdev_export changes these files: the package is out of sync with the notebooks "
                         "(edit the notebooks, then run nbdev_export): " + ", ".join(changed))


def test_notebooks_are_clean():
    changed = _changed_after([[tool("nbdev_clean")]])
    assert not changed, "nbdev_clean changes these notebooks (run nbdev_clean before committing): " + ", ".join(changed)
