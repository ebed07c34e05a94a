"""A real browser moves a real slider: Voila serves the first lesson on 127.0.0.1, Debian's
headless Chromium (driven by Playwright, no browser download) opens it, moves the first
slider, and the heatmap image must change. The test starts and stops the server itself."""
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from conftest import ROOT, in_ci, tool

LESSON = ROOT / "nbs" / "00_attention.ipynb"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]


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


@pytest.fixture
def voila_url(tmp_path):
    port = _free_port()
    log = open(tmp_path / "voila.log", "w")
    proc = subprocess.Popen([tool("voila"), str(LESSON), "--no-browser", f"--port={port}", "--Voila.ip=127.0.0.1",
                             "--show_tracebacks=True"], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.time() + 60
        while True:
            if proc.poll() is not None:
                pytest.fail(f"voila exited with {proc.returncode}:\n{(tmp_path / 'voila.log').read_text()[-3000:]}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=2).close()
                break
            except OSError:
                if time.time() > deadline:
                    pytest.fail(f"voila did not answer on {url}:\n{(tmp_path / 'voila.log').read_text()[-3000:]}")
                time.sleep(0.5)
        yield url
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try: proc.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL); proc.wait(5)
        log.close()
    assert proc.poll() is not None, "voila is still running"


def test_slider_changes_heatmap_in_headless_chromium(voila_url, tmp_path):
    chromium = _chromium()
    if chromium is None: _unavailable("Debian's chromium is not installed (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as e:
        _unavailable(f"playwright is not installed: {e}")
    with sync_playwright() as pw:
        try:
            browser = pw.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
        except Exception as e:
            _unavailable(f"headless chromium did not start: {e}")
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1000})
            page.goto(voila_url, wait_until="domcontentloaded", timeout=60_000)
            slider = page.locator(".widget-slider").first
            slider.wait_for(state="visible", timeout=120_000)
            panel = page.locator(".widget-vbox", has=page.locator(".widget-slider")).filter(has=page.locator("img")).first
            image = panel.locator("img").first
            image.wait_for(state="visible", timeout=30_000)
            src_before = image.get_attribute("src")
            shot_before = image.screenshot()
            page.screenshot(path=str(tmp_path / "before.png"), full_page=False)
            label_before = slider.locator(".widget-readout").first.inner_text()
            # Drag the first slider's handle to the right, as a reader would.
            handle = slider.locator(".noUi-handle, .ui-slider-handle").first
            track = slider.locator(".noUi-target, .ui-slider").first
            hb, tb = handle.bounding_box(), track.bounding_box()
            page.mouse.move(hb["x"] + hb["width"] / 2, hb["y"] + hb["height"] / 2)
            page.mouse.down()
            page.mouse.move(tb["x"] + 0.8 * tb["width"], hb["y"] + hb["height"] / 2, steps=8)
            page.mouse.up()
            deadline = time.time() + 30
            while image.get_attribute("src") == src_before and time.time() < deadline:
                time.sleep(0.2)
            label_after = slider.locator(".widget-readout").first.inner_text()
            assert label_after != label_before, f"the slider did not move ({label_before!r})"
            assert image.get_attribute("src") != src_before, "the image was not replaced after the slider moved"
            time.sleep(0.5)
            shot_after = image.screenshot()
            page.screenshot(path=str(tmp_path / "after.png"), full_page=False)
            assert shot_after != shot_before, "the heatmap looks the same after the slider moved"
        finally:
            browser.close()
