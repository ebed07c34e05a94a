"""Build README.md from nbs/index.ipynb (Quarto, which nbdev_readme needs, is not available).

Usage: python tools/build_readme.py [--check]
The README is the index notebook's markdown cells, with lesson links made relative to the
repository root. --check exits 1 if README.md differs from what would be written."""
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEADER = "<!-- Generated from nbs/index.ipynb by tools/build_readme.py: edit the notebook, then run the script. -->\n\n"


def build() -> str:
    nb = json.loads((ROOT / "nbs" / "index.ipynb").read_text(encoding="utf-8"))
    parts = []
    for cell in nb["cells"]:
        if cell["cell_type"] != "markdown": continue
        src = "".join(cell["source"])
        src = re.sub(r"\]\((?!https?:|#|nbs/)([^)]+\.ipynb)\)", r"](nbs/\1)", src)  # lesson links from the repo root
        parts.append(src.strip())
    return HEADER + "\n\n".join(parts) + "\n"


if __name__ == "__main__":
    text = build()
    readme = ROOT / "README.md"
    if "--check" in sys.argv:
        ok = readme.exists() and readme.read_text(encoding="utf-8") == text
        print("README.md is up to date" if ok else "README.md differs from nbs/index.ipynb: run python tools/build_readme.py")
        sys.exit(0 if ok else 1)
    readme.write_text(text, encoding="utf-8")
    print(f"wrote {readme}")
