#!/usr/bin/env bash
# Open the course: set up .venv if needed, then start JupyterLab on 127.0.0.1 at nbs/.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$root/tools/setup.sh"
cd "$root"
port="${PORT:-8888}"
args=(--no-browser --ip=127.0.0.1 --port="$port" --ServerApp.root_dir="$root/nbs")
[ "$(id -u)" = "0" ] && args+=(--allow-root)
echo "[lab] starting JupyterLab; open the URL printed below (it carries the access token)"
exec "$root/.venv/bin/jupyter" lab "${args[@]}" "$@"
