"""executables-growing (jax#16778, flax#5548) on reproductions of the threads (synthetic
data): an optimizer object re-created every epoch and passed static (each epoch compiles a
new executable, and the jit object keeps them all), against the controls where JAX frees
them or where they are for different arrays or static values; counted against JAX's own compile log
(jax_log_compiles) in the same run, and the memory figures against ``memory_analysis()``."""

from __future__ import annotations

import gc
import logging
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest

import jitlab
from jitlab import Probe
from jitlab.recordings.reader import read_recording
from jitlab.records.calls import CallRecord
from jitlab.records.diagnoses import (
    EXECUTABLES_GROWING,
    IDS,
    Diagnosis,
    page,
    sentence,
    warning_lines,
)
from jitlab.records.executables import Executables
from jitlab.records.lines import RecordedCall

EPOCHS = 5
WARN_AFTER = 3


class Adam:  # no __eq__ / __hash__: a new object is a new static value
    def __init__(self, lr):
        self.lr = lr


def _train_step(params, batch, opt):
    return params - opt.lr * jnp.mean(batch) * params


class _Log(logging.Handler):
    def __init__(self):
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record):
        self.lines.append(record.getMessage())


def _jax_compiles(lines: list[str], name: str) -> int:
    return sum(f"Finished XLA compilation of jit({name})" in t for t in lines)


def _watched(path: Path, program) -> list[str]:
    handler = _Log()
    logger = logging.getLogger("jax")
    logger.addHandler(handler)
    try:
        with jax.log_compiles(True), jitlab.watch(path, warn_after=WARN_AFTER):
            program()
    finally:
        logger.removeHandler(handler)
    return handler.lines


@pytest.mark.parametrize("jitted_before_the_watch", [False, True])
def test_an_optimizer_recreated_per_epoch_and_passed_static_is_diagnosed(
    tmp_path, capsys, jitted_before_the_watch
):
    params, batch = jnp.ones(16), jnp.ones((4, 16))

    def train_step(params, batch, opt):
        return params - opt.lr * jnp.mean(batch) * params

    # Jitted before the watch, it is seen through JAX's compile events only.
    jitted = [jax.jit(train_step, static_argnums=2)] if jitted_before_the_watch else []

    def program():
        if not jitted:
            jitted.append(jax.jit(train_step, static_argnums=2))  # the watch's stand-in
        p = params
        for _ in range(EPOCHS):
            opt = Adam(1e-3)  # re-created every epoch, as in flax#5548
            for _ in range(3):
                p = jitted[0](p, batch, opt)

    path = tmp_path / "run.jsonl"
    lines = _watched(path, program)
    assert _jax_compiles(lines, "train_step") == EPOCHS  # JAX's own count
    recording, _ = read_recording(path)
    ours = [c for c in recording.calls if c.record.function == "train_step"]
    assert all(c.events_only == jitted_before_the_watch for c in ours)
    compiled = [c.record for c in ours if c.record.kind.compiled]
    assert len(compiled) == EPOCHS
    # Measured at each compile: one more alive each time, all for one signature.
    assert [r.executables.live for r in compiled] == list(range(1, EPOCHS + 1))
    assert [r.executables.same_signature for r in compiled] == list(range(1, EPOCHS + 1))
    (step,) = jitted
    assert step._cache_size() == EPOCHS  # the jit object holds them all (JAX's count)
    # The figures are JAX's memory_analysis of that program (read, not compiled again).
    memory = step.lower(params, batch, Adam(1e-3)).compile().memory_analysis()
    last = compiled[-1].executables
    assert last.argument_bytes == memory.argument_size_in_bytes
    assert last.output_bytes == memory.output_size_in_bytes
    assert last.temp_bytes == memory.temp_size_in_bytes
    assert last.live_argument_bytes == EPOCHS * memory.argument_size_in_bytes
    (d,) = [d for d in recording.diagnoses if d.id == EXECUTABLES_GROWING]
    line = train_step.__code__.co_firstlineno
    assert d.function == "train_step" and d.site.endswith(f":{line}")
    n = WARN_AFTER + 1  # said once, at the first compile past the limit
    assert d.figures["live"] == d.figures["same_signature"] == d.figures["compiles"] == n
    assert d.figures["argument_bytes"] == n * memory.argument_size_in_bytes
    err = capsys.readouterr().err
    assert "jitlab: executables-growing: train_step" in err
    assert err.count("executables-growing:") == 1


def test_a_jit_recreated_per_epoch_frees_its_executables_no_diagnosis(tmp_path):
    params = jnp.ones(16)

    def make_step(opt):
        def closed_step(p):  # closes over this epoch's optimizer
            return p - opt.lr * p

        return closed_step

    def program():
        p = params
        for _ in range(EPOCHS):
            step = jax.jit(make_step(Adam(1e-3)))  # a new jit object each epoch; the old dies
            p = step(p)
            del step
            gc.collect()

    path = tmp_path / "run.jsonl"
    lines = _watched(path, program)
    assert _jax_compiles(lines, "closed_step") == EPOCHS  # it did compile every epoch
    recording, _ = read_recording(path)
    compiled = [c.record for c in recording.calls if c.record.function == "closed_step"]
    assert len(compiled) == EPOCHS
    # Measured: JAX freed each epoch's executable with its jit object.
    assert [r.executables.live for r in compiled] == [1] * EPOCHS
    assert not [d for d in recording.diagnoses if d.id == EXECUTABLES_GROWING]


def test_executables_for_different_arrays_are_not_diagnosed(tmp_path):
    def program():
        def bucketed(x):
            return x * 2

        step = jax.jit(bucketed)
        for n in range(1, EPOCHS + 1):
            step(jnp.ones(n))  # a new shape each time: a program each, all alive

    path = tmp_path / "run.jsonl"
    lines = _watched(path, program)
    assert _jax_compiles(lines, "bucketed") == EPOCHS
    recording, _ = read_recording(path)
    compiled = [c.record for c in recording.calls if c.record.function == "bucketed"]
    assert [r.executables.live for r in compiled] == list(range(1, EPOCHS + 1))
    assert [r.executables.same_signature for r in compiled] == [1] * EPOCHS
    assert not [d for d in recording.diagnoses if d.id == EXECUTABLES_GROWING]


def test_static_values_that_really_differ_are_not_counted_together(tmp_path):
    def program():
        def scaled(x, times):
            return x * times

        step = jax.jit(scaled, static_argnums=1)
        for times in range(EPOCHS):
            step(jnp.ones(3), times)  # a different program each time, all alive

    path = tmp_path / "run.jsonl"
    lines = _watched(path, program)
    assert _jax_compiles(lines, "scaled") == EPOCHS
    recording, _ = read_recording(path)
    compiled = [c.record for c in recording.calls if c.record.function == "scaled"]
    assert [r.executables.live for r in compiled] == list(range(1, EPOCHS + 1))
    assert [r.executables.same_signature for r in compiled] == [1] * EPOCHS
    assert not [d for d in recording.diagnoses if d.id == EXECUTABLES_GROWING]


def test_a_probe_records_each_compiles_executables_and_reads_them_back():
    p = Probe(jax.jit(_train_step, static_argnums=2))
    params, batch = jnp.ones(8), jnp.ones((2, 8))
    for _ in range(4):
        p(params, batch, Adam(0.1))
    held = Adam(0.1)
    p(params, batch, held)
    p(params, batch, held)  # a hit: no figures
    compiled = [r for r in p.records if r.kind.compiled]
    assert [r.executables.live for r in compiled] == [1, 2, 3, 4, 5]
    assert all(r.executables is None for r in p.records if not r.kind.compiled)
    back = CallRecord.from_json(compiled[-1].to_json())
    assert back.executables == compiled[-1].executables
    line = RecordedCall(compiled[-1], "t.py:1").to_json()
    assert RecordedCall.from_json(line).record.executables == compiled[-1].executables
    assert "executables" not in p.records[0]._replace(executables=None).to_json()


def test_damaged_figures_read_as_unknown():
    assert Executables.from_json("x") is None
    damaged = {"live": "3", "temp_bytes": -1, "code_bytes": True, "same_signature": 2}
    bad = Executables.from_json(damaged)
    assert bad == Executables(same_signature=2)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_words_say_what_was_measured_and_the_fix(lang):
    assert EXECUTABLES_GROWING in IDS
    figures = {
        "live": 9,
        "same_signature": 9,
        "compiles": 9,
        "limit": 8,
        "code_bytes": 0,
        "temp_bytes": 2048,
        "argument_bytes": 3 * 1024 * 1024,
        "output_bytes": None,
    }
    d = Diagnosis(EXECUTABLES_GROWING, "train_step", "train.py:7", figures)
    back = Diagnosis.from_json(d.to_json())
    assert back == d and back.known
    text = sentence(d, lang)
    assert "train_step (train.py:7)" in text and "9" in text
    assert "3.0 MiB" in text and "2.0 KiB" in text and "?" in text  # outputs: not said
    lines = warning_lines(d, lang)
    assert lines[0].startswith("jitlab") and EXECUTABLES_GROWING in lines[0]
    assert ("outside the loop" if lang == "en" else "在循环外") in lines[1]
    assert lines[2].endswith("jitlab explain executables-growing")
    unseen = Diagnosis(EXECUTABLES_GROWING, "f", None, {**figures, "same_signature": None})
    said = sentence(unseen, lang)
    assert ("cannot tell" if lang == "en" else "无法判断") in said


def test_the_page_exists_in_both_languages():
    text = Path(page(EXECUTABLES_GROWING)).read_text(encoding="utf-8")
    assert "## English" in text and "## 中文" in text and "jax#16778" in text


def test_flax_nnx_optimizer_recreated_per_epoch_as_in_flax_5548(tmp_path):
    nnx = pytest.importorskip("flax.nnx")
    optax = pytest.importorskip("optax")

    class Model(nnx.Module):
        def __init__(self, rngs):
            self.lin = nnx.Linear(4, 1, rngs=rngs)

        def __call__(self, x):
            return self.lin(x)

    @nnx.jit
    def nnx_step(model, optimizer, x):
        loss, grads = nnx.value_and_grad(lambda m: jnp.mean(m(x) ** 2))(model)
        optimizer.update(model, grads)
        return loss

    x = jnp.ones((8, 4))

    def program():
        for _ in range(EPOCHS):
            model = Model(nnx.Rngs(0))
            # A new optax transformation each epoch: new functions in the graph's static data.
            optimizer = nnx.Optimizer(model, optax.adam(1e-3), wrt=nnx.Param)
            for _ in range(2):
                nnx_step(model, optimizer, x)

    path = tmp_path / "run.jsonl"
    lines = _watched(path, program)
    assert _jax_compiles(lines, "nnx_step") == EPOCHS  # JAX's own count
    recording, _ = read_recording(path)
    compiled = [c.record for c in recording.calls if c.record.function == "nnx_step"]
    compiled = [r for r in compiled if r.kind.compiled]
    assert [r.executables.live for r in compiled] == list(range(1, EPOCHS + 1))
    assert [r.executables.same_signature for r in compiled] == list(range(1, EPOCHS + 1))
    (d,) = [d for d in recording.diagnoses if d.id == EXECUTABLES_GROWING]
    assert d.function == "nnx_step" and d.figures["live"] == WARN_AFTER + 1
