"""Whether Qt can load here, and the one line that says why not.

PySide6's wheels bring Qt but not the system libraries it links against; a bare server (a
container, a cloud VM) lacks some (``libEGL.so.1``, ``libGL.so.1``, ``libfontconfig.so.1``,
``libxkbcommon.so.0``…), and the import fails in the dynamic loader. Every face that opens a
window (``jitlab``, ``jitlab open``, ``jitlab quiz --gui``) says so in one line, naming the
library and the Debian/Ubuntu package that has it, and exits 1; ``jitlab doctor`` tries the
same load in a fresh interpreter, so that a crash in Qt's start cannot take it down.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import PurePath

from jitlab.cli._usage import say

CANNOT_LOAD = 1  # exit status of a face that needs Qt where Qt cannot load

# The libraries Qt's wheels link against that a bare Debian/Ubuntu lacks, and their packages.
PACKAGES = {
    "libEGL.so.1": "libegl1",
    "libGL.so.1": "libgl1",
    "libOpenGL.so.0": "libopengl0",
    "libGLX.so.0": "libglx0",
    "libGLdispatch.so.0": "libglvnd0",
    "libfontconfig.so.1": "libfontconfig1",
    "libfreetype.so.6": "libfreetype6",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libX11.so.6": "libx11-6",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libxcb.so.1": "libxcb1",
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libXau.so.6": "libxau6",
    "libXdmcp.so.6": "libxdmcp6",
    "libdbus-1.so.3": "libdbus-1-3",
    "libglib-2.0.so.0": "libglib2.0-0",
    "libgthread-2.0.so.0": "libglib2.0-0",
    "libpng16.so.16": "libpng16-16",
    "libz.so.1": "zlib1g",
    "libexpat.so.1": "libexpat1",
    "libbrotlidec.so.1": "libbrotli1",
    "libzstd.so.1": "libzstd1",
    "libpcre2-8.so.0": "libpcre2-8-0",
    "libsystemd.so.0": "libsystemd0",
}
# How the dynamic loader says a library failed: missing, empty or not a library at all.
_LOADER = re.compile(
    r"(?P<path>[^\s:]*?(?P<name>lib[^\s/:]+\.so(?:\.[0-9]+)*)): "
    r"(?:cannot open shared object file|file too short|invalid ELF header|wrong ELF class)"
)
# ``jitlab doctor``'s load, in a fresh interpreter: the modules the windows import, and an
# application on the platform the app would use (none without a display: offscreen).
_LOAD = """
import os, sys
from PySide6 import QtCore, QtGui, QtWidgets
if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
app = QtWidgets.QApplication(sys.argv[:1])
print("qt-loads", QtCore.qVersion())
"""


def missing_library(text: str) -> str | None:
    """The library a loader's error names (``libEGL.so.1``), None when it names none."""
    found = _LOADER.search(text)
    return PurePath(found["name"]).name if found else None


def cannot_load_line(error: str) -> str:
    """The one line (in the command's language) that says Qt cannot load, from what the
    loader or Qt said: the library and its package when a library is to blame."""
    name = missing_library(error)
    if name is None:
        first = next((line for line in error.splitlines() if line.strip()), error)
        return say("qt.cannot_load", error=first.strip()[:300])
    package = PACKAGES.get(name)
    if package is None:
        return say("qt.cannot_load_unknown", library=name)
    return say("qt.cannot_load_library", library=name, package=package)


def _about_qt(exc: ImportError) -> bool:
    module = str(exc.name or "")
    return module.startswith(("PySide6", "shiboken6")) or missing_library(str(exc)) is not None


@contextmanager
def qt_or_exit() -> Iterator[None]:
    """Around the import of a window: Qt failing to load ends the command with one line on
    stderr and :data:`CANNOT_LOAD` (any other import error is jitlab's, raised as it is)."""
    try:
        yield
    except ImportError as exc:
        if not _about_qt(exc):
            raise
        print(say("usage.error", message=cannot_load_line(str(exc))), file=sys.stderr)
        raise SystemExit(CANNOT_LOAD) from None


def load_problem(timeout: float = 120.0) -> str | None:
    """Whether Qt loads here, tried in a fresh interpreter (``jitlab doctor``): None when it
    does, else the line that says why not (a crash, a hang and a refusal included)."""
    env = {**os.environ, "QT_LOGGING_RULES": "*.debug=false"}
    try:
        done = subprocess.run(
            [sys.executable, "-c", _LOAD],
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout,
            env=env,
        )
    except subprocess.TimeoutExpired:
        return say("qt.cannot_load", error=say("qt.hung", seconds=int(timeout)))
    except OSError as exc:
        return say("qt.cannot_load", error=str(exc))
    if done.returncode == 0 and "qt-loads" in done.stdout:
        return None
    error = done.stderr.strip()
    if missing_library(error) is None:  # Qt's own words: its plugin's line, else the last
        lines = [line.strip() for line in error.splitlines() if line.strip()]
        said = [line for line in lines if "plugin" in line] or lines[-1:]
        error = said[0] if said else ""
        if done.returncode < 0 or not error:  # killed by a signal (Qt aborts), or silent
            stopped = say("qt.crashed", signal=abs(done.returncode))
            error = f"{error} ({stopped})" if error else stopped
    return cannot_load_line(error)
