"""Complete at 1024×640 (issue 54): the comparison chart is never cut at the page's right
edge, scrolling or not (control-flow and static-args lost their last call and the Fix label):
its plot fits its view, and the view fits the page."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication, QBoxLayout

RUN_MS = 240_000
SMALL = (1024, 640)


def chart_is_whole(page) -> bool:
    plot = page.compare.getPlotItem()
    needed = plot.effectiveSizeHint(Qt.SizeHint.MinimumSize).width()
    legend = page.compare_legend.geometry()
    inside = plot.geometry().width() <= page.compare.viewport().width() + 0.5
    inside = inside and needed <= page.compare.viewport().width() + 0.5
    inside = inside and legend.right() <= page.compare.viewport().width() + 0.5
    viewport = page.page_scroll.viewport()
    right = page.compare.mapTo(viewport, QPoint(page.compare.width(), 0)).x()
    return (
        inside
        and right <= viewport.width()
        and page.page_scroll.horizontalScrollBar().maximum() == 0
    )


@pytest.mark.parametrize("sid", ["control-flow", "static-args"])
def test_the_comparison_chart_is_never_cut(qtbot, make_window, sid) -> None:
    window = make_window(scenario=sid)
    window.resize(*SMALL)
    window.mode_bar.buttons["complete"].click()  # runs the comparison's calls first
    qtbot.waitUntil(lambda: window.mode == "complete" and not window.autoplay.beats, timeout=RUN_MS)
    page = window.summary
    scrolled = []
    for lang in ("en", "zh"):
        window.set_language(lang)
        for height in (SMALL[1], 600):  # 600: a shorter screen, the page surely scrolls
            window.resize(SMALL[0], height)
            page.refresh()
            QApplication.processEvents()
            QApplication.processEvents()
            scrolled.append(page.page_scroll.verticalScrollBar().isVisible())
            assert page.failed_row.isVisible()  # the pitfall's calls failed: the legend's third
            assert chart_is_whole(page), (sid, lang, height, page.compare.width())
            # …and beside the table, both above the fold (stacked, it began below it).
            assert page.payoff.direction() == QBoxLayout.Direction.LeftToRight, (sid, lang)
            assert page.compare.height() >= 200, (sid, lang, height)
    assert any(scrolled), "the page never scrolled: the case the issue saw was not tried"
