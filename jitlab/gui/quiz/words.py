"""The quiz's words: a lesson text, a variant, an answer and why an input is no prediction,
in the interface language."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP

from jitlab.gui import i18n


def text(value: Any) -> str:
    """A lesson ``Text`` in the interface language ("" for None)."""
    return value.get(i18n.language()) if value is not None else ""


_VARIANT_TITLES: dict[tuple[str, str], Any] = {}  # (scenario, variant) -> Text
_VARIANT_WORDS = {
    "pitfall": QT_TRANSLATE_NOOP("QuizVariant", "the pitfall"),
    "fix": QT_TRANSLATE_NOOP("QuizVariant", "the fix"),
}


def learn_variants(titles: Any) -> None:
    """Remember the variants' titles (``QuizKit.variants``) so views name a variant in
    words, never by its id."""
    _VARIANT_TITLES.update(titles or {})


def variant_name(exercise: Any) -> str:
    """The variant an exercise points to, in the interface language: the scenario's own
    title for it, else "the pitfall" / "the fix", else (a plugin's unknown id) the id."""
    title = _VARIANT_TITLES.get((exercise.scenario, exercise.variant))
    if title is not None:
        return text(title)
    words = _VARIANT_WORDS.get(exercise.variant)
    return i18n.translate("QuizVariant", str(words)) if words else str(exercise.variant)


def option_words(exercise: Any, value: Any) -> str:
    """An answer as the user saw it: ``b) Both are traced…`` for an option, else the value."""
    for position, option in enumerate(exercise.options):
        if str(option.id).lower() == str(value).lower():
            label = text(option.label)
            letter = "abcdefghij"[position]
            return f"{letter}) {label}" if label != option.id else f"{letter}) {option.id}"
    return str(value)


_INPUT_MESSAGES = {
    "empty": QT_TRANSLATE_NOOP("QuizInput", "Make a prediction first."),
    "number": QT_TRANSLATE_NOOP("QuizInput", "“%1” is not a whole number ≥ 0."),
    "choice": QT_TRANSLATE_NOOP("QuizInput", "Pick one of the answers."),
    "error": QT_TRANSLATE_NOOP(
        "QuizInput",
        "“%1” is not an exception name. Pick one from the list, type a name such as "
        "ValueError, or “none” if you think the code runs cleanly.",
    ),
}


def expected_message(exercise: Any, raw: str) -> str:
    """Why ``raw`` is not a prediction for ``exercise``, in the interface language."""
    kind = str(exercise.kind)
    key = kind if raw or kind == "choice" else "empty"
    return i18n.translate("QuizInput", str(_INPUT_MESSAGES[key])).replace("%1", raw)


def list_title(exercise: Any) -> str:
    """The title for a list: ⚖ stands for "Misconception:" (kept in the tooltip)."""
    title = text(exercise.title)
    if exercise.misconception:
        for prefix in ("Misconception:", "误区："):
            if title.startswith(prefix):
                title = title[len(prefix) :].strip()
        title = "⚖ " + title
    return title
