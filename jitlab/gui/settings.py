"""Where the app keeps its settings, and the language a window starts in."""

from __future__ import annotations

import os
import sys
import tempfile

from PySide6.QtCore import QSettings

from jitlab.gui import i18n

ORGANIZATION = "jitlab"
APPLICATION = "jitlab"


# Said once on stderr when no home folder can be found (see _folder_of_settings).
SESSION_ONLY = {
    "en": "jitlab: no home folder (HOME is unset and the user has none): settings are kept "
    "for this session only",
    "zh": "jitlab：找不到主目录（HOME 未设置，用户也没有主目录）：设置只在本次运行中保留",
}
_session: list[tempfile.TemporaryDirectory[str]] = []  # the one folder of a session's settings


def make_settings() -> QSettings:
    """The user's settings, or an ini file named by ``JITLAB_SETTINGS`` (tests, screenshots).

    Qt puts them under ``$HOME/.config``; with ``HOME`` unset it would write to
    ``/.config/jitlab/`` at the root of the file system. Then, as Python's ``expanduser``
    does, the home folder is the user's entry in the password database; a user without one
    keeps the settings for this session only, and is told so."""
    path = os.environ.get("JITLAB_SETTINGS")
    if path:
        return QSettings(path, QSettings.Format.IniFormat)
    folder = _folder_of_settings()
    if folder is None:
        return QSettings(ORGANIZATION, APPLICATION)
    file = os.path.join(folder, ORGANIZATION, f"{APPLICATION}.conf")  # Qt's own name there
    return QSettings(file, QSettings.Format.IniFormat)


def _folder_of_settings() -> str | None:
    """None where Qt finds the right folder itself (``HOME`` or ``XDG_CONFIG_HOME`` set, or
    a system that does not use them); else the folder to use instead."""
    if sys.platform in ("win32", "darwin") or os.environ.get("HOME"):
        return None
    xdg = os.environ.get("XDG_CONFIG_HOME", "")
    if os.path.isabs(xdg):
        return None
    home = os.path.expanduser("~")  # HOME is unset: the password database's entry
    if os.path.isabs(home) and os.path.isdir(home) and home != os.path.sep:
        return os.path.join(home, ".config")
    if not _session:
        _session.append(tempfile.TemporaryDirectory(prefix="jitlab-settings-"))
        print(SESSION_ONLY[i18n.system_language()], file=sys.stderr)
    return _session[0].name


def start_language(settings: QSettings, language: str | None = None) -> None:
    """The language asked for, else the one last chosen, else the system's (English if we
    have no translation for it)."""
    lang = language or str(settings.value("language", "") or "") or i18n.system_language()
    i18n.set_language(lang if lang in i18n.LANGUAGES else "en")
