"""Rich display in a real kernel: a Probe, a watch recorder, a recording read from a file and
a Script show themselves as HTML (the report's renderer) and as text; every recorded string
escaped; the HTML opened in headless Chromium: no console message, nothing fetched, the SVG
drawn."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from nbrun import data, error, execute, text

sys.path.insert(0, str(Path(__file__).parents[1] / "report"))
from chromium import console_lines, needs_chromium, run_chromium

from jitlab.recordings.ledger import KIND_COLORS
from jitlab.records.calls import CallKind

pytestmark = pytest.mark.slow

EVIL = "<b>bold</b> & co"
SHOWN = "&lt;b&gt;bold&lt;/b&gt; &amp; co"

CELLS = [
    # 0: formatters are there after import alone (no %load_ext)
    f"""import jax, jax.numpy as jnp, jitlab, jitlab.notebook
def f(x):
    return jnp.sin(x) * 2 + 1
f.__name__ = f.__qualname__ = {EVIL!r}
probe = jitlab.Probe(f)
for n in [1, 2, 2, 3, 3, 3]:
    probe(jnp.ones(n))
print("cache", probe.function._cache_size())
probe""",
    # 1: the script of its first card
    "probe.script(0)",
    # 2: a watch recorder, and its file
    f"""def h(x):
    return jnp.cos(x).sum()
h.__name__ = h.__qualname__ = {EVIL!r}
with jitlab.watch("run.jsonl") as rec:
    g = jax.jit(h)
    for n in [4, 5, 5]:
        g(jnp.ones((n, 2)))
print("cache", g._cache_size())
rec""",
    # 3: the recording read back from the file
    """from jitlab.recordings.reader import read_recording
recording, _ = read_recording("run.jsonl")
recording""",
]


@pytest.fixture(scope="module")
def nb(tmp_path_factory: pytest.TempPathFactory):
    return execute(CELLS, tmp_path_factory.mktemp("display"))


def _result(cell) -> dict:
    assert error(cell) is None, error(cell)
    (result,) = [o for o in cell.outputs if o.output_type == "execute_result"]
    return result.data


def _escaped(html: str) -> None:
    assert SHOWN in html
    assert EVIL not in html and "<b>" not in html


def test_a_probe_shows_its_card_holder_ledger_and_timeline(nb):
    shown = _result(nb.cells[0])
    html, plain = shown["text/html"], shown["text/plain"]
    _escaped(html)
    assert 'class="cards"' in html and 'class="ledger"' in html and 'class="timeline"' in html
    cache = int(text(nb.cells[0]).split()[-1])
    assert html.count("<tr><td class=num>#") == cache  # one card per executable JAX holds
    # The text form, not Python's default repr: the counts, JAX's own cache size among them.
    assert "object at 0x" not in plain
    assert f"{EVIL}" in plain and "6 calls" in plain and f"{cache - 1} recompile" in plain


def test_a_script_shows_its_figures_and_jaxpr(nb):
    shown = _result(nb.cells[1])
    html = shown["text/html"]
    _escaped(html)
    assert 'class="figures"' in html and "jaxpr" in html and "sin" in html
    assert "\x1b" not in html  # JAX colours a jaxpr printed in a kernel: not shown as such
    assert "object at 0x" not in shown["text/plain"]
    assert "equations" in shown["text/plain"]


def test_a_recorder_and_its_file_show_the_same_function(nb):
    recorder = _result(nb.cells[2])
    recording = _result(nb.cells[3])
    for shown in (recorder, recording):
        _escaped(shown["text/html"])
        assert 'class="overview"' in shown["text/html"]
        assert SHOWN in shown["text/html"]
    # The file's header says what its start line says; both tables count the same.
    assert 'class="header"' in recording["text/html"]

    def row(plain: str) -> list[str]:
        (line,) = [x for x in plain.splitlines() if x.startswith(EVIL)]
        return line[len(EVIL) :].split()[:4]  # compiles, recompiles, hits, ms

    cache = int(text(nb.cells[2]).split()[-1])
    expected = [str(cache), str(cache - 1), str(3 - cache)]
    assert row(recorder["text/plain"])[:3] == row(recording["text/plain"])[:3] == expected


# -- in a browser ----------------------------------------------------------------------------
def _page(nb, folder: Path) -> Path:
    parts = []
    for cell in nb.cells:
        parts += data(cell, "text/html")
    page = folder / "outputs.html"
    page.write_text(
        '<!DOCTYPE html><html><head><meta charset="utf-8"></head>'
        '<body style="margin:0;padding:12px;background:#fff">'
        + "\n".join(parts)
        + "</body></html>",
        encoding="utf-8",
    )
    return page


def _fetched(tmp_path: Path, page: Path) -> tuple[set[str], str]:
    """What ``page`` asked the network for (the browser's own requests, to its vendor's
    services, are not the page's: they carry no file:// isolation key); and its DOM."""
    net = tmp_path / f"{page.stem}.net.json"
    done = run_chromium(
        tmp_path,
        "--enable-logging=stderr",
        "--v=0",
        f"--log-net-log={net}",
        "--dump-dom",
        page=page,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert console_lines(done.stderr) == [], console_lines(done.stderr)
    written = net.read_text(encoding="utf-8")
    try:
        log = json.loads(written)
    except ValueError:  # a log cut off when the browser quit: its events so far
        log = json.loads(written.rstrip().rstrip(",") + "]}")
    urls = set()
    for event in log["events"]:
        params = event.get("params", {})
        url, key = params.get("url"), str(params.get("network_isolation_key", ""))
        if isinstance(url, str) and key.startswith("file://") and url != page.resolve().as_uri():
            urls.add(url)
    return urls, done.stdout


@needs_chromium
def test_chromium_draws_the_outputs_without_console_messages_or_network(nb, tmp_path: Path):
    # The check can fail: a page that fetches is caught.
    control = tmp_path / "control.html"
    control.write_text('<!DOCTYPE html><p>x</p><img src="http://example.invalid/x.png">')
    assert _fetched(tmp_path, control)[0] == {"http://example.invalid/x.png"}

    urls, dom = _fetched(tmp_path, _page(nb, tmp_path))
    assert urls == set()
    assert SHOWN in dom and "<script" not in dom.lower()
    assert dom.count("<svg") >= 3  # the timelines of the probe, the recorder, the file


@needs_chromium
def test_chromium_screenshot_shows_the_svg(nb, tmp_path: Path):
    from PySide6.QtGui import QImage

    page = _page(nb, tmp_path)
    shot = tmp_path / "outputs.png"
    done = run_chromium(
        tmp_path, f"--screenshot={shot}", "--window-size=1000,3000", "--hide-scrollbars", page=page
    )
    assert shot.exists(), done.stderr[-2000:]
    image = QImage(str(shot)).convertToFormat(QImage.Format.Format_RGB32)
    pixels = np.frombuffer(bytes(image.constBits()), np.uint32) & 0xFFFFFF
    colours = dict(zip(*np.unique(pixels, return_counts=True), strict=True))

    def seen(hex_colour: str, at_least: int) -> bool:
        return colours.get(int(hex_colour.lstrip("#"), 16), 0) >= at_least

    # The timelines' bars, in the kinds' colours (3 px wide, at least 8 px high each).
    assert seen(KIND_COLORS[CallKind.COMPILE], 20)
    assert seen(KIND_COLORS[CallKind.RECOMPILE], 20)
    assert seen("#ffe3e6", 200)  # a highlighted ledger cell
    assert colours.get(0xFFFFFF, 0) > 0.4 * pixels.size
