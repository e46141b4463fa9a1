"""The chef's scripts: the program JAX compiled for one card, read back on demand.

A card is one compiled signature of a probed function. Its script is that program at every
stage: the Python source, the jaxpr (each equation with the user's line that made it), the
lowered StableHLO, the optimized HLO, and figures (equations, HLO instructions, flops, bytes,
memory, and the trace / lower / compile time of the compile that made the card).

Scripts are made from the card's *abstract* signature — ``jax.ShapeDtypeStruct`` leaves with
their sharding and weak type, statics as the very values — through JAX's ahead-of-time API
(``jit(f).trace(...).lower().compile()``), never from the arguments of a call. Asking for one
must not change what the probe records: while a script is made, this thread's JAX events go
to a collector nobody files (no probe, no ``jitlab.watch``, no budget sees them), and printed
text is kept in the script. The probe's own jit object is used, so while JAX still holds the
card's program its tracing cache answers and the user's Python does not run again; when JAX
had dropped it, the script says so in its notes.

When a part cannot be made (a card adopted from another process, a wrapper jitlab cannot
trace abstractly, a backend without cost analysis), the part is ``None`` and
``Script.unavailable`` says why, by part name.

A little over 500 lines: each part of a script (jaxpr, StableHLO, HLO, figures) and why it
could not be made, kept together so every part follows the same no-filing rule.
"""

from __future__ import annotations

import dataclasses
import gc
import inspect
import time
from collections.abc import Generator, Iterator
from contextlib import contextmanager
from typing import Any, Protocol, TypedDict, cast

import jax

from jitlab.probe import _jax, _jax_programs, monitor, signature, wrappers
from jitlab.probe.abstract import abstract_call, committed_flags
from jitlab.probe.cards import Card, Ledger
from jitlab.probe.program_text import (
    HLO_LOOP,
    as_float,
    as_int,
    cost_dict,
    count_hlo_instructions,
    count_stablehlo_ops,
    hlo_census,
    stablehlo_text,
)
from jitlab.records import messages
from jitlab.records.calls import CallRecord, Signature
from jitlab.records.scripts import (
    ON_REQUEST,
    PARTS,
    STABLEHLO_ON_REQUEST,
    EquationLine,
    FigureChange,
    Figures,
    Script,
    ScriptDiff,
    compare,
)


class _Head(TypedDict):
    """The fields every script of a card starts with."""

    function: str
    card: int
    signature: Signature
    created_by: int | None
    source: str | None
    source_file: str | None
    source_line: int | None


class _AheadOfTime(Protocol):
    """A jit wrapper's ahead-of-time API (``jax.jit``'s, ``flax.nnx.jit``'s, equinox's)."""

    def trace(self, *args: Any, **kwargs: Any) -> Any: ...
    def lower(self, *args: Any, **kwargs: Any) -> Any: ...


class Probed(Protocol):
    """What a script reads of a probe (:class:`jitlab.probe.probe.Probe`): the probe imports
    this module, never the other way round."""

    @property
    def name(self) -> str: ...
    @property
    def wrapper(self) -> wrappers.Jitted: ...
    @property
    def ledger(self) -> Ledger: ...
    @property
    def trace_name(self) -> str: ...
    @property
    def generation(self) -> int: ...
    @property
    def notable(self) -> list[CallRecord]: ...
    @property
    def entries_after_compile(self) -> int: ...
    def cache_entries(self) -> int: ...


__all__ = [
    "HLO_AT_ONCE",
    "ON_REQUEST",
    "PARTS",
    "STABLEHLO_ON_REQUEST",
    "EquationLine",
    "FigureChange",
    "Figures",
    "Script",
    "ScriptDiff",
    "abstract_call",
    "committed_flags",
    "compare",
    "make_script",
    "print_part",
    "traced_jaxpr",
]


# -- making a script ---------------------------------------------------------------------------
class _Unfiled(monitor.CallCollector):
    """Takes this thread's JAX events while a script is made, and files them nowhere: no probe
    sees them (it is no probe's collector) and no watcher does (they hear only threads with no
    collector). It still notes whether the card's function was traced or compiled again."""

    __slots__ = ()


@contextmanager
def _unfiled(trace_name: str) -> Generator[_Unfiled, None, None]:
    collector = _Unfiled(trace_name, None, False)
    # The monitor's routing without its explain switch (the probe package's own names): the
    # user's prints while JAX traces again are kept, JAX's words are not the user's call's.
    local = monitor._local  # pyright: ignore[reportPrivateUsage]
    previous = getattr(local, "collector", None)
    local.collector = collector
    monitor._route_stdout(collector)  # pyright: ignore[reportPrivateUsage]
    try:
        yield collector
    finally:
        monitor._unroute_stdout(collector)  # pyright: ignore[reportPrivateUsage]
        local.collector = previous


#: A script made for a window (``make_script(..., view=True)``) prints the optimized HLO at
#: once only up to this many instructions. Printing it is one C++ call that holds the GIL (and
#: so freezes the GUI thread) for about 1 ms per 1,000 instructions; a bigger program's HLO is
#: printed when its tab is shown (:func:`print_part`).
HLO_AT_ONCE = 2_000


@contextmanager
def _collector_paused() -> Generator[None, None, None]:
    """Python's cyclic garbage collector off while a script is made, as while a recording is
    read: printing a big program makes some 100,000 short-lived objects, and collections on
    the way promote them and end in a full collection (20-50 ms with the GIL held, so the GUI
    thread stalls). Refcounting frees them as before."""
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


def make_script(probe: Probed, card: Card, stablehlo: bool = True, *, view: bool = False) -> Script:
    """The script of ``card`` (one of ``probe``'s), made now. See :meth:`Probe.script`,
    which caches it per card.

    ``stablehlo=False`` leaves the StableHLO text out (printing it holds the GIL for tens of
    ms on a big program): ``Script.stablehlo`` is None, ``Script.unavailable["stablehlo"]``
    is :data:`STABLEHLO_ON_REQUEST` and ``figures.stablehlo_ops`` is None.

    ``view=True`` makes what a script window shows first, holding the GIL as briefly as it
    can: the StableHLO is left out (as with ``stablehlo=False``), so is the plain jaxpr (the
    annotated one is there; ``unavailable["jaxpr"]`` is :data:`ON_REQUEST`), and so is the
    optimized HLO of a program of more than :data:`HLO_AT_ONCE` instructions (its figures
    are there, counted without printing it). :func:`print_part` prints each of them later.
    Such a script is kept by the window, never with the card."""
    with _collector_paused():
        return _make_script(probe, card, stablehlo and not view, view)


def _make_script(probe: Probed, card: Card, want_stablehlo: bool, view: bool) -> Script:
    start = time.perf_counter()
    info = probe.wrapper
    unavailable: dict[str, str] = {}
    notes: list[str] = []
    source, source_file, source_line = _source(info.function)
    if source is None:
        unavailable["source"] = "the Python source of the function is not available"
    figures_ms = _compile_times(probe, card)
    base = _Head(
        function=probe.name,
        card=card.index,
        signature=card.signature,
        created_by=card.created_by,
        source=source,
        source_file=source_file,
        source_line=source_line,
    )
    why, args, kwargs = _abstract_or_why(probe, card)
    if why is not None:
        for part in ("jaxpr", "stablehlo", "hlo", "figures"):
            unavailable[part] = why
        return Script(
            **base,
            unavailable=unavailable,
            produce_ms=(time.perf_counter() - start) * 1e3,
        )
    context = signature.context_snapshot()
    if card.context and context and card.context != context:
        changed = signature.context_changes(context, card.context)
        names = ", ".join(c.path for c in changed) or _note("script.context_any")
        notes.append(_note("script.context", names=names))
    jaxpr = annotated = stablehlo = hlo = None
    lines: tuple[EquationLine, ...] = ()
    equations = top_level = 0
    hlo_count = stablehlo_count = None
    loops = False
    cost: dict[str, Any] = {}
    memory: Any = None
    with _unfiled(probe.trace_name) as collector:
        try:
            closed, traced = _trace(info, args, kwargs, notes)
            if view:
                unavailable["jaxpr"] = ON_REQUEST  # a window shows the annotated one
            else:
                jaxpr = str(closed)
            annotated = closed.pretty_print(source_info=True)
            lines = tuple(_equation_lines(closed))
            equations, top_level = len(lines), len(closed.eqns)
        except Exception as exc:
            traced = None
            for part in ("jaxpr", "stablehlo", "hlo", "figures"):
                unavailable[part] = (
                    f"JAX could not trace the abstract signature: {_first_line(exc)}"
                )
        lowered = compiled = None
        if traced is not None:
            try:
                lowered = traced()
                if want_stablehlo:
                    stablehlo = stablehlo_text(lowered)
                    stablehlo_count = count_stablehlo_ops(stablehlo)
                else:
                    unavailable["stablehlo"] = STABLEHLO_ON_REQUEST
            except Exception as exc:
                for part in ("stablehlo", "hlo"):
                    unavailable[part] = f"JAX could not lower it: {_first_line(exc)}"
        if lowered is not None:
            try:
                compiled = lowered.compile()
                census = hlo_census(compiled) if view else None
                if census is not None and census[0] > HLO_AT_ONCE:
                    hlo_count, loops = census
                    unavailable["hlo"] = ON_REQUEST
                else:
                    hlo = compiled.as_text()
                    if hlo is None:
                        unavailable["hlo"] = "the backend gives no text for its executable"
                    else:
                        hlo_count = count_hlo_instructions(hlo)
                        loops = "while(" in hlo and bool(HLO_LOOP.search(hlo))  # no long regex
            except Exception as exc:
                unavailable["hlo"] = f"XLA could not compile it: {_first_line(exc)}"
        if compiled is not None:
            try:
                cost = cost_dict(compiled.cost_analysis())
            except Exception as exc:
                notes.append(_note("script.no_cost", error=_first_line(exc)))
            try:
                memory = compiled.memory_analysis()
            except Exception as exc:
                notes.append(_note("script.no_memory", error=_first_line(exc)))
    if loops:
        notes.append(LOOP_NOTE)
    if collector.traced:
        notes.append(RETRACED_NOTE)
    stdout = tuple(text for _, text in collector.output_lines())
    figures = None
    if traced is not None:
        figures = Figures(
            equations=equations,
            top_level_equations=top_level,
            hlo_instructions=hlo_count,
            stablehlo_ops=stablehlo_count,
            flops=as_float(cost.get("flops")),
            transcendentals=as_float(cost.get("transcendentals")),
            bytes_accessed=as_float(cost.get("bytes accessed")),
            argument_bytes=as_int(getattr(memory, "argument_size_in_bytes", None)),
            output_bytes=as_int(getattr(memory, "output_size_in_bytes", None)),
            temp_bytes=as_int(getattr(memory, "temp_size_in_bytes", None)),
            generated_code_bytes=as_int(getattr(memory, "generated_code_size_in_bytes", None)),
            **figures_ms,
        )
    return Script(
        **base,
        jaxpr=jaxpr,
        jaxpr_annotated=annotated,
        jaxpr_lines=lines,
        stablehlo=stablehlo,
        hlo=hlo,
        figures=figures,
        unavailable=unavailable,
        notes=tuple(notes),
        stdout=stdout,
        produce_ms=(time.perf_counter() - start) * 1e3,
    )


def _note(key: str, **fields: Any) -> str:
    """A note in English, as scripts keep them; readers say it in theirs (messages.reword)."""
    return messages.say(key, "en", **fields)


LOOP_NOTE = _note("script.loop")
RETRACED_NOTE = _note("script.retraced")


def print_part(probe: Probed, card: Card, script: Script, part: str) -> Script:
    """``script`` (``card``'s, made without the text ``part``: ``jaxpr``, ``stablehlo`` or
    ``hlo``, see ``Script.deferred``) with that text printed now, and its figure counted.

    Only that text is made: the program is traced, lowered (and compiled) again from JAX's
    caches, and one text printed, so asking for it holds the GIL about as long as that one
    print. Asking never changes what the probe records. When it cannot be printed the copy's
    ``unavailable[part]`` says why; a part ``script`` already holds returns ``script``."""
    if part not in script.deferred:
        return script
    with _collector_paused():
        text, count, why, retraced = _print_part(probe, card, part)
    figures = script.figures
    if figures is not None and count is not None:
        figure = "stablehlo_ops" if part == "stablehlo" else "hlo_instructions"
        figures = dataclasses.replace(figures, **{figure: count})
    text_of: dict[str, Any] = {part: text}  # jaxpr, stablehlo or hlo: one of Script's texts
    printed = dataclasses.replace(
        script,
        **text_of,
        figures=figures,
        unavailable={part: why} if why is not None else {},
        notes=(RETRACED_NOTE,) if retraced else (),
    )
    return script.with_part(part, printed)


def _print_part(
    probe: Probed, card: Card, part: str
) -> tuple[str | None, int | None, str | None, bool]:
    """(text, its count, why there is none, whether JAX traced again) of one part."""
    why, args, kwargs = _abstract_or_why(probe, card)
    if why is not None:
        return None, None, why, False
    text = count = None
    with _unfiled(probe.trace_name) as collector:
        try:
            closed, traced = _trace(probe.wrapper, args, kwargs, [])
        except Exception as exc:
            why = f"JAX could not trace the abstract signature: {_first_line(exc)}"
        else:
            try:
                if part == "jaxpr":
                    text = str(closed)
                elif part == "stablehlo":
                    text = stablehlo_text(traced())
                    count = count_stablehlo_ops(text)
                else:
                    text = traced().compile().as_text()
                    if text is None:
                        why = "the backend gives no text for its executable"
                    else:
                        count = count_hlo_instructions(text)
            except Exception as exc:
                why = f"JAX could not print it: {_first_line(exc)}"
    return text, count, why, collector.traced


def traced_jaxpr(probe: Probed, card: Card) -> tuple[Any, str | None]:
    """(the jaxpr of ``card``'s program or None, why there is none, or with a jaxpr the
    note that JAX traced it again: the user's Python ran) — the script's jaxpr
    alone, from JAX's tracing cache (no lowering, no compile), filed nowhere. Read right
    after the compile that made the card (captured-constant), while JAX still holds it."""
    why, args, kwargs = _abstract_or_why(probe, card)
    if why is not None:
        return None, why
    with _collector_paused(), _unfiled(probe.trace_name) as collector:
        try:
            closed, _ = _trace(probe.wrapper, args, kwargs, [])
        except Exception as exc:
            return None, f"JAX could not trace the abstract signature: {_first_line(exc)}"
    return closed, RETRACED_NOTE if collector.traced else None


def _abstract_or_why(
    probe: Probed, card: Card
) -> tuple[str | None, tuple[Any, ...], dict[str, Any]]:
    """(why no script can be made, or None; the card's abstract call)."""
    info = probe.wrapper
    why = _not_traceable(info) or _not_held(probe, card)
    if why is not None:
        return why, (), {}
    try:
        args, kwargs = abstract_call(info.spec, card.key, card.committed)
    except Exception as exc:
        return f"the card's abstract signature cannot be rebuilt: {_first_line(exc)}", (), {}
    return None, args, kwargs


def _not_traceable(info: wrappers.Jitted) -> str | None:
    """Why this wrapper's programs cannot be made from an abstract signature (None: they can)."""
    if info.kind == wrappers.JAX_JIT:
        return None
    if info.kind == wrappers.NNX_JIT and callable(getattr(info.call, "trace", None)):
        return None
    if info.kind == wrappers.FILTER_JIT:
        return None
    if info.kind == wrappers.PMAP:
        return "jax.pmap keeps no ahead-of-time trace of a signature jitlab can rebuild"
    return f"{info.kind} offers no ahead-of-time trace jitlab can call"


def _not_held(probe: Probed, card: Card) -> str | None:
    """Why JAX may no longer hold the card's program (None: it does).

    Made while JAX holds it, a script is read from JAX's caches and leaves them as they were.
    Made after they were cleared, it would trace and compile the program back into them, and
    the next call would find it there: a recompile the probe should record would read as a
    hit. So then there is no script, and the reason says so.
    """
    cards = probe.ledger.cards
    if not any(held is card for held in cards):
        return "the card was retired when the function's caches were cleared"
    # A ledger shared by several function objects of one definition site (jitlab watch: a
    # closure jitted again) or a probe swapped to a new one holds cards of each: JAX's cache
    # of this probe's function object holds only the cards of its generation.
    generation = probe.generation
    if card.signature.function != generation:
        return (
            "the card was compiled for an earlier function object of this code; JAX's cache "
            "of the current one does not hold it"
        )
    cards = [held for held in cards if held.signature.function == generation]
    entries = probe.cache_entries()
    if entries < 0:
        return (
            "jitlab cannot see JAX's cache for this function, so it cannot make the script "
            "without risking what the next call does"
        )
    if entries < len(cards) or entries < probe.entries_after_compile:
        return (
            "JAX no longer holds this program (its caches were cleared since it compiled); "
            "making the script now would compile it back into JAX's caches and change what "
            "the next call records. Call the function with this signature again first"
        )
    return None


def _trace(
    info: wrappers.Jitted, args: tuple[Any, ...], kwargs: dict[str, Any], notes: list[str]
) -> tuple[Any, Any]:
    """(closed jaxpr, a callable that lowers it) for this wrapper and abstract call."""
    call = cast(_AheadOfTime, info.call)  # _not_traceable said it is one
    if info.kind != wrappers.FILTER_JIT:
        traced = call.trace(*args, **kwargs)
        # flax.nnx.jit's Traced holds JAX's own as ``traced``: the same program.
        traced = getattr(traced, "traced", traced)
        return traced.jaxpr, traced.lower
    # equinox.filter_jit traces arrays only (a ShapeDtypeStruct would be a static value):
    # zero-filled stand-ins with the same shape, dtype and placement go in instead.
    import equinox as eqx
    import jax.numpy as jnp

    abstract = jax.tree_util.tree_leaves(
        (args, kwargs), is_leaf=lambda x: isinstance(x, jax.ShapeDtypeStruct)
    )
    if any(getattr(leaf, "weak_type", False) for leaf in abstract):
        raise ValueError("a weak-typed array argument has no zero-filled stand-in")
    stand_in_bytes = 0

    def stand_in(leaf: Any) -> Any:
        nonlocal stand_in_bytes
        if not isinstance(leaf, jax.ShapeDtypeStruct):
            return leaf
        # JAX leaves zeros' `device` partly unannotated.
        zeros = jnp.zeros(leaf.shape, leaf.dtype, device=leaf.sharding)  # pyright: ignore[reportUnknownMemberType]
        stand_in_bytes += zeros.nbytes
        return zeros

    args, kwargs = jax.tree_util.tree_map(
        stand_in, (args, kwargs), is_leaf=lambda x: isinstance(x, jax.ShapeDtypeStruct)
    )
    notes.append(_note("script.stand_ins", size=f"{stand_in_bytes:,}"))
    # Equinox leaves the jaxpr's out-structures untyped: the ClosedJaxpr only is read.
    closed = eqx.filter_make_jaxpr(info.call)(*args, **kwargs)[0]  # pyright: ignore[reportUnknownMemberType]
    eqns = closed.eqns  # a ClosedJaxpr's equations (merged into Jaxpr from JAX 0.11)
    if len(eqns) == 1 and hasattr(eqns[0].params.get("jaxpr"), "eqns"):
        closed = eqns[0].params["jaxpr"]  # the one jit equation: its program is the card's

    def lower() -> Any:
        lowered = call.lower(*args, **kwargs)
        return getattr(lowered, "lowered", lowered)  # equinox's Lowered holds JAX's

    return closed, lower


def _compile_times(probe: Probed, card: Card) -> dict[str, float | None]:
    """trace / lower / compile ms of the call that made the card, from the probe's records."""
    for record in reversed(probe.notable):
        if record.index == card.created_by and record.card == card.index:
            return {
                "trace_ms": record.trace_ms,
                "lower_ms": record.lower_ms,
                "compile_ms": record.compile_ms,
            }
    return {"trace_ms": None, "lower_ms": None, "compile_ms": None}


def _source(fun: Any) -> tuple[str | None, str | None, int | None]:
    if fun is None:
        return None, None, None
    try:
        fun = inspect.unwrap(fun)
        lines, first = inspect.getsourcelines(fun)
        return "".join(lines), inspect.getsourcefile(fun), first
    except (OSError, TypeError, ValueError):
        return None, None, None


def _equation_lines(closed: Any) -> Iterator[EquationLine]:
    counter = iter(range(1 << 62))

    def walk(jaxpr: Any, depth: int) -> Iterator[EquationLine]:
        for eqn in jaxpr.eqns:
            where = _jax.user_source(eqn.source_info)
            file, line, function = where if where is not None else (None, None, None)
            yield EquationLine(next(counter), depth, str(eqn.primitive), file, line, function)
            for value in eqn.params.values():
                for sub in value if _jax_programs.is_params(value) else (value,):
                    # A Jaxpr, or up to JAX 0.10 a ClosedJaxpr (it has eqns too; 0.11 merged
                    # the two, and its ``.jaxpr`` is a legacy accessor JAX means to remove).
                    if hasattr(sub, "eqns"):
                        yield from walk(sub, depth + 1)

    yield from walk(closed, 0)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}".rstrip(": ")
