"""Where the built-in scenarios and resources live: a source checkout or an installed wheel."""

from __future__ import annotations

import os
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent


# The packages that run between a user's call and JAX (and the records they make): their frames
# are never the user's line, in JAX's cache-miss explanations or in an error's anatomy.
_ENGINE_PACKAGES = ("probe", "watching", "lab", "records", "recordings", "report")


def engine_dirs() -> tuple[str, ...]:
    """Each engine package's folder, real path, ending in the path separator."""
    return tuple(str(_PACKAGE / name) + os.sep for name in _ENGINE_PACKAGES)


def builtin_dir(name: str) -> Path:
    """``scenarios``, ``resources`` or ``docs`` (the diagnoses' pages): in the wheel under
    ``jitlab/_builtin``, else top level."""
    installed = _PACKAGE / "_builtin" / name
    if installed.is_dir():
        return installed
    return _PACKAGE.parent / name


def resource(*parts: str) -> Path:
    return builtin_dir("resources").joinpath(*parts)
