"""recompile-cost: unstable signatures pile up cards; warm-up and the disk cache pay early.

Real JAX throughout. Kinds and counts are asserted, never timings.
"""

from __future__ import annotations

import os
import re

import jax
import pytest

from jitlab.lab.discovery import scenarios
from jitlab.lab.engine import Run
from jitlab.records.calls import CallKind
from jitlab.records.change_words import reason_text, reason_words
from jitlab.records.changes import ChangeKind

COMPILE, RECOMPILE, HIT, PERSISTENT = (
    CallKind.COMPILE,
    CallKind.RECOMPILE,
    CallKind.CACHE_HIT,
    CallKind.PERSISTENT_HIT,
)
SMALL = {"depth": 1, "batch_size": 4}


@pytest.fixture(scope="module")
def cls():
    return scenarios()["recompile-cost"]


def play(cls, variant, mistake, calls=3):
    run = Run(cls, variant)
    run.play({**SMALL, "mistake": mistake} for _ in range(calls))
    return run


def kinds(run):
    return [r.kind for r in run.records]


def test_weak_type_makes_a_second_card(cls):
    run = play(cls, "pitfall", "weak-type", 4)
    assert kinds(run) == [COMPILE, RECOMPILE, HIT, HIT]
    assert reason_words(run.records[1].reason)[0].startswith(
        "weak type of lr changed: strong ← weak"
    )
    assert len(run.cards) == 2


def test_the_learning_rate_is_named_as_the_code_wrote_it(cls):
    """Output says "lr as a float" / "a jnp.float32", never JAX's class name (ArrayImpl)."""
    run = Run(cls, "pitfall")
    seen = []
    for _ in range(2):
        run.step({"mistake": "weak-type"})
        seen.append(run.scenario.facts()["lr_type"])
    assert seen == ["float", "jnp.float32"]


def test_dtype_drift(cls):
    run = play(cls, "pitfall", "dtype-drift", 3)
    assert kinds(run) == [COMPILE, RECOMPILE, HIT]
    assert "batch['x']: f16[4,64] ← f32[4,64]" in reason_words(run.records[1].reason)


@pytest.mark.parametrize("mistake", ["new-lambda", "new-partial"])
def test_new_function_object_every_step_compiles_every_step(cls, mistake):
    run = play(cls, "pitfall", mistake, 3)
    assert kinds(run) == [COMPILE, RECOMPILE, RECOMPILE]
    for n, record in enumerate(run.records[1:], start=2):
        (change,) = record.reason.items
        assert change.kind is ChangeKind.NEW_FUNCTION_OBJECT and change.count == n
        lam = mistake == "new-lambda"  # a partial has no site of its own
        assert os.path.isabs(change.path.rsplit(":", 1)[0]) or not lam  # kept whole as data
        for lang in ("en", "zh"):  # the screen: the scenario file's name and line, our words
            text = reason_text(record.reason, lang)
            assert "recompile_cost.py:" in text or not lam, text
            assert not change.path or change.path not in text, text
            assert not re.search(r"(^|[\s(（])(/|[A-Za-z]:\\)", text), text
            assert "re-defined" not in text and "maybe" not in text, text


def test_jit_in_loop_of_the_same_function_is_not_a_miss(cls):
    run = play(cls, "pitfall", "jit-in-loop", 3)
    assert kinds(run) == [COMPILE, HIT, HIT]


def test_dict_keys_order_is_free_but_a_new_key_compiles(cls):
    run = play(cls, "pitfall", "dict-keys", 4)
    # step 1 reverses the key order (hit); step 2 adds "weight" (recompile).
    assert kinds(run) == [COMPILE, HIT, RECOMPILE, HIT]
    assert "new argument batch['weight']: f32[4]" in reason_words(run.records[2].reason)


def test_clear_caches_every_step_recompiles_the_same_signature(cls):
    run = play(cls, "pitfall", "clear-caches", 3)
    assert kinds(run) == [COMPILE, RECOMPILE, RECOMPILE]
    assert run.records[1].reason.kinds() == (ChangeKind.CACHE_CLEARED,)


def test_fix_one_card_whatever_the_habit(cls):
    run = Run(cls, "fix")
    mistakes = cls.param("mistake").choices
    run.play({**SMALL, "mistake": m} for m in mistakes for _ in range(2))
    assert kinds(run) == [COMPILE] + [HIT] * (2 * len(mistakes) - 1)
    assert len(run.cards) == 1


def test_aot_warmup_first_request_is_a_hit(cls):
    sizes = (8, 1, 32, 8)
    warm = Run(cls, "aot-warmup")
    warm.play({**SMALL, "batch_size": n} for n in sizes)
    assert kinds(warm) == [HIT] * len(sizes)  # jit reuses what lower().compile() built
    assert all(r.compile_ms == 0.0 and r.trace_ms == 0.0 for r in warm.records)
    facts = warm.scenario.facts()
    assert sorted(facts["warmup_ms"]) == ["1", "32", "8"]
    # A size nobody warmed up still compiles. Its kind is "compile" when this process holds
    # no other run of the same function with cards, "recompile" when an earlier run (another
    # test in this worker) left executables of it in JAX's shared cache: both are true.
    unwarmed = warm.step({**SMALL, "batch_size": 16})
    assert unwarmed.kind in (COMPILE, RECOMPILE) and unwarmed.compile_ms > 0

    cold = Run(cls, "cold-start")
    cold.play({**SMALL, "batch_size": n} for n in sizes)
    assert kinds(cold) == [COMPILE, RECOMPILE, RECOMPILE, HIT]


def test_persistent_cache_second_process_loads_from_disk(cls):
    before = jax.config.jax_compilation_cache_dir
    run = Run(cls, "persistent-cache")
    first = run.step(SMALL)
    first_facts = run.scenario.facts()
    second = run.step(SMALL)
    facts = run.scenario.facts()
    assert (first.kind, second.kind) == (COMPILE, PERSISTENT)
    assert first_facts["time_saved_ms"] is None
    assert facts["cold_ms"] is not None and facts["time_saved_ms"] is not None
    assert facts["cache_entries"] and all("-cache" in e for e in facts["cache_entries"])
    assert facts["predict_entries"] == 1  # one program on disk, loaded by the second process
    assert second.notes["kind"] == "persistent_hit"  # facts travel with the record
    assert facts["default_min_compile_time_secs"] == 1.0
    # Tracing and lowering still run on a disk hit; only the XLA compile is skipped.
    assert second.trace_ms > 0 and second.lower_ms > 0
    # The parent process never turned the disk cache on.
    assert jax.config.jax_compilation_cache_dir == before


def test_code_shown_is_code_that_runs(cls):
    scenario = cls()
    assert "lower(" in scenario.source("aot-warmup")
    assert "jax_persistent_cache_min_compile_time_secs" in scenario.source("persistent-cache")
    assert "functools.partial" in scenario.source("pitfall")
    assert "np.float32(lr)" in scenario.source("fix")


def test_clear_caches_does_not_duplicate_cards(cls):
    run = play(cls, "pitfall", "clear-caches", 3)
    assert len(run.cards) == 1
