"""In Chinese, no screen shows a stray English word: what is not Chinese is code.

The quiz is walked exercise by exercise, one check is really run, one interview round is
played to its review; reasons, kinds and the call card are rendered for every kind.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QComboBox,
    QGroupBox,
    QLabel,
    QTabWidget,
    QTreeWidget,
    QWidget,
)

from jitlab.gui import i18n
from jitlab.records.calls import CallKind, Change, Reason
from jitlab.records.changes import ChangeKind

RUN_TIMEOUT_MS = 60_000
CJK = re.compile(r"[\u4e00-\u9fff]")
# Words that are names in both languages: JAX's own and the tools'.
NAMES = {"JAX", "jax", "jit", "jitlab", "XLA", "HLO", "pytree", "dtype", "AOT", "numpy", "CPU"}
CODE = re.compile(
    r"^(?:"
    r"[\w.]*[._][\w.]*(?:\(.*\))?"  # dotted or snake_case names, calls
    r"|[A-Z][a-z]+(?:[A-Z][a-z]*)+"  # CamelCase: exception and class names
    r"|[\w.]+\(.*\)"  # calls
    r"|[^A-Za-z]*"  # numbers, symbols
    r")[,;:)]*$"
)


def english_words(text: str) -> list[str]:
    """The words of a shown text that are neither Chinese, nor code, nor a JAX name."""
    if CJK.search(text):
        return []  # a Chinese sentence may quote code and names
    text = re.sub(r"^[a-j]\)\s*", "", text.strip())  # an option's letter
    return [w for w in text.split() if w not in NAMES and not CODE.match(w)]


def shown_texts(root: QWidget) -> list[tuple[str, str]]:
    """(where, text) for every label, button, group, tab, menu item and tree cell shown."""
    out: list[tuple[str, str]] = []
    for widget in root.findChildren(QWidget):
        if not widget.isVisibleTo(root):
            continue
        name = f"{type(widget).__name__}#{widget.objectName()}"
        if isinstance(widget, QLabel | QAbstractButton):
            out.append((name, widget.text()))
        elif isinstance(widget, QGroupBox):
            out.append((name, widget.title()))
        elif isinstance(widget, QComboBox):
            out += [(name, widget.itemText(i)) for i in range(widget.count())]
        elif isinstance(widget, QTabWidget):
            out += [(name, widget.tabText(i)) for i in range(widget.count())]
        elif isinstance(widget, QTreeWidget):
            items = [widget.invisibleRootItem()]
            while items:
                item = items.pop()
                for i in range(item.childCount()):
                    child = item.child(i)
                    items.append(child)
                    out += [(name, child.text(c)) for c in range(widget.columnCount())]
    return out


def stray_english(root: QWidget) -> list[tuple[str, str, list[str]]]:
    plain = (re.sub(r"<[^>]+>", " ", t).replace("&nbsp;", " ") for _, t in shown_texts(root))
    return [
        (where, text, words)
        for (where, _), text in zip(shown_texts(root), plain, strict=True)
        if (words := english_words(text))
    ]


def test_the_checker_tells_code_from_english() -> None:
    assert english_words("b) jax.lax.fori_loop") == []
    assert english_words("TracerBoolConversionError") == []
    assert english_words("打开场景（修正版）") == []
    assert english_words("Open the scenario (fix)") != []
    assert english_words("(fix)") == ["(fix)"]


@pytest.fixture
def quiz_zh(qtbot) -> Iterator:
    from jitlab.gui.app import application
    from jitlab.gui.quiz.view import QuizView

    application()
    assert i18n.set_language("zh")
    view = QuizView()
    qtbot.addWidget(view)
    view.resize(1280, 800)
    view.show()
    qtbot.waitUntil(lambda: view.catalogue is not None, timeout=RUN_TIMEOUT_MS)
    yield view
    view.shutdown()
    i18n.set_language("en")


def test_every_exercise_in_chinese_shows_no_english(qtbot, quiz_zh) -> None:
    page = quiz_zh.exercises
    found = []
    for exercise in quiz_zh.catalogue.exercises:
        page.select(exercise.id)
        found += [(exercise.id, *stray) for stray in stray_english(quiz_zh)]
    assert found == []


def test_a_verdict_in_chinese_names_the_variant_in_words(qtbot, quiz_zh) -> None:
    page = quiz_zh.exercises
    page.select("static-tuple")  # its verdict offers static-args, variant "fix"
    page.card.set_prediction(2)
    with qtbot.waitSignal(page.verdict_ready, timeout=RUN_TIMEOUT_MS):
        assert page.run_check()
    button = page.verdict.open_button.text()
    title = quiz_zh.catalogue.variants[("static-args", "fix")].zh
    assert title in button and "(fix)" not in button and "（fix）" not in button
    assert stray_english(quiz_zh) == []


def test_an_interview_review_in_chinese_names_variants_in_words(qtbot, quiz_zh) -> None:
    view = quiz_zh.interview
    quiz_zh.show_interview()
    interview = view.start_round(1, seed=5, seconds=600)
    exercise = interview.current
    with qtbot.waitSignal(view.verdict_ready, timeout=RUN_TIMEOUT_MS):
        qtbot.mouseClick(view.pass_button, Qt.MouseButton.LeftButton)  # lands on the review
    view.next_question()
    assert interview.done
    cell = view.review.topLevelItem(0).text(3)
    title = quiz_zh.catalogue.variants[(exercise.scenario, exercise.variant)].zh
    assert title in cell and f"({exercise.variant})" not in cell
    assert stray_english(quiz_zh) == []


def _samples(kind: ChangeKind) -> list[Change]:
    if kind is ChangeKind.RECORDED:
        return [Change(kind, detail="x: f32[4] <- f32[3] (from an old recording)")]
    return [
        Change(kind, "x", "f32[3]", "f32[4]"),
        Change(kind, "/a/b.py:4", count=2),
        Change(kind),
    ]


@pytest.mark.parametrize("kind", list(ChangeKind))
def test_every_change_kind_has_a_chinese_rendering_in_the_gui(qapp, kind) -> None:
    from jitlab.gui.views.reasons import change_text, reason_text

    i18n.set_language("zh")
    try:
        for change in _samples(kind):
            text = change_text(change)
            assert CJK.search(text), f"{kind}: {text!r}"
            assert CJK.search(reason_text(Reason((change,))))
    finally:
        i18n.set_language("en")
    assert not CJK.search(change_text(_samples(kind)[0]))  # English in English


def test_kind_names_and_the_call_card_are_chinese(qapp) -> None:
    from jitlab.gui.style import kind_name
    from jitlab.gui.views.chart import describe
    from jitlab.records.calls import CallRecord

    i18n.set_language("zh")
    try:
        for kind in CallKind:
            assert CJK.search(kind_name(kind)), kind
        record = CallRecord(3, "f", CallKind.RECOMPILE, 1.0, params={"n": 1}, variant="fix")
        card = describe(record)
        assert "修正" in card and ": fix" not in card and "：fix" not in card
    finally:
        i18n.set_language("en")


def test_a_choice_parameter_reads_in_words_and_still_passes_its_value(qtbot, make_window) -> None:
    """error-debugging's "Broken function" combo showed raw ids (control-flow) in Chinese."""
    from PySide6.QtWidgets import QComboBox

    window = make_window(scenario="error-debugging")
    i18n.set_language("zh")
    combo = window.params.widgets["error"]
    assert isinstance(combo, QComboBox)
    shown = [combo.itemText(i) for i in range(combo.count())]
    assert shown[0] == "在追踪值上写 if" and not any("-" in text for text in shown)
    combo.setCurrentIndex(2)  # weights the wrong way round: the scenario gets its id
    assert window.params.values()["error"] == "shape"
    qtbot.waitUntil(lambda: bool(window.state.records), timeout=30_000)
    assert window.state.records[-1].params["error"] == "shape"
    i18n.set_language("en")
    assert combo.itemText(2) == "weights the wrong way round"


def test_choice_labels_must_match_the_choices() -> None:
    import dataclasses

    from jitlab.lab.discovery import scenarios
    from jitlab.lab.scenario import Param, Text, validate

    cls = scenarios()["error-debugging"]
    param = Param("e", "a", Text("E", "E"), Text("", ""), choices=("a", "b"))
    one_label = dataclasses.replace(param, choice_labels=(Text("A", "甲"),))
    broken = type("Broken", (cls,), {"params": (one_label,)})
    assert any("choice_labels" in problem for problem in validate(broken))
    assert param.choice_label("b", "zh") == "b"  # no labels: the choice as written
