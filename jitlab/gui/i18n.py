"""Runtime language switching through Qt's translation system.

English is the source language (``tr()`` strings); Chinese comes from
``resources/i18n/jitlab_zh_CN.qm``, compiled from the ``.ts`` next to it. Installing or
removing the translator makes Qt send ``LanguageChange`` to every widget, which re-labels
itself; lesson texts (``Text(en, zh)``) are picked with :func:`language`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QCoreApplication, QEvent, QLibraryInfo, QLocale, QTranslator

from jitlab.records.paths import resource

LANGUAGES = ("en", "zh")
_language = ["en"]  # the interface language now in use (a list: set in place)
_translators: list[QTranslator] = []  # installed on the application, removed on a switch


def qm_path() -> str:
    return str(resource("i18n", "jitlab_zh_CN.qm"))


def language() -> str:
    """The interface language now in use: ``en`` or ``zh``."""
    return _language[0]


def system_language() -> str:
    return "zh" if QLocale.system().name().startswith("zh") else "en"


def set_language(lang: str) -> bool:
    """Switch the whole interface; returns False when the Chinese catalogue is missing."""
    app = QCoreApplication.instance()
    if app is None:
        raise RuntimeError("create the QApplication first")
    for translator in _translators:
        app.removeTranslator(translator)
    _translators.clear()
    ok = True
    if lang == "zh":
        ours = QTranslator(app)
        ok = ours.load(qm_path())
        if ok:
            app.installTranslator(ours)
            _translators.append(ours)
            qt = QTranslator(app)  # Qt's own strings (standard buttons, dialogs)
            folder = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
            if qt.load("qtbase_zh_CN", folder):
                app.installTranslator(qt)
                _translators.append(qt)
    _language[0] = lang if ok else "en"
    # Deliver the LanguageChange events now, so every label is re-translated on return.
    QCoreApplication.sendPostedEvents(None, QEvent.Type.LanguageChange)
    QCoreApplication.sendPostedEvents(None, QEvent.Type.LanguageChange)
    return ok


def add_language_menu(window: Any, choose: Callable[[str], object]) -> None:
    """A Language menu on ``window``'s menu bar (:func:`language_menu`); sets
    ``window.lang_menu`` and ``window.lang_actions``; the window titles the menu in its
    ``retranslate`` (so the title goes through its own ``tr()`` context).
    """
    window.lang_menu, window.lang_actions = language_menu(window, choose)


def language_menu(window: Any, choose: Callable[[str], object]) -> tuple[Any, dict[str, Any]]:
    """A Language menu on ``window``'s menu bar, untitled: the menu and one checkable action
    per language (keyed by its code), the current language checked."""
    from PySide6.QtGui import QAction, QActionGroup

    menu = window.menuBar().addMenu("")
    group = QActionGroup(window)
    actions = {}
    for lang, name in (("en", "English"), ("zh", "中文")):
        act = QAction(name, window)
        act.setCheckable(True)
        act.triggered.connect(lambda _=False, code=lang: choose(code))
        group.addAction(act)
        menu.addAction(act)
        actions[lang] = act
    actions[language()].setChecked(True)
    return menu, actions


def translate(context: str, text: str) -> str:
    """``tr()`` for code outside a QObject (tables of kind names and the like)."""
    return QCoreApplication.translate(context, text)


class Retranslating:
    """Mixed into a widget (before the Qt class): :meth:`retranslate` on a language change,
    :meth:`restyle` on a palette change (light/dark), then Qt's own handling."""

    def retranslate(self) -> None:
        """Set every text again in the language now in use."""

    def restyle(self) -> None:
        """Take the palette's new colours where they were copied (charts, labels)."""

    def changeEvent(self, event: QEvent) -> None:
        kind = event.type()
        if kind == QEvent.Type.LanguageChange:
            self.retranslate()
        elif kind == QEvent.Type.PaletteChange:
            self.restyle()
        super().changeEvent(event)  # type: ignore[misc]
