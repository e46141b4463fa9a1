"""The recording window at 1024×640, in English and Chinese, on a real program whose last
compile's reason runs long (a lambda jitted anew each call), whose costliest function has a
long unbroken name (ragged batches, then a call that raises) and whose static values look
like markup (issue 54's leftovers): the last-compile sentence and the kitchen's banner were
cut without a mark ("#10" read "#1…"), the long name pushed the figures and every line beside
it past the column's edge, the chart's axis title and error name were cut at its edges."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest
from PySide6.QtCore import QPoint
from PySide6.QtGui import QGuiApplication, QTextDocument
from PySide6.QtWidgets import QApplication

import jitlab
from jitlab.gui import i18n
from jitlab.gui.recording.window import open_recording_window
from jitlab.gui.views.fitting import BREAK, ELLIPSIS

SMALL = (1024, 640)
LONG = "a_very_long_function_name_without_any_breaks_that_goes_on_and_on"
MARKUP = ("<b>bold</b>", "&lt;not markup&gt;")


def _program(path: Path) -> None:
    ns: dict[str, object] = {"jnp": jnp}
    exec(f"def {LONG}(w, x):\n    return jnp.tanh(x @ w).sum()\n", ns)  # its name as given
    with jitlab.watch(path):
        long_named = jax.jit(ns[LONG])  # type: ignore[arg-type]
        w = jnp.ones((8, 8))
        for n in (16, 3, 16, 5, 16, 7, 9, 11, 16, 13, 21, 23, 25, 27):  # ragged: past the limit
            long_named(w, jnp.ones((n, 8)))
        with pytest.raises(TypeError):
            long_named(w, jnp.ones((4, 5)))  # its last call raises

        @partial(jax.jit, static_argnames="tag")
        def tagged(x, tag):
            return x * len(tag)

        for tag in MARKUP:
            tagged(jnp.ones(3), tag)
        for _ in range(10):  # the last compile: a lambda made anew, JAX's long hint
            jax.jit(lambda v: v * 2.0)(jnp.ones(4))


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("small") / "run.jsonl"
    _program(path)
    return path


@pytest.fixture(params=["en", "zh"])
def window(request, qtbot, settings, recording):
    from jitlab.gui.app import application

    application()
    i18n.set_language(request.param)
    made = open_recording_window(recording, False, settings=settings)
    qtbot.addWidget(made)
    made.resize(*SMALL)
    made.show()
    qtbot.waitUntil(lambda: not made.loading)
    yield made
    if i18n.language() != "en":
        i18n.set_language("en")


def _settle() -> None:
    for _ in range(3):
        QApplication.processEvents()


def _plain(rich: str) -> str:
    document = QTextDocument()
    document.setHtml(rich)
    return document.toPlainText()


def test_the_last_compile_sentence_is_whole_or_cut_with_a_mark_and_its_end_in_the_tip(
    window,
) -> None:
    lang = i18n.language()
    names = window.function_order()
    for name in names:
        window.pick_name(name)
        _settle()
        kitchen, reason = window.kitchen, window.kitchen.reason
        # What it shows fits its height, inside the kitchen (never cut at the pane's edge).
        assert reason.heightForWidth(reason.width()) <= reason.height(), (lang, name)
        assert reason.geometry().bottom() <= kitchen.height(), (lang, name)
        # The counters below the picture, not over its labels.
        canvas = kitchen.canvas.geometry()
        for caption in kitchen.captions.values():
            assert caption.geometry().top() > canvas.bottom(), (lang, name, caption.text())
    for name in names:
        window.pick_name(name)
        _settle()
        reason = window.kitchen.reason
        full, shown = reason.full_text(), reason.text()
        assert full, (lang, name)
        if shown != full:  # cut: said with "…", the whole sentence in its tooltip
            assert shown.endswith(ELLIPSIS), (lang, name, shown)
            assert shown[:-1].replace("\n", " ").split()[0] in full
            assert full in _plain(reason.toolTip()) or full in reason.toolTip(), (lang, name)
    window.pick_name("<lambda>")
    _settle()
    assert window.kitchen.reason.elided, "the rebuilt lambda's reason is long: cut, and marked"


def test_the_banner_never_cuts_a_number_and_its_tip_holds_it_whole(window) -> None:
    window.pick_name("<lambda>")
    _settle()
    canvas = window.kitchen.canvas
    canvas.grab()  # painted now, at this size
    status, shown = canvas.status(), canvas.status_shown
    assert "10" in status  # its tenth card
    if shown != status:
        prefix = shown.removesuffix(ELLIPSIS)
        assert shown.endswith(ELLIPSIS) and status.startswith(prefix), (shown, status)
        rest = status[len(prefix) :]
        inside_a_number = prefix[-1:].isdigit() and rest[:1].isdigit()
        assert not inside_a_number, (shown, status)
    assert "10" in shown or shown != status


def test_a_long_unbroken_name_keeps_the_figures_and_the_lines_beside_it_in_view(
    window, qtbot
) -> None:
    lang = i18n.language()
    window.pick_name(LONG)
    _settle()
    picker = window.picker
    edge = picker.viewport().width()
    for column in range(1, 5):  # time lost, compiles, recompiles, cache hits
        right = picker.header().sectionViewportPosition(column) + picker.columnWidth(column)
        assert right <= edge, (lang, column, right, edge)
    row = window.function_order().index(LONG)  # (costliest first: the order may vary)
    assert LONG in _plain(window.row_tip(row)).replace(BREAK, "")  # whole in its tip
    below = window.column.below
    room = below.viewport().width()
    for label in (window.details, window.diagnoses):
        assert label.isVisible()
        assert label.minimumSizeHint().width() <= room, (lang, label.objectName())
        assert label.width() <= room
        assert LONG in _plain(label.text()).replace(BREAK, "")  # every character of it
    # Copied as written: without the breaks that let it wrap.
    window.details.setSelection(0, len(_plain(window.details.text())))
    window.details.copy_selection()
    copied = QGuiApplication.clipboard().text()
    assert LONG in copied and BREAK not in copied
    # The chart's title along its axis and the error's name inside the row of failed calls.
    chart = window.chart
    axis = chart.plot.getPlotItem().getAxis("left")
    title = axis.labelText
    assert title, lang
    assert axis.label.boundingRect().width() <= axis.geometry().height(), (lang, title)
    if title != chart.axis_title[0]:
        assert chart.axis_title[0] in chart.plot.toolTip()

    def names_inside() -> bool:  # (placed at the chart's next paint after a resize)
        view = chart.error_plot.getPlotItem().vb.sceneBoundingRect().adjusted(-1, -1, 1, 1)
        labels = chart._error_labels
        return bool(labels) and all(view.contains(n.sceneBoundingRect()) for n in labels)

    qtbot.waitUntil(names_inside)


def test_recorded_markup_is_shown_as_written(window) -> None:
    window.pick_name("tagged")
    _settle()
    shown = _plain(window.details.text()).replace(BREAK, "")
    assert "'<b>bold</b>'" in shown and "'&lt;not markup&gt;'" in shown
    assert "<b>bold</b>" not in window.details.text()  # escaped: never markup
    right = window.details.mapTo(window, QPoint(window.details.width(), 0)).x()
    assert right <= window.width()
