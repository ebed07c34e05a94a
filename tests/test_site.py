"""The course website works offline: `tools/site.sh` builds it from the executed lessons, a local server
serves it on 127.0.0.1, and headless Chromium (Debian's package, driven by Playwright) opens every page with
every request to another host aborted. Each page must load without a failed request or a console error,
show every picture, render its math, hide the hidden cells and directives, keep its Colab badge and
notebook download, and the first panel's first slider must change the picture with no kernel behind it."""
import http.server
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from functools import partial
from pathlib import Path
from urllib.parse import urlparse

import pytest

from conftest import ROOT
from test_browser import CHROMIUM_ARGS, _chromium, _unavailable


def _load(name: str):
    "tools/site/<name>.py as a module (tools/ is not a package)."
    spec = importlib.util.spec_from_file_location(f"relpos_site_{name}", ROOT / "tools" / "site" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


frames, build_py = _load("frames"), _load("build")

MATH = re.compile(r"\$\$.+?\$\$|\$[^$\n]+\$", re.S)
DIRECTIVE = re.compile(r"^\s*#\s*\|", re.M)
FIGURE_TEXT = re.compile(r"<(Lesson)?Figure size|<LessonFigure \d")


def _has_frames(folder: Path) -> bool:
    return any(frames.STATIC_CLASS in p.read_text() for p in folder.glob("*.ipynb"))


def _execute(out: Path, tmp: Path):
    "Run the lessons as tools/site.sh does (panels as frames); used when no session fixture provides them."
    env = {**os.environ, "IPYTHONDIR": str(frames.make_ipython_dir(tmp / "ipython"))}
    flags = os.environ.get("RELPOS_TEST_FLAGS", "")
    cmd = [sys.executable, str(ROOT / "tools" / "execute_lessons.py"), "--out", str(out)] + (["--flags", flags] if flags else [])
    run = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800)
    print(run.stdout[-2000:])
    return run


@pytest.fixture(scope="module")
def executed(request, tmp_path_factory):
    "A folder of executed notebooks with panels as frames: the session's, when it has them, else our own run."
    tmp = tmp_path_factory.mktemp("site-executed")
    try:
        nbs = request.getfixturevalue("executed_notebooks")
    except pytest.FixtureLookupError:
        nbs = None
    if nbs:
        folder = tmp / "from-session"
        folder.mkdir()
        for name, path in nbs.items(): shutil.copy(path, folder / Path(name).name)
        if _has_frames(folder): return folder
        print("[site] the session's executed notebooks carry no panel frames; executing the lessons again")
    folder = tmp / "own"
    run = _execute(folder, tmp)
    # a failing lesson is the lesson test's business; the site is built from what ran
    if not (folder / "index.ipynb").exists():
        pytest.fail(f"executing the lessons wrote no index.ipynb:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}")
    return folder


@pytest.fixture(scope="module")
def site(request, tmp_path_factory):
    "The site, built by the README's command."
    if os.environ.get("RELPOS_SITE_DIR"):  # reuse a built site while working on this test
        return Path(os.environ["RELPOS_SITE_DIR"])
    vendored = all((build_py._npm_dir(n) / "package.json").exists() for n in build_py.NPM)
    if not vendored and shutil.which("npm") is None:
        _unavailable("npm is needed once to fetch the site's pinned JavaScript (apt-get install npm)")
    executed = request.getfixturevalue("executed")
    out = tmp_path_factory.mktemp("site") / "_site"
    t0 = time.time()
    run = subprocess.run(["bash", str(ROOT / "tools" / "site.sh"), "--executed", str(executed), "--out", str(out)],
                         cwd=ROOT, capture_output=True, text=True, timeout=900)
    print(run.stdout[-2000:], f"\n[site] built in {time.time() - t0:.1f} s")
    assert run.returncode == 0, f"tools/site.sh failed:\n{run.stdout[-3000:]}\n{run.stderr[-5000:]}"
    return out


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args): pass


@pytest.fixture(scope="module")
def server(site):
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(site)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    finally:
        httpd.shutdown(); httpd.server_close(); thread.join(10)


def _pages(site: Path) -> dict:
    "{page.html: notebook name} for every notebook the site carries."
    return {p.with_suffix(".html").name if p.stem != "index" else "index.html": p.name
            for p in sorted(site.glob("*.ipynb"))}


def test_site_has_every_notebook_and_only_local_assets(site, request):
    pages = _pages(site)
    source = Path(os.environ["RELPOS_SITE_DIR"]) if os.environ.get("RELPOS_SITE_DIR") else request.getfixturevalue("executed")
    names = {p.name for p in source.glob("*.ipynb")}  # every notebook that was run (nbs/ as it was then)
    assert names <= set(pages.values()), f"pages missing: {names - set(pages.values())}"
    for page in pages:
        text = (site / page).read_text()
        remote = re.findall(r"""<(?:script|link|img)\b[^>]*\b(?:src|href)=["'](?:https?:)?//[^"']+""", text)
        assert not remote, f"{page} loads from the network: {remote[:3]}"


def test_every_page_works_offline_in_headless_chromium(site, server, tmp_path):
    chromium = _chromium()
    if chromium is None: _unavailable("Debian's chromium is not installed (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as e:
        _unavailable(f"playwright is not installed: {e}")
    pages = _pages(site)
    if os.environ.get("RELPOS_SITE_PAGES"):  # a few pages only, while working on this test
        pages = {p: n for p, n in pages.items() if p in os.environ["RELPOS_SITE_PAGES"].split(",")}
    shots = Path(os.environ.get("RELPOS_SITE_SHOTS", tmp_path))
    # two browsers side by side, each with its share of the pages (Playwright: one instance per thread)
    items = list(pages.items())
    shares = [items[k::2] for k in range(2)] if len(items) > 1 else [items]
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(len(shares)) as pool:
        results = list(pool.map(lambda share: _check_pages(share, chromium, server, site, shots), shares))
    problems = [p for r in results for p in r[0]]
    moved = {k: v for r in results for k, v in r[1].items()}
    print("[site] first control moved:", json.dumps(moved, indent=1))
    assert not problems, "\n".join(problems)


def _check_pages(items, chromium, server, site, shots):
    "Open each (page, notebook) of `items` in one headless Chromium with outside requests aborted; return (problems, moved)."
    from playwright.sync_api import sync_playwright
    problems, moved = [], {}
    with sync_playwright() as pw:
        try:
            browser = pw.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
        except Exception as e:
            return [f"headless chromium did not start: {e}"], moved
        try:
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            events = []

            def route(r):
                host = urlparse(r.request.url).hostname
                if r.request.url.startswith(("data:", "blob:")) or host in ("127.0.0.1", "localhost"): r.continue_()
                else:
                    events.append(f"request to the network: {r.request.url}"); r.abort()
            context.route("**/*", route)
            for page_name, nb_name in items:
                events.clear()
                page = context.new_page()
                page.on("requestfailed", lambda req: events.append(f"failed request {req.url}: {req.failure}"))
                page.on("response", lambda res: res.status >= 400 and events.append(f"HTTP {res.status} {res.url}"))
                page.on("console", lambda msg: msg.type == "error" and events.append(f"console error: {msg.text}"))
                page.on("pageerror", lambda err: events.append(f"page error: {err}"))
                t0 = time.time()
                try:
                    moved[page_name] = _check_page(page, server + page_name, site, nb_name, shots)
                except AssertionError as e:
                    problems.append(f"{page_name}: {e}")
                except Exception as e:  # a timeout names the page instead of stopping the test
                    problems.append(f"{page_name}: {type(e).__name__}: {str(e)[:500]}")
                page.wait_for_timeout(100)
                problems += [f"{page_name}: {ev}" for ev in events]
                print(f"[site] {page_name} checked in {time.time() - t0:.1f} s")
                page.close()
        finally:
            browser.close()
    return problems, moved


def _wait_rendered(page, expect_widgets: bool):
    page.wait_for_load_state("load")
    if expect_widgets:
        page.wait_for_selector(".jupyter-widgets", state="attached", timeout=60_000)
    page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise", timeout=60_000)
    page.evaluate("() => MathJax.startup.promise.then(() => true)")
    page.wait_for_function("() => Array.from(document.images).every(i => i.complete)", timeout=30_000)


def _check_page(page, url, site: Path, nb_name: str, shots: Path):
    nb = json.loads((site / nb_name).read_text())
    md = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    code = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    html = (site / urlparse(url).path.lstrip("/")).read_text()
    page.goto(url, wait_until="domcontentloaded", timeout=60_000)
    _wait_rendered(page, '<script type="application/vnd.jupyter.widget-view+json">' in html)
    inputs = "\n".join(page.locator(".jp-InputArea-editor").all_inner_texts())
    outputs = "\n".join(page.locator(".jp-OutputArea").all_inner_texts())
    assert not DIRECTIVE.search(inputs), f"a code cell shows a directive: {DIRECTIVE.search(inputs).group(0)!r}"
    assert not FIGURE_TEXT.search(outputs), f"a figure shows as text: {FIGURE_TEXT.search(outputs).group(0)!r}"
    for c in nb["cells"]:  # hidden cells (the Colab set-up cell among them) are not on the page
        src = "".join(c["source"])
        if c["cell_type"] == "code" and re.search(r"^\s*#\s*\|\s*hide\b", src, re.M):
            first = next((l for l in src.splitlines() if l.strip() and not DIRECTIVE.match(l)), None)
            assert first is None or first.strip() not in inputs, f"a hidden cell is shown: {first!r}"
    broken = page.evaluate("() => Array.from(document.images).filter(i => !(i.naturalWidth > 0)).map(i => i.src.slice(0, 80))")
    assert not broken, f"images that did not load: {broken}"
    if MATH.search(md):
        n = page.locator("mjx-container").count()
        assert n > 0, "the page has math but MathJax rendered none"
        assert not page.locator("mjx-merror").count(), "MathJax reported an error"
    badge = page.locator("a[href*='colab.research.google.com'] img")
    if nb_name != "index.ipynb":
        assert badge.count() >= 1, "no Colab badge"
    download = page.locator(f"a[href='{nb_name}'][download]")
    assert download.count() == 1, "no link to download the notebook"
    got = page.request.get(url.rsplit("/", 1)[0] + "/" + nb_name)
    assert got.ok and "cells" in got.json(), f"{nb_name} does not download"
    stem = Path(nb_name).stem
    page.screenshot(path=str(shots / f"{stem}.png"))
    panels = page.locator(f".{frames.STATIC_CLASS}")
    if re.search(r"\bPanel\(", code) and re.match(r"\d\d[a-z]*_", nb_name) and int(nb_name[:2]) < 90:
        assert panels.count() >= 1, "the lesson makes a Panel but the page shows no precomputed panel"
    if not panels.count(): return None
    return _move_first_control(page, panels.first, shots / f"{stem}-moved.png")


def _visible_src(panel):
    return panel.locator(f".{frames.FRAMES_CLASS} img").evaluate_all(
        "els => els.filter(e => e.offsetParent !== null).map(e => e.src.slice(-60)).join('|')")


def _move_first_control(page, panel, shot):
    "Move the panel's first slider (else its first dropdown); the picture must change. Returns what moved."
    panel.scroll_into_view_if_needed()
    before = _visible_src(panel)
    assert before, "the panel shows no picture"
    slider = panel.locator(".widget-slider").first
    if slider.count():
        readout = slider.locator(".widget-readout")
        label_before = readout.inner_text()
        handle = slider.locator(".noUi-handle").first
        track = slider.locator(".noUi-target").first
        hb, tb = handle.bounding_box(), track.bounding_box()
        x_to = tb["x"] + (0.85 if hb["x"] < tb["x"] + 0.5 * tb["width"] else 0.1) * tb["width"]
        page.mouse.move(hb["x"] + hb["width"] / 2, hb["y"] + hb["height"] / 2)
        page.mouse.down()
        page.mouse.move(x_to, hb["y"] + hb["height"] / 2, steps=8)
        page.mouse.up()
        what = f"slider {label_before} -> {readout.inner_text()}"
    else:
        select = panel.locator("select").first
        assert select.count(), "the panel has neither a slider nor a dropdown"
        options = select.locator("option").all_inner_texts()
        select.select_option(index=1 if select.evaluate("s => s.selectedIndex") != 1 else 0)
        what = f"dropdown {options[:2]}"
    deadline = time.time() + 10
    while _visible_src(panel) == before and time.time() < deadline: time.sleep(0.1)
    assert _visible_src(panel) != before, f"the picture did not change ({what})"
    page.screenshot(path=str(shot))
    return what
