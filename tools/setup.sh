#!/usr/bin/env bash
# Set-up shared by tools/lab.sh and tools/test.sh: a local virtual environment in .venv
# with torch (CPU build on a machine without an NVIDIA GPU, never reinstalled when
# present) and this package installed editable with its development extras.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

pick_python() {
  for cand in ${PYTHON:-} python3.11 python3 python; do
    if command -v "$cand" >/dev/null 2>&1 &&
       "$cand" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 9) else 1)' 2>/dev/null; then
      echo "$cand"; return 0
    fi
  done
  echo "no Python >= 3.9 found; set PYTHON=/path/to/python3" >&2; return 1
}

if [ ! -x .venv/bin/python ]; then
  py=$(pick_python)
  echo "[setup] creating .venv with $($py --version 2>&1)"
  "$py" -m venv .venv
fi
vpy="$root/.venv/bin/python"
pip_q() { "$vpy" -m pip install --disable-pip-version-check -q "$@" 2> >(grep -v 'is ignored: it is neither a file nor a directory' >&2); }

# torch: keep whatever is installed; otherwise install a pinned version, and on a machine
# without an NVIDIA GPU make sure the resolution pulls no CUDA packages before downloading.
if ! "$vpy" -c 'import torch' >/dev/null 2>&1; then
  spec="${RELPOS_TORCH_SPEC:-torch==2.13.0}"
  extra=()
  if ! command -v nvidia-smi >/dev/null 2>&1; then
    report=$(mktemp)
    "$vpy" -m pip install --disable-pip-version-check -q --dry-run --ignore-installed --report "$report" "$spec" 2>/dev/null || true
    if grep -qi '"name": *"nvidia-' "$report"; then
      echo "[setup] $spec would pull CUDA packages on this CPU machine; using the CPU wheel index instead"
      extra=(--index-url "${RELPOS_TORCH_CPU_INDEX:-https://download.pytorch.org/whl/cpu}")
    fi
    rm -f "$report"
  fi
  echo "[setup] installing $spec ${extra[*]:-}"
  pip_q "${extra[@]}" "$spec"
fi

# The package (editable) with its extras; skipped when settings.ini and setup.py are unchanged.
stamp=.venv/.relpos-installed
want=$(cat settings.ini setup.py | sha256sum | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ] || ! "$vpy" -c 'import relpos_lessons' >/dev/null 2>&1; then
  echo "[setup] installing relpos_lessons (editable) with development extras"
  pip_q -e ".[dev]"
  echo "$want" > "$stamp"
fi
if "$vpy" -m pip list 2>/dev/null | grep -qi '^nvidia-' && ! command -v nvidia-smi >/dev/null 2>&1; then
  echo "[setup] warning: CUDA packages are installed in .venv on a machine without an NVIDIA GPU" >&2
fi
export PATH="$root/.venv/bin:$PATH"
