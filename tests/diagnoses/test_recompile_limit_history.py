"""recompile-limit says what is true of the history it was stated on (issue 54's leftover):
a step jitted anew each epoch over batches of 32 and a last batch of 4 is told to be jitted
once (it was told to bucket sizes that are powers of two already, and repeat); a function
that compiled 32 times and then 4 more is not said, after the run, to have compiled 9 times;
two arguments that changed as often are both named (one of them was, picked by a set's
order). Real JAX under jitlab.watch in this process, JAX's own compile log in the same run."""

from __future__ import annotations

from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from measured import measure

from jitlab.records.diagnoses import RECOMPILE_LIMIT, sentence, warning_lines

EPOCHS = 5
DATA = np.ones((100, 8), np.float32)  # batches of 32, 32, 32, then 4


def _epochs_jitted_anew() -> None:
    for _ in range(EPOCHS):

        def epoch_step(x):
            return (x * 2.0).sum()

        step = jax.jit(epoch_step)  # a new function object each epoch: its cache starts empty
        for start in range(0, len(DATA), 32):
            step(DATA[start : start + 32])


def _epochs_jitted_once() -> None:
    def epoch_step_once(x):
        return (x * 2.0).sum()

    step = jax.jit(epoch_step_once)  # the advice applied
    for _ in range(EPOCHS):
        for start in range(0, len(DATA), 32):
            step(DATA[start : start + 32])


def test_a_step_jitted_anew_each_epoch_is_told_to_be_jitted_once_not_to_bucket(
    tmp_path: Path,
) -> None:
    found = measure(tmp_path / "pitfall.jsonl", _epochs_jitted_anew)
    assert found.jax["epoch_step"] == 2 * EPOCHS  # JAX compiled 32 and 4 again each epoch
    (d,) = found.of(RECOMPILE_LIMIT)
    # 7 of the first 8 recompiles compiled a size an earlier function object had compiled
    # (the 4 of epochs 1-4 among them); the one left is epoch 0's 32 -> 4.
    assert (d.figures["change"], d.figures["fix"]) == ("new_function_object", "recreate")
    assert (d.figures["changed"], d.figures["recompiles"]) == (7, 8)
    assert "jitted again as a new function object in 7 of 8 recompiles" in sentence(d)
    assert "8 次重编译中有 7 次是函数被重新创建" in sentence(d, "zh")
    assert "create the jitted function once" in warning_lines(d)[1]
    assert "pad or bucket" not in "\n".join(warning_lines(d))
    fixed = measure(tmp_path / "once.jsonl", _epochs_jitted_once)
    assert fixed.jax["epoch_step_once"] == 2  # 32 and 4, each once: the advice worked
    assert fixed.problems() == []


def _sizes_then_more() -> None:
    def grows(x):
        return (x * 2.0).sum()

    step = jax.jit(grows)
    for n in range(1, 33):  # 32 compiles
        step(jnp.ones(n))
    for _ in range(50):
        step(jnp.ones(8))
    for n in range(33, 37):  # then 4 more
        step(jnp.ones(n))


def test_after_the_run_the_sentence_is_true_of_every_compile_it_counted(tmp_path: Path) -> None:
    found = measure(tmp_path / "grows.jsonl", _sizes_then_more)
    assert found.jax["grows"] == 36
    compiled = [c for c in found.recording.calls if c.record.function == "grows"]
    assert len(compiled) == 36
    (d,) = found.of(RECOMPILE_LIMIT)
    assert d.figures["compiles"] == 9  # stated once, at its 9th compile
    en, zh = sentence(d, "en"), sentence(d, "zh")
    # Read after 36 compiles it must not say "compiled 9 times": it says what it counted.
    assert "compiled 9 times" not in en
    assert "compiled more than 8 times; in its first 9 compiles" in en
    assert "the shape of x changed in 8 of 8 recompiles" in en
    assert "超过 8 次" in zh and "前 9 次编译" in zh and "已编译 9 次" not in zh
    assert "pad or bucket x to a few sizes" in warning_lines(d)[1]


def _pairs() -> None:
    def pairs(x, y):
        return (x * y).sum()

    step = jax.jit(pairs)
    for n in range(1, 11):  # x and y change together, every compile
        step(jnp.ones(n), jnp.ones(n))


def test_arguments_that_changed_as_often_are_all_named(tmp_path: Path) -> None:
    found = measure(tmp_path / "pairs.jsonl", _pairs)
    assert found.jax["pairs"] == 10
    (d,) = found.of(RECOMPILE_LIMIT)
    assert (d.figures["argument"], d.figures["tied"]) == ("x", "y")  # in the reason's order
    assert "the shapes of x and y each changed in 8 of 8 recompiles" in sentence(d, "en")
    assert "pad or bucket x and y to a few sizes" in warning_lines(d)[1]
    zh = "\n".join(warning_lines(d, "zh"))
    assert "x 和 y 的形状各有 8 次变了" in zh and "x 和 y" in zh.splitlines()[1]
