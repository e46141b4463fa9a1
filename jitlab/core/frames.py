"""Where the user's code is: call sites and definition sites outside JAX and its libraries.

A compile happens deep inside JAX, often behind a library (``eqx.filter_jit``, ``nnx.jit``,
an optax update, NumPyro's sampler). The line worth showing is the *user's*: the first frame
outside JAX, jitlab and the well-known JAX libraries listed in :data:`LIBRARIES`.

Extending the list (code you treat as a library, e.g. your own training framework):

* ``jitlab.core.frames.add_library("mypkg")`` — a module name (found without importing it)
  or a directory path;
* the environment variable ``JITLAB_LIBRARIES="mypkg,otherpkg"`` (commas or the path
  separator), read when this module is imported.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from types import FrameType
from typing import Any

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
    return os.path.realpath(filename).startswith(_jax_dirs) if _jax_dirs else False


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
    frame = user_frame(sys._getframe(depth + 1))
    return site(frame) if frame is not None else None


def code_of(fun: Any) -> Any:
    """The code object behind a function, a jit wrapper or a ``functools.partial``."""
    from jitlab.core import wrappers  # wrappers imports this module

    seen = 0
    while fun is not None and seen < 20:
        seen += 1
        code = getattr(fun, "__code__", None)
        if code is not None:
            return code
        inner = wrappers.user_function(fun)
        if inner is None or inner is fun:
            inner = getattr(fun, "func", None)  # functools.partial
        if inner is None:
            call = getattr(type(fun), "__call__", None)  # noqa: B004 (a callable object's code)
            return getattr(call, "__code__", None)
        fun = inner
    return None


def defined_at(fun: Any, *, search_stack: bool = False) -> str | None:
    """``file:line`` of the user's ``def`` behind ``fun``.

    Jit wrappers and partials are unwrapped first. If the function was written inside a
    library (e.g. the inner function ``equinox.filter_jit`` jits), ``search_stack=True``
    — only meaningful while the library is creating it — looks up the stack for the user
    function the library is wrapping; otherwise the library's line is the truth and is
    returned as such.
    """
    try:
        code = code_of(fun)
    except Exception:  # an exotic callable: no site rather than a wrong one
        code = None
    if code is None:
        return None
    if search_stack and is_library(code.co_filename):
        from jitlab.core import wrappers

        user = wrappers.user_function_in_stack(sys._getframe(1))
        if user is not None:
            return defined_at(user)
    return f"{code.co_filename}:{code.co_firstlineno}"


@dataclass(frozen=True)
class CompileSite:
    """Who compiled, seen from inside one of JAX's compile events."""

    called_from: str | None  # the user's line
    defined_at: str | None  # the user's def (or the library's, when no user function)
    internal: bool  # a JAX-internal kernel (an eager op, jax.random, jnp.*), not a jit call
    function: Any = None  # the Python function JAX compiled, when found
    # The user's call through a jit wrapper (eqx.filter_jit, nnx.jit) found on the stack:
    # its signature in the user's names, for a diff jitlab can make itself.
    signature: Any = None


def compile_site(depth: int = 1) -> CompileSite:
    """Call from a compile event listener: classify the compile and find the user's lines.

    The jaxpr JAX is compiling names its source (``debug_info.func_src_info``): defined in
    JAX itself it is an internal kernel (``jnp.log`` outside any jit, ``jax.random.split``,
    eager autodiff); else a jitted function, unwrapped through any jit wrapper on the stack
    (``eqx.filter_jit``, ``nnx.jit``) down to the user's ``def``. Frames are trusted only
    when they hold a function of the compiled name (an eager op compiled while an outer
    function traces is not that function).
    """
    from jitlab.core import _jax, wrappers  # this module itself imports no JAX

    frame = sys._getframe(depth + 1)
    name = source = None  # of the jaxpr being compiled
    compiled = dispatch = call = wrapper_fun = user = None
    while frame is not None:
        filename = frame.f_code.co_filename
        if not is_library(filename):
            user = frame
            break
        if is_jax(filename):
            jaxpr = _jax.compiling_jaxpr(frame) if name is None else None
            if jaxpr is not None:
                name, source = jaxpr
            elif compiled is None and (jit_call := _jax.jit_call_in_frame(frame)) is not None:
                # jit's cache_miss(*args, **kwargs): the function called and its arguments.
                fun, jit_info, args, kwargs = jit_call
                if name is None or wrappers._fun_name(fun) == name:
                    compiled = fun
                    dispatch = (jit_info, args, kwargs)
        else:
            local = frame.f_locals
            owner = local.get("self")  # a jit wrapper's __call__; the outermost wins
            inner = wrappers.user_function(owner) if owner is not None else None
            if inner is not None and (name is None or wrappers._fun_name(inner) == name):
                wrapper_fun = inner
                call = (owner, local.get("args"), local.get("kwargs"))
        frame = frame.f_back
    called_from = site(user) if user is not None else None
    source_file = source.rpartition(" at ")[2].rpartition(":")[0] if source else ""
    if source_file:
        internal = is_jax(source_file)
    else:
        code = _safe_code(compiled)
        internal = code is not None and is_jax(code.co_filename)
    target = wrapper_fun if wrapper_fun is not None and not internal else compiled
    where = defined_at(target) if target is not None else None
    if where is None and source_file:
        where = source.rpartition(" at ")[2]
    if wrapper_fun is not None and not internal:
        described = _signature(call, None)
    else:
        described = _signature(dispatch, compiled)
    return CompileSite(called_from, where, internal, target, described)


def _safe_code(fun: Any) -> Any:
    try:
        return code_of(fun) if fun is not None else None
    except Exception:
        return None


def _signature(call: tuple[Any, Any, Any] | None, fun: Any) -> Any:
    """A call's signature: through a jit wrapper (``fun`` None) with the wrapper's argument
    split, else jit's own call with its ``static_argnums`` / ``static_argnames``."""
    if call is None or not isinstance(call[1], tuple) or not isinstance(call[2], dict):
        return None
    from jitlab.core import signature, wrappers

    try:
        if fun is None:
            info = wrappers.recognise(call[0])
            spec = info.spec if info else None
        else:
            jit_info = call[0]
            spec = signature.StaticSpec.for_function(
                getattr(jit_info, "static_argnums", ()) or (),
                getattr(jit_info, "static_argnames", ()) or (),
                fun,
            )
        return signature.describe(spec, 0, call[1], call[2]) if spec is not None else None
    except Exception:  # no signature rather than a wrong one
        return None
