#!/usr/bin/env bash
# Run every test: set up .venv if needed, then pytest (sync and clean checks, every notebook
# executed once by tools/execute_lessons.py from a copy outside the repository and its outputs
# inspected, a Colab-like virtual environment, Colab cells, the real-browser test of every panel).
# `tools/test.sh --slow` also runs the cells marked `#| slow`; RELPOS_TEST_COLAB=all runs every
# lesson in the Colab-like environment too.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$root/tools/setup.sh"
cd "$root"
if [ "${1:-}" = "--slow" ]; then export RELPOS_TEST_FLAGS="slow"; shift; fi
# Headless Chromium for the browser test: Debian's package, installed here when we are root.
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "[test] installing Debian's chromium for the browser test"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) ||
    echo "[test] could not install chromium; the browser test will say so" >&2
fi
exec "$root/.venv/bin/python" -m pytest tests "$@"
