"""The terminal summary (``jitlab watch``) and the recording window (``jitlab open``) agree
on every count of every function of a real recorded program."""

from __future__ import annotations

import re
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest

import jitlab
from jitlab.cli.watch import print_watch_summary
from jitlab.gui.recording.window import open_recording_window


def _warm(x):
    return jnp.sin(x) * 2


def _record(path: Path) -> None:
    """Several kinds of function: probed, jitted before the watch, factory-made, erroring,
    and JAX's own eager-op kernels."""
    jax.clear_caches()  # eager kernels an earlier test compiled would otherwise be hits
    warm = jax.jit(_warm)  # jitted before the watch: seen through JAX's events only
    with jitlab.watch(path, include_internal=True):

        @jax.jit
        def step(w, x):
            return w - 0.1 * (x @ w).sum()

        def make(k):
            def scaled(x):
                return x * k

            return jax.jit(scaled)  # a new function object per call

        @jax.jit
        def broken(x):
            return x.reshape(7)

        w = jnp.zeros(4)
        for n in (8, 8, 8, 3, 8):
            w = step(w, jnp.ones((n, 4)))
        for k in (1.0, 2.0, 3.0):
            fn = make(k)
            fn(jnp.ones(3))
            fn(jnp.ones(3))
        warm(jnp.ones(5))
        warm(jnp.ones(6))
        with pytest.raises(TypeError):
            broken(jnp.ones(4))
        jnp.log(jnp.ones(5) + 2.0).block_until_ready()  # eager ops: JAX's own kernels
        jnp.exp(jnp.arange(7.0)).block_until_ready()


def _cli_rows(text: str) -> dict[str, tuple[int, int, int | None, str]]:
    """The rich table printed by ``jitlab watch``: function -> (compiles, recompiles, hits, ms)."""
    rows = {}
    for line in text.splitlines():
        if "│" not in line and "┃" not in line:
            continue
        cells = [c.strip() for c in re.split(r"[│┃]", line)[1:-1]]
        if len(cells) < 5 or not cells[1] or not cells[1].isdigit():
            continue  # a header, or a cell's second line
        function, compiles, recompiles, hits, ms = cells[:5]
        rows[function] = (int(compiles), int(recompiles), None if hits == "-" else int(hits), ms)
    return rows


def _window_rows(window) -> dict[str, tuple[int, int, int | None, str]]:
    rows = {}
    picker = window.picker
    for i in range(picker.topLevelItemCount()):
        item = picker.topLevelItem(i)
        function, ms, compiles, recompiles, hits = (item.text(c) for c in range(5))
        rows[function] = (
            int(compiles),
            int(recompiles),
            None if hits == "?" else int(hits),
            ms.removesuffix(" ms"),
        )
    return rows


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("agree") / "run.jsonl"
    _record(path)
    return path


def test_terminal_summary_and_recording_window_agree(qtbot, settings, recording, capsys):
    from jitlab.gui.app import application

    print_watch_summary(str(recording))
    cli = _cli_rows(capsys.readouterr().err)

    application()
    window = open_recording_window(recording, False, settings=settings)
    qtbot.addWidget(window)
    gui = _window_rows(window)

    assert cli == gui
    # and both tell what JAX did
    assert cli["step"][:3] == (2, 1, 3)  # f32[8,4], then f32[3,4]; three hits
    assert cli["scaled"][:3] == (3, 2, 3)  # one function: three objects, a hit each
    assert cli["_warm"][:3] == (2, 1, None)  # jitted before the watch: hits not counted
    assert "broken" not in cli or cli["broken"][0] == 0
    assert {"log", "exp"} <= set(cli)  # eager ops, one row per primitive


def test_the_recording_window_in_chinese_lists_what_changed_in_chinese(qtbot, settings, recording):
    from jitlab.gui import i18n, plain
    from jitlab.gui.app import application

    application()
    assert i18n.set_language("zh")
    try:
        window = open_recording_window(recording, False, settings=settings)
        qtbot.addWidget(window)
        for name in ("step", "scaled"):  # a shape changed; a function object made anew
            row = next(i for i, (_, s) in enumerate(window.rows) if s.function == name)
            tip, s = window.row_tip(row), window.rows[row][1]
            assert s.change_counts, name  # recompiled: something changed
            assert "编译之间" in tip  # the list's heading, in Chinese
            # Equal changes counted together (a new function object's running count aside).
            for words in s.change_words("zh"):
                assert plain.escape(words) in tip
            for words in s.change_words("en"):
                assert plain.escape(words) not in tip
        # The function panel says the same, and follows a switch of language: the words are
        # rendered when shown, from the recorded changes.
        picked = next(s for lane, s in window.rows if lane == window.picked)
        shown = [plain.escape(words) for words in picked.change_words("zh")]
        assert shown and all(words in window.details.text() for words in shown)
        assert i18n.set_language("en")
        shown = [plain.escape(words) for words in picked.change_words("en")]
        assert all(words in window.details.text() for words in shown)
    finally:
        i18n.set_language("en")
