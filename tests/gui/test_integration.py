"""The main window reaches the exercises and recordings: list entry, menus, Complete mode."""

from __future__ import annotations

from conftest import LOAD_TIMEOUT_MS
from PySide6.QtCore import Qt


def quiz_item(window):
    tree = window.scenario_list
    for i in range(tree.topLevelItemCount()):
        item = tree.topLevelItem(i)
        if item.data(0, Qt.ItemDataRole.UserRole) == "__quiz__":
            return item
    raise AssertionError("no exercises entry in the scenario list")


def test_exercises_from_the_list_and_back_to_a_scenario(qtbot, window) -> None:
    window._picked(quiz_item(window))
    quiz = window._quiz
    assert window.pages.currentWidget() is quiz
    assert not any(b.isChecked() for b in window.mode_bar.buttons.values())
    qtbot.waitUntil(lambda: quiz.catalogue is not None, timeout=LOAD_TIMEOUT_MS)
    # An exercise's link opens its scenario in Start mode.
    quiz.scenario_requested.emit("static-args", "fix")
    assert window.scenario.id == "static-args"
    assert window.run_controls.current_variant() == "fix"
    assert window.mode == "start" and window.pages.currentWidget() is window.lab_page
    assert window.briefing.stage == "start" and window.briefing.start.isVisible()


def test_complete_mode_offers_this_pitfalls_exercises(qtbot, window) -> None:
    window.set_mode("complete")
    window.summary.quiz.click()
    quiz = window._quiz
    assert window.pages.currentWidget() is quiz
    qtbot.waitUntil(lambda: quiz.catalogue is not None, timeout=LOAD_TIMEOUT_MS)
    qtbot.waitUntil(
        lambda: (
            quiz.exercises.exercise is not None
            and quiz.exercises.exercise.scenario == "dynamic-shapes"
        ),
        timeout=LOAD_TIMEOUT_MS,
    )


def test_menus_offer_recordings_and_exercises(window) -> None:
    file_actions = [a.text() for a in window.menus.file_menu.actions()]
    assert file_actions[0] == "Open recording…"
    run_actions = [a.text() for a in window.menus.run_menu.actions()]
    assert "Test yourself: predict, then run" in run_actions
    assert "Interview round (timed)" in run_actions


def test_the_menus_are_one_object_the_window_keeps(window) -> None:
    """``build_menus`` returns the menus and their actions (issue 44): the window keeps them
    as ``menus`` and holds none of them as attributes of its own."""
    from jitlab.gui.lesson.menus import Menus

    assert isinstance(window.menus, Menus)
    assert window.menus.act_quit in window.menus.file_menu.actions()
    own = [n for n in vars(window) if n.startswith(("act_", "lang_")) or n.endswith("_menu")]
    assert own == []


def test_only_the_parameters_a_variant_reads_are_shown(window) -> None:
    shown = {n for n, w in window.params.widgets.items() if not w.isHidden()}
    assert shown == {"batch_size", "depth"}
    window.set_variant("sequences-bucket")
    shown = {n for n, w in window.params.widgets.items() if not w.isHidden()}
    assert shown == {"seq_len"}


def test_the_palette_follows_a_dark_scheme(qtbot, monkeypatch) -> None:
    from PySide6.QtGui import QPalette

    from jitlab.gui.app import application, match_scheme
    from jitlab.gui.style import is_dark

    app = application()
    monkeypatch.setenv("JITLAB_SCHEME", "dark")
    match_scheme(app)
    try:
        # The offscreen platform ignores Qt's colour-scheme request: the hand-built palette.
        assert app.palette().color(QPalette.ColorRole.Window).name() == "#2b2d31"
        assert is_dark()
    finally:
        monkeypatch.setenv("JITLAB_SCHEME", "light")
        match_scheme(app)
    assert app.palette().color(QPalette.ColorRole.Window).lightness() >= 128
    assert not is_dark()


def test_a_platform_that_honours_the_colour_scheme_keeps_its_own_palette(
    qtbot, monkeypatch
) -> None:
    """JITLAB_SCHEME goes through Qt's colour-scheme API; no hand-built palette on top."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QColor, QPalette, QStyleHints

    from jitlab.gui.app import application, match_scheme
    from jitlab.gui.style import is_dark

    app = application()
    asked: list[Qt.ColorScheme] = []

    def platform_theme(hints: QStyleHints, scheme: Qt.ColorScheme) -> None:
        asked.append(scheme)  # as a platform theme would: the palette follows the request
        palette = QPalette(app.palette())
        dark = scheme == Qt.ColorScheme.Dark
        palette.setColor(QPalette.ColorRole.Window, QColor("#101418" if dark else "#fafafa"))
        app.setPalette(palette)

    monkeypatch.setattr(QStyleHints, "setColorScheme", platform_theme)
    monkeypatch.setenv("JITLAB_SCHEME", "dark")
    try:
        match_scheme(app)
        assert asked == [Qt.ColorScheme.Dark]
        assert app.palette().color(QPalette.ColorRole.Window).name() == "#101418"
        assert is_dark()
        monkeypatch.setenv("JITLAB_SCHEME", "light")
        match_scheme(app)
        assert asked[-1] == Qt.ColorScheme.Light
        assert app.palette().color(QPalette.ColorRole.Window).name() == "#fafafa"
        assert not is_dark()
    finally:
        monkeypatch.undo()
        app.setPalette(QPalette())
        match_scheme(app)
    assert app.palette().color(QPalette.ColorRole.Window).lightness() >= 128


def test_error_view_lays_out_the_anatomy_and_output_shows_facts(qtbot, make_window) -> None:
    from guihelp import wait_calls

    window = make_window(scenario="error-debugging")
    window.step()
    wait_calls(qtbot, window, 1)
    window.link.drain()
    text = window.error_view.toPlainText()
    assert "TracerBoolConversionError" in text
    for layer in ("① Python stack", "② Tracing context", "③ Abstract values", "Why", "Fix"):
        assert layer in text
    assert "x: float32[8,32]" in text
    assert "jax.make_jaxpr of the fixed function" in text


def test_output_pane_shows_what_the_scenario_noted(qtbot, make_window) -> None:
    from guihelp import wait_calls

    window = make_window(scenario="side-effects")
    window.step()
    wait_calls(qtbot, window, 1)
    window.link.drain()
    assert "The Python counter now holds 1." in window.output.toPlainText()


def test_every_chart_takes_the_dark_scheme_ink_on_its_axes(qtbot, monkeypatch) -> None:
    """The lab's chart, the shape histogram and the recording's live-executables plots all
    repaint their axes when the scheme turns dark (one painter for every chart)."""
    from PySide6.QtGui import QPalette

    from jitlab.gui.app import application, match_scheme
    from jitlab.gui.recording.sites import ExecutablesView
    from jitlab.gui.views.chart import ChartView
    from jitlab.gui.views.shape_histogram import ShapeHistogram

    app = application()
    views = [ChartView(), ShapeHistogram(), ExecutablesView()]
    for view in views:
        qtbot.addWidget(view)
    plots = [views[0].plot, views[0].error_plot, views[1].plot]
    plots += [views[2].count_plot, views[2].memory_plot]

    def inks() -> set[str]:
        return {p.getPlotItem().getAxis("left").textPen().color().name() for p in plots}

    assert inks() == {"#2b2f36"}
    monkeypatch.setenv("JITLAB_SCHEME", "dark")
    match_scheme(app)
    try:
        app.processEvents()  # Qt's palette-change events reach every widget
        assert inks() == {"#d8dde6"}
        base = app.palette().color(QPalette.ColorRole.Base).name()
        assert {p.backgroundBrush().color().name() for p in plots} == {base}
    finally:
        monkeypatch.setenv("JITLAB_SCHEME", "light")
        match_scheme(app)
