"""Where the app keeps its settings, and the language a window starts in."""

from __future__ import annotations

import os

from PySide6.QtCore import QSettings

from jitlab.gui import i18n

ORGANIZATION = "jitlab"
APPLICATION = "jitlab"


def make_settings() -> QSettings:
    """The user's settings, or an ini file named by ``JITLAB_SETTINGS`` (tests, screenshots)."""
    path = os.environ.get("JITLAB_SETTINGS")
    if path:
        return QSettings(path, QSettings.Format.IniFormat)
    return QSettings(ORGANIZATION, APPLICATION)


def start_language(settings: QSettings, language: str | None = None) -> None:
    """The language asked for, else the one last chosen, else the system's (English if we
    have no translation for it)."""
    lang = language or str(settings.value("language", "") or "") or i18n.system_language()
    i18n.set_language(lang if lang in i18n.LANGUAGES else "en")
