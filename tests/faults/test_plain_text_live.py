"""Fault table, the live app: what a user's code says is shown as text, never as markup.

A real scenario plugin whose jitted function is named with markup, takes a dict whose key is
markup (so signatures, reasons and the ledger's columns hold it), prints markup while it is
traced and raises an error whose message is markup. It runs for real on the worker; every
view of every mode is then read as Qt renders it (:func:`hostile.shown_texts`), with the
kitchen cards' tips: each string must show as written. (The plugin's own texts, its titles
and lesson, are plain words here: they are the plugin author's, not the program's.)
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hostile import MARKER, check_literal, markers_in, rendered, shown_texts
from test_gui_faults import CALL_TIMEOUT_MS, make_window, write_plugins  # noqa: F401

from jitlab.records.calls import CallKind

pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")

MARK = "<b>M{n}</b><lambda>&amp;<u>x</u><img src=no-such-image.png>"
# The function's name, its print, its error, its argument's key (a path in its signature);
# and the plugin's own question and kitchen story.
NAME, PRINTED, RAISED, KEY, QUESTION, STORY = 1001, 1002, 1003, 1004, 1005, 1006

PLUGIN = f"""
import jax.numpy as jnp

from jitlab.lab.scenario import Lesson, Param, Pitfall, Scenario, Text, Variant

MARK = {MARK!r}


T = Text("x", "x")


def shout(tree):
    x = tree[MARK.format(n={KEY})]
    print(MARK.format(n={PRINTED}))  # while it is traced
    if x.shape[0] == 5:
        raise ValueError(MARK.format(n={RAISED}))
    return x * 2


shout.__name__ = shout.__qualname__ = MARK.format(n={NAME})


class Markup(Scenario):
    id = "markup"
    pitfall = Pitfall.DYNAMIC_SHAPES
    title = T
    question = Text(MARK.format(n={QUESTION}), MARK.format(n={QUESTION}))
    lesson = Lesson(T, T, T, Text(MARK.format(n={STORY}), MARK.format(n={STORY})))
    params = (Param("n", 2, T, T, minimum=1, maximum=8),)
    variants = (Variant("pitfall", T, T), Variant("fix", T, T))

    def setup(self, lab, variant):
        f = lab.probe(shout)
        return lambda values: f({{MARK.format(n={KEY}): jnp.ones(values["n"])}})

    def code_objects(self, variant):
        return (shout,)
"""

WRITTEN = {n: MARK.format(n=n) for n in (NAME, PRINTED, RAISED, KEY, QUESTION, STORY)}


def _wait(qtbot, window, count: int) -> None:
    qtbot.waitUntil(lambda: len(window.state.records) >= count, timeout=CALL_TIMEOUT_MS)


def test_the_live_views_show_a_programs_strings_as_text(
    qtbot,
    make_window,  # noqa: F811 (the fixture imported above)
    tmp_path: Path,
) -> None:
    from PySide6.QtWidgets import QApplication

    from jitlab.gui.lesson.mode_bar import MODES

    folder = write_plugins(tmp_path / "plugins", markup=PLUGIN)
    window = make_window(folder, "markup")
    assert window.scenario.id == "markup"
    window.set_mode("execute")
    window.step()
    _wait(qtbot, window, 1)
    window.params.set_values({"n": 3})  # a recompile: a reason that names the function
    _wait(qtbot, window, 2)
    window.params.set_values({"n": 5})  # the function raises
    _wait(qtbot, window, 3)
    kinds = [r.kind for r in window.state.records]
    assert kinds == [CallKind.COMPILE, CallKind.RECOMPILE, CallKind.ERROR], kinds
    assert window.state.records[0].function == WRITTEN[NAME]
    shown: list[tuple[str, str]] = []
    for mode in MODES:
        window.set_mode(mode)
        QApplication.processEvents()
        shown += [(f"{mode}: {where}", text) for where, text in shown_texts(window)]
        for card in window.state.cards.values():  # tips shown on hover, made when asked
            tip = window.kitchen.canvas.card_tip(card)
            shown.append((f"{mode}: card tip", rendered(tip, _rich(tip))))
    wrong = check_literal(shown, WRITTEN)
    assert wrong == [], "\n".join(wrong)
    found = markers_in(shown)
    # The function's name, its argument's key, what it printed, the error it raised, and the
    # plugin's question and story are shown, as written.
    assert set(WRITTEN) <= found, sorted(set(WRITTEN) - found)
    assert any(MARKER.search(t) for _, t in shown)


def _rich(text: str) -> bool:
    from PySide6.QtGui import Qt

    return bool(Qt.mightBeRichText(text))
