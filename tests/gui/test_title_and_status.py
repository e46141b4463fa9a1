"""What the frame and the status bar say (issue 54): the title names jitlab once, and the
status bar stops saying JAX is starting once it has started."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QGuiApplication


def shown_title(title: str) -> str:
    """The title as the window's frame shows it: Qt appends the application's display name
    unless the title already ends with it (``QPlatformWindow::formatWindowTitle``)."""
    name = QGuiApplication.applicationDisplayName()
    if not title:
        return name
    return title if title.endswith(name) else f"{title} — {name}"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_title_names_the_lesson_and_jitlab_once(make_window, lang) -> None:
    window = make_window(scenario="dynamic-shapes")
    window.set_language(lang)
    shown = shown_title(window.windowTitle())
    assert shown.count("jitlab") == 1, shown
    assert window.scenario.title.get(lang) in shown


def test_the_recording_title_names_jitlab_once(make_window, tmp_path) -> None:
    from jitlab.gui.recording import texts
    from jitlab.recordings.follower import Follower

    make_window(scenario="dynamic-shapes")  # the application, named as the app names it
    path = tmp_path / "run.jsonl"
    path.write_text("", encoding="utf-8")
    title = texts.title(Follower([path]), ("train_step", "train.py:3", None))
    assert shown_title(title).count("jitlab") == 1, title
    assert "run.jsonl" in title and title.endswith("train_step")


def test_the_status_bar_says_jax_is_ready_once_it_is(qtbot, make_window) -> None:
    # The lesson shown early (from the manifest) is adopted when discovery lands: the status
    # bar said "Starting JAX on the worker thread…" until the first slider move.
    window = make_window(scenario="dynamic-shapes")
    qtbot.waitUntil(lambda: window.scenario is not None and bool(window.catalogue.entries))
    text = window.status_label.text()
    assert "Starting JAX" not in text and "Preparing JAX" not in text, text
    assert "0 calls this run" in text, text
