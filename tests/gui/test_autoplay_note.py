"""The demo's note names each beat's parameters as the controls show them, in the
learner's language: the parameter's label and the value's label, never ``name=value``."""

from __future__ import annotations

from jitlab.gui import i18n
from jitlab.lab.discovery import scenarios

RECOMPILE = scenarios()["recompile-cost"]


def test_a_beat_reads_as_the_sliders_and_combos_read(qtbot) -> None:
    from jitlab.gui.app import application
    from jitlab.gui.lesson.autoplay import params_text

    application()
    params = RECOMPILE.params
    beat = {"mistake": "new-partial", "batch_size": 32, "undeclared": 1}
    assert params_text(params, beat, "en") == (
        "Signature habit set to a new partial each step, "
        "Batch / request size set to 32, undeclared set to 1"
    )
    try:
        assert i18n.set_language("zh")
        assert params_text(params, beat, "zh") == (
            "签名习惯设为每步新建 partial，批次 / 请求大小设为32，undeclared设为1"
        )
    finally:
        i18n.set_language("en")


def test_the_chinese_demo_shows_no_raw_key(qtbot, make_window) -> None:
    window = make_window(scenario="recompile-cost")
    window.set_language("zh")
    notes: list[str] = []
    window.autoplay.note_changed.connect(notes.append)
    window.start_autoplay()
    qtbot.waitUntil(lambda: sum(n.startswith("演示（") for n in notes) >= 2, timeout=120_000)
    window.stop_autoplay()
    beats = [n for n in notes if n.startswith("演示（")]
    assert "签名习惯设为弱类型：0.01 与 float32" in beats[1], beats
    assert not any("mistake" in n or "=" in n for n in notes), notes
    assert window.mode_bar.note.text() in ("", *notes)
