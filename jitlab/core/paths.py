"""Where the built-in scenarios and resources live: a source checkout or an installed wheel."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent


def builtin_dir(name: str) -> Path:
    """``scenarios`` or ``resources``: in the wheel under ``jitlab/_builtin``, else top level."""
    installed = _PACKAGE / "_builtin" / name
    if installed.is_dir():
        return installed
    return _PACKAGE.parent / name


def resource(*parts: str) -> Path:
    return builtin_dir("resources").joinpath(*parts)
