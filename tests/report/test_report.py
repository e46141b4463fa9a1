"""`jitlab report`: one HTML page from real recordings, checked as text and in a real browser.

The recordings are real: small jitted programs under ``jitlab.watch``, and a two-process
``jax.distributed`` job (``distributed.py``) whose processes diverge. The browser is Debian's
Chromium, headless; the tests that need it skip only when ``/usr/bin/chromium`` is absent.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jitlab
from jitlab.cli import main
from jitlab.recordings.buckets import suggest_buckets
from jitlab.recordings.ledger import KIND_COLORS, compiled_signatures, varying_dimensions
from jitlab.recordings.reader import read_recording
from jitlab.records.calls import CallKind
from jitlab.records.change_words import render

sys.path.insert(0, str(Path(__file__).parents[1] / "faults"))  # distributed.py
import distributed
from chromium import console_lines, needs_chromium, run_chromium

pytestmark = pytest.mark.slow

EVIL = "<script>alert(1)</script>"
BATCHES = [8, 5, 8, 12, 5, 16, 12, 3, 16, 8, 24]  # a batch-size jitter: recompiles


def loss(w, batch):
    return jnp.mean(jnp.tanh(batch @ w) ** 2)


def scale(x, k):
    return x * k


def _evil():
    def f(x):
        return x + 1

    f.__name__ = f.__qualname__ = EVIL
    return f


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("report") / "run.jsonl"
    jax.clear_caches()  # as a fresh process would start
    with jitlab.watch(path):
        step = jax.jit(loss)
        w = jnp.ones((4,), jnp.float32)
        for n in BATCHES:
            step(w, jnp.ones((n, 4), jnp.float32))
        scaled = jax.jit(scale, static_argnums=1)
        for k in (2, 3, 3):
            scaled(jnp.ones(3), k)
        jax.jit(_evil())(jnp.ones(2))
    return path


@pytest.fixture(scope="module")
def job(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """A real two-process job; process 1 preprocesses a short batch once (a divergence)."""
    out = tmp_path_factory.mktemp("job") / "run.jsonl"
    distributed.run_job(out, processes=2)
    return [out.with_name("run.p0.jsonl"), out.with_name("run.p1.jsonl")]


def _report(*args: str | Path) -> str:
    out = Path(args[-1])
    assert main(["report", *map(str, args[:-1]), "-o", str(out)]) == 0
    return out.read_text(encoding="utf-8")


class _Tables(HTMLParser):
    """Each table's rows as cell texts, and which cells are marked as changed."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[dict] = []
        self._cell: list[str] | None = None
        self._classes: str = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "table":
            self.tables.append({"class": a.get("class") or "", "rows": [], "changed": []})
        elif tag == "tr" and self.tables:
            self.tables[-1]["rows"].append([])
            self.tables[-1]["changed"].append([])
        elif tag in ("td", "th") and self.tables:
            self._cell, self._classes = [], a.get("class") or ""
        elif tag == "br" and self._cell is not None:
            self._cell.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            table = self.tables[-1]
            text = "".join(self._cell).strip()
            table["rows"][-1].append(text)
            if "changed" in self._classes.split():
                table["changed"][-1].append(len(table["rows"][-1]) - 1)
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def _tables(page: str, kind: str) -> list[dict]:
    parser = _Tables()
    parser.feed(page)
    return [t for t in parser.tables if kind in t["class"].split()]


# -- the page, as text -----------------------------------------------------------------------
def test_the_page_holds_header_ledger_reasons_and_buckets(recording: Path, tmp_path: Path):
    page = _report(recording, tmp_path / "report.html")
    run, _ = read_recording(recording)
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    # Self-contained: no script, nothing fetched.
    assert "<script" not in page.lower()
    assert not re.search(r"""(src|href)=["'](https?:)?//""", page)
    (header,) = _tables(page, "header")
    fields = {row[0]: row[1:] for row in header["rows"][1:]}
    assert fields["JAX"] == [jax.__version__]
    assert fields["host"] == [run.start.host]
    assert fields["backend"] == ["not recorded"]  # the recording does not say: we say so
    assert fields["ended"] == ["yes"]
    # The functions, most time lost first; the one named like markup is only text.
    (overview,) = _tables(page, "overview")
    names = [row[0].split("\n")[0] for row in overview["rows"][1:]]
    assert set(names) >= {"loss", "scale", EVIL}
    # The ledger of `loss`: one row per compile, the batch cell changed on every recompile.
    ledgers = _tables(page, "ledger")
    loss_ledger = next(t for t in ledgers if "batch" in t["rows"][0])
    compiles = [c for c in run.calls if c.record.function == "loss" and c.record.kind.compiled]
    assert len(loss_ledger["rows"]) - 1 == len(compiles) == len(set(BATCHES))
    batch_column = loss_ledger["rows"][0].index("batch")
    assert [r[batch_column] for r in loss_ledger["rows"][1:]] == [
        f"f32[{n},4]" for n in dict.fromkeys(BATCHES)
    ]
    assert loss_ledger["changed"][1] == []  # the first compile has nothing to differ from
    assert all(changed == [batch_column] for changed in loss_ledger["changed"][2:])
    # Its reasons in English, as jitlab.records.change_words renders them.
    for call in compiles[1:]:
        for change in call.record.reason.items:
            assert _escaped(render(change, "en")) in page
    assert "shape of batch</strong> — 5 times" in page  # 6 sizes
    # The static column of `scale` is marked where k changed.
    scale_ledger = next(t for t in ledgers if "k (static)" in t["rows"][0])
    k_column = scale_ledger["rows"][0].index("k (static)")
    assert scale_ledger["changed"][2] == [k_column]
    # The bucket suggestion: suggest_buckets over the batch sizes, and code padding to them.
    dim = varying_dimensions(compiled_signatures(compiles))[0]
    assert dim.axes == (("batch", 0),)
    buckets = suggest_buckets(dim.distinct, 2)  # 6 sizes: a third of them
    assert f"BUCKETS = ({', '.join(map(str, buckets))})" in page
    assert "batch = pad_to(batch, size, axis=0)" in page
    # Time lost compiling, as the summary reckons it: in seconds from 1000 ms on, which six
    # real compiles can reach on a loaded machine.
    total = sum(c.record.trace_ms + c.record.lower_ms + c.record.compile_ms for c in compiles)
    shown = f"{total / 1000:.2f} s" if total >= 1000 else f"{total:.0f} ms"
    assert any(shown in " ".join(row) for row in overview["rows"]), (shown, overview["rows"])


def _escaped(text: str) -> str:
    from html import escape

    return escape(text, quote=True)


def _svg_text_room(page: str) -> list[tuple[str, float, float]]:
    """Each drawing's (class, its height, the lowest text baseline plus that text's descent)."""
    font_px = float(re.search(r"svg text \{ ?font: (\d+)px", page).group(1))
    # Descenders (g, p, y) and CJK glyphs reach up to ~0.3 em under the baseline in the fonts
    # a browser picks (DejaVu Sans 0.24, Noto Sans CJK 0.12-0.29).
    descent = 0.3 * font_px
    found = []
    for svg in re.finditer(
        r'<svg class="(\w+)" viewBox="0 0 [\d.]+ ([\d.]+)"(.*?)</svg>', page, re.S
    ):
        baselines = [float(y) for y in re.findall(r'<text [^>]*\by="([\d.]+)"', svg.group(3))]
        found.append((svg.group(1), float(svg.group(2)), max(baselines) + descent))
    return found


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_drawing_cuts_its_lowest_text(recording: Path, job, tmp_path: Path, lang: str):
    """The timeline's caption (its lowest line) and every other text of a drawing keep their
    descenders inside the SVG (they were cut at its bottom edge), on one lane and on two."""
    from jitlab.notebook.render import CSS as NOTEBOOK_CSS
    from jitlab.notebook.render import live_svg
    from jitlab.report.page import render_report

    drawn = {}
    for sources in ([recording], job):
        page = render_report([(str(p), read_recording(p)[0]) for p in sources], lang=lang)
        for kind, height, lowest in _svg_text_room(page):
            drawn.setdefault(kind, []).append((height, lowest))
            assert lowest <= height, (kind, lowest, height)
    assert len(drawn["timeline"]) >= 4 and drawn["histogram"]
    assert {h for h, _ in drawn["timeline"]} == {114, 178}  # one lane, two lanes
    # The notebook's live chart, styled by the same rule.
    calls = read_recording(recording)[0].calls
    live = live_svg([(0.5, 10.0)], calls, 2.0, 60.0, lang)
    (kind, height, lowest), *_ = _svg_text_room(f"<style>{NOTEBOOK_CSS}</style>{live}")
    assert kind == "live" and lowest <= height


def test_every_recorded_string_is_escaped(recording: Path, tmp_path: Path):
    page = _report(recording, tmp_path / "report.html")
    assert EVIL not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    # Hostile texts in every other field a recording carries: argv, host, paths, reasons.
    lines = recording.read_text(encoding="utf-8")
    hostile = (
        lines.replace('"host": "', '"host": "<img src=x onerror=alert(2)>')
        .replace('"defined_at": "', '"defined_at": "<b>x</b>')
        .replace('"argv": [', '"argv": ["<iframe>", ')
        .replace('"called_from": "', '"called_from": "\\"><svg onload=alert(3)>')
    )
    bad = tmp_path / "hostile.jsonl"
    bad.write_text(hostile, encoding="utf-8")
    page = _report(bad, tmp_path / "hostile.html")
    for tag in ("<img", "<iframe", "<b>x", "<svg onload", "<script"):
        assert tag not in page
    assert "&lt;img src=x onerror=alert(2)&gt;" in page


def test_a_cut_off_recording_without_its_start_line_says_what_is_missing(
    recording: Path, tmp_path: Path
):
    lines = recording.read_text(encoding="utf-8").splitlines(keepends=True)
    cut = tmp_path / "cut.jsonl"
    body = [line for line in lines if '"type": "start"' not in line]
    cut.write_text("".join(body[:-2]) + body[-2][:20], encoding="utf-8")  # killed mid-line
    page = _report(cut, tmp_path / "cut.html")
    (header,) = _tables(page, "header")
    fields = {row[0]: row[1:] for row in header["rows"][1:]}
    assert fields["JAX"] == fields["program"] == fields["started"] == ["not recorded"]
    assert fields["ended"][0].startswith("no") and "cut off" in fields["ended"][0]


def test_dash_writes_the_page_to_stdout(recording: Path, capsys):
    assert main(["report", str(recording), "-o", "-"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("<!DOCTYPE html>") and "Signature ledger" in out


@pytest.mark.parametrize("case", ["missing", "folder", "not a recording", "unwritable", "out dir"])
def test_bad_input_is_one_line_and_status_2(case: str, recording: Path, tmp_path: Path, capsys):
    source, out = str(recording), str(tmp_path / "r.html")
    if case == "missing":
        source = str(tmp_path / "nope.jsonl")
    elif case == "folder":
        source = str(tmp_path)
    elif case == "not a recording":
        (tmp_path / "notes.txt").write_text("hello\nworld\n")
        source = str(tmp_path / "notes.txt")
    elif case == "unwritable":
        out = str(tmp_path / "no" / "such" / "folder" / "r.html")
    else:
        out = str(tmp_path)
    with pytest.raises(SystemExit) as exit_info:
        main(["report", source, "-o", out])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("jitlab: error: report:")


def test_the_report_needs_no_jax(recording: Path, tmp_path: Path):
    code = (
        "import sys; from jitlab.cli import main; "
        f"rc = main(['report', {str(recording)!r}, '-o', {str(tmp_path / 'r.html')!r}]); "
        "print('JAX:', 'jax' in sys.modules, 'Qt:', 'PySide6' in sys.modules); sys.exit(rc)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "JAX: False Qt: False" in done.stdout


def test_a_job_gets_its_divergence_table_and_one_lane_per_process(job, tmp_path: Path):
    page = _report(*job, tmp_path / "job.html")
    (divergence,) = _tables(page, "divergence")
    rows = divergence["rows"][1:]
    assert len(rows) == 1
    function, having, others, what, differing = rows[0][:5]
    assert function.startswith("preprocess") and (having, others) == ("1", "0")
    assert "f32[7,8]" in what and "f32[8,8] → f32[7,8]" in differing
    assert ">process 0</text>" in page and ">process 1</text>" in page  # timeline lanes
    (header,) = _tables(page, "header")
    assert header["rows"][0][1:] == ["process 0", "process 1"]
    fields = {row[0]: row[1:] for row in header["rows"][1:]}
    assert fields["devices"] == ["1 on this process, 2 in the job"] * 2


# -- the page, in a real browser -------------------------------------------------------------
@needs_chromium
def test_chromium_renders_the_page_without_console_messages(recording: Path, tmp_path: Path):
    page = tmp_path / "report.html"
    _report(recording, page)
    # The check can fail: a page that logs an error is caught.
    control = tmp_path / "control.html"
    control.write_text('<!DOCTYPE html><p>x</p><script>console.error("boom")</script>')
    logged = run_chromium(tmp_path, "--enable-logging=stderr", "--v=0", "--dump-dom", page=control)
    assert any("boom" in line for line in console_lines(logged.stderr)), logged.stderr[-2000:]

    done = run_chromium(tmp_path, "--enable-logging=stderr", "--v=0", "--dump-dom", page=page)
    assert done.returncode == 0, done.stderr[-2000:]
    assert console_lines(done.stderr) == []
    dom = done.stdout
    assert "Signature ledger" in dom and 'class="timeline"' in dom
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in dom  # text, not an element
    assert "<script" not in dom.lower()


@needs_chromium
def test_chromium_screenshot_shows_the_timeline_ledger_and_buckets(
    recording: Path, job, tmp_path: Path
):
    from PySide6.QtGui import QImage

    # The job's page is taller: which function comes first (the costliest) varies from run
    # to run, and the one that recompiled may sit below the first 2000 px. Both pages rank
    # their call sites above the functions.
    for name, sources, height in (("single", [recording], 2600), ("job", job, 4600)):
        page = tmp_path / f"{name}.html"
        _report(*sources, page)
        shot = tmp_path / f"{name}.png"
        done = run_chromium(
            tmp_path,
            f"--screenshot={shot}",
            f"--window-size=1280,{height}",
            "--hide-scrollbars",
            page=page,
        )
        assert shot.exists(), done.stderr[-2000:]
        if shots := os.environ.get("JITLAB_REPORT_SHOTS"):  # to look at them
            shutil.copy(shot, Path(shots) / shot.name)
        image = QImage(str(shot)).convertToFormat(QImage.Format.Format_RGB32)
        assert (image.width(), image.height()) == (1280, height)
        pixels = np.frombuffer(bytes(image.constBits()), np.uint32) & 0xFFFFFF
        colours = dict(zip(*np.unique(pixels, return_counts=True), strict=True))
        assert len(colours) > 20, f"{name}: a nearly blank screenshot"

        def seen(hex_colour: str, at_least: int = 40, colours: dict = colours) -> bool:
            return colours.get(int(hex_colour.lstrip("#"), 16), 0) >= at_least

        # Timeline marks in the kinds' colours, the ledger's highlighted cells, bucket bars.
        assert seen(KIND_COLORS[CallKind.COMPILE]), name
        # A recompile's mark is at least 3 × 8 px, however cheap it was.
        assert seen(KIND_COLORS[CallKind.RECOMPILE], 20), name
        assert seen("#ffe3e6", 200), f"{name}: no highlighted ledger cell"
        if name == "single":  # the job's first bucket chart is below the fold
            assert seen(KIND_COLORS[CallKind.CACHE_HIT]), f"{name}: no bucket bar"
        else:  # the divergence warning, in red text
            assert seen("#b4232f"), f"{name}: no divergence warning"
        # The page is white: the background dominates, nothing dark.
        white = colours.get(0xFFFFFF, 0)
        assert white > 0.5 * pixels.size


@needs_chromium
def test_chromium_prints_it_to_pdf(recording: Path, tmp_path: Path):
    page = tmp_path / "report.html"
    _report(recording, page)
    pdf = tmp_path / "report.pdf"
    done = run_chromium(tmp_path, f"--print-to-pdf={pdf}", "--no-pdf-header-footer", page=page)
    assert pdf.exists(), done.stderr[-2000:]
    data = pdf.read_bytes()
    assert data.startswith(b"%PDF") and len(data) > 10_000
    assert len(re.findall(rb"/Type\s*/Page[^s]", data)) >= 1


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_sizes_already_in_power_of_two_buckets_get_no_padding_advice(tmp_path: Path, lang: str):
    """Code that already pads to buckets (dynamic-shapes' fix: 8, 16, 32) is told so, never
    advised to pad again (issue 42: the lesson notebook's fix cell proposed bucket padding)."""
    path = tmp_path / "fixed.jsonl"
    jax.clear_caches()
    with jitlab.watch(path):
        step = jax.jit(loss)
        w = jnp.ones((4,), jnp.float32)
        for n in (8, 8, 16, 8, 32, 8):
            step(w, jnp.ones((n, 4), jnp.float32))
    from jitlab.report.page import render_report

    page = render_report([("fixed.jsonl", read_recording(path)[0])], lang=lang)
    assert "BUCKETS = (" not in page and "pad_to(" not in page
    said = "already buckets, one compile per bucket" if lang == "en" else "这本身就是分桶"
    assert said in page


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_last_partial_batch_is_advised_even_in_powers_of_two(tmp_path: Path, lang: str):
    """Batches of 32, then 4 (100 rows): both powers of two, but not buckets: the advice pads
    the last batch up to 32 (or drops it), never "already buckets" (issue 54)."""
    path = tmp_path / "epochs.jsonl"
    jax.clear_caches()
    with jitlab.watch(path):
        step = jax.jit(loss)
        w = jnp.ones((4,), jnp.float32)
        for _epoch in range(2):
            for start in range(0, 100, 32):  # 32, 32, 32, 4
                step(w, jnp.ones((min(32, 100 - start), 4), jnp.float32))
    from jitlab.report.page import render_report

    page = render_report([("epochs.jsonl", read_recording(path)[0])], lang=lang)
    assert "already buckets" not in page and "这本身就是分桶" not in page
    said = "a last partial batch" if lang == "en" else "最后一批不满"
    assert said in page and "BUCKETS = (32,)" in page and "drop_last" in page
