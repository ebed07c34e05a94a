#!/usr/bin/env python
"""Build the course website from executed notebooks: static HTML that works with no network.

    python tools/site/build.py --executed DIR [--out _site]

DIR holds the lessons as `tools/execute_lessons.py` writes them (outputs and widget state saved; run
with `IPYTHONDIR` from `tools/site/frames.py` so that panels carry precomputed frames). Every page is
rendered by nbconvert's `lab` template with a sidebar, without hidden cells or `#|` directive lines, and
with every script, style and font it uses copied into the site: MathJax 3, the widget manager
(`@jupyter-widgets/html-manager`) and require.js come from the npm registry, fetched once by `npm pack`
into tools/site/vendor/ (versions pinned below; no PyPI wheel ships them). `bash tools/site.sh` runs everything.
"""
from __future__ import annotations

import argparse
import copy
import html
import json
import re
import shutil
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
VENDOR = HERE / "vendor"
NPM = {  # npm package -> pinned version (html-manager 1.0.x renders the state of ipywidgets 8.1)
    "@jupyter-widgets/html-manager": "1.0.15",
    "requirejs": "2.3.8",
    "mathjax": "3.2.2",  # tex-svg-full.js: every TeX extension in one file, glyphs drawn as SVG (no font files)
}
COLAB_BADGE = "https://colab.research.google.com/assets/colab-badge.svg"
_DIRECTIVE = re.compile(r"^\s*#\s*\|\s*([\w-]+)\s*:?\s*(.*?)\s*$")
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


# ---------------------------------------------------------------- assets
def _npm_dir(name: str) -> Path:
    return VENDOR / f"{name.replace('/', '__').lstrip('@')}-{NPM[name]}"


def fetch_assets(log=print) -> None:
    "Download the pinned npm packages into tools/site/vendor/ (once; nothing is fetched when they are there)."
    for name, version in NPM.items():
        dest = _npm_dir(name)
        if (dest / "package.json").exists(): continue
        npm = shutil.which("npm")
        if npm is None:
            raise SystemExit(f"npm is needed once to fetch {name}@{version} into {VENDOR} (apt-get install npm)")
        log(f"[site] npm pack {name}@{version}")
        with tempfile.TemporaryDirectory() as tmp:
            out = subprocess.run([npm, "pack", f"{name}@{version}", "--pack-destination", tmp, "--silent"],
                                 capture_output=True, text=True)
            tgz = list(Path(tmp).glob("*.tgz"))
            if out.returncode != 0 or not tgz:
                raise SystemExit(f"npm pack {name}@{version} failed:\n{out.stderr[-2000:]}")
            with tarfile.open(tgz[0]) as tar:
                tar.extractall(tmp, filter="data")
            if dest.exists(): shutil.rmtree(dest)
            shutil.move(str(Path(tmp) / "package"), dest)


def copy_assets(out: Path) -> None:
    "Copy MathJax, require.js, the widget manager with its fonts, and the site's own files into out/static."
    static = out / "static"
    mj = _npm_dir("mathjax") / "es5"
    (static / "mathjax").mkdir(parents=True)
    shutil.copy(mj / "tex-svg-full.js", static / "mathjax" / "tex-svg-full.js")
    for sub in ("ui", "a11y", "input/tex/extensions"):  # what MathJax may still load on demand (menu, explorer)
        shutil.copytree(mj / sub, static / "mathjax" / sub, ignore=shutil.ignore_patterns("sre", "*.map"))
    shutil.copy(_npm_dir("requirejs") / "require.js", static / "require.js")
    hm = static / "html-manager"
    hm.mkdir(parents=True)
    for f in (_npm_dir("@jupyter-widgets/html-manager") / "dist").iterdir():
        if f.suffix in (".js", ".woff", ".woff2", ".ttf", ".eot", ".svg") and f.name != "libembed-amd.js":
            shutil.copy(f, hm / f.name)
    for f in (HERE / "static").iterdir():
        shutil.copy(f, static / f.name)


# ---------------------------------------------------------------- notebooks
def directives(source: str) -> dict:
    "The `#| name value` lines of a cell, as {name: value}."
    out = {}
    for line in source.splitlines():
        m = _DIRECTIVE.match(line)
        if m: out[m.group(1)] = m.group(2)
    return out


def strip_directives(source: str) -> str:
    "`source` without its `#| ...` lines (and the blank lines they leave at the top)."
    return "\n".join(l for l in source.splitlines() if not _DIRECTIVE.match(l)).strip("\n")


def title_and_summary(nb) -> tuple[str, str]:
    first = next((c.source for c in nb.cells if c.cell_type == "markdown"), "")
    title = re.search(r"^#\s+(.+)$", first, re.M)
    summary = re.search(r"^>\s*(.+)$", first, re.M)
    return (title.group(1).strip() if title else "", summary.group(1).strip() if summary else "")


def used_models(nb) -> set:
    "Ids of the widget models a displayed view needs, plus the links between them."
    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    todo = [o["data"][WIDGET_VIEW]["model_id"] for c in nb.cells if c.cell_type == "code"
            for o in c.get("outputs", []) if WIDGET_VIEW in o.get("data", {})]
    seen = set()

    def refs(obj):
        if isinstance(obj, str) and obj.startswith("IPY_MODEL_"): yield obj[len("IPY_MODEL_"):]
        elif isinstance(obj, dict):
            for v in obj.values(): yield from refs(v)
        elif isinstance(obj, (list, tuple)):
            for v in obj: yield from refs(v)

    while True:
        while todo:
            mid = todo.pop()
            if mid in seen or mid not in state: continue
            seen.add(mid)
            todo.extend(refs(state[mid].get("state", {})))
        links = [mid for mid, m in state.items() if mid not in seen and m.get("model_name", "").endswith("LinkModel")
                 and set(refs(m.get("state", {}))) and set(refs(m.get("state", {}))) <= seen]
        if not links: return seen
        todo.extend(links)


def prepare(nb, pages: dict):
    "A copy of executed notebook `nb` as the site shows it."
    nb = copy.deepcopy(nb)
    cells = []
    for cell in nb.cells:
        d = directives(cell.source)
        if "hide" in d or d.get("include", "").lower().startswith("false"): continue
        if cell.cell_type == "code":
            cell.source = strip_directives(cell.source)
            if d.get("echo", "").lower().startswith("false"):
                cell.metadata.setdefault("tags", []).append("remove_input")
            if d.get("output", "").lower().startswith("false"): cell.outputs = []
            if not cell.source.strip() and not cell.outputs: continue
        elif cell.cell_type == "markdown":
            src = cell.source.replace(COLAB_BADGE, "static/colab-badge.svg")
            for name, page in pages.items():  # links between lessons point at their pages
                src = re.sub(rf"\]\(\s*(\./)?{re.escape(name)}(#[^)\s]*)?\)", lambda m: f"]({page}{m.group(2) or ''})", src)
                src = src.replace(f'href="{name}"', f'href="{page}"')
            cell.source = src
        cells.append(cell)
    nb.cells = cells
    ws = nb.metadata.get("widgets", {}).get(WIDGET_STATE)
    if ws:
        keep = used_models(nb)
        ws["state"] = {k: v for k, v in ws["state"].items() if k in keep}
    return nb


def order(names: list[str]) -> list[str]:
    "index first, then the lessons by number, then the toolkit notebooks (90 and up), then the rest."
    def key(n):
        m = re.match(r"(\d+)([a-z]*)_", n)
        if n == "index.ipynb": return (0, 0, "", n)
        return (1, int(m.group(1)), m.group(2), n) if m else (2, 0, "", n)
    return sorted(names, key=key)


def section(name: str) -> str:
    m = re.match(r"(\d+)[a-z]*_", name)
    if name == "index.ipynb": return ""
    return "Lessons" if m and int(m.group(1)) < 90 else "Toolkit"


# ---------------------------------------------------------------- HTML
def exporter():
    from nbconvert import HTMLExporter
    from traitlets.config import Config
    c = Config()
    c.HTMLExporter.template_name = "relpos"
    c.HTMLExporter.extra_template_basedirs = [str(HERE / "templates")]
    c.HTMLExporter.require_js_url = "static/require.js"
    c.HTMLExporter.mathjax_url = "static/mathjax/tex-svg-full.js"
    c.HTMLExporter.widget_renderer_url = "static/html-manager/embed-amd.js"
    c.HTMLExporter.jupyter_widgets_base_url = "static/"
    c.HTMLExporter.mermaid_js_url = "static/none.mjs"
    c.TagRemovePreprocessor.enabled = True
    c.TagRemovePreprocessor.remove_input_tags = {"remove_input"}
    return HTMLExporter(config=c)


def nav_html(entries: list[dict], current: str) -> str:
    parts, last = [], None
    for e in entries:
        if e["section"] != last and e["section"]:
            parts.append(f"<div class='site-nav-section'>{html.escape(e['section'])}</div>")
        last = e["section"]
        cls = " class='current'" if e["page"] == current else ""
        parts.append(f"<a{cls} href='{e['page']}'>{html.escape(e['label'])}</a>")
    return "\n".join(parts)


_EXPORTER = []


def _render_page(job) -> None:
    "Write page k of `entries` (and its downloadable notebook) into `out`."
    import nbformat
    k, entries, pages, executed, out, nbs = job
    executed, out, nbs = Path(executed), Path(out), Path(nbs)
    if not _EXPORTER: _EXPORTER.append(exporter())  # one per process
    e = entries[k]
    n = e["name"]
    nb = prepare(nbformat.read(executed / n, as_version=4), pages)
    src = nbs / n if (nbs / n).exists() else executed / n
    nbformat.write(nbformat.read(src, as_version=4), out / n)  # the notebook a reader downloads: the lesson as written, no outputs
    nb.metadata["title"] = e["title"]
    site = {"nav": nav_html(entries, e["page"]), "notebook": n, "title": e["title"],
            "prev": entries[k - 1] if k > 0 else None, "next": entries[k + 1] if k + 1 < len(entries) else None,
            "home": e["page"] == "index.html"}
    body, _ = _EXPORTER[0].from_notebook_node(nb, resources={"site": site})
    (out / e["page"]).write_text(body, encoding="utf-8")


def build(executed: Path, out: Path, nbs: Path = ROOT / "nbs", log=print) -> dict:
    "Render every notebook of `executed` into the site `out`; return {page: source notebook name}."
    import nbformat
    t0 = time.time()
    executed, out = Path(executed), Path(out)
    names = order([p.name for p in executed.glob("*.ipynb")])
    if "index.ipynb" not in names: raise SystemExit(f"{executed} has no index.ipynb (the home page)")
    fetch_assets(log)
    if out.exists(): shutil.rmtree(out)
    out.mkdir(parents=True)
    copy_assets(out)
    pages = {n: ("index.html" if n == "index.ipynb" else n[:-len(".ipynb")] + ".html") for n in names}
    nbs_read = {n: nbformat.read(executed / n, as_version=4) for n in names}
    entries = []
    for n in names:
        title, summary = title_and_summary(nbs_read[n])
        m = re.match(r"(\d+[a-z]*)_", n)
        label = "Home" if n == "index.ipynb" else (f"{m.group(1)} · {title}" if section(n) == "Lessons" else re.sub(r"^Toolkit:\s*", "", title))
        entries.append({"name": n, "page": pages[n], "title": title or n, "summary": summary, "label": label,
                        "section": section(n)})
    del nbs_read
    jobs = [(k, entries, pages, str(executed), str(out), str(nbs)) for k in range(len(entries))]
    workers = max(1, min(int(os.environ.get("RELPOS_SITE_WORKERS", os.cpu_count() or 1)), 4))
    if workers == 1:
        for job in jobs: _render_page(job)
    else:  # pages are independent: render them side by side
        from concurrent.futures import ProcessPoolExecutor
        with ProcessPoolExecutor(workers) as pool: list(pool.map(_render_page, jobs))
    (out / ".nojekyll").write_text("")
    size = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    log(f"[site] {len(entries)} pages in {out} ({size / 2**20:.1f} MiB) in {time.time() - t0:.1f} s")
    return {e["page"]: e["name"] for e in entries}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--executed", required=True, help="folder of executed notebooks (tools/execute_lessons.py --out)")
    ap.add_argument("--out", default=str(ROOT / "_site"))
    ap.add_argument("--fetch-only", action="store_true", help="only download the pinned npm assets")
    args = ap.parse_args(argv)
    if args.fetch_only:
        fetch_assets(); return 0
    build(Path(args.executed), Path(args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
