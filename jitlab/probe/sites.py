"""Who compiled and where the user wrote it: definition sites and compile sites.

Built on :mod:`jitlab.probe.frames` (which frames are the user's) and
:mod:`jitlab.probe.wrappers` (what a jit wrapper wraps).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from types import FrameType
from typing import Any, TypeGuard

from jitlab.probe import _jax, signature, wrappers
from jitlab.probe.frames import getframe, is_jax, is_library, site


def definition_site(fn: Any) -> str:
    """``file:line`` of the probed function's code, for a new-function-object change."""
    try:
        code = inspect.unwrap(fn).__code__
    except (AttributeError, ValueError):
        return ""
    return f"{code.co_filename}:{code.co_firstlineno}"


def code_of(fun: Any) -> Any:
    """The code object behind a function, a jit wrapper or a ``functools.partial``."""
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
            obj: object = fun  # declared: type() of it is a type, not an unknown one
            call = getattr(type(obj), "__call__", None)  # noqa: B004 (a callable object's code)
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
        user = wrappers.user_function_in_stack(getframe(1))
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
    # That call's key (signature.fast_key): its static values as the objects themselves, so
    # that the diff compares them as jit does and can tell identity-static.
    key: Any = None


def compile_site(depth: int = 1, describe_internal: bool = True) -> CompileSite:
    """Call from a compile event listener: classify the compile and find the user's lines.

    The jaxpr JAX is compiling names its source (``debug_info.func_src_info``): defined in
    JAX itself it is an internal kernel (``jnp.log`` outside any jit, ``jax.random.split``,
    eager autodiff); else a jitted function, unwrapped through any jit wrapper on the stack
    (``eqx.filter_jit``, ``nnx.jit``) down to the user's ``def``. Frames are trusted only
    when they hold a function of the compiled name (an eager op compiled while an outer
    function traces is not that function).
    """
    frame: FrameType | None = getframe(depth + 1)
    name = source = None  # of the jaxpr being compiled
    compiled = dispatch = call = wrapper_fun = user = None
    lowered: tuple[str | None, str | None] | None = None  # an AOT compile's function
    while frame is not None:
        filename = frame.f_code.co_filename
        if not is_library(filename):
            user = frame
            break
        if is_jax(filename):
            jaxpr = _jax.compiling_jaxpr(frame) if name is None else None
            if lowered is None:
                lowered = _jax.aot_compiling(frame)
            if jaxpr is not None:
                name, source = jaxpr
            elif compiled is None and (jit_call := _jax.jit_call_in_frame(frame)) is not None:
                # jit's cache_miss(*args, **kwargs): the function called and its arguments.
                fun, jit_info, args, kwargs = jit_call
                if name is None or wrappers.fun_name(fun) == name:
                    compiled = fun
                    dispatch = (jit_info, args, kwargs)
        else:
            local = frame.f_locals
            owner = local.get("self")  # a jit wrapper's __call__; the outermost wins
            inner = wrappers.user_function(owner) if owner is not None else None
            if inner is not None and (name is None or wrappers.fun_name(inner) == name):
                wrapper_fun = inner
                call = (owner, local.get("args"), local.get("kwargs"))
        frame = frame.f_back
    if name is None and lowered is not None:
        # Lowered.compile(): no jaxpr ran through jit's call, the lowering names its function
        # (so an AOT compile is filed under the function it compiled, at its definition).
        name, source = lowered
    called_from = site(user) if user is not None else None
    source_file = source.rpartition(" at ")[2].rpartition(":")[0] if source else ""
    if source_file:
        internal = is_jax(source_file)
    else:
        code = _safe_code(compiled)
        internal = code is not None and is_jax(code.co_filename)
    target = wrapper_fun if wrapper_fun is not None and not internal else compiled
    where = defined_at(target) if target is not None else None
    if where is None and source and source_file:
        where = source.rpartition(" at ")[2]
    if wrapper_fun is not None and not internal:
        described, key = _signature(call, None)
    elif internal and not describe_internal:
        described, key = None, None  # a kernel of JAX's the caller will not record
    else:
        described, key = _signature(dispatch, compiled)
    return CompileSite(called_from, where, internal, target, described, key)


def _safe_code(fun: Any) -> Any:
    try:
        return code_of(fun) if fun is not None else None
    except Exception:
        return None


def _arguments_read(
    call: tuple[Any, Any, Any] | None,
) -> TypeGuard[tuple[Any, tuple[Any, ...], dict[str, Any]]]:
    """A call read off JAX's frame whose arguments are as JAX holds them: (the function, the
    positional arguments, the keyword arguments)."""
    return call is not None and isinstance(call[1], tuple) and isinstance(call[2], dict)


def _signature(call: tuple[Any, Any, Any] | None, fun: Any) -> tuple[Any, Any]:
    """A call's signature and key (:func:`signature.fast_key`): through a jit wrapper
    (``fun`` None) with the wrapper's argument split, else jit's own call with its
    ``static_argnums`` / ``static_argnames``. (None, None) where it cannot be read."""
    if not _arguments_read(call):
        return None, None
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
        if spec is None:
            return None, None
        described = signature.describe(spec, 0, call[1], call[2])
    except Exception:  # no signature rather than a wrong one
        return None, None
    try:
        return described, signature.fast_key(spec, 0, call[1], call[2])
    except Exception:  # a static jit cannot hash either: the signature alone
        return described, None
