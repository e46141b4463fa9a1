"""captured-constant (optax#577): a learning rate baked into a re-created jitted function.

jitlab's reading of two real programs (jitlab.probe.constants), then jitlab.watch() on the
reproduction — ``for lr in (0.1, 0.05): step = jax.jit(lambda p, g: p - lr * g)`` — counted
against JAX's own compile log and cache-miss explanation in the same run: a Python float is
a literal of the program, an array a captured const; controls that must state nothing or
say jitlab cannot tell; the words in both languages."""

from __future__ import annotations

import logging
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest

import jitlab
from jitlab.probe import constants
from jitlab.recordings.reader import read_recording
from jitlab.records.diagnoses import (
    CAPTURED_CONSTANT,
    IDS,
    Diagnosis,
    page,
    sentence,
    warning_lines,
)

P, G = jnp.ones(3), jnp.full(3, 2.0)


def _program(fun, *args):
    return constants.program(jax.jit(fun).trace(*args).jaxpr, fun)


def test_two_programs_that_differ_in_a_closed_over_number_name_it():
    lr = 0.1
    old = _program(lambda p, g: p - lr * g, P, G)
    lr = 0.05
    new = _program(lambda p, g: p - lr * g, P, G)
    (change,) = constants.changed_constants(old, new)
    assert (change.name, change.kind, change.before, change.after) == (
        "lr",
        "literal",
        "0.1",
        "0.05",
    )
    assert constants.changed_constants(old, old) == []  # the same program


def test_an_array_closed_over_is_a_const_and_a_different_program_is_not_a_constant():
    lr = jnp.float32(0.1)
    old = _program(lambda p, g: p - lr * g, P, G)
    lr = jnp.float32(0.05)
    new = _program(lambda p, g: p - lr * g, P, G)
    (change,) = constants.changed_constants(old, new)
    assert (change.name, change.kind, change.type_text) == ("lr", "const", "float32[]")
    other = _program(lambda p, g: p + lr * g, P, G)  # sub → add: more than a constant
    assert constants.changed_constants(old, other) is None
    big = jnp.ones(1000)
    first = _program(lambda p: p * big[:3], P)
    big = jnp.zeros(1000)  # not read (copying it off the device each compile): cannot tell
    assert constants.changed_constants(first, _program(lambda p: p * big[:3], P)) is None


class _Log(logging.Handler):
    def __init__(self):
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record):
        self.lines.append(record.getMessage())


def _watched(path: Path, body) -> list[str]:
    """Run ``body`` under jitlab.watch with JAX's compile log on; JAX's log lines."""
    handler = _Log()
    logger = logging.getLogger("jax")
    logger.addHandler(handler)
    try:
        with jax.log_compiles(True), jitlab.watch(path, warn_after=0):
            body()
    finally:
        logger.removeHandler(handler)
    return handler.lines


@pytest.mark.parametrize(
    ("values", "kind"),
    [((0.1, 0.05), "literal"), ((jnp.float32(0.1), jnp.float32(0.05)), "const")],
)
def test_watch_names_the_learning_rate_against_jax_own_log(tmp_path, values, kind):
    traced = []

    def sweep():
        for lr in values:

            def step(p, g):
                traced.append(lr)  # noqa: B023 (the pitfall: the user's Python, once per trace)
                return p - lr * g  # noqa: B023

            jax.jit(step)(P, G).block_until_ready()

    path = tmp_path / "run.jsonl"
    log = _watched(path, sweep)
    jax_compiles = sum("Finished XLA compilation of jit(step)" in t for t in log)
    assert jax_compiles == 2
    # jitlab read the program again from JAX's tracing cache: the user's code ran only
    # when JAX traced it (once per compile), never for jitlab.
    assert len(traced) == 2
    recording, _ = read_recording(path)
    ours = [c for c in recording.calls if c.record.function == "step"]
    assert sum(c.record.kind.compiled for c in ours) == jax_compiles
    reason = ours[-1].record.reason
    assert str(reason.items[0].kind) == "new_function_object"
    # JAX's own explanation of the second compile, kept with it: a function it never saw.
    assert "never seen function" in (reason.jax_explanation or "")
    (d,) = [d for d in recording.diagnoses if d.id == CAPTURED_CONSTANT]
    assert d.function == "step" and d.figures["told"] is True
    assert (d.figures["constant"], d.figures["kind"]) == ("lr", kind)
    assert (d.figures["before"], d.figures["after"]) == ("0.1", "0.05")
    assert "lr" in sentence(d) and "0.1 → 0.05" in sentence(d)


def test_watch_controls_the_same_program_and_a_different_one(tmp_path):
    def sweep():
        for _ in range(2):  # re-created, nothing captured changes: no captured-constant
            scale = 2.0
            jax.jit(lambda x: x * scale)(P).block_until_ready()  # noqa: B023
        for n in (2, 3):  # x ** n: the power is a param of the equation, not a constant
            jax.jit(lambda x: x**n)(P).block_until_ready()  # noqa: B023

    path = tmp_path / "run.jsonl"
    log = _watched(path, sweep)
    assert sum("Finished XLA compilation of jit(<lambda>)" in t for t in log) == 4
    recording, _ = read_recording(path)
    found = [d for d in recording.diagnoses if d.id == CAPTURED_CONSTANT]
    (d,) = found  # only the power's: it says it cannot tell
    assert d.figures["told"] is False and d.figures["why"] == "shape"
    assert "cannot tell" in sentence(d) and "无法断定" in sentence(d, "zh")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_words_name_the_constant_its_values_and_the_fix(lang):
    assert CAPTURED_CONSTANT in IDS
    figures = {"told": True, "constant": "lr", "kind": "literal", "type": "float32[]"}
    figures.update(before="0.1", after="0.05", changed=2)
    d = Diagnosis(CAPTURED_CONSTANT, "step", "train.py:7", figures)
    back = Diagnosis.from_json(d.to_json())
    assert back == d and back.known
    text = sentence(d, lang)
    assert "step (train.py:7)" in text and "lr" in text and "0.1 → 0.05" in text
    assert ("1 more" if lang == "en" else "另有 1 个") in text
    lines = warning_lines(d, lang)
    assert "optax.inject_hyperparams" in lines[1]
    assert Path(page(CAPTURED_CONSTANT)).is_file()


def test_an_optax_sweep_the_learning_rate_inside_the_optimizer(tmp_path):
    optax = pytest.importorskip("optax")
    params = {"w": jnp.ones((4, 4)), "b": jnp.zeros(4)}
    x = jnp.ones((8, 4))

    def loss(p):  # relu is a custom_jvp: a rule JAX makes anew on each trace
        return jnp.mean(jax.nn.relu(x @ p["w"] + p["b"]) ** 2)

    def sweep():
        nonlocal params
        for lr in (0.1, 0.05):  # optax#577: a new optimizer, a new step, per learning rate
            opt = optax.adam(lr)
            state = opt.init(params)

            @jax.jit
            def train_step(p, s):
                g = jax.grad(loss)(p)
                u, s = opt.update(g, s, p)  # noqa: B023
                return optax.apply_updates(p, u), s

            for _ in range(2):
                params, state = train_step(params, state)

    path = tmp_path / "run.jsonl"
    log = _watched(path, sweep)
    assert sum("Finished XLA compilation of jit(train_step)" in t for t in log) == 2
    recording, _ = read_recording(path)
    (d,) = [d for d in recording.diagnoses if d.id == CAPTURED_CONSTANT]
    assert d.function == "train_step" and d.figures["told"] is True
    # Adam scales by -lr: the learning rate, held inside the optimizer (no name of the
    # step's own holds it, so none is given).
    assert (d.figures["before"], d.figures["after"]) == ("-0.1", "-0.05")
    assert d.figures["constant"] is None and "a constant (float32[]" in sentence(d)
