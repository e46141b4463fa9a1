"""The private-JAX seam, its second half: what JAX makes of a compile, read for the
diagnoses — its persistent-cache log records (persistent-not-written, persistent-key-changed),
the executable a compile made and which are alive (executables-growing), a jaxpr's constants
(captured-constant). Like :mod:`jitlab.probe._jax` (whose version facts it uses), every name
here has a contract test per JAX version; nothing else in jitlab reaches into ``jax._src`` for
these.
"""

from __future__ import annotations

import pathlib
import re
import sys
from types import FrameType
from typing import Any, TypeGuard

from jax._src import config as _jax_config

from jitlab.probe._jax import VERSION, jit_event_name, trace_event_name

# Private JAX is typed Any here, at the seam: its annotations are partial and change between
# versions, and every read below is checked by the contract tests instead.
_config: Any = _jax_config

# With the persistent cache on, ``compiler.py`` and ``compilation_cache.py`` log their cache
# writes ("Writing jit_f to persistent compilation cache …", "Not writing persistent cache
# entry …", "PERSISTENT COMPILATION CACHE MISS …") at WARNING while explanations are on and
# at DEBUG otherwise. ("Persistent compilation cache hit" follows jax_log_compiles instead.)
RAISED_BY_EXPLAIN_LOGGERS = ("jax._src.compiler", "jax._src.compilation_cache")
_RAISED_BY_EXPLAIN_TEXTS = (
    "persistent cache entry",
    "to persistent compilation cache",
    "persistent compilation cache miss",
    "_get_cache: unsupported runtime",
)


def raised_by_explain(logger_name: str, message: str) -> bool:
    """Is this a message JAX logs at WARNING only because ``jax_explain_cache_misses`` is on
    (at DEBUG without it)?"""
    if logger_name not in RAISED_BY_EXPLAIN_LOGGERS:
        return False
    text = message.lower()
    return any(marker in text for marker in _RAISED_BY_EXPLAIN_TEXTS)


# -- the persistent cache's fate of each compile ---------------------------------------------
# compiler.py / compilation_cache.py log each compile's outcome in fixed formats (0.6–0.12; no
# host-callback line from 0.11): format -> (outcome, why, the names of the record's args).
_NOT, _NW = "Not writing persistent cache entry ", "not_written"
PERSISTENT_LOGS: dict[str, tuple[str, str | None, str]] = {
    "Persistent compilation cache hit for '%s' with key %r": ("loaded", None, "module key"),
    "PERSISTENT COMPILATION CACHE MISS for '%s' with key %r": ("missed", None, "module key"),
    "Writing %s to persistent compilation cache with key %r": ("written", None, "module key"),
    _NOT + "since process_id != 0": (_NW, "process_id", ""),
    _NOT + "for '%s' because it uses host callbacks (e.g. from jax.debug.print or breakpoint)": (
        (_NW, "host_callbacks", "module")
    ),
    _NOT + "for '%s' because it took < %.2f seconds to compile (%.2fs)": (
        (_NW, "min_compile_time", "module min_compile_s compile_s")
    ),
    _NOT + "with key %r since cache is disabled/not initialized": (_NW, "cache_disabled", "key"),
    _NOT + "with key %r since its size (%d bytes) is less than threshold (%d bytes)": (
        (_NW, "min_entry_size", "key size min_size")
    ),
}


def persistent_log(msg: object, args: object) -> tuple[str, str | None, dict[str, Any]] | None:
    """A log record's (``record.msg``, ``record.args``) as (outcome, why, figures) when it is
    one of JAX's persistent-cache lines (:data:`PERSISTENT_LOGS`); None for anything else."""
    known = PERSISTENT_LOGS.get(msg) if isinstance(msg, str) else None
    values = args if _is_tuple(args) else tuple[Any, ...]()
    if known is None or len(values) != len(names := known[2].split()):
        return None
    figures: dict[str, Any] = {}
    for name, value in zip(names, values, strict=True):
        if name in ("module", "key"):
            figures[name] = str(value)[:400]
        elif isinstance(value, int | float) and not isinstance(value, bool):
            figures[name] = value
    key = figures.get("key")
    if "module" not in figures and isinstance(key, str) and "-" in key:
        figures["module"] = key.rsplit("-", 1)[0]  # a key is "jit_f-<sha256 hex>"
    return known[0], known[1], figures


def _is_tuple(value: object) -> TypeGuard[tuple[Any, ...]]:
    """A log record's ``args`` as a tuple of whatever was logged."""
    return isinstance(value, tuple)


def module_name(fun_name: str) -> str:
    """The module JAX compiles ``jit(f)`` as, named by its persistent-cache lines: ``jit_f``,
    ``jit__lambda`` (``sanitize_name`` of ``jit(f)``, trailing ``_`` dropped; on 0.6, by
    version, of ``jit_f`` as it is: ``jit__lambda_``)."""
    name = trace_event_name(fun_name)
    if VERSION < (0, 7, 0):
        return re.sub(r"[^\w.-]", "_", f"jit_{name}")
    return re.sub(r"[^\w.-]", "_", jit_event_name(name)).rstrip("_")


def persistent_settings() -> tuple[bool, float, int]:
    """(is the persistent cache configured, its min compile time (s), its min entry size)."""
    c = _config
    on = bool(c.compilation_cache_dir.value) and bool(c.enable_compilation_cache.value)
    least = c.persistent_cache_min_compile_time_secs, c.persistent_cache_min_entry_size_bytes
    return on, float(least[0].value), int(least[1].value)


def persistent_key_parts() -> dict[str, str]:
    """What JAX hashes into a persistent-cache key besides the program (``cache_key.get``),
    as this process has it: the jaxlib version, the backend's platform and version, the XLA
    flags ``_hash_xla_flags`` takes (``XLA_FLAGS``, ``LIBTPU_INIT_ARGS``, ``--xla…`` in
    ``sys.argv``; sorted, less ``xla_flags_to_exclude_from_cache_key``); the cache folder as
    written where ``jax_persistent_cache_enable_xla_caches`` names an XLA cache (its default
    does: a path under it is in the compile options, so ``cache`` and ``/abs/cache`` differ)."""
    import os

    from jax._src import cache_key as _cache_key
    from jax._src import xla_bridge as _xla_bridge
    from jax._src.lib import version_str

    cache_key: Any = _cache_key  # private JAX, typed Any at the seam (see _config)
    xla_bridge: Any = _xla_bridge

    flags = (os.environ.get("XLA_FLAGS") or "").split()
    flags += (os.environ.get("LIBTPU_INIT_ARGS") or "").split()
    flags += [a for a in sys.argv if a.startswith(("--xla", *cache_key.get_flag_prefixes()))]
    left_out = set[str](getattr(cache_key, "xla_flags_to_exclude_from_cache_key", ()))
    hashed = " ".join(f for f in sorted(flags) if f.split("=")[0] not in left_out)[:400]
    backend = xla_bridge.get_backend()
    platform, version = str(backend.platform), str(backend.platform_version)
    shown = (platform if version == platform else f"{platform} {version}")[:200]
    parts = {"jaxlib": str(version_str), "backend": shown, "xla_flags": hashed}
    caches: Any = getattr(_config, "persistent_cache_enable_xla_caches", None)
    named = str(caches.value or "") if caches is not None else ""
    if named == "all" or "xla_gpu_kernel_cache_file" in named or "autotune_cache_dir" in named:
        parts["cache_dir"] = str(pathlib.Path(_config.compilation_cache_dir.value or ""))[:400]
    return parts


# -- executables: the one a compile made, its memory, and which are still alive ----------------
# executables-growing (jax#16778, flax#5548): read on the compile path only.
_COMPILATION_CODE = "_cached_compilation"  # pxla's, 0.6-0.12: ``xla_executable = compile…``
_EXECUTABLE_LOCAL = "xla_executable"
_FRAMES_UP = 16  # from a backend-compile listener up to that frame: about 6 on 0.6-0.12


def compiled_executable(frame: FrameType | None) -> Any | None:
    """From inside a backend-compile event (``/jax/core/compile/backend_compile_duration``):
    the ``LoadedExecutable`` that compile just made (or loaded from the persistent cache),
    without compiling anything again; None where it cannot be found.

    Relies on ``pxla._cached_compilation`` firing that event as it leaves its ``with
    log_elapsed_time`` block, after ``xla_executable = compiler.compile_or_get_cached(...)``
    ran (0.6-0.12): the frame's local is the executable. Read, never kept: whoever calls
    this must not hold it past the call (it would keep the program's executable alive)."""
    for _ in range(_FRAMES_UP):
        if frame is None:
            return None
        code = frame.f_code
        if code.co_name == _COMPILATION_CODE and code.co_filename.endswith("pxla.py"):
            return frame.f_locals.get(_EXECUTABLE_LOCAL)
        frame = frame.f_back
    return None


MEMORY_FIGURES = (
    "generated_code_size_in_bytes",
    "temp_size_in_bytes",
    "argument_size_in_bytes",
    "output_size_in_bytes",
    "alias_size_in_bytes",
)
"""The figures of ``Compiled.memory_analysis()``, which JAX reads from the executable's
``get_compiled_memory_stats()`` (the same call here, on the executable at hand)."""


def executable_memory(executable: Any) -> tuple[int | None, ...] | None:
    """:data:`MEMORY_FIGURES` of an executable, as ``Compiled.memory_analysis()`` gives them
    (None per figure JAX does not give; None when the backend gives no memory analysis)."""
    try:
        stats = executable.get_compiled_memory_stats()
    except Exception:  # NotImplementedError on a backend without it
        return None
    values = [getattr(stats, name, None) for name in MEMORY_FIGURES]
    return tuple(v if isinstance(v, int) and not isinstance(v, bool) else None for v in values)


def executable_id(executable: Any) -> tuple[int, Any]:
    """Which executable this is while it lives: its object (``live_executables()`` returns
    the same Python object each time) and its fingerprint (an address used again by another
    executable has another program)."""
    try:
        fingerprint = executable.fingerprint
    except Exception:
        fingerprint = None
    return id(executable), fingerprint


def live_executables(executable: Any) -> dict[int, Any] | None:
    """Every executable still alive on that executable's client, by ``id``
    (``Client.live_executables()``: those not yet destroyed, whoever holds them); None where
    this jaxlib cannot list them. Drop it after use: it holds them while it lives."""
    try:
        live = executable.client.live_executables()
    except Exception:
        return None
    return {id(each): each for each in live}


def is_alive(ident: tuple[int, Any], live: dict[int, Any]) -> bool:
    """Is the executable of :func:`executable_id` ``ident`` among :func:`live_executables`?"""
    found = live.get(ident[0])
    return found is not None and executable_id(found) == ident


# -- a jaxpr's parts, walked for the constants it holds (captured-constant) -------------------
# Up to 0.10 a traced program is a ``ClosedJaxpr`` (``.jaxpr`` holds ``eqns``/``invars``/
# ``constvars``, ``.consts`` the captured arrays); 0.11 merged it into ``Jaxpr``, which holds
# ``consts`` itself (``.jaxpr`` a legacy accessor, returning itself). A Python scalar the
# program closes over is an equation's ``Literal`` (``.val``), an array a ``const``.
def jaxpr_parts(value: Any) -> tuple[Any, tuple[Any, ...]] | None:
    """(the jaxpr with ``eqns``/``invars``/``constvars``, its captured consts) of a traced
    program or a sub-program in an equation's params; None for anything else."""
    inner = getattr(value, "jaxpr", None)
    inner = inner if hasattr(inner, "eqns") and hasattr(inner, "constvars") else value
    if not (hasattr(inner, "eqns") and hasattr(inner, "invars")):
        return None
    consts = getattr(value, "consts", None) or getattr(inner, "consts", None) or ()
    return inner, tuple(consts)


def is_params(value: object) -> TypeGuard[tuple[Any, ...] | list[Any]]:
    """An equation parameter that is a tuple or list of them (sub-programs among them): JAX's
    params are untyped, their items Any."""
    return isinstance(value, tuple | list)


def _literal_class() -> type:
    from jax._src import core

    return core.Literal


LITERAL: type = _literal_class()
"""An equation input that is a literal (a constant written into the program): ``.val``."""


def _wrapped_fun_class() -> type:
    from jax._src import linear_util

    return linear_util.WrappedFun


WRAPPED_FUN: type = _wrapped_fun_class()
"""A rule in an equation's params that JAX makes anew on each trace (a ``custom_jvp``'s
``jvp_jaxpr_fun``): two traces of one program hold two, unequal and hashed apart."""


def is_literal(atom: Any) -> bool:
    """Is this equation input a literal (a constant written into the program)?"""
    return isinstance(atom, LITERAL)
