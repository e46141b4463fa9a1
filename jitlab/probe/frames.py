"""Where the user's code is: call sites and definition sites outside JAX and its libraries.

A compile happens deep inside JAX, often behind a library (``eqx.filter_jit``, ``nnx.jit``,
an optax update, NumPyro's sampler). The line worth showing is the *user's*: the first frame
outside JAX, jitlab and the well-known JAX libraries listed in :data:`LIBRARIES`.

Extending the list (code you treat as a library, e.g. your own training framework):

* ``jitlab.probe.frames.add_library("mypkg")`` — a module name (found without importing it)
  or a directory path;
* the environment variable ``JITLAB_LIBRARIES="mypkg,otherpkg"`` (commas or the path
  separator), read when this module is imported.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Callable, Iterable
from types import FrameType, TracebackType

from jitlab.records.paths import engine_dirs

# The frame ``depth`` calls up from the caller (0: the caller's own): CPython's documented
# sys._getframe, whose underscore marks it CPython-specific rather than private. Bound once
# here (the same builtin, no wrapper: depths count from where it is called).
getframe: Callable[[int], FrameType] = sys._getframe  # pyright: ignore[reportPrivateUsage]

# JAX itself, jitlab, and the JAX ecosystem libraries whose frames are never the user's.
LIBRARIES: tuple[str, ...] = (
    "jax",
    "jaxlib",
    "jitlab",
    "flax",
    "equinox",
    "optax",
    "numpyro",
    "diffrax",
    "haiku",
    "chex",
    "orbax",
    "jaxtyping",
    "lineax",
    "optimistix",
    "distrax",
    "blackjax",
    "jraph",
    "penzai",
    "treescope",
    "tensorflow_probability",
)
_JAX = ("jax", "jaxlib")  # compiles of functions defined here are JAX-internal kernels

_library_dirs: dict[str, tuple[str, ...]] = {}  # name (or path) -> its directories
_jax_dirs: tuple[str, ...] = ()
_cache: dict[str, bool] = {}  # filename -> is it library code (frames repeat: cache it)
_jax_cache: dict[str, bool] = {}  # filename -> is it JAX's own (realpath: ~30 µs a frame)


def _dirs_of(name: str) -> tuple[str, ...]:
    """The directories of a top-level module (not imported), or the path itself."""
    if os.sep in name or (os.altsep and os.altsep in name) or os.path.isdir(name):
        return (os.path.join(os.path.realpath(name), ""),)
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return ()
    if spec is None:
        return ()
    if spec.submodule_search_locations:
        return tuple(os.path.join(os.path.realpath(d), "") for d in spec.submodule_search_locations)
    if spec.origin and spec.origin not in ("built-in", "frozen"):
        return (os.path.realpath(spec.origin),)  # a single-file module
    return ()


def add_library(*names: str) -> None:
    """Treat these modules (or directories) as library code, never as the user's lines."""
    global _jax_dirs
    for name in names:
        if name and name not in _library_dirs:
            _library_dirs[name] = _dirs_of(name)
    _jax_dirs = tuple(d for n in _JAX for d in _library_dirs.get(n, ()))
    _cache.clear()
    _jax_cache.clear()


def libraries() -> tuple[str, ...]:
    """The names and paths currently treated as libraries."""
    return tuple(_library_dirs)


def _env_libraries() -> Iterable[str]:
    raw = os.environ.get("JITLAB_LIBRARIES", "")
    for part in raw.replace(os.pathsep, ",").split(","):
        if part.strip():
            yield part.strip()


add_library(*LIBRARIES, *_env_libraries())


def is_library(filename: str) -> bool:
    """Is this source file part of JAX, jitlab or a listed library (not the user's code)?"""
    known = _cache.get(filename)
    if known is not None:
        return known
    if filename.startswith("<"):  # <frozen runpy>, <string>: not a user file either way
        result = filename.startswith("<frozen")
    else:
        real = os.path.realpath(filename)
        result = any(
            real == d or real.startswith(d) for dirs in _library_dirs.values() for d in dirs
        )
    _cache[filename] = result
    return result


def is_jax(filename: str) -> bool:
    """Is this source file part of JAX itself (jax, jaxlib)?"""
    known = _jax_cache.get(filename)
    if known is None:
        known = _jax_cache[filename] = (
            os.path.realpath(filename).startswith(_jax_dirs) if _jax_dirs else False
        )
    return known


def site(frame: FrameType) -> str:
    return f"{frame.f_code.co_filename}:{frame.f_lineno}"


def user_frame(frame: FrameType | None) -> FrameType | None:
    """The first frame, from ``frame`` outwards, that is the user's code."""
    while frame is not None:
        if not is_library(frame.f_code.co_filename):
            return frame
        frame = frame.f_back
    return None


def call_site(depth: int = 1) -> str | None:
    """``file:line`` of the user's line that led here (``depth`` frames above the caller)."""
    frame = user_frame(getframe(depth + 1))
    return site(frame) if frame is not None else None


def user_stack(depth: int = 1, limit: int = 8) -> tuple[str, ...]:
    """``file:line`` of the user's lines that led here, outermost first (the last is
    :func:`call_site`'s), at most ``limit`` (the innermost), up to the module level of the
    script (what ran it, ``jitlab watch``'s launcher or runpy, is not the user's). For
    compiles only: it walks the stack."""
    found: list[str] = []
    frame: FrameType | None = getframe(depth + 1)
    while frame is not None and len(found) < limit:
        if not is_library(frame.f_code.co_filename):
            found.append(site(frame))
            if frame.f_code.co_name == "<module>":
                break
        frame = frame.f_back
    return tuple(reversed(found))


# -- tracebacks as python would show them --------------------------------------------------------
def without_frames(tb: TracebackType | None, ours: Callable[[str], bool]) -> TracebackType | None:
    """``tb`` with the entries of files ``ours`` names left out (rebuilt: a traceback is
    linked from the outermost frame in)."""
    kept: list[TracebackType] = []
    while tb is not None:
        if not ours(tb.tb_frame.f_code.co_filename):
            kept.append(tb)
        tb = tb.tb_next
    rebuilt = None
    for entry in reversed(kept):
        rebuilt = TracebackType(rebuilt, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return rebuilt


def strip_chain(exc: BaseException, ours: Callable[[str], bool]) -> None:
    """Leave the frames of files ``ours`` names out of ``exc``'s traceback and those of the
    exceptions it was raised from or during (an ExceptionGroup's too)."""
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        e = todo.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        e.__traceback__ = without_frames(e.__traceback__, ours)
        todo += [e.__cause__, e.__context__]
        todo += list(getattr(e, "exceptions", ()) or ())


_ENGINE = engine_dirs()


def is_engine(filename: str) -> bool:
    """A file of jitlab's engine (the probe, the watch, …): between the program and JAX."""
    return filename.startswith(_ENGINE)
