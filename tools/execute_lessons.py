#!/usr/bin/env python
"""Execute the lessons as a reader's Jupyter would, and keep what they display.

    python tools/execute_lessons.py --out DIR [--flags slow] [--workers 2] [--python PY] [NB ...]

Every notebook (default: all of nbs/) is copied to a temporary folder outside the repository and run
there by a real Jupyter kernel through nbclient, with widget state stored in the notebook metadata.
Cells whose leading `#| ...` lines name a test flag of settings.ini (`tst_flags`, e.g. `notest slow`)
that is not enabled with --flags are skipped, as nbdev_test skips them (`#| eval: false` too); they keep
their source and get no outputs. The executed notebooks are written to DIR/<name>.ipynb. With --python
the kernel runs in another interpreter (for instance a fresh virtual environment). Exits non-zero naming
every notebook that failed and its error.
"""
from __future__ import annotations

import argparse
import configparser
import json
import multiprocessing
import os
import re
import shutil
import sys
import tempfile
import time
import traceback
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SKIP_TAG = "skip-execution"  # nbclient's default `skip_cells_with_tag`
_DIRECTIVE = re.compile(r"^\s*#\s*\|\s*([\w-]+)\s*:?\s*(.*?)\s*$")


def settings() -> dict:
    cp = configparser.ConfigParser(delimiters=["="], interpolation=None)
    cp.read(ROOT / "settings.ini", encoding="utf-8")
    return dict(cp["DEFAULT"])


def directives(source: str) -> dict:
    "The `#| name value` lines at the top of a cell, as {name: value}."
    out = {}
    for line in source.splitlines():
        if not line.strip(): continue
        m = _DIRECTIVE.match(line)
        if not m: break
        out[m.group(1)] = m.group(2)
    return out


def skipped(source: str, test_flags: set, enabled: set) -> bool:
    "True if nbdev_test would not run this cell with `enabled` flags."
    d = directives(source)
    if d.get("eval", "").lower().startswith("false"): return True
    return any(name in test_flags and name not in enabled for name in d)


def default_notebooks() -> list[Path]:
    nbs = ROOT / settings().get("nbs_path", "nbs")
    return sorted(p for p in nbs.glob("*.ipynb") if not p.name.startswith(("_", ".")))


def _kernel_manager(python: str | None, workdir: Path):
    "A kernel manager for `python` (None: the interpreter running this script)."
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import KernelManager
    spec_dir = workdir / "kernelspec" / "relpos-lessons"
    spec_dir.mkdir(parents=True, exist_ok=True)
    argv = [python or sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec_dir / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": "relpos-lessons", "language": "python"}))
    ksm = KernelSpecManager(kernel_dirs=[str(spec_dir.parent)])
    return KernelManager(kernel_name="relpos-lessons", kernel_spec_manager=ksm)


def execute_one(src: str, out_dir: str, workdir: str, enabled: list, test_flags: list, python: str | None,
                timeout: int) -> tuple[str, float, str | None]:
    "Execute the copy of notebook `src` inside `workdir`; write it to out_dir. Returns (name, seconds, error or None)."
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError
    name, t0 = Path(src).name, time.time()
    work = Path(workdir) / Path(name).stem
    work.mkdir(parents=True, exist_ok=True)
    path = work / name
    shutil.copy(src, path)
    nb = nbformat.read(path, as_version=4)
    marked = []
    for cell in nb.cells:
        if cell.cell_type == "code" and skipped(cell.source, set(test_flags), set(enabled)):
            cell.metadata.setdefault("tags", []).append(SKIP_TAG)
            marked.append(cell)
    error = None
    client = NotebookClient(nb, timeout=timeout, km=_kernel_manager(python, work), store_widget_state=True,
                            resources={"metadata": {"path": str(work)}})
    try:
        client.execute()
    except CellExecutionError as e:
        failed = next((c for c in nb.cells if any(o.get("output_type") == "error" for o in c.get("outputs", []))), None)
        out = next((o for o in failed.outputs if o.get("output_type") == "error"), {}) if failed else {}
        tb = re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(out.get("traceback", [])))
        tb = "\n".join(line[:300] for line in tb.splitlines()[-25:])
        error = f"cell:\n{failed.source[:1200] if failed else '?'}\n---\n{tb}\n{e.ename}: {str(e.evalue)[:300]}"
    except CellTimeoutError as e:
        error = f"a cell ran longer than {timeout} s: {str(e)[:1500]}"
    except Exception as e:  # kernel died, could not start, ...
        error = f"{type(e).__name__}: {e}\n{traceback.format_exc()[-3000:]}"
    for cell in marked:
        cell.metadata["tags"].remove(SKIP_TAG)
        if not cell.metadata["tags"]: del cell.metadata["tags"]
        cell.outputs, cell.execution_count = [], None
    nbformat.write(nb, Path(out_dir) / name)
    left = sorted(p.name for p in work.iterdir() if p.name not in (name, "kernelspec"))
    if left: print(f"[execute] {name} left in the reader's folder: {', '.join(left)}", flush=True)
    return name, time.time() - t0, error


def execute(notebooks, out: Path, *, flags=(), workers: int = 2, python: str | None = None, timeout: int = 900,
            log=print) -> dict:
    "Execute `notebooks` in parallel from a temporary copy; return {name: (seconds, error or None)}."
    out = Path(out); out.mkdir(parents=True, exist_ok=True)
    test_flags = settings().get("tst_flags", "").split()
    enabled = [f for f in flags if f]
    # longest first keeps both workers busy (sizes are a fair proxy for run time)
    notebooks = sorted((Path(n).resolve() for n in notebooks), key=lambda p: -p.stat().st_size)
    results = {}
    with tempfile.TemporaryDirectory(prefix="relpos-lessons-run-") as workdir:
        if Path(workdir).resolve().is_relative_to(ROOT):
            raise SystemExit(f"the temporary folder {workdir} is inside the repository; set TMPDIR elsewhere")
        ctx = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=max(1, workers), mp_context=ctx) as pool:
            futs = [pool.submit(execute_one, str(nb), str(out), workdir, enabled, test_flags, python, timeout)
                    for nb in notebooks]
            for f in as_completed(futs):
                name, secs, error = f.result()
                results[name] = (secs, error)
                log(f"[execute] {name}: {'FAILED' if error else 'ok'} in {secs:.1f} s")
    return results


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("notebooks", nargs="*", help="notebooks to run (default: every notebook in nbs/)")
    ap.add_argument("--out", required=True, help="folder for the executed notebooks")
    ap.add_argument("--flags", default=os.environ.get("RELPOS_TEST_FLAGS", ""),
                    help="test flags to enable, e.g. 'slow' (default: $RELPOS_TEST_FLAGS)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--python", default=None, help="interpreter that runs the kernel (needs ipykernel)")
    ap.add_argument("--timeout", type=int, default=900, help="seconds allowed per cell")
    args = ap.parse_args(argv)
    nbs = [Path(n) for n in args.notebooks] or default_notebooks()
    t0 = time.time()
    results = execute(nbs, Path(args.out), flags=re.split(r"[\s,]+", args.flags.strip()), workers=args.workers,
                      python=args.python, timeout=args.timeout)
    failed = {n: e for n, (s, e) in sorted(results.items()) if e}
    print(f"[execute] {len(results)} notebooks in {time.time() - t0:.1f} s, {len(failed)} failed")
    for name, error in failed.items():
        print(f"\n[execute] {name} failed:\n{error}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
