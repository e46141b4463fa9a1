"""Chinese and English at runtime through Qt's translation system."""

from __future__ import annotations

import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from guihelp import wait_calls
from PySide6.QtCore import Qt, QTranslator

from jitlab.gui import i18n
from jitlab.records.paths import resource

pytestmark = pytest.mark.slow

TS = resource("i18n", "jitlab_zh_CN.ts")
HORIZONTAL, DISPLAY = Qt.Orientation.Horizontal, Qt.ItemDataRole.DisplayRole


def test_switching_language_changes_visible_labels(qtbot, window) -> None:
    window.set_mode("execute")
    window.step()
    wait_calls(qtbot, window, 1)
    english = {
        "mode": window.mode_bar.buttons["start"].text(),
        "step": window.run_controls.step.text(),
        "calls": window.kitchen.captions["calls"].text(),
        "tab": window.panes.bottom.tabText(0),
        "status": window.kitchen.canvas.status(),
        "param": window.params.labels["batch_size"].text(),
        "menu": window.menus.lang_menu.title(),
        "header": window.log.model.headerData(1, HORIZONTAL, DISPLAY),
    }
    assert english["mode"] == "① Start" and english["param"] == "Batch size"
    assert english["header"] == "kind"
    window.menus.lang_actions["zh"].trigger()
    assert i18n.language() == "zh"
    chinese = {
        "mode": window.mode_bar.buttons["start"].text(),
        "step": window.run_controls.step.text(),
        "calls": window.kitchen.captions["calls"].text(),
        "tab": window.panes.bottom.tabText(0),
        "status": window.kitchen.canvas.status(),
        "param": window.params.labels["batch_size"].text(),
        "menu": window.menus.lang_menu.title(),
        "header": window.log.model.headerData(1, HORIZONTAL, DISPLAY),
    }
    assert chinese["mode"] == "① 开始"
    assert chinese["header"] == "类型"
    assert chinese["step"] == "单步"
    assert chinese["calls"] == "调用次数"
    assert chinese["param"] == "批次大小"  # lesson texts follow the language too
    assert chinese["status"].startswith("第一份脚本写好了")
    assert [k for k in english if chinese[k] == english[k]] == []
    lesson = window.briefing  # lesson texts and headings
    assert "忽大忽小的批次" in lesson.heading.text()
    assert lesson.story_box.title() == "王师傅的厨房里" and lesson.text.text()
    assert "哪里出了问题" in lesson.answer.text() and "What goes wrong" not in lesson.answer.text()
    window.menus.lang_actions["en"].trigger()
    assert window.mode_bar.buttons["start"].text() == "① Start"
    assert window.run_controls.step.text() == "Step"


def test_no_translation_is_unfinished() -> None:
    root = ET.parse(TS).getroot()
    messages = list(root.iter("message"))
    assert len(messages) > 100
    unfinished = [
        m.findtext("source")
        for m in messages
        if (m.find("translation").get("type") in ("unfinished", "vanished", "obsolete"))
        or not "".join(m.find("translation").itertext()).strip()  # plural: <numerusform>
    ]
    assert unfinished == []


def test_the_shipped_qm_holds_every_translation_of_the_ts() -> None:
    """The compiled catalogue Qt loads agrees with the .ts, message by message (file times
    mean nothing in a git checkout: a .ts edited without running lrelease fails here)."""
    translator = QTranslator()
    assert translator.load(str(resource("i18n", "jitlab_zh_CN.qm")))
    stale = []
    for context in ET.parse(TS).getroot().iter("context"):
        name = context.findtext("name")
        for m in context.iter("message"):
            source, translation = m.findtext("source"), m.find("translation")
            if m.get("numerus") == "yes":
                expected = next(f.text or "" for f in translation.iter("numerusform"))
                got = translator.translate(name, source, None, 1)
            else:
                expected = translation.text or ""
                got = translator.translate(name, source)
            if got != expected:
                stale.append((name, source, got, expected))
    assert stale == []


@pytest.mark.skipif(
    not (
        shutil.which("pyside6-lupdate")
        or (Path(sys.executable).parent / "pyside6-lupdate").exists()
    ),
    reason="pyside6-lupdate not installed",
)
def test_the_catalogue_covers_every_tr_string(tmp_path) -> None:
    """lupdate over the sources finds no string that the shipped catalogue lacks."""
    lupdate = shutil.which("pyside6-lupdate") or str(
        Path(sys.executable).parent / "pyside6-lupdate"
    )
    root = Path(__file__).resolve().parents[2]
    fresh = tmp_path / "fresh.ts"
    sources = sorted(str(p) for p in (root / "jitlab" / "gui").rglob("*.py"))
    subprocess.run([lupdate, *sources, "-ts", str(fresh)], check=True, capture_output=True)

    def keys(path: Path) -> set[tuple[str, str]]:
        out = set()
        for context in ET.parse(path).getroot().iter("context"):
            name = context.findtext("name")
            for m in context.iter("message"):
                out.add((name, m.findtext("source")))
        return out

    assert keys(fresh) - keys(TS) == set()


def test_no_tr_call_hides_inside_an_f_string() -> None:
    """lupdate cannot see ``{self.tr('…')}`` inside an f-string: such text never translates."""
    import re

    root = Path(__file__).resolve().parents[2] / "jitlab" / "gui"
    pattern = re.compile(r"\{\s*(self\.tr|translate)\(")
    hidden = [
        f"{path.name}:{n}"
        for path in root.rglob("*.py")
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert hidden == []


def test_recompile_reasons_follow_the_language(qtbot, window) -> None:
    from jitlab.gui.views.reasons import reason_text
    from jitlab.records import change_words
    from jitlab.records.calls import Change, Reason
    from jitlab.records.changes import ChangeKind

    reason = Reason(
        (
            Change(ChangeKind.SHAPE, "x", "f32[8,64]", "f32[16,64]"),
            Change(ChangeKind.STATIC_VALUE, "n", "2", "3"),
            Change(ChangeKind.FIRST_CALL),
        )
    )
    assert reason_text(reason) == change_words.reason_text(reason)  # English: the core's own words
    window.set_language("zh")
    assert (
        reason_text(reason)
        == "x 的形状变了：f32[16,64] ← f32[8,64]; 静态参数 n：3 ← 2; 首次调用：还没有编译过"
    )
    window.params.set_values({"batch_size": 8})
    wait_calls(qtbot, window, 1)
    qtbot.waitUntil(lambda: "还没有编译过" in window.kitchen.reason.text())
