"""Run a generated program for real: watched (``jitlab.watch()``, the stand-in ``jitlab
watch`` puts in place of ``jax.jit``) or as a ``Probe``, with JAX's ``jax_log_compiles`` and
``jax_explain_cache_misses`` on in the same process, and keep what each side said per step.

Each run writes its function's source to a file of its own and gives it a name no other run
has, so JAX's log (which names ``jit(f)``) and jitlab's rows are both that function's alone.
"""

from __future__ import annotations

import atexit
import functools
import gc
import itertools
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jax
from real.conftest import jax_account  # JAX's own log of a block, both switches on

import jitlab
from jitlab.probe.probe import Probe
from jitlab.recordings.reader import read_recording
from jitlab.recordings.summary import FunctionSummary, summarize
from jitlab.records.calls import CallRecord

from . import bodies
from .specs import Arr, Builder, Call, Clear, Node, Program, SetX64, Step
from .truth import compiled_by_jax, compiled_names, explained_by_jax

_SERIAL = itertools.count()
_FOLDER: Path | None = None

# Hands a probe can take: one function object called again and again.
PROBED_HANDINGS = frozenset(("once",))


def _folder() -> Path:
    global _FOLDER
    if _FOLDER is None:
        _FOLDER = Path(tempfile.mkdtemp(prefix="jitlab-differential-"))
        atexit.register(shutil.rmtree, _FOLDER, True)
    return _FOLDER


def source(program: Program, name: str) -> str:
    """The program's function as a user would write it (``BODY`` is one of :mod:`bodies`)."""
    params = [p.name for p in program.params]
    dynamic = [p.name for p in program.params if not p.static]
    if program.wrapper in ("partial", "nnx.jit_partial"):
        params, dynamic = ["w", *params], ["w", *dynamic]
    args = ", ".join(params)
    trees = "(" + "".join(f"{d}, " for d in dynamic) + ")"
    if program.wrapper == "method":
        return (
            f"class Holder_{name}:\n"
            "    def __init__(self, k):\n"
            "        self.k = k\n\n"
            f"    def {name}(self, {args}):\n"
            f"        return BODY({trees}) * self.k\n"
        )
    if program.wrapper == "callable":
        return (
            f"class Poly_{name}:\n"
            "    def __init__(self, k):\n"
            "        self.k = k\n\n"
            f"    def __call__(self, {args}):\n"
            f"        return BODY({trees}) * self.k\n\n"
            "    def __eq__(self, other):\n"
            "        return type(other) is type(self) and other.k == self.k\n\n"
            "    def __hash__(self):\n"
            "        return hash(self.k)\n"
        )
    return f"def {name}({args}):\n    return BODY({trees})\n"


def load(program: Program, name: str) -> dict[str, Any]:
    """Write the program's source to its own file and run it: its namespace."""
    path = _folder() / f"{name}.py"
    text = source(program, name)
    path.write_text(text, encoding="utf-8")
    namespace: dict[str, Any] = {"BODY": bodies.BODIES[program.body], "__name__": name}
    exec(compile(text, str(path), "exec"), namespace)
    return namespace


@functools.cache
def callable_name() -> str:
    """The name JAX's log gives a jitted callable object (JAX decides: ``<unnamed
    function>`` on 0.10, ``<unnamed wrapped function>`` before 0.9), read off its own log."""

    class Calibration:
        def __call__(self, x: Any) -> Any:
            return x + 1

    with jax_account() as log:
        jax.jit(Calibration())(jax.device_put(1.5))
    (name,) = compiled_names(log.messages)
    return name


@dataclass
class StepSeen:
    """What one step did: JAX's compiles of the function and its explanations, and
    jitlab's records of the step (a watch files compiles, errors and traced calls; a probe
    every call)."""

    index: int
    step: Step
    jax_compiles: int = 0
    jax_misses: list[str] = field(default_factory=list)
    records: list[CallRecord] = field(default_factory=list)


@dataclass
class Run:
    mode: str  # watch | probe
    program: Program
    name: str  # the function's name in JAX's log
    steps: list[StepSeen]
    rows: list[FunctionSummary] = field(default_factory=list)  # a watch's rows, read back

    @property
    def jax_total(self) -> int:
        return sum(s.jax_compiles for s in self.steps)


def invoke(
    call: Callable[..., Any], args: list[Any], kwargs: dict[str, Any], via: str | None
) -> Any:
    """One call, under the transformation ``via`` (around the jitted function) if any."""
    if via is None:
        return call(*args, **kwargs)
    first, rest = args[0], args[1:]

    def inner(value: Any) -> Any:
        return call(value, *rest, **kwargs)

    if via == "vmap":
        return jax.vmap(inner)(first)
    if via == "vmap-named":
        return jax.vmap(inner, axis_name="i")(first)
    if via == "grad":
        return jax.grad(inner)(first)
    if via == "jvp":
        return jax.jvp(inner, (first,), (first,))
    if via == "linearize":
        _, linear = jax.linearize(inner, first)
        return linear(first)
    if via == "scan":
        return jax.lax.scan(lambda c, v: (c + inner(v), None), 0.0, first)[0]
    if via == "remat":
        return jax.checkpoint(inner)(first)
    raise ValueError(via)


class Hands:
    """The program's callable as its wrapper makes it, as the program's ``handing`` says."""

    def __init__(self, program: Program, namespace: dict[str, Any], name: str, prebound: Any):
        self.program = program
        self.namespace = namespace
        self.name = name
        self.prebound = prebound
        self.kept: list[Any] = []
        self.current: Any = None
        self.holder: Any = None

    def target(self) -> Any:
        """What is handed to the wrapper (a fresh one for each call unless ``once``)."""
        kind = self.program.wrapper
        if kind == "method":
            if self.holder is None:
                self.holder = self.namespace[f"Holder_{self.name}"](2.0)
            return getattr(self.holder, self.name)
        if kind == "callable":
            return self.namespace[f"Poly_{self.name}"](2.0)
        function = self.namespace[self.name]
        if kind == "partial":
            return functools.partial(function, self.prebound)
        return function

    def wrap(self) -> Any:
        kind, statics = self.program.wrapper, self.program.statics
        if kind == "eqx.filter_jit":
            import equinox as eqx

            return eqx.filter_jit(self.target())
        if kind == "nnx.jit":
            from flax import nnx

            return nnx.jit(self.target(), static_argnames=statics)
        if kind == "nnx.jit_partial":
            from flax import nnx

            return nnx.jit_partial(
                self.target(), self.prebound, static_argnames=statics, graph=False
            )
        return jax.jit(self.target(), static_argnames=statics)

    def for_call(self) -> Any:
        if self.current is None or self.program.handing != "once":
            self.current = self.wrap()
            if self.program.handing == "kept":
                self.kept.append(self.current)
        return self.current

    def after_call(self) -> None:
        if self.program.handing == "temporary":
            self.current = None
            gc.collect()  # gone now, not when the collector next runs: the same run each time


def _prebound(program: Program, builder: Builder) -> Any:
    if program.wrapper == "partial":
        return builder.value(Arr((2,)))
    if program.wrapper == "nnx.jit_partial":
        return builder.value(Node("nnx", (("w", Arr((2,))),)))
    return None


@contextmanager
def _x64_restored() -> Iterator[None]:
    before = jax.config.jax_enable_x64
    try:
        yield
    finally:
        jax.config.update("jax_enable_x64", before)


def run(program: Program, mode: str, place: Callable[[Any, str], Any] | None = None) -> Run:
    """Run ``program`` once, ``watch``-ed or as a ``probe``: every step with JAX's log."""
    name = f"dj{next(_SERIAL)}{mode[0]}"
    namespace = load(program, name)
    builder = Builder(place)
    values = {id(call): [builder.value(a) for a in call.args] for call in program.calls}
    hands = Hands(program, namespace, name, _prebound(program, builder))
    jax_name = callable_name() if program.wrapper == "callable" else name
    steps: list[StepSeen] = []
    recording = _folder() / f"{name}.jsonl"
    with ExitStack() as stack:
        log = stack.enter_context(jax_account())
        stack.enter_context(_x64_restored())
        recorder = stack.enter_context(jitlab.watch(recording)) if mode == "watch" else None
        probe = Probe(hands.for_call()) if mode == "probe" else None

        def filed() -> list[CallRecord]:
            if probe is not None:
                return list(probe.records)
            assert recorder is not None
            return [c.record for c in recorder.calls if not c.internal]

        for index, step in enumerate(program.steps):
            seen = StepSeen(index, step)
            start, before = len(log.messages), len(filed())
            _take(step, program, hands, probe, values)
            seen.jax_compiles = compiled_by_jax(log.messages, start, jax_name)
            seen.jax_misses = explained_by_jax(log.messages, start, jax_name)
            seen.records = filed()[before:]
            steps.append(seen)
    result = Run(mode, program, jax_name, steps)
    if mode == "watch":
        recorded, _ = read_recording(recording)
        result.rows = [r for r in summarize(recorded, include_internal=False) if not r.internal]
    return result


def _take(
    step: Step, program: Program, hands: Hands, probe: Probe | None, values: dict[int, list[Any]]
) -> None:
    if isinstance(step, SetX64):
        jax.config.update("jax_enable_x64", step.on)
        return
    if isinstance(step, Clear):
        if step.what == "all":
            jax.clear_caches()
        else:
            hands.current.clear_cache()
        return
    assert isinstance(step, Call)
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for param, value in zip(program.params, values[id(step)], strict=True):
        if param.name in step.keywords:
            kwargs[param.name] = value
        else:
            args.append(value)
    target = probe if probe is not None else hands.for_call()
    with ExitStack() as stack:
        if step.precision is not None:
            stack.enter_context(jax.default_matmul_precision(step.precision))
        jax.block_until_ready(invoke(target, args, kwargs, step.via))
    hands.after_call()
