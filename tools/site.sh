#!/usr/bin/env bash
# Build the course website into _site/: static pages that work with no network, sliders included.
#   bash tools/site.sh                  execute every lesson (slow cells skipped), then build _site/
#   bash tools/site.sh --executed DIR   build from notebooks tools/execute_lessons.py already executed
#                                       (they must have run with IPYTHONDIR from tools/site/frames.py)
#   --out DIR                           write the site there instead of _site/
# Then open _site/index.html, or serve it: .venv/bin/python -m http.server -d _site -b 127.0.0.1 8000
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$root/tools/setup.sh"
cd "$root"
py="$root/.venv/bin/python"
t0=$SECONDS
work="$(mktemp -d "${TMPDIR:-/tmp}/relpos-site-XXXXXX")"
trap 'rm -rf "$work"' EXIT
executed="" out="$root/_site"
while [ $# -gt 0 ]; do
  case "$1" in
    --executed) executed="$(cd "$2" && pwd)"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) echo "usage: bash tools/site.sh [--executed DIR] [--out DIR]" >&2; exit 2 ;;
  esac
done
if [ -z "$executed" ]; then
  # Panels display as precomputed frames: the kernels load tools/site/frames.py at start-up.
  "$py" tools/site/frames.py "$work/ipython" >/dev/null
  IPYTHONDIR="$work/ipython" "$py" tools/execute_lessons.py --out "$work/executed" ${RELPOS_TEST_FLAGS:+--flags "$RELPOS_TEST_FLAGS"}
  executed="$work/executed"
fi
"$py" tools/site/build.py --executed "$executed" --out "$out"
echo "[site] done in $((SECONDS - t0)) s: open $out/index.html, or serve it: $py -m http.server -d $out -b 127.0.0.1 8000"
