"""Every private JAX behaviour jitlab relies on, in one place (checked on jax 0.6.2, 0.7.2,
0.8.3, 0.9.2 and 0.10.2, CPU).

What differs between those versions, each handled here and nowhere else (feature-detected
where JAX offers something to test, by :data:`VERSION` where not):

- ``config.trace_context_names`` exists from 0.10; below, each entry's name is found by
  asking each config state which entry is its own (:func:`trace_context_names`).
- ``source_info_util.user_frame`` takes a ``Traceback`` from 0.7, a ``SourceInfo`` before.
- The thread's innermost trace is the config state ``core.trace_state_strong_ref`` from
  0.10, ``core.trace_ctx.trace`` before (:data:`TRACE_STATE`).
- A callable object's events are named ``<unnamed wrapped function>`` up to 0.8
  (:func:`fun_name`).
- ``jax.pmap``: a C++ ``PmapFunction`` on 0.6–0.7 (refused, :func:`is_legacy_pmap`), events
  named ``call_wrapped`` on 0.8 and ``_fun`` from 0.9 (:data:`PMAP_TRACE_NAME`).
- ``HloComputation.instructions()`` from 0.10 (:func:`hlo_opcodes`); ``PartitionSpec`` is
  written ``PartitionSpec(...)`` up to 0.8, ``P(...)`` after (:func:`spec_text`);
  ``jax.monitoring.unregister_event_duration_listener`` is public from 0.8.
- ``register_dataclass`` keeps its field lists in a flatten function named
  ``_register_dataclass.<locals>.flatten_func`` in 0.12, without the underscore before
  (:func:`dataclass_fields`).
- The cache-miss explanation format (0.6–0.8: ``costing … ms because:``, ``* key with
  different …:`` blocks, contexts by position) is read by ``explain.py``, with the
  context names of :func:`trace_context_names`; the explaining logger is ``pjit`` up to 0.8.

JAX offers no public API for what jitlab needs to see (which function a compile event is
about, the thread-local switch for cache-miss explanations, the size of a jitted function's
cache, ...), so the probe leans on private modules, private attributes and the exact names
of events, loggers and frames. Each of them is named here once, with a docstring saying what
it relies on, and ``tests/probe/test_jax_contract.py`` has one test per behaviour: after a
JAX upgrade the test of the behaviour that changed fails, by name, instead of the probe
quietly recording wrong answers.

Rules for the rest of jitlab: no ``jax._src`` import, no private attribute of a JAX (or
Equinox / Flax NNX) object, no event, logger or frame name of JAX's, outside this module.
Hot paths bind the aliases below at import time (``_swap = _jax.EXPLAIN.swap_local``) so a
call costs no more than it did before the aliases existed.
"""

from __future__ import annotations

import contextlib
import functools
import re
import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

from jax._src import api as _api
from jax._src import config as _config
from jax._src import monitoring as _monitoring
from jax._src import source_info_util as _source_info_util
from jax._src import traceback_util as _traceback_util
from jax._src import tree_util as _tree_util
from jax._src import util as _util

from jitlab.records import lines as _lines

CHECKED_ON = "0.12.0.1"

# -- the JAX versions this module knows -----------------------------------------------------
# Checked on the newest patch of each minor: 0.6.2, 0.7.2, 0.8.3, 0.9.2, 0.10.2, 0.11.2, 0.12.0.1
# (0.11 and 0.12 on Python 3.12 and 3.13). A version
# difference is detected by feature where JAX offers one to test, by version where not;
# each branch below says which, and tests/probe/test_jax_contract.py states per version what
# JAX does.


def _version_tuple(text: str) -> tuple[int, int, int]:
    parts = []
    for piece in text.split(".")[:3]:
        digits = re.match(r"\d*", piece)
        parts.append(int(digits[0]) if digits and digits[0] else 0)  # "0rc1" -> 0
    while len(parts) < 3:
        parts.append(0)
    return parts[0], parts[1], parts[2]


def _installed_version() -> tuple[int, int, int]:
    import jax

    return _version_tuple(jax.__version__)


VERSION: tuple[int, int, int] = _installed_version()
"""The installed JAX as (major, minor, patch)."""

# -- jax.monitoring event names ---------------------------------------------------------------
# Duration events fire on the calling thread, inside the call. The trace event's ``fun_name``
# is the function's name (``f``), the lower and compile events' is ``jit(f)``. An in-memory
# cache hit fires nothing.
TRACE_EVENT = "/jax/core/compile/jaxpr_trace_duration"
LOWER_EVENT = "/jax/core/compile/jaxpr_to_mlir_module_duration"
COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"
# A persistent-cache load: ``cache_hits`` is a plain event, ``cache_retrieval_time_sec`` a
# duration; neither carries a function name.
PERSISTENT_HIT_EVENT = "/jax/compilation_cache/cache_hits"
PERSISTENT_LOAD_EVENT = "/jax/compilation_cache/cache_retrieval_time_sec"
# ``jax.pmap(f)`` runs as ``jit(shard_map(_fun))``: its events are named after JAX's inner
# function, not after ``f`` — ``_fun`` from 0.9, ``call_wrapped`` on 0.8 (by version: the
# name is nowhere to detect before a call). On 0.6–0.7 pmap is a C++ ``PmapFunction`` whose
# events are named after ``f`` (trace ``f``, lower ``pmap(f)``, compile ``f``): jitlab does
# not probe it there (:func:`is_legacy_pmap`).
PMAP_TRACE_NAME = "_fun" if VERSION >= (0, 9, 0) else "call_wrapped"
# ``Exported.call`` (jax.export) binds the ``call_exported`` primitive eagerly: JAX compiles
# the exported program as a kernel of that name, once per concrete argument type (its log:
# ``jit(call_exported)``). The program is the user's, not one of JAX's own kernels.
EXPORTED_CALL_NAME = "call_exported"


def is_legacy_pmap(obj: Any) -> bool:
    """A ``jax.pmap`` object of 0.6–0.7 (``jaxlib``'s C++ ``PmapFunction``; feature-detected
    by its type's name), whose events jitlab cannot tie to the call."""
    return type(obj).__name__ == "PmapFunction"


# The functions JAX's transformations return, by (module file, code name): ``jax.grad(f)`` is
# ``grad_f`` in api.py under the ``api_boundary`` wrapper (``reraise_with_filtered_traceback``
# in traceback_util.py, holding it in the cell ``fun``), its ``__wrapped__`` the function it
# transforms. ``jax.jit(jax.grad(f))`` and ``jax.jit(f)`` are two functions to JAX's caches,
# named ``f`` alike in its log (checked on 0.6.2-0.12).
_TRANSFORM_CODES = {
    ("api.py", "grad_f"): "grad",
    ("api.py", "grad_f_aux"): "grad",
    ("api.py", "value_and_grad_f"): "value_and_grad",
    ("api.py", "vmap_f"): "vmap",
    ("api.py", "jacfun"): "jacobian",
    ("ad_checkpoint.py", "fun_remat"): "checkpoint",
}
_BOUNDARY = ("traceback_util.py", "reraise_with_filtered_traceback")


def transformations_of(fun: Any) -> tuple[str, ...]:
    """The JAX transformations ``fun`` is made of, outermost first (``jax.vmap(jax.grad(f))``:
    ``("vmap", "grad")``); ``()`` for anything else (a plain function, a ``custom_jvp``)."""
    layers: list[str] = []
    for _ in range(32):
        code = getattr(fun, "__code__", None)
        if code is None or "jax" not in code.co_filename:
            break
        where = (code.co_filename.replace("\\", "/").rpartition("/")[2], code.co_name)
        if where == _BOUNDARY and "fun" in code.co_freevars:
            fun = fun.__closure__[code.co_freevars.index("fun")].cell_contents
            continue
        label = _TRANSFORM_CODES.get(where)
        if label is None:
            break
        if not (label == "value_and_grad" and layers[-1:] == ["grad"]):
            layers.append(label)  # (grad_f calls a value_and_grad_f of its own: one grad)
        cells = dict(zip(code.co_freevars, fun.__closure__ or (), strict=False))
        held = cells.get("fun") or cells.get("value_and_grad_f")
        fun = held.cell_contents if held is not None else None
    return tuple(layers)


def jit_event_name(trace_name: str) -> str:
    """The ``fun_name`` of the lower / compile events of a function whose trace event is
    named ``trace_name`` (``f`` -> ``jit(f)``)."""
    return f"jit({trace_name})"


def trace_event_name(event_name: str) -> str:
    """The inverse of :func:`jit_event_name` (names without ``jit(...)`` are returned as is)."""
    if event_name.startswith("jit(") and event_name.endswith(")"):
        return event_name[4:-1]
    return event_name


# -- cache-miss explanations --------------------------------------------------------------------
# ``jax_explain_cache_misses`` explains a tracing-cache miss through ``logging`` at WARNING,
# the message starting ``TRACING CACHE MISS`` (jitlab matches ``CACHE MISS`` case-blind). The
# logger is that of the module that noticed the miss; on 0.10.2 it is
# ``jax._src.interpreters.partial_eval``, the others are where older / newer versions log.
EXPLAINING_LOGGERS = (
    "jax._src.interpreters.partial_eval",
    "jax._src.interpreters.pxla",
    "jax._src.pjit",
    "jax._src.compiler",
    "jax._src.compilation_cache",
    "jax._src.util",
    "jax._src.linear_util",
    "jax._src.dispatch",
)
CACHE_MISS_MARKER = "CACHE MISS"

# -- JAX's config states (private) ------------------------------------------------------------
EXPLAIN: Any = _config.explain_cache_misses
"""``jax_explain_cache_misses`` as a config *state*: ``swap_local(v)`` sets this thread's value
and returns the previous one (``UNSET`` when the thread had none), ``set_local(v)`` puts one
back (``UNSET`` removes it), ``get_local()``, ``get_global()`` and ``set_global(v)``. The
public ``jax.config.update`` has only the global value; a probed call needs the thread's own."""

EXPLAINER_THREAD_SAFE = VERSION >= (0, 8, 0)
"""Below 0.8 JAX's explainer iterates the live tracing cache (``for ok in cache.keys()``):
another thread compiling the same function while explanations are on can raise
``RuntimeError: dictionary changed size during iteration`` inside JAX (fixed in 0.8 with a copy
of the keys). A watch switches explanations on for the whole program, so jitlab gives JAX's
explainer a copy of the cache there too (:func:`guard_explainer`)."""


def guard_explainer() -> bool:
    """Below 0.8: make JAX's tracing-cache explainer read a copy of the cache, as 0.8 does.

    ``pjit._create_pjit_jaxpr`` is ``linear_util.cache``'s ``memoized_fun`` with the explainer
    in its closure cell ``explain``; the cell gets a wrapper that passes ``dict(cache)`` (a
    copy made under the GIL, with no Python code between: atomic against other threads'
    inserts). Same text, same arguments otherwise. Returns whether the guard is in place
    (False on 0.8+, where JAX copies the keys itself, or if the closure is not as expected)."""
    if EXPLAINER_THREAD_SAFE:
        return False
    from jax._src import pjit as _pjit

    memoized: Any = getattr(_pjit, "_create_pjit_jaxpr", None)
    code = getattr(memoized, "__code__", None)
    closure = getattr(memoized, "__closure__", None) or ()
    cells = dict(zip(code.co_freevars, closure, strict=False)) if code else {}
    cell = cells.get("explain")
    original = getattr(_pjit, "explain_tracing_cache_miss", None)
    if cell is None or original is None:
        return False
    if getattr(cell.cell_contents, "__wrapped__", None) is original:
        return True  # already guarded

    def explain(fun: Any, unseen_f: bool, cache: dict, key: tuple, elapsed_sec: float) -> Any:
        return original(fun, unseen_f, dict(cache), key, elapsed_sec)

    explain.__wrapped__ = original  # type: ignore[attr-defined]
    if cell.cell_contents is not original:
        return False
    cell.cell_contents = explain
    return True


EXPLAINER_GUARDED = guard_explainer()


def _tracing_explainer() -> tuple[Any, Any] | None:
    """0.10: JAX's switch for its tracing-cache explainer and the closure cell it reads.

    ``pe.trace_to_jaxpr`` is a C++ ``WeakrefLRUCache`` built by ``util._weakref_lru_cache``
    with ``explain=lambda: explain if config.explain_cache_misses.value else None``: on a miss
    (before tracing) JAX calls that lambda (the switch) and, when it returns the function in
    its cell (``partial_eval.explain``), builds ``keys``, a fresh list of every key the cache
    holds for every function (``(weakref to fun, *key)``, ~1 µs a key), and calls it with
    ``(keys, fun, in_avals, debug_info, *context)``. The cache object reports the lambda among
    its referents. None where it is not so (other versions)."""
    if VERSION < (0, 10, 0):
        return None
    import gc

    from jax._src.interpreters import partial_eval as pe

    original = getattr(pe, "explain", None)
    for held in gc.get_referents(getattr(pe, "trace_to_jaxpr", None)):
        code = getattr(held, "__code__", None)
        if code is None or "explain" not in code.co_freevars:
            continue
        cell = held.__closure__[code.co_freevars.index("explain")]
        contents = cell.cell_contents
        if contents is original or getattr(contents, "__wrapped__", None) is original:
            return held, cell
    return None


def _tracing_explainer_cell() -> Any:
    """0.10: the closure cell holding JAX's tracing-cache explainer (see
    :func:`_tracing_explainer`); None elsewhere."""
    found = _tracing_explainer()
    return found[1] if found is not None else None


def _gated_switch_code() -> Any:
    """The code of JAX's explainer switch with a gate: the explainer in the cell may see
    every miss (``gate(on)``, whatever the switch's value) and say, before JAX lists every key
    of its cache, that JAX need not (:func:`_gate`). Run with the switch's own globals
    (``util``'s ``config``) and its cell (``explain``)."""
    explain: Any = None  # the switch's one free variable, as in JAX's lambda

    def switch() -> Any:
        on = config.explain_cache_misses.value  # type: ignore[name-defined] # noqa: F821
        gate = getattr(explain, "gate", None)
        if gate is None:
            return explain if on else None
        return explain if gate(on) else None

    return switch.__code__


class _TracedFunctions:
    """Which functions JAX's tracing cache (``pe.trace_to_jaxpr``, 0.10+) may hold keys of:
    a superset, kept from the switch JAX calls on every miss of that cache, before it traces.

    JAX answers a miss it explains by listing every key of every function first (O(keys)
    per miss: quadratic over a program of thousands of functions, and each listing's
    thousands of tuples feed Python's garbage collector). For a function no miss has named
    yet, JAX's explainer can only say "never seen function" (it keeps only the keys whose
    function *is* this one): jitlab calls it with no keys instead, the same words at once.

    ``complete`` turns False, for good, if a function cannot be held weakly or compared
    (or JAX's keys not read): from then on every miss is explained as JAX does, with the
    whole list."""

    def __init__(self) -> None:
        import threading
        import weakref

        self.seen: weakref.WeakSet[Any] = weakref.WeakSet()
        self.complete = True
        self.quiet = threading.local()  # .next: the explainer's next call is only to note
        self.lock = threading.RLock()  # a hash or __eq__ that jits would come back here

    def seed(self, keys: list[Any]) -> None:
        """Take in the functions of keys JAX already holds (``cache_keys()``)."""
        try:
            with self.lock:
                for key in keys:
                    fun = key[0]()
                    if fun is not None:
                        self.seen.add(fun)
        except Exception:  # not as expected: no shortcut, JAX lists every key
            self.complete = False

    def first_sighting(self, fun: Any) -> bool:
        """Note ``fun``; True only if the cache surely holds no key of it."""
        try:
            with self.lock:
                if fun in self.seen:
                    return False
                self.seen.add(fun)
        except Exception:  # unhashable, not weakly referable, an __eq__ that raises
            self.complete = False
            return False
        return self.complete


_TRACED = _TracedFunctions()


_MADE_HERE = "<made here>"
"""In :func:`_trace_calls`: the function is a ``partial(...)`` made in the call itself, an object
no earlier miss can have named (JAX's cache holds it weakly; it dies with the call)."""


@functools.lru_cache(maxsize=64)
def _trace_calls(filename: str) -> dict[int, tuple[str | None, ...] | None]:
    """The calls of ``trace_to_jaxpr`` in a source file, by each line they span: the names of
    their positional arguments (None for one that is not a plain name; :data:`_MADE_HERE`
    for a function that is a ``partial(...)`` made there), or None where a line has two such
    calls or a call has a starred argument. Read once per file."""
    import ast
    import linecache

    try:
        tree = ast.parse("".join(linecache.getlines(filename)))
    except Exception:  # SyntaxError, ValueError, RecursionError: no call read there
        return {}

    def name_of(arg: ast.expr) -> str | None:
        return arg.id if isinstance(arg, ast.Name) else None

    def made_here(arg: ast.expr) -> bool:
        func = arg.func if isinstance(arg, ast.Call) else None
        return getattr(func, "id", getattr(func, "attr", None)) == "partial"

    calls: dict[int, tuple[str | None, ...] | None] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if getattr(func, "attr", getattr(func, "id", None)) != "trace_to_jaxpr":
            continue
        names: tuple[str | None, ...] | None = None
        if node.args and not any(isinstance(a, ast.Starred) for a in node.args):
            first = _MADE_HERE if made_here(node.args[0]) else name_of(node.args[0])
            names = (first, *(name_of(a) for a in node.args[1:]))
        for line in range(node.lineno, (node.end_lineno or node.lineno) + 1):
            calls[line] = None if line in calls else names
    return calls


def _gate(cell: Any) -> Callable[[bool], bool]:
    """The gate on JAX's switch (see :func:`_gated_switch_code`): called on every miss of the
    tracing cache, with the switch's value; True lets JAX list its keys and call the
    explainer in ``cell`` (jitlab's, which notes the function it is handed).

    It reads the call being made (:func:`_trace_calls`, ``trace_to_jaxpr(fun, in_avals,
    debug_info, *context)``) and notes the function (:class:`_TracedFunctions`), whatever
    the value. With explanations on: JAX's explainer would say nothing of a function defined
    in JAX's own files (``jnp.ones(n)``'s broadcast, ``jnp.sum`` inside a trace, …), so JAX
    is spared the list. A function no miss named before is explained at once, with no keys,
    by the explainer in ``cell``: JAX's words ("never seen function", from the function and
    its ``debug_info`` alone; ``tests/probe/test_jax_contract.py`` checks they are the same)
    and JAX's bookkeeping of call sites for its "re-defined repeatedly" hint. Anything
    else, or anything not as expected: as JAX does, with the list. A call the gate cannot
    read (a function made by another expression) has JAX list its keys even with
    explanations off, only for jitlab's explainer to note the function, quietly."""
    is_user_file = _source_info_util.is_user_filename

    def gate(on: bool) -> bool:
        _TRACED.quiet.next = False  # a flag left by a miss JAX did not explain is stale now
        try:
            return decide(on, sys._getframe(2))  # 0: here, 1: JAX's switch, 2: the caller
        except Exception:  # never the program's error: as a call not read (below)
            _TRACED.quiet.next = not on
            return True

    def decide(on: bool, frame: FrameType) -> bool:
        names = _trace_calls(frame.f_code.co_filename).get(frame.f_lineno)
        if names is not None and names[0] == _MADE_HERE:
            return on  # a function made for this call: nothing to note, nothing to spare
        local = frame.f_locals
        if names is None or names[0] is None or names[0] not in local:
            _TRACED.quiet.next = not on  # the explainer notes it (and says nothing if off)
            return True
        args = [local.get(name) if name is not None else None for name in names]
        first = _TRACED.first_sighting(args[0])
        if not on:
            return False
        debug_info = args[2] if len(args) >= 3 else None
        if debug_info is None:
            return True
        filename = getattr(debug_info, "func_filename", None)
        if filename and not is_user_file(filename):
            return False
        if first:
            try:
                cell.cell_contents([], *args)
            except Exception:  # not as expected: JAX lists its keys and explains
                return True
            return False
        return True

    return gate


def defer_explanations(sink: Callable[[], list[Callable[[], Any]] | None], keep: int) -> bool:
    """Let jitlab put off JAX's costly cache-miss explanations (0.10; False elsewhere).

    JAX's explainer compares a miss with every key it holds for the function (its cost grows
    with the number of executables: ×1.8 on a program compiling 1,000 signatures). On each
    miss it is about to explain, the wrapper asks ``sink()``: None explains now, as JAX would;
    a list (jitlab's own diff will say why) makes a miss of a user's function that JAX holds
    more than ``keep`` keys of append the explanation, unmade, to it as a thunk, which gives
    JAX's very words when called later in the same call (the keys are the miss's own list,
    the arguments its own). A function JAX never saw (cheap, and its "re-defined repeatedly"
    hint keeps JAX's bookkeeping of call sites) and JAX's own functions are explained now.
    Either way JAX is handed only the miss's own function's keys (found more cheaply than JAX
    finds them itself), so a miss no longer costs a scan of every function's keys; and a
    function no miss named before is explained with no keys listed at all (:func:`_gate`).
    """
    found = _tracing_explainer()
    if found is None:
        return False
    switch, cell = found
    if getattr(cell.cell_contents, "__wrapped__", None) is not None:
        return True  # already in place
    original = cell.cell_contents
    is_user_file = _source_info_util.is_user_filename

    def explain(keys: list[Any], fun: Any, *args: Any, **kwargs: Any) -> Any:
        _TRACED.first_sighting(fun)  # a miss the gate could not read names it here
        if getattr(_TRACED.quiet, "next", False):
            _TRACED.quiet.next = False
            return None  # handed only to be noted: explanations are off
        if len(keys) > keep:
            # JAX compares only this function's keys: it finds them by unpacking every key
            # of every function (~1 µs each, on every miss: quadratic over a program of
            # thousands of functions). They are found here at a tenth of that, and JAX is
            # handed them alone (the same key objects: its words are the same).
            try:
                keys = [key for key in keys if key[0]() is fun]
            except Exception:  # not as expected: JAX explains from all keys, as without jitlab
                return original(keys, fun, *args, **kwargs)
            pending = sink() if len(keys) > keep else None
            if pending is not None:
                try:
                    filename = args[1].func_filename  # (in_avals, debug_info, *context)
                    user = not filename or is_user_file(filename)
                except Exception:  # not as expected: JAX explains, as without jitlab
                    user = False
                if user:
                    pending.append(functools.partial(original, keys, fun, *args, **kwargs))
                    return None
        return original(keys, fun, *args, **kwargs)

    explain.__wrapped__ = original  # type: ignore[attr-defined]
    cell.cell_contents = explain
    _gate_switch(switch, cell)
    return True


def _gate_switch(switch: Any, cell: Any) -> None:
    """Put :func:`_gate` on JAX's switch. Only on the switch as 0.10–0.12 write it (one free
    variable, ``explain``; reads ``config.explain_cache_misses.value``); the functions the
    cache already holds keys of are taken in first (one listing)."""
    code = switch.__code__
    if code.co_freevars != ("explain",):
        return
    if code.co_names != ("config", "explain_cache_misses", "value"):
        return  # not the switch this was written for: left as JAX made it
    from jax._src.interpreters import partial_eval as pe

    try:
        _TRACED.seed(pe.trace_to_jaxpr.cache_keys())
    except Exception:  # not as expected: no shortcut, JAX lists every key
        _TRACED.complete = False
    cell.cell_contents.gate = _gate(cell)
    switch.__code__ = _gated_switch_code()


UNSET: Any = _config.config_ext.unset
"""The value of a config state's thread-local slot that holds nothing (``get_local()``)."""


def _chain_hook(state: Any, slot: str, callback: Callable[[Any], None]) -> Callable[[], None]:
    """Put a hook in ``state``'s ``slot`` (``_update_global_hook`` or
    ``_update_thread_local_hook``) that runs the one already there, then ``callback(value)``.
    Returns the function that puts the previous hook back (only if ours is still in place)."""
    previous = getattr(state, slot)

    def hook(value: Any) -> None:
        if previous is not None:
            previous(value)
        callback(value)

    setattr(state, slot, hook)

    def unhook() -> None:
        if getattr(state, slot) is hook:
            setattr(state, slot, previous)

    return unhook


def hook_explain_updates(callback: Callable[[Any], None]) -> Callable[[], None]:
    """Call ``callback(value)`` after each ``jax.config.update("jax_explain_cache_misses", v)``
    (the global value the *program* sets; ``EXPLAIN.set_global`` runs no hook). Returns the
    function that puts the state's previous hook back (only if ours is still in place).

    Relies on ``State._set`` calling ``State._update_global_hook`` (None for this option on
    0.10.2; a hook JAX had is chained)."""
    return _chain_hook(_config.explain_cache_misses, "_update_global_hook", callback)


def hook_python_dispatch(callback: Callable[[], None]) -> Callable[[], None] | None:
    """Call ``callback()`` whenever a jitted function's call is *not* run by C++'s fast path
    (a cache miss; any call with a tracer or inside a trace or transformation; ``lower``,
    ``trace``, ``eval_shape``) — before JAX traces or compiles anything for it. A call that
    does not run it and fires no event was run by the fast path: a cache hit. Returns the
    unhook function, or None where this JAX's dispatch does not look as checked.

    Relies on jit's ``cache_miss`` (``pjit._cpp_pjit``), the only way out of the fast path,
    reaching ``pjit._infer_params`` through the module's globals: directly from 0.10, through
    ``_python_pjit_helper`` before. Under ``jax.disable_jit`` the fast path calls the Python
    function itself, not ``cache_miss`` (see :func:`hook_disable_jit`)."""
    from jax._src import pjit as _pjit

    original = getattr(_pjit, "_infer_params", None)
    if not callable(original):
        return None

    def infer_params(*args: Any, **kwargs: Any) -> Any:
        callback()
        return original(*args, **kwargs)

    _pjit._infer_params = infer_params

    def unhook() -> None:
        if _pjit._infer_params is infer_params:
            _pjit._infer_params = original

    return unhook


class _ToldOfClears:
    """Registered with JAX's cache management as a cache: ``jax.clear_caches()`` empties it
    with the others, so jitlab learns of each clear. It holds nothing."""

    def __init__(self, callback: Callable[[], None]) -> None:
        self._callback = callback

    def cache_clear(self) -> None:
        with contextlib.suppress(Exception):  # jitlab's note never breaks the program's clear
            self._callback()

    def cache_info(self) -> Any:
        return functools._CacheInfo(0, 0, 0, 0)  # pyright: ignore[reportPrivateUsage]

    def cache_keys(self) -> list[Any]:
        return []


_told_of_clears: list[Any] = []  # JAX holds what it registers weakly: kept alive here


def on_clear_caches(callback: Callable[[], None]) -> bool:
    """Call ``callback()`` each time ``jax.clear_caches()`` runs (a ``jitlab`` entry in the
    caches it empties: ``util.register_cache`` from 0.7, ``util.cache_clearing_funs`` on
    0.6, both read by ``util.clear_all_caches``, which ``jax.clear_caches`` calls first).
    False where neither is there (a clear is then told only by JAX's cache sizes)."""
    told = _ToldOfClears(callback)
    register = getattr(_util, "register_cache", None)
    try:
        if callable(register):
            register(told, "jitlab: told of jax.clear_caches()")
        else:
            clearing = getattr(_util, "cache_clearing_funs", None)
            if clearing is None:
                return False
            clear = told.cache_clear  # a WeakSet: this very bound method is kept below
            clearing.add(clear)
            _told_of_clears.append(clear)
    except Exception:
        return False
    _told_of_clears.append(told)
    return True


def hook_clear_cache(callback: Callable[[Any], None]) -> Callable[[], None] | None:
    """Call ``callback(jitted)`` each time a ``jax.jit`` object's own ``clear_cache()``
    runs (before it clears). Returns the unhook function, or None where this JAX does not
    look as checked.

    Relies on ``clear_cache`` being ``pjit.jit_evict_fn``, a Python function that
    ``pjit._cpp_pjit`` sets as the class attribute of every jit object it makes (read from
    the module's globals at each ``jax.jit``; 0.6 to 0.12): both are replaced."""
    from jax._src import api as _api
    from jax._src import pjit as _pjit

    found = getattr(_pjit, "jit_evict_fn", None)
    if not callable(found):
        return None
    original: Callable[[Any], Any] = found
    kind: Any = type(_api.jit(_identity))  # JAX's own (jax.jit may be a watch's stand-in)
    if getattr(kind, "clear_cache", None) is not original:
        return None

    def jit_evict_fn(self: Any) -> Any:
        with contextlib.suppress(Exception):  # jitlab's note never breaks the program's clear
            callback(self)
        return original(self)

    setattr(_pjit, "jit_evict_fn", jit_evict_fn)  # noqa: B010 (a name typing does not know)
    kind.clear_cache = jit_evict_fn

    def unhook() -> None:
        if getattr(_pjit, "jit_evict_fn", None) is jit_evict_fn:
            setattr(_pjit, "jit_evict_fn", original)  # noqa: B010
        if getattr(kind, "clear_cache", None) is jit_evict_fn:
            kind.clear_cache = original

    return unhook


def _identity(x: Any) -> Any:
    return x


# Why JAX kept no fast-path entry for a call it dispatched in Python (hook_fastpath_verdict).
FASTPATH_OFFERED = "offered"  # JAX handed C++ an entry: kept (when full, C++ evicts its oldest)
FASTPATH_EFFECTS = "effects"  # host callbacks (jax.debug.print, debug.callback, io_callback)
FASTPATH_UNSAID = "unsaid"  # refused for another reason (or no executable to look at)


def hook_fastpath_verdict(callback: Callable[[str], None]) -> Callable[[], None] | None:
    """Call ``callback(verdict)`` each time jit's ``cache_miss`` decides whether C++'s fast
    path may run the next calls (one of the FASTPATH_* values). Returns the unhook function,
    or None where this JAX has no ``pjit._get_fastpath_data``.

    Relies on ``cache_miss`` (and ``_pjit_call_impl``) calling ``pjit._get_fastpath_data``
    through the module's globals with the executable first, returning None to refuse; a
    refused ``MeshExecutable`` says why in ``unsafe_call.ordered_effects`` /
    ``has_unordered_effects`` (checked on 0.10.2–0.12; jax#39289)."""
    from jax._src import pjit as _pjit

    original = getattr(_pjit, "_get_fastpath_data", None)
    if not callable(original):
        return None

    def get_fastpath_data(executable: Any, *args: Any, **kwargs: Any) -> Any:
        data = original(executable, *args, **kwargs)
        verdict = FASTPATH_OFFERED
        if data is None:
            call = getattr(executable, "unsafe_call", None)
            effects = getattr(call, "ordered_effects", None) or getattr(
                call, "has_unordered_effects", False
            )
            verdict = FASTPATH_EFFECTS if effects else FASTPATH_UNSAID
        callback(verdict)
        return data

    _pjit._get_fastpath_data = get_fastpath_data

    def unhook() -> None:
        if _pjit._get_fastpath_data is get_fastpath_data:
            _pjit._get_fastpath_data = original

    return unhook


# -- a call's effects: host callbacks JAX's runtime runs on its own threads ---------------------
# A jitted call with effects (jax.debug.print, debug.callback, io_callback, pure_callback)
# leaves JAX a runtime token per device in a thread-local set (``dispatch.runtime_tokens``):
# on a TPU, a GPU or a CPU mesh its callbacks run on the runtime's threads, and may end after
# the call's result is ready; ``jax.effects_barrier()`` waits for this thread's tokens (and
# raises a callback's error) and empties the set. A call with no effects leaves none.
def _runtime_tokens() -> Any:
    try:
        from jax._src import dispatch as _dispatch
    except ImportError:
        return None
    tokens = getattr(_dispatch, "runtime_tokens", None)
    if not hasattr(tokens, "output_runtime_tokens") or not hasattr(tokens, "current_tokens"):
        return None
    return tokens


_RUNTIME_TOKENS = _runtime_tokens()
EFFECT_TOKENS_READ = _RUNTIME_TOKENS is not None
"""This JAX keeps its effect tokens as checked (else a caller waits with
``jax.effects_barrier()``)."""


def effect_tokens() -> tuple[Any, ...]:
    """This thread's tokens of calls with effects that no ``jax.effects_barrier()`` has
    taken since (one per device and per ordered effect: each call's replace the last's);
    each has ``block_until_ready()``, which raises the error of a callback that failed.
    Empty where this JAX keeps no tokens as checked (:data:`EFFECT_TOKENS_READ`).

    Relies on ``dispatch.runtime_tokens`` (a ``threading.local``): the pjit executable of a
    call with ordered effects, unordered effects or host callbacks sets
    ``output_runtime_tokens`` (and ``current_tokens`` for ordered effects) when it is
    dispatched, and ``jax.effects_barrier()`` waits for both and clears them."""
    tokens = _RUNTIME_TOKENS
    if tokens is None:
        return ()
    runtime, ordered = tokens.output_runtime_tokens, tokens.current_tokens
    if not runtime and not ordered:
        return ()
    return (*runtime.values(), *ordered.values())


def hook_disable_jit(callback: Callable[[], None]) -> Callable[[], None]:
    """Call ``callback()`` after each change of ``jax_disable_jit``: ``with jax.disable_jit()``
    entered or left on any thread, ``jax.config.update("jax_disable_jit", v)``. Returns the
    function that puts the state's previous hooks back (only if ours are still in place).

    Relies on ``StateContextManager`` calling ``State._update_thread_local_hook`` and
    ``State._set`` calling ``State._update_global_hook`` (None for this option from 0.8; the
    hooks 0.6–0.7 had are chained)."""
    unhooks = [
        _chain_hook(DISABLE_JIT, slot, lambda value: callback())
        for slot in ("_update_thread_local_hook", "_update_global_hook")
    ]

    def unhook() -> None:
        for each in unhooks:
            each()

    return unhook


# -- jax.monitoring's listener lists ----------------------------------------------------------
def unregister_duration_listener(listener: Callable[..., None]) -> None:
    """Remove one duration listener: ``jax.monitoring.unregister_event_duration_listener``
    from 0.8, the private ``_unregister_event_duration_listener_by_callback`` before
    (feature-detected)."""
    name = "unregister_event_duration_listener"  # from 0.8
    if not hasattr(_monitoring, name):
        name = "_unregister_event_duration_listener_by_callback"
    getattr(_monitoring, name)(listener)


MONITORING: Any = _monitoring
"""JAX's monitoring module: ``MONITORING._event_duration_secs_listeners`` is the list
:func:`duration_listeners` returns, read as one attribute on a watched call's hot path."""


def duration_listeners() -> list[Any]:
    """The list ``record_event_duration_secs`` calls. ``clear_event_listeners()`` (public)
    *rebinds* it to a new empty list, so holding the one jitlab registered into and comparing
    identities tells, in one attribute read, that jitlab's listeners were cleared."""
    return _monitoring._event_duration_secs_listeners


def event_listeners() -> list[Any]:
    """The list ``record_event`` calls (rebound by ``clear_event_listeners()`` likewise)."""
    return _monitoring._event_listeners


DISABLE_JIT: Any = _config.disable_jit
"""``jax_disable_jit`` as a state: ``.value`` is this thread's effective value (true inside
``with jax.disable_jit():`` on this thread only); ``jax.config.jax_disable_jit`` is global."""

trace_context: Callable[[], tuple[Any, ...]] = _config.trace_context
"""The config values that are part of every tracing-cache key, as a tuple: it changes under
``jax.default_matmul_precision(...)`` (and other trace-context options)."""

_NATIVE_CONTEXT_NAMES: Callable[[], Any] | None = getattr(_config, "trace_context_names", None)
# 0.10 (feature-detected): ``config.trace_context_names()`` names the entries. Below 0.10 JAX
# has no such function (and a 0.10 JAX on an older jaxlib has one that raises): the names are
# found by asking each config state which entry is its own (:func:`_probed_context_names`).
_PROBED_NAMES: dict[int, tuple[str, ...]] = {}


def _context_states() -> list[tuple[str, Any]]:
    """(name, state) of every config state JAX has: the options (``config_states``) and the
    context managers kept as bare ``config_ext.Config`` objects in ``jax._src.config``."""
    found: dict[int, tuple[str, Any]] = {}
    for name, state in dict(getattr(_config, "config_states", {})).items():
        found[id(state)] = (str(name), state)
    for attr, value in vars(_config).items():
        if id(value) in found or attr.startswith("__"):
            continue
        if callable(getattr(value, "swap_local", None)) and callable(
            getattr(value, "set_local", None)
        ):
            found[id(value)] = (str(getattr(value, "name", None) or attr), value)
    return list(found.values())


def _probed_context_names() -> tuple[str, ...]:
    """The name of each :func:`trace_context` entry, found by setting each config state's
    thread-local value to a fresh sentinel for a moment and seeing which entry holds it
    (every value put back before returning; nothing runs JAX in between). "" for an entry
    no state claimed, or one that two states claim: jitlab names it by position then, never
    by a guess. Cached per trace-context length (a ``jax.make_user_context`` adds entries)."""
    base = tuple(_config.trace_context())
    cached = _PROBED_NAMES.get(len(base))
    if cached is not None:
        return cached
    names: list[str | None] = [None] * len(base)
    for name, state in _context_states():
        sentinel = object()
        try:
            previous = state.swap_local(sentinel)
        except Exception:
            continue
        try:
            now = tuple(_config.trace_context())
        except Exception:
            now = ()
        finally:
            state.set_local(previous)
        for i, value in enumerate(now[: len(base)]):
            if value is sentinel:
                names[i] = name if names[i] is None else ""  # two claims: say nothing
    result = tuple(n or "" for n in names)
    _PROBED_NAMES[len(base)] = result
    return result


def trace_context_names() -> tuple[str, ...]:
    """The names of :func:`trace_context`'s entries, in the same order and number ("" for
    an entry that has no name jitlab can be sure of)."""
    if _NATIVE_CONTEXT_NAMES is not None:
        try:
            return tuple(str(n) for n in _NATIVE_CONTEXT_NAMES())
        except Exception:  # NotImplementedError on an older jaxlib
            pass
    return _probed_context_names()


# -- source locations -------------------------------------------------------------------------
register_source_exclusion: Callable[[str], None] = _source_info_util.register_exclusion
"""Frames under this path prefix are skipped when JAX attributes an equation (and a cache-miss
explanation) to a user's line, as JAX skips its own files."""

register_traceback_exclusion: Callable[[str], None] = _traceback_util.register_exclusion
"""Frames under this path prefix are left out of a traceback JAX filters at its API boundary
(``JAX_TRACEBACK_FILTERING`` other than ``off``), as JAX leaves out its own: jitlab's hook on
JAX's Python dispatch runs below that boundary. A list of its own, apart from the one above."""

JAX_JIT: Callable[..., Any] = _api.jit
"""JAX's own ``jit``, read where JAX defines it: ``jax.jit`` may be a stand-in (a watch's, or
a program's own), and jitlab's own compiles (the contract check's) never go through one."""

summarize_source_info: Callable[[Any], str] = _source_info_util.summarize
"""``file:line:col (fn)`` of a jaxpr equation's ``source_info``."""


def _user_frame_takes_traceback() -> bool:
    """From 0.7 ``user_frame`` takes a ``Traceback`` (and is ``lru_cache``d on it); before,
    a ``SourceInfo``. Feature-detected on the parameter's name."""
    import inspect

    helper = inspect.unwrap(_source_info_util.user_frame)
    try:
        first = next(iter(inspect.signature(helper).parameters))
    except (StopIteration, TypeError, ValueError):
        return VERSION >= (0, 7, 0)
    return first != "source_info"


_USER_FRAME_TAKES_TRACEBACK = _user_frame_takes_traceback()


def _user_frame(source_info: Any) -> Any:
    if _USER_FRAME_TAKES_TRACEBACK:
        return _source_info_util.user_frame(source_info.traceback)
    return _source_info_util.user_frame(source_info)


def user_source(source_info: Any) -> tuple[str, int, str] | None:
    """(file, line, function) of the user's frame that made a jaxpr equation: the first
    frame of ``source_info.traceback`` outside JAX and the registered exclusions (jitlab's
    core). None when JAX recorded none, or when the helper changed."""
    try:
        frame = _user_frame(source_info)
    except Exception:
        return None
    if frame is None:
        return None
    return str(frame.file_name), int(frame.start_line), str(frame.function_name)


# -- function names ---------------------------------------------------------------------------
_fun_name: Callable[[Any], str] = _util.fun_name


# A callable object (no ``__name__``): ``util.fun_name`` says ``<unnamed function>``, and so
# do the events from 0.9; up to 0.8 the events say ``<unnamed wrapped function>`` (the
# ``WrappedFun``'s own fallback). By version: the helper's answer is the same on both.
_UNNAMED = "<unnamed function>"
_UNNAMED_IN_EVENTS = _UNNAMED if VERSION >= (0, 9, 0) else "<unnamed wrapped function>"
UNNAMED = _UNNAMED_IN_EVENTS
"""What :func:`fun_name` says of a callable object JAX cannot name (its events say it too)."""


def fun_name(fun: Any) -> str:
    """The name JAX puts in the trace event of ``jax.jit(fun)`` (``functools.partial``
    unwrapped, ``__name__`` otherwise)."""
    try:
        name = _fun_name(fun)
    except Exception:  # the helper changed: fall back to what it returns for a function
        return getattr(fun, "__name__", type(fun).__name__)
    return _UNNAMED_IN_EVENTS if name == _UNNAMED else name


# -- compiled programs ------------------------------------------------------------------------
def hlo_opcodes(compiled: Any) -> list[list[str]] | None:
    """The opcode names (``kWhile``, ``kAdd`` …) of each computation of each HLO module of a
    ``Compiled``, read without printing the text. From 0.10 ``HloComputation.instructions()``
    gives them; before it has no such method (feature-detected): None, and the caller counts
    from the HLO text instead."""
    try:
        modules = compiled.runtime_executable().hlo_modules()
        out = []
        for module in modules:
            for computation in module.computations():
                method = getattr(computation, "instructions", None)
                if method is None:
                    return None
                out.append([i.opcode.name for i in method()])
        return out
    except Exception:
        return None


def spec_text(spec: Any) -> str:
    """A ``PartitionSpec`` as text, the same on every version: up to 0.8 JAX writes
    ``PartitionSpec('x', None)``, from 0.9 ``P('x', None)`` (detected on the text)."""
    text = str(spec)
    return "P(" + text[len("PartitionSpec(") :] if text.startswith("PartitionSpec(") else text


# -- the backend --------------------------------------------------------------------------------
def backends_are_initialized() -> bool:
    """Has JAX started its backends (after which ``XLA_FLAGS`` is no longer read)?

    False when the private helper is gone: the flag is set, and at worst not read."""
    try:
        from jax._src import xla_bridge

        return bool(xla_bridge.backends_are_initialized())
    except (ImportError, AttributeError):
        return False


# -- the persistent compilation cache -----------------------------------------------------------
def persistent_cache_writes_off() -> Any:
    """A context in which this thread's compiles write nothing to JAX's persistent cache:
    ``jax_persistent_cache_min_compile_time_secs`` and ``…_min_entry_size_bytes`` set for
    this thread alone (a config ``State`` called with a value is a thread-local context,
    checked on 0.10.2–0.12) to bounds no compile reaches. The cache is still read, and
    JAX's once-a-process decision whether to use it is made as the user configured it;
    other threads (the program's) write as before. A no-op context where either is gone."""
    import contextlib

    states = [
        getattr(_config, "persistent_cache_min_compile_time_secs", None),
        getattr(_config, "persistent_cache_min_entry_size_bytes", None),
    ]
    bounds = (float("inf"), 2**62)
    stack = contextlib.ExitStack()
    try:
        for state, bound in zip(states, bounds, strict=True):
            if state is not None:
                stack.enter_context(state(bound))
    except Exception:  # a State that is no context any more: the check writes as before
        stack.close()
        return contextlib.nullcontext()
    return stack


PERSISTENT_CACHE_OFF = {"JAX_ENABLE_COMPILATION_CACHE": "false"}
"""What turns JAX's persistent cache off in a process of jitlab's own (the contract check's
fresh interpreter): ``jax_enable_compilation_cache``, read from the environment at import."""


def turn_persistent_cache_off() -> None:
    """In a process of jitlab's own that JAX is imported in (the contract check's fork):
    the persistent cache off, so the check neither reads, writes nor creates its folder."""
    _config.update("jax_enable_compilation_cache", False)


# -- launchers: which process of a job this is --------------------------------------------------
# (index, count) environment variables a launcher sets in each process: read by a recording
# before the program imports JAX, so kept with the recording's lines (no JAX there).
LAUNCHER_PROCESS_VARIABLES = _lines.LAUNCHER_PROCESS_VARIABLES


# -- private attributes of jitted objects -------------------------------------------------------
def jit_function_caches_full() -> bool:
    """Is one of jit's process-wide C++ caches of jitted functions at its capacity (8,192)?
    Then JAX keeps no new function's entries where ``_cache_size()`` sees them (jax#39078):
    it reads 0 after any number of compiles.

    Relies on ``pjit._cpp_pjit_cache_fun_only`` / ``_cpp_pjit_cache_explicit_attributes``
    (``PjitFunctionCache``: ``size()``, ``capacity()``; checked on 0.10.2–0.12). False where
    they are not there."""
    from jax._src import pjit as _pjit

    for name in ("_cpp_pjit_cache_fun_only", "_cpp_pjit_cache_explicit_attributes"):
        cache = getattr(_pjit, name, None)
        try:
            if cache is not None and cache.size() >= cache.capacity() > 0:
                return True
        except Exception:  # another kind of object: not as checked
            continue
    return False


def cache_size_method(jitted: Any) -> Callable[[], int] | None:
    """The bound ``_cache_size`` of a ``jax.jit`` object: the number of executables in its
    C++ cache (one per distinct signature; a cache hit leaves it unchanged). None if absent.

    Returned bound, so the probe calls it on every call with one attribute call."""
    size = getattr(jitted, "_cache_size", None)
    return size if callable(size) else None


def cache_size(jitted: Any) -> int:
    """``jitted._cache_size()``, or -1 when the object has none (not a ``jax.jit``)."""
    size = cache_size_method(jitted)
    try:
        return int(size()) if size is not None else -1
    except Exception:
        return -1


def jit_info(jitted: Any) -> Any:
    """A ``jax.jit`` object's ``_jit_info`` (a ``PjitInfo``: ``static_argnums``,
    ``static_argnames`` normalised to tuples, and the other jit options); None if absent."""
    return getattr(jitted, "_jit_info", None)


# Wrappers of other libraries keep the ``jax.jit`` they call in private attributes too.
def equinox_inner_jit(wrapper: Any) -> Any:
    """``equinox.filter_jit(f)._cached``: the ``jax.jit`` equinox calls (checked on 0.13)."""
    return getattr(wrapper, "_cached", None)


def nnx_inner_jit(wrapper: Any) -> Any:
    """``flax.nnx.jit(f).jitted_fn``: the ``jax.jit`` nnx calls (checked on 0.12)."""
    return getattr(wrapper, "jitted_fn", None)


def is_nnx_jit(obj: Any) -> bool:
    return type(obj).__module__.startswith("flax.nnx") and hasattr(obj, "jitted_fn")


def nnx_partial_tree(obj: Any) -> Any | None:
    """The arguments ``flax.nnx.jit_partial(f, *partial_args)`` bound, as the treedef it
    flattened them with (a tuple of ``len(partial_args)``), from the wrapper it returns or
    the function its inner ``jax.jit`` traces (called ``(flat_partial_args, *args)``);
    None for anything else. Read off the closure of nnx's ``wrapped_fun`` (its
    ``partial_treedef`` cell; checked on Flax 0.12.8)."""
    if not type(obj).__module__.startswith("flax.nnx"):
        return None
    wrapped = getattr(obj, "fun", None) if hasattr(obj, "partial_args") else getattr(obj, "f", None)
    code = getattr(wrapped, "__code__", None)
    cells = getattr(wrapped, "__closure__", None)
    if code is None or cells is None or "partial_treedef" not in code.co_freevars:
        return None
    try:
        tree = cells[code.co_freevars.index("partial_treedef")].cell_contents
        return tree if tree.node_data()[0] is tuple else None
    except Exception:  # another layout: the arguments are named as called
        return None


def dataclass_fields(kind: Any) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """(data fields, meta fields) a class was registered with by
    ``jax.tree_util.register_dataclass`` (explicit lists, the decorator form, ``static``
    field metadata, ``flax.struct``), in the order JAX flattens them: its children, then its
    node data's values (the meta fields in the order they were listed, not declared); None
    for a class registered otherwise, or a layout not as checked. The treedef keeps no
    names: they are read off the closure of the flatten function JAX keeps in
    ``tree_util._registry[kind]`` (its ``data_fields`` and ``meta_fields`` cells; the
    function is ``register_dataclass.<locals>.flatten_func``, ``_register_dataclass…``
    from 0.12; checked on 0.6.2 to 0.12)."""
    try:
        entry = _tree_util._registry.get(kind)  # pyright: ignore[reportPrivateUsage]
        flatten = getattr(entry, "to_iter", None)
        code = getattr(flatten, "__code__", None)
        cells = getattr(flatten, "__closure__", None)
        if code is None or cells is None or flatten.__module__ != _tree_util.__name__:
            return None
        if not code.co_qualname.endswith("register_dataclass.<locals>.flatten_func"):
            return None
        names = code.co_freevars
        found = [cells[names.index(cell)].cell_contents for cell in ("data_fields", "meta_fields")]
        if not all(isinstance(f, tuple) and all(isinstance(n, str) for n in f) for f in found):
            return None
        return found[0], found[1]
    except Exception:  # another registry or closure layout: the node is named as a whole
        return None


def is_pmap_code(filename: str) -> bool:
    """Is this the file a ``jax.pmap`` object's ``__code__`` comes from?"""
    return filename.replace("\\", "/").endswith(("jax/_src/pmap.py", "jax/_src/api.py"))


def pmap_user_function(frame: FrameType | None) -> Any | None:
    """From inside a compile event: the user's function of the ``jax.pmap`` object running
    on this stack, or None. pmap's ``wrapped`` (pmap.py) closes over ``infer_params``, which
    closes over ``wrapped_fun``, a ``linear_util.WrappedFun`` whose ``.f`` is the user's
    (0.9+), or over the user's ``f`` itself (0.8); feature-detected by the closure's names."""
    for _ in range(100):
        if frame is None:
            return None
        code = frame.f_code
        if code.co_name == "wrapped" and is_pmap_code(code.co_filename):
            try:
                infer = frame.f_locals["infer_params"]
                cells = dict(zip(infer.__code__.co_freevars, infer.__closure__, strict=True))
                if "wrapped_fun" in cells:  # 0.9+
                    return getattr(cells["wrapped_fun"].cell_contents, "f", None)
                return cells["f"].cell_contents  # 0.8: infer_params closes over f itself
            except Exception:  # another pmap implementation: not known
                return None
        frame = frame.f_back
    return None


# -- JAX's own frames, seen from a compile event listener -----------------------------------------
# A compile event fires inside ``pjit._pjit_call_impl_python`` (a local ``jaxpr``, a
# ClosedJaxpr whose ``jaxpr.debug_info`` has ``func_name`` and ``func_src_info`` —
# ``f at /path/file.py:12``), called from jit's ``cache_miss`` in ``pjit.py`` (locals ``fun``,
# ``jit_info``, ``args`` and ``kwargs``: the Python function and the call as the user made it).
_IMPL_FRAME = "_pjit_call_impl_python"
_CACHE_MISS_FILE = "pjit.py"


def compiling_jaxpr(frame: FrameType) -> tuple[str | None, str | None] | None:
    """(name, source) of the jaxpr being compiled if ``frame`` is JAX's compile entry, else None.

    ``source`` reads ``f at /path/file.py:12`` (``None`` when JAX did not record one)."""
    if frame.f_code.co_name != _IMPL_FRAME:
        return None
    info = getattr(getattr(frame.f_locals.get("jaxpr"), "jaxpr", None), "debug_info", None)
    return getattr(info, "func_name", None), getattr(info, "func_src_info", None)


# An ahead-of-time compile (``jax.jit(f).trace(...).lower().compile()``, docs/aot.md) runs
# no jaxpr through _IMPL_FRAME: ``MeshComputation.compile`` (pxla.py) compiles the lowering,
# whose ``compile_args["all_args_info"].debug_info`` names the function (checked on 0.10.2).
_AOT_FRAME = "compile"
_AOT_FILE = "pxla.py"


def aot_compiling(frame: FrameType) -> tuple[str | None, str | None] | None:
    """(name, source) of the function a lowering being compiled was traced from, if
    ``frame`` is ``MeshComputation.compile`` (the compile of ``Lowered.compile()``, and of a
    jit call below _IMPL_FRAME); else None. ``source`` as :func:`compiling_jaxpr`'s."""
    code = frame.f_code
    if code.co_name != _AOT_FRAME or not code.co_filename.endswith(_AOT_FILE):
        return None
    args = getattr(frame.f_locals.get("self"), "compile_args", None)
    if not isinstance(args, dict):
        return None
    info = getattr(args.get("all_args_info"), "debug_info", None)
    if info is None:
        return None
    return getattr(info, "func_name", None), getattr(info, "func_src_info", None)


def jit_call_in_frame(frame: FrameType) -> tuple[Any, Any, Any, Any] | None:
    """(fun, jit_info, args, kwargs) if ``frame`` is jit's cache-miss path, else None."""
    local = frame.f_locals
    if "jit_info" not in local or not frame.f_code.co_filename.endswith(_CACHE_MISS_FILE):
        return None
    return local.get("fun"), local.get("jit_info"), local.get("args"), local.get("kwargs")


# -- transformations: tracers a probed call receives or returns --------------------------------
# A probed call inside ``jax.vmap`` / ``jax.grad`` / ``jax.jvp`` or an enclosing trace (a jit,
# an eager ``lax.scan``'s body) gets tracers, not arrays. Each tracer class wraps the value of
# the level below (``BatchTracer.val`` holds the batch, ``JVPTracer.primal`` and
# ``LinearizeTracer.primal`` the primal); a ``DynamicJaxprTracer`` is a value being staged out
# (nothing runs). Checked on 0.10.2.
def _tracer_kinds() -> tuple[tuple[type, str, str | None], ...]:
    from jax._src.interpreters import ad, batching
    from jax._src.interpreters import partial_eval as pe

    found = []
    for module, name, label, inner in (
        (batching, "BatchTracer", "vmap", "val"),
        (ad, "JVPTracer", "jvp", "primal"),
        (ad, "LinearizeTracer", "linearize", "primal"),
        (pe, "JaxprTracer", "linearize", None),
        (pe, "DynamicJaxprTracer", "trace", None),
    ):
        cls = getattr(module, name, None)
        if isinstance(cls, type):
            found.append((cls, label, inner))
    return tuple(found)


_TRACERS: tuple[tuple[type, str, str | None], ...] | None = None


class _TraceOfThisThread:
    """Below 0.10 the innermost trace is ``core.trace_ctx.trace`` (a ``threading.local``):
    the same ``.value`` read as 0.10's config state, through one property."""

    __slots__ = ("_ctx",)

    def __init__(self, ctx: Any) -> None:
        self._ctx = ctx

    @property
    def value(self) -> Any:
        return self._ctx.trace


def _trace_states() -> tuple[Any, Any]:
    from jax._src import core

    # 0.10 (feature-detected): the trace is a config state, ``trace_state_strong_ref``.
    state = getattr(core, "trace_state_strong_ref", None)
    if state is not None:
        return state, core.eval_trace
    return _TraceOfThisThread(core.trace_ctx), core.eval_trace


TRACE_STATE, EVAL_TRACE = _trace_states()
"""``TRACE_STATE.value`` is this thread's innermost trace: ``EVAL_TRACE`` (the same object)
outside any transformation, a ``BatchTrace``/``LinearizeTrace``/``DynamicJaxprTrace`` … inside
``vmap``, ``grad`` or an enclosing trace. One config read (~40 ns)."""


def tracer_class() -> type:
    """JAX's ``Tracer`` base class (every transformation's values are instances of it)."""
    from jax._src import core

    return core.Tracer


# Below 0.7 ``jax.grad`` (``vjp``, ``linearize``) is ``jvp`` with its tangent staged out
# (a ``JaxprTracer``): no ``LinearizeTracer`` exists yet, and a plain ``jax.jvp`` has a concrete
# tangent. Measured on 0.6.2: the backward pass then compiles under ``backward_pass``.
_GRAD_IS_JVP = VERSION < (0, 7, 0)


def _jvp_of_grad(value: Any) -> bool:
    from jax._src.interpreters import partial_eval as pe

    return isinstance(getattr(value, "tangent", None), pe.JaxprTracer)


def tracer_layers(value: Any) -> tuple[tuple[str, ...], Any]:
    """(transformations from the innermost out, the value under them) of a tracer: a leaf
    inside ``vmap(grad(f))`` gives ``(("linearize", "vmap"), <the concrete batch>)``; a staged
    value ends in ``"trace"`` and is still a tracer. An unknown tracer is named by its class."""
    global _TRACERS
    if _TRACERS is None:
        _TRACERS = _tracer_kinds()
    base = tracer_class()
    labels: list[str] = []
    for _ in range(32):  # nested transformations, bounded
        if not isinstance(value, base):
            break
        for cls, label, inner in _TRACERS:
            if isinstance(value, cls):
                if label == "jvp" and _GRAD_IS_JVP and _jvp_of_grad(value):
                    label = "linearize"  # below 0.7 grad is jvp with a staged tangent
                labels.append(label)
                value = getattr(value, inner, None) if inner else value
                break
        else:
            labels.append(type(value).__name__)
            break
        if inner is None:
            break
    return tuple(labels), value


def in_backward_pass(frame: FrameType | None) -> bool:
    """Is this compile event fired while JAX transposes a jitted function (the backward pass
    of ``jax.grad`` / ``jax.vjp``: ``pjit._pjit_transpose*`` under ``ad.backward_pass*``)?"""
    return compiled_after_call(frame) == "transpose"


def compiled_after_call(frame: FrameType | None) -> str | None:
    """What JAX compiles, when a compile event of a jitted function fires after the call
    that ran it under a transformation returned: ``"transpose"`` while it transposes the
    function (grad's or a vjp's backward pass: ``pjit._pjit_transpose*`` under
    ``ad.backward_pass*``), ``"linear"`` while the function ``jax.linearize`` returned is
    applied (``api._lift_linearized`` evaluates the linear jaxpr), ``"remat"`` while
    ``jax.checkpoint`` runs the body it traced eagerly (``ad_checkpoint.remat_impl``
    evaluates its jaxpr, which compiles the jitted function); None otherwise. The names
    hold on 0.6 to 0.12."""
    for _ in range(64):
        if frame is None:
            return None
        name = frame.f_code.co_name
        if name.startswith(("_pjit_transpose", "backward_pass")):
            return "transpose"
        if name == "_lift_linearized":
            return "linear"
        if name == "remat_impl":
            return "remat"
        frame = frame.f_back
    return None


def compiling_avals(frame: FrameType | None) -> tuple[str | None, tuple[Any, ...]] | None:
    """(``func_src_info``, input avals) of the jaxpr a compile event is about, found up the
    stack from the listener; None when no frame of JAX's compile entry is found."""
    for _ in range(64):
        if frame is None:
            return None
        if frame.f_code.co_name == _IMPL_FRAME:
            jaxpr = getattr(frame.f_locals.get("jaxpr"), "jaxpr", None)
            info = getattr(jaxpr, "debug_info", None)
            avals = tuple(v.aval for v in getattr(jaxpr, "invars", ()))
            return getattr(info, "func_src_info", None), avals
        frame = frame.f_back
    return None


def _eval_shape_codes() -> frozenset[Any]:
    """The code objects of ``jax.eval_shape`` (its ``api_boundary`` wrapper and the function
    itself): ``eval_shape(fun)`` of anything but a ``PjitFunction`` traces ``jit(fun)``."""
    import jax

    codes: set[Any] = set()
    fn: Any = jax.eval_shape
    for _ in range(8):
        code = getattr(fn, "__code__", None)
        if code is not None and code.co_name == "eval_shape":
            codes.add(code)
        fn = getattr(fn, "__wrapped__", None)
        if fn is None:
            break
    return frozenset(codes)


EVAL_SHAPE_CODES = _eval_shape_codes()
# Does jax.eval_shape trace a jax.jit object by the object's own .trace (0.7+)? JAX 0.6 wraps
# every function in a jit of its own, a jit's too, and so traces a jitted function twice.
EVAL_SHAPE_TRACES_A_JIT_ONCE = any("PjitFunction" in code.co_names for code in EVAL_SHAPE_CODES)


def _ranks_keys_by_part() -> bool:
    """Does JAX explain a miss with the earlier key whose first differing part (trace
    context, then input pytree, then input types) comes first (0.9+:
    ``partial_eval.diff_tracing_cache_keys`` returns ``(part, count, words)``)? Before, it
    took the smallest total difference (``pjit.diff_tracing_cache_keys``). By feature."""
    from jax._src.interpreters import partial_eval

    return hasattr(partial_eval, "diff_tracing_cache_keys")


RANKS_KEYS_BY_PART = _ranks_keys_by_part()


def traced_by_eval_shape(frame: FrameType | None) -> bool:
    """Is ``frame`` (a probed call's caller) JAX tracing ``jax.eval_shape(probe)``'s own
    ``jit(probe)``, with only JAX's frames between (not a user's ``jax.jit(probe)``)?"""
    for _ in range(64):
        if frame is None:
            return False
        code = frame.f_code
        if code in EVAL_SHAPE_CODES:
            return True
        if _source_info_util.is_user_filename(code.co_filename):
            return False
        frame = frame.f_back
    return False
