"""The full diff of a pytree structure change, one click from the call log (issue 41 item 8).

The log's row shows the reason short (the sub-tree that changed, its leaf counts, each
sub-tree cut at 80 characters); its tooltip says where the rest is; the row's context menu
has "Show the full difference", which shows both sub-trees whole as plain text (recorded
strings are data: a dict key that looks like markup is shown as written). Records from a
real probe: an optax-like optimizer state in a Flax-like TrainState gains Adam's moments.
"""

from __future__ import annotations

import typing

import jax
import jax.numpy as jnp
import pytest
from PySide6.QtWidgets import QDialog, QPlainTextEdit

from jitlab.gui import i18n
from jitlab.gui.views.log_view import REASON, LogView
from jitlab.probe.probe import Probe
from jitlab.records.calls import CallKind


class EmptyState(typing.NamedTuple):  # optax's clip and scale keep no state
    pass


class ScaleByAdamState(typing.NamedTuple):  # optax's Adam moments
    count: jax.Array
    mu: dict
    nu: dict


class TrainState(typing.NamedTuple):  # what flax's TrainState carries as leaves
    step: jax.Array
    params: dict
    opt_state: tuple


KEY = "<b>w</b>"  # a parameter's name that is markup: shown as written


def _records():
    def loss(state, x):
        return (state.params[KEY] * x).sum()

    params = {KEY: jnp.ones((2, 2)), "b": jnp.zeros(2)}
    zeros = jax.tree.map(jnp.zeros_like, params)
    empty = EmptyState()
    p = Probe(loss)
    p(TrainState(jnp.int32(0), params, (empty, empty)), 1.0)
    p(TrainState(jnp.int32(0), params, (empty, ScaleByAdamState(jnp.int32(0), zeros, zeros))), 1.0)
    assert [r.kind for r in p.records] == [CallKind.COMPILE, CallKind.RECOMPILE]
    return p.records


LAST = f".nu['{KEY}']: f32[2,2]"  # the last leaf added: past the row's 80 characters


@pytest.mark.qt_log_ignore("does not support raise", "propagateSizeHints", "grabbing the keyboard")
@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_full_difference_is_one_click_from_the_log_row(qtbot, language) -> None:
    assert i18n.set_language(language) or language == "en"
    try:
        log = LogView()
        qtbot.addWidget(log)
        log.resize(900, 300)
        log.show()
        for record in _records():
            log.add(record)
        log.flush()
        model = log.model
        row = model.data(model.index(1, REASON))
        assert "state.opt_state[1]" in row and "…" in row and LAST not in row
        tip = model.data(model.index(1, REASON), 3)  # ToolTipRole
        hint = "Right-click" if language == "en" else "右键单击"
        assert hint in tip
        assert hint not in model.data(model.index(0, REASON), 3)  # a first call: nothing cut

        log.table.resizeRowsToContents()
        first = log.row_menu(log.table.visualRect(log.proxy.index(0, 1)).center())
        assert len(first.actions()) == 1  # "Read its script" alone
        first.close()
        menu = log.row_menu(log.table.visualRect(log.proxy.index(1, 1)).center())
        _read, full = menu.actions()
        assert full.text() == ("Show the full difference" if language == "en" else "显示完整差异")
        full.trigger()
        menu.close()
        (dialog,) = log.findChildren(QDialog, "fullReason")
        qtbot.waitUntil(dialog.isVisible)
        text = dialog.findChild(QPlainTextEdit).toPlainText()
        assert "state.opt_state[1]" in text and LAST in text and "…" not in text
        for leaf in (".count: i32[]", f".mu['{KEY}']: f32[2,2]", ".mu['b']: f32[2]"):
            assert leaf in text
        assert "#1" in dialog.windowTitle()
        words = "5 leaves added" if language == "en" else "增加 5 个叶子"
        assert words in text
    finally:
        i18n.set_language("en")
