"""`jitlab open`: the picked function's panel lists its diagnoses (id, sentence, a link to the
page opened in the app, in the display language, and the `jitlab explain` command), recorded
strings shown as written; a page that is not there is said, nothing opened, nothing raised."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("PySide6", reason="a Qt window: PySide6 is not installed")
from diagnosed_run import HOSTILE, Watched
from PySide6.QtCore import QSettings
from PySide6.QtGui import QTextDocument

from jitlab.gui import i18n
from jitlab.gui.app import application
from jitlab.gui.recording.window import RecordingWindow, open_recording_window
from jitlab.recordings.reader import read_recording
from jitlab.records.diagnoses import page, page_text, sentence


@pytest.fixture
def window(qtbot, watched: Watched, tmp_path: Path) -> Iterator[RecordingWindow]:
    application()
    settings = QSettings(str(tmp_path / "jitlab.ini"), QSettings.Format.IniFormat)
    shown = open_recording_window(watched.path, False, settings=settings)
    qtbot.addWidget(shown)
    qtbot.waitUntil(lambda: len(shown.function_order()) == 2, timeout=10_000)
    yield shown
    if i18n.language() != "en":
        i18n.set_language("en")


def _plain(rich: str) -> str:
    document = QTextDocument()
    document.setHtml(rich)
    return document.toPlainText()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_panel_lists_the_picked_function_s_diagnoses(
    window: RecordingWindow, watched: Watched, lang: str
) -> None:
    i18n.set_language(lang)
    recording = read_recording(watched.path)[0]
    for function in (HOSTILE, "step"):
        window.pick_name(function)
        box = window.diagnoses
        assert not box.isHidden()
        shown = _plain(box.text())
        mine = [d for d in recording.every_diagnosis() if d.function == function]
        assert mine
        for d in mine:
            assert f"{d.id}: {sentence(d, lang)}" in shown
            assert Path(page(d.id)).name in shown and f"jitlab explain {d.id}" in shown
            assert f'href="{Path(page(d.id)).as_uri()}"' in box.text()
        assert shown.startswith("诊断" if lang == "zh" else "Diagnoses")
    window.pick_name(HOSTILE)
    assert f"{HOSTILE} (" in _plain(window.diagnoses.text())  # the name as written
    assert HOSTILE not in window.diagnoses.text()  # escaped: never markup


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_click_opens_the_page_in_the_app_and_a_missing_page_is_said(
    window: RecordingWindow, lang: str
) -> None:
    i18n.set_language(lang)
    window.pick_name("step")
    box = window.diagnoses
    url = Path(page("identity-static")).as_uri()
    box.linkActivated.emit(url)  # what a click on the link does
    view = box.page_view
    assert view is not None and view.isVisible()
    assert view.windowTitle() == "jitlab explain identity-static"
    text = view.browser.toPlainText()
    # the page's section in the display language: what `jitlab explain` prints
    assert text == _plain_markdown(page_text("identity-static", lang) or "")
    assert ("发生了什么" in text) == (lang == "zh") and ("What happened" in text) == (lang == "en")
    gone = "file:///nowhere/docs/diagnoses/identity-static.md"
    assert not box.open_page(gone)  # nothing opened
    assert box.page_view is view
    missing = "（本机上没有这一页）" if lang == "zh" else " (not on this machine)"
    assert f"{gone}{missing}" in _plain(box.text())
    view.close()


def _plain_markdown(markdown: str) -> str:
    document = QTextDocument()
    document.setMarkdown(markdown)
    return document.toPlainText()


def test_a_function_without_diagnoses_shows_none(qtbot, tmp_path: Path, watched: Watched):
    quiet = tmp_path / "quiet.jsonl"
    quiet.write_text(
        "".join(
            line + "\n"
            for line in watched.path.read_text().splitlines()
            # no diagnosis lines, and no recompiles (call-site-cost: a line compiling again)
            if '"type": "diagnosis"' not in line and '"kind": "recompile"' not in line
        )
    )
    application()
    settings = QSettings(str(tmp_path / "jitlab.ini"), QSettings.Format.IniFormat)
    shown = open_recording_window(quiet, False, settings=settings)
    qtbot.addWidget(shown)
    qtbot.waitUntil(lambda: len(shown.function_order()) == 2, timeout=10_000)
    shown.pick_name("step")
    assert shown.diagnoses.isHidden()


def test_an_id_from_a_newer_jitlab_is_shown_by_id_and_page(
    qtbot, tmp_path: Path, watched: Watched
) -> None:
    recording = read_recording(watched.path)[0]
    site = next(d.site for d in recording.diagnoses if d.function == "step")
    line = {"type": "diagnosis", "id": "warp-drive", "function": "step", "site": site,
            "figures": {"n": 3}, "t": 1.0}  # fmt: skip
    lines = watched.path.read_text().splitlines()
    lines.insert(-1, json.dumps(line))
    newer = tmp_path / "newer.jsonl"
    newer.write_text("\n".join(lines) + "\n")
    application()
    settings = QSettings(str(tmp_path / "jitlab.ini"), QSettings.Format.IniFormat)
    shown = open_recording_window(newer, False, settings=settings)
    qtbot.addWidget(shown)
    qtbot.waitUntil(lambda: len(shown.function_order()) == 2, timeout=10_000)
    shown.pick_name("step")
    text = _plain(shown.diagnoses.text())
    assert "warp-drive: step (" in text and "diagnosis warp-drive (from a newer jitlab)" in text
    assert "docs/diagnoses/warp-drive.md (not on this machine)" in text
    links = [part.split('"')[1] for part in shown.diagnoses.text().split("href=")[1:]]
    ids = ("identity-static", "recompile-limit", "executables-growing")
    assert links == [Path(page(i)).as_uri() for i in ids]
