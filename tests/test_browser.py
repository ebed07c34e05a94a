"""A real browser moves every panel of every lesson: Voila serves the lessons on 127.0.0.1 from a copy outside
the repository (cells flagged `#| slow` / `#| notest` removed, as the tests skip them, and the cells tagged
`check-only`: assertions that display nothing, already run by the lesson run; see CHECK_ONLY), Debian's headless Chromium
(driven by Playwright, no browser download) opens each lesson, moves each panel's first control as a reader would,
and that panel's picture must change. No page may show a figure as text (`<Figure ...>`), and no picture may be
displayed larger than its natural size. The test starts and stops the server itself."""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from conftest import ONE_THREAD, ROOT, in_ci, tool

sys.path.insert(0, str(ROOT / "tools"))
from execute_lessons import settings, skipped  # noqa: E402  the same skipping rule as the test run

from relpos_lessons.panel_bench import PANELS  # every lesson's panels, by variable name

# RELPOS_BROWSER_LESSONS=00_attention,04_skew limits the test to some lessons while you work on them
_ONLY = [x for x in os.environ.get("RELPOS_BROWSER_LESSONS", "").split(",") if x]
LESSONS = sorted(n for n in PANELS if not _ONLY or any(n.startswith(o) for o in _ONLY))
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]
PAGE_TIMEOUT_S = 150  # Voila executes the whole lesson before the last panel appears (the slowest takes ~45 s under load)
FIRST_TRY_S = 90  # after this long without every panel, the page is loaded once more (then PAGE_TIMEOUT_S)


def _chromium():
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path: return path
    return None


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _unavailable(why):
    if in_ci(): pytest.fail(f"browser test cannot run under CI: {why}")
    pytest.skip(why)


CHECK_ONLY = "check-only"  # cell tag: an expensive check (torch.compile, a training run) that displays no picture or widget;
# the lesson run executes it and tests/test_display.py checks that it shows nothing, so Voila need not run it again


def _voila_copy(folder: Path):
    "Copy the lessons into `folder` without the cells the tests skip (slow cells must not run in Voila) or check-only cells."
    flags = settings().get("tst_flags", "").split()
    for name in LESSONS:
        nb = json.loads((ROOT / "nbs" / name).read_text())
        nb["cells"] = [c for c in nb["cells"] if not (c["cell_type"] == "code" and (
            skipped("".join(c["source"]), set(flags), set()) or CHECK_ONLY in c.get("metadata", {}).get("tags", [])))]
        (folder / name).write_text(json.dumps(nb))


@pytest.fixture(scope="module")
def voila_base(tmp_path_factory):
    folder = Path(tempfile.mkdtemp(prefix="relpos-voila-"))  # outside the repository
    _voila_copy(folder)
    logdir = tmp_path_factory.mktemp("voila")
    port = _free_port()
    log = open(logdir / "voila.log", "w")
    proc = subprocess.Popen([tool("voila"), str(folder), "--no-browser", f"--port={port}", "--Voila.ip=127.0.0.1",
                             "--show_tracebacks=True"], cwd=folder, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True, env={**os.environ, **ONE_THREAD})
    url = f"http://127.0.0.1:{port}/voila/render/"
    try:
        deadline = time.time() + 60
        while True:
            if proc.poll() is not None:
                pytest.fail(f"voila exited with {proc.returncode}:\n{(logdir / 'voila.log').read_text()[-3000:]}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=2).close()
                break
            except OSError:
                if time.time() > deadline:
                    pytest.fail(f"voila did not answer on {url}:\n{(logdir / 'voila.log').read_text()[-3000:]}")
                time.sleep(0.5)
        yield url
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try: proc.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL); proc.wait(5)
        log.close()
        shutil.rmtree(folder, ignore_errors=True)
    assert proc.poll() is not None, "voila is still running"


@pytest.fixture(scope="module")
def browser():
    chromium = _chromium()
    if chromium is None: _unavailable("Debian's chromium is not installed (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as e:
        _unavailable(f"playwright is not installed: {e}")
    with sync_playwright() as pw:
        try:
            b = pw.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
        except Exception as e:
            _unavailable(f"headless chromium did not start: {e}")
        try: yield b
        finally:
            _PAGES.clear()
            b.close()


# A panel is a VBox holding control rows, a message and its picture (see relpos_lessons.viz.Panel).
PANEL = ".widget-vbox:has(> .widget-image)"


def _move_first_control(page, panel):
    "Move the panel's first control as a reader would; return a description of what was done."
    control = panel.locator(".widget-hbox").first.locator(":scope > *").first
    cls = control.get_attribute("class") or ""
    if "widget-slider" in cls:
        handle = control.locator(".noUi-handle, .ui-slider-handle").first
        track = control.locator(".noUi-target, .ui-slider").first
        hb, tb = handle.bounding_box(), track.bounding_box()
        here = (hb["x"] + hb["width"] / 2 - tb["x"]) / tb["width"]
        to = 0.25 if here > 0.6 else 0.8  # drag well away from where it is
        page.mouse.move(hb["x"] + hb["width"] / 2, hb["y"] + hb["height"] / 2)
        page.mouse.down()
        page.mouse.move(tb["x"] + to * tb["width"], hb["y"] + hb["height"] / 2, steps=8)
        page.mouse.up()
        return f"dragged slider to {to:.0%}"
    select = control.locator("select").first
    if select.count():
        options = select.locator("option").all_inner_texts()
        multiple = select.get_attribute("multiple") is not None
        current = select.evaluate("s => Array.from(s.selectedOptions).map(o => o.textContent)")
        choice = next(o for o in options if o not in current) if not multiple else options[-1:]
        select.select_option(label=choice)
        return f"selected {choice!r}"
    box = control.locator("input[type=checkbox]").first
    if box.count():
        box.click()
        return "clicked checkbox"
    raise AssertionError(f"unknown first control (class {cls!r})")


def _oversized_images(page):
    "Pictures displayed larger than their natural size: [(natural width, displayed width)]."
    return page.evaluate("""() => Array.from(document.images)
        .filter(i => i.complete && i.naturalWidth > 0 && i.getBoundingClientRect().width > i.naturalWidth + 1)
        .map(i => [i.naturalWidth, Math.round(i.getBoundingClientRect().width)])""")


_PAGES = {}


def _open(browser, base, lesson):
    "The page of `lesson`, opened now (returns as soon as Voila starts answering) or earlier by the previous test."
    if lesson not in _PAGES:
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        page.goto(base + lesson, wait_until="commit", timeout=60_000)
        _PAGES[lesson] = page
    return _PAGES[lesson]


@pytest.mark.parametrize("lesson", LESSONS)
def test_every_panel_answers_in_headless_chromium(lesson, voila_base, browser, tmp_path):
    expected = len(PANELS[lesson])
    page = _open(browser, voila_base, lesson)
    nxt = LESSONS.index(lesson) + 1
    if nxt < len(LESSONS): _open(browser, voila_base, LESSONS[nxt])  # Voila runs the next lesson meanwhile
    page.bring_to_front()  # the page under test is the active tab (background tabs may be throttled)
    try:
        panels = page.locator(PANEL)
        for attempt in (1, 2):  # a page whose widgets did not all render (seen twice, under load) is loaded once more
            deadline = time.time() + (FIRST_TRY_S if attempt == 1 else PAGE_TIMEOUT_S)
            while panels.count() < expected and time.time() < deadline:
                if page.locator("text=Traceback").count() or page.locator(".jp-RenderedText[data-mime-type='application/vnd.jupyter.stderr']").count() > 50:
                    break
                time.sleep(0.5)
            if panels.count() >= expected or page.locator("text=Traceback").count() or attempt == 2: break
            outs = page.evaluate("() => Array.from(document.querySelectorAll('.jupyter-widgets')).map(e => (e.innerText || e.className).slice(0, 100))")
            print(f"{lesson}: {panels.count()} of {expected} panels after {FIRST_TRY_S} s (widget outputs: {outs}); loading the page again")
            page.goto(voila_base + lesson, wait_until="commit", timeout=60_000)
        if panels.count() < expected:
            page.screenshot(path=str(tmp_path / "page.png"), full_page=True)
            body = page.inner_text("body")[-3000:]
            pytest.fail(f"{lesson}: {panels.count()} of {expected} panels appeared in {PAGE_TIMEOUT_S} s; page ends with:\n{body}")
        # Voila may still be running the cells after the last panel; widget messages wait for the kernel
        for k in range(expected):
            panel = panels.nth(k)
            panel.scroll_into_view_if_needed()
            image = panel.locator(":scope > .widget-image").first
            image.wait_for(state="visible", timeout=30_000)
            src_before, shot_before = image.get_attribute("src"), image.screenshot()
            what = _move_first_control(page, panel)
            deadline = time.time() + 60
            while image.get_attribute("src") == src_before and time.time() < deadline:
                time.sleep(0.2)
            assert image.get_attribute("src") != src_before, f"{lesson} panel {k}: the picture did not change after {what}"
            time.sleep(0.3)
            assert image.screenshot() != shot_before, f"{lesson} panel {k}: the picture looks the same after {what}"
            print(f"{lesson} panel {k} ({PANELS[lesson][k]}): {what}; picture changed")
        html = page.content()
        assert not re.search(r"&lt;(\w*)Figure size|<Figure size", html), f"{lesson}: a figure is shown as text"
        assert "Traceback" not in page.inner_text("body"), f"{lesson}: the page shows an error"
        big = _oversized_images(page)
        assert not big, f"{lesson}: pictures displayed larger than their natural size (natural, shown): {big}"
    finally:
        _PAGES.pop(lesson, None)
        page.close()
