"""A diagnosis's page, shown inside the app: the section of the display language, as
``jitlab explain ID`` prints it, rendered from the page's Markdown (the pages are ours,
never recorded text)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QDialog, QTextBrowser, QVBoxLayout, QWidget

from jitlab.gui import i18n
from jitlab.records.diagnoses import page_section


class PageView(QDialog):
    """One page in a window of its own; links to the web open in the desktop's browser."""

    def __init__(self, path: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("diagnosisPage")
        self.setWindowTitle(f"jitlab explain {path.stem}")
        self.browser = QTextBrowser(self)
        self.browser.setObjectName("diagnosisPageText")
        self.browser.setOpenExternalLinks(True)
        self.browser.setMarkdown(page_section(path.read_text(encoding="utf-8"), i18n.language()))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.browser)
        self.resize(720, 520)  # inside a 1024×640 screen with room for the window's frame
