"""The README's "open the course" command starts JupyterLab on 127.0.0.1 and prints its URL;
the package works from plain Python (no Jupyter, no pyplot); relpos-bench is installed."""
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request

from conftest import ROOT, tool


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_lab_command_starts_jupyterlab_and_prints_the_url(tmp_path):
    port = _free_port()
    log = tmp_path / "lab.log"
    with open(log, "w") as f:
        proc = subprocess.Popen(["bash", str(ROOT / "tools/lab.sh")], cwd=ROOT, stdout=f, stderr=subprocess.STDOUT,
                                env={**os.environ, "PORT": str(port)}, start_new_session=True)
    try:
        pattern = re.compile(rf"http://127\.0\.0\.1:{port}/lab\?token=\w+")
        deadline, url = time.time() + 120, None
        while url is None and time.time() < deadline and proc.poll() is None:
            m = pattern.search(log.read_text())
            url = m.group(0) if m else None
            time.sleep(0.5)
        assert url, f"no JupyterLab URL printed:\n{log.read_text()[-3000:]}"
        with urllib.request.urlopen(url, timeout=30) as r:
            assert r.status == 200 and b"JupyterLab" in r.read()
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try: proc.wait(20)
        except subprocess.TimeoutExpired: os.killpg(proc.pid, signal.SIGKILL)


def test_renderer_returns_a_figure_in_plain_python_without_pyplot():
    code = ("import sys, torch; from relpos_lessons.viz import heatmap_figure, figure_png; "
            "from matplotlib.figure import Figure; f = heatmap_figure(torch.randn(2, 5, 5)); "
            "assert isinstance(f, Figure); assert figure_png(f)[:4] == b'\\x89PNG'; "
            "assert 'matplotlib.pyplot' not in sys.modules; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd="/")
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def test_bench_command_lists_the_cases():
    out = subprocess.run([tool("relpos-bench"), "--list"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "viz/slider-to-png 128x128" in out.stdout
