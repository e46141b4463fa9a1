"""The desktop app: Qt views over the headless core, with all JAX work on one worker thread."""

from __future__ import annotations

import ctypes
import sys


def _pin_singletons_for_pyside_6_12() -> None:
    """Work around PySide6 6.12.0 dropping a reference to ``None`` on Python < 3.12.

    With shiboken 6.12.0 on CPython 3.10/3.11, a call of a C++ method returning ``void``
    (``widget.update()``, ``label.setText()``, ``processEvents()``…) decrements the reference
    count of ``None`` (of ``True``/``False`` for some ``bool`` ones) once too often; on 3.12+
    these objects are immortal, so nobody notices. A live GUI makes thousands of such calls
    a minute and the process dies with "Fatal Python error: none_dealloc". Giving these
    singletons a huge reference count makes them as immortal as on 3.12. Remove this once
    PySide6 is fixed or Python 3.12 is the minimum.
    """
    if sys.version_info >= (3, 12) or sys.implementation.name != "cpython":
        return
    try:
        from importlib.metadata import version

        if not version("shiboken6").startswith("6.12."):
            return
    except Exception:
        return
    for singleton in (None, True, False, NotImplemented):
        refcount = ctypes.c_ssize_t.from_address(id(singleton))  # ob_refcnt: first field
        if refcount.value < 1 << 40:
            refcount.value += 1 << 40


_pin_singletons_for_pyside_6_12()
