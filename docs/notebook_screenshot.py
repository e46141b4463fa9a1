"""Make the README's notebook picture (resources/notebook.png): a real `%%jitlab` cell run in
a real kernel, its HTML output drawn by headless Chromium at 1000 px.

    .venv/bin/python docs/notebook_screenshot.py [OUT.png] [--lang zh]

Needs the test extra (nbclient, ipykernel) and Debian's chromium.
"""

from __future__ import annotations

import html
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "notebook"))

import nbrun  # noqa: E402  (the tests' kernel runner: one way to run a notebook)

CELLS = [
    "%load_ext jitlab",
    """%%jitlab{lang}
import jax, jax.numpy as jnp

@jax.jit
def loss(w, batch):
    return jnp.mean(jnp.tanh(batch @ w) ** 2)

w = jnp.ones((4, 1))
for n in [8, 5, 8, 12, 5, 16, 8]:
    loss(w, jnp.ones((n, 4)))""",
]

STYLE = """
body { margin: 0; padding: 14px; background: #fff; font: 14px sans-serif; width: 972px; }
.cell { display: flex; gap: 10px; margin-bottom: 8px; }
.prompt { width: 40px; color: #307fc1; font: 13px monospace; padding-top: 10px; }
.code { flex: 1; background: #f5f5f5; border: 1px solid #e0e0e0; border-radius: 3px;
        padding: 8px 10px; font: 13px monospace; white-space: pre; }
.out { flex: 1; }
"""


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    lang = " --lang zh" if "--lang" in sys.argv and "zh" in sys.argv else ""
    out = Path(args[0] if args else HERE.parent / "resources" / "notebook.png").resolve()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        nb = nbrun.execute([CELLS[0], CELLS[1].format(lang=lang)], folder)
        parts = []
        for number, cell in enumerate(nb.cells, 1):
            parts.append(
                f'<div class="cell"><div class="prompt">[{number}]:</div>'
                f'<div class="code">{html.escape(cell.source)}</div></div>'
            )
            for shown in nbrun.data(cell, "text/html"):
                output = f'<div class="out">{shown}</div>'
                parts.append(f'<div class="cell"><div class="prompt"></div>{output}</div>')
        page = folder / "page.html"
        page.write_text(
            f'<!DOCTYPE html><html><head><meta charset="utf-8"><style>{STYLE}</style></head>'
            f"<body>{''.join(parts)}</body></html>",
            encoding="utf-8",
        )
        subprocess.run(
            [
                "chromium",
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--no-first-run",
                f"--user-data-dir={folder / 'profile'}",
                "--hide-scrollbars",
                "--window-size=1000,1100",
                f"--screenshot={out}",
                page.as_uri(),
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )
    print(out)


if __name__ == "__main__":
    main()
