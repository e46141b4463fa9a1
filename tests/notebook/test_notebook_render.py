"""One renderer: the report page's body and a notebook's output are
:func:`jitlab.report.page.render_body`, on a recording of real jitted calls."""

from __future__ import annotations

import re

import jax
import jax.numpy as jnp
import pytest

import jitlab
from jitlab.notebook import render
from jitlab.recordings.reader import read_recording
from jitlab.report.page import CSS, render_body, render_report

EVIL = "<b>evil</b>"


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("render") / "run.jsonl"
    with jitlab.watch(path):
        step = jax.jit(lambda x: jnp.tanh(x).sum())
        for n in (8, 5, 8, 12):
            step(jnp.ones((n, 4)))

        def f(x):
            return x + 1

        f.__name__ = f.__qualname__ = EVIL
        jax.jit(f)(jnp.ones(2))
    return read_recording(path)[0]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_page_body_is_render_body(recording, lang: str):
    page = render_report([("run.jsonl", recording)], lang=lang)
    body = render_body([("run.jsonl", recording)], lang=lang)
    assert body in page
    assert f"<style>{CSS}</style>" in page
    assert 'id="run"' in body and 'class="overview"' in body and 'class="timeline"' in body
    assert EVIL not in body and "&lt;b&gt;evil&lt;/b&gt;" in body


def _unframed(html: str) -> str:
    """A notebook output without its frame: the ids as the report writes them."""
    html = re.sub(r'"(#?)jl\d+-', r'"\1', html)
    return html.replace('<h2 class="sub">', "<h2>")


def test_a_notebook_output_is_the_same_body_folded(recording):
    for lang in ("en", "zh"):
        shown = _unframed(render.file_recording_html(recording, lang))
        body = render_body([("run.jsonl", recording)], lang=lang, folded=True)
        assert body in shown
        assert body.count("<details") == body.count("<details open") + 1  # the first one open
        assert render_body([("run.jsonl", recording)], lang=lang, header=False) not in shown
        cell = _unframed(render.recording_body(recording, "cell", lang))
        assert cell == render_body([("cell", recording)], lang=lang, header=False, folded=True)
        assert 'id="run"' not in cell


def test_notes_are_plain_text(recording):
    body = render_body([("run.jsonl", recording)], notes=[EVIL], header=False)
    assert f'<p class="note">{EVIL}</p>' not in body
    assert '<p class="note">&lt;b&gt;evil&lt;/b&gt;</p>' in body


def test_the_notebook_scopes_the_page_style():
    assert render.CSS.startswith(render.scoped_css(CSS))
    assert "\nbody {" not in render.CSS and "@media" not in render.CSS


def test_no_recording_no_body():
    with pytest.raises(ValueError):
        render_body([])


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_script_s_figures_are_named_in_words_never_raw_keys(lang: str) -> None:
    """Issue 42: the notebook showed `top_level_equations`, `generated_code_bytes` even in
    Chinese. A real script (a tiny jit), its figures named as the app's script window does."""
    from jitlab.notebook.render import script_html, script_text
    from jitlab.probe.probe import Probe

    probe = Probe(jax.jit(lambda x: jnp.sin(x) * 2))
    probe(jnp.ones(4))
    script = probe.script(probe.ledger.cards[0])
    for shown in (script_html(script, lang), script_text(script, lang)):
        assert "top_level_equations" not in shown and "generated_code_bytes" not in shown
        assert ("顶层方程数" if lang == "zh" else "top-level equations") in shown


def _cells_each(lines: list[str]) -> set[int]:
    from rich.cells import cell_len

    return {cell_len(line) for line in lines}


def test_plain_text_tables_line_up_in_chinese(recording) -> None:
    """Issue 42: a Chinese header is twice as wide on a terminal as its characters count,
    so padding by ``len`` pushed every column out of line. Each table's rows end on the
    same cell (the columns after the first are right-aligned)."""
    from jitlab.notebook.render import script_text
    from jitlab.probe.probe import Probe

    text = render.recording_text(recording, "表", "zh")
    # the header and the two functions (what differed is indented under each)
    table = [line for line in text.splitlines()[1:] if not line.startswith(" ")][:3]
    assert table[0].startswith("函数"), text
    assert len(_cells_each(table)) == 1, text
    probe = Probe(jax.jit(lambda x: jnp.sin(x) * 2))
    probe(jnp.ones(4))
    figures = script_text(probe.script(probe.ledger.cards[0]), "zh").splitlines()[1:]
    assert len(figures) > 2 and len(_cells_each(figures)) == 1, figures
