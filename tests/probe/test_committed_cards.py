"""One card per executable as JAX counts it (issue 50): jit compiles an array committed to
its device (``jax.device_put(x, device)``) and an uncommitted one (``jnp.ones``) apart, and
serves uncommitted arrays, NumPy arrays and Python scalars of one abstract value with one
executable. Two calls share a card exactly when JAX served them with one executable —
probed and watched, against JAX's own ``jax_log_compiles`` in the same run."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jax.sharding import SingleDeviceSharding

import jitlab
from jitlab import Probe
from jitlab.records.calls import CallKind


@contextmanager
def compiles_logged(
    caplog: pytest.LogCaptureFixture, name: str = "twice"
) -> Iterator[Callable[[], int]]:
    """JAX's own count of the backend compiles of ``jit(name)`` made inside the block
    (``jax.log_compiles``)."""
    caplog.clear()
    made = f"Finished XLA compilation of jit({name})"
    with caplog.at_level(logging.DEBUG, logger="jax"), jax.log_compiles():
        yield lambda: sum(made in r.getMessage() for r in caplog.records)


def fresh() -> Callable[[Any], Any]:
    """A new jitted function (its own cache), named ``twice`` in JAX's log."""

    def twice(x: Any) -> Any:
        return x * 2

    return jax.jit(twice)


def _committed(value: Any) -> Any:
    return jax.device_put(value, jax.devices()[0])


def _other_memory() -> str | None:
    """A memory of the device other than its own, where this JAX has one (``pinned_host``
    on a CPU from JAX 0.7 or so; 0.6's CPU has only its own)."""
    device = jax.devices()[0]
    own = device.default_memory().kind
    return next((m.kind for m in device.addressable_memories() if m.kind != own), None)


OTHER_MEMORY = _other_memory()


# One argument each: what JAX compiles for it is its abstract value and, committed, its
# device. Made at each use (a committed copy is a new array, as in a program).
VARIANTS: dict[str, Callable[[], Any]] = {
    "uncommitted f32[3]": lambda: jnp.ones(3),
    "committed f32[3]": lambda: _committed(jnp.ones(3)),
    "numpy f32[3]": lambda: np.ones(3, np.float32),
    "uncommitted f32[4]": lambda: jnp.ones(4),
    "committed f32[4]": lambda: _committed(jnp.ones(4)),
    "python float": lambda: 1.5,
    "weak-typed uncommitted f32[]": lambda: jax.jit(lambda: 1.5)(),
    "weak-typed committed f32[]": lambda: _committed(jax.jit(lambda: 1.5)()),
    "numpy float32 scalar": lambda: np.float32(1.5),
}
if OTHER_MEMORY is not None:  # committed to the device, in another of its memories
    VARIANTS["committed f32[3] in another memory"] = lambda: jax.device_put(
        jnp.ones(3), SingleDeviceSharding(jax.devices()[0], memory_kind=OTHER_MEMORY)
    )
NAMES = sorted(VARIANTS)


_SHARED: dict[tuple[str, str], bool] = {}


def jax_shares(caplog: pytest.LogCaptureFixture, a: str, b: str) -> bool:
    """JAX's own answer: does a fresh ``jax.jit`` called with ``a`` then ``b`` compile once
    (one executable serves both)?"""
    if (a, b) not in _SHARED:
        f, first, then = fresh(), VARIANTS[a](), VARIANTS[b]()
        with compiles_logged(caplog) as compiled:
            f(first)
            f(then)
        _SHARED[a, b] = compiled() == 1
    return _SHARED[a, b]


def test_committing_an_array_makes_a_card_of_its_own(caplog):
    probe = Probe(fresh())
    x = jnp.ones(3)
    committed = _committed(x)
    assert not x.committed and committed.committed
    with compiles_logged(caplog) as compiled:
        for value in (x, committed, x, committed, x):
            probe(value)
    assert compiled() == 2  # JAX: two executables
    assert len(probe.ledger.cards) == 2
    assert [r.kind for r in probe.records] == [
        CallKind.COMPILE,
        CallKind.RECOMPILE,
        CallKind.CACHE_HIT,
        CallKind.CACHE_HIT,
        CallKind.CACHE_HIT,
    ]
    assert [r.card for r in probe.records] == [0, 1, 0, 1, 0]  # each hit on its own card
    assert [card.hits for card in probe.ledger.cards] == [2, 1]
    assert [card.created_by for card in probe.ledger.cards] == [0, 1]
    assert [card.committed for card in probe.ledger.cards] == [(False,), (True,)]


def test_uncommitted_numpy_and_scalar_arguments_hit_the_card_jax_served():
    # One executable for an uncommitted array and a NumPy array of one abstract value (and
    # for a Python float and a weak-typed scalar array): their hits are that card's.
    probe = Probe(jax.jit(lambda x: x * 2))
    for value in (jnp.ones(3), np.ones(3, np.float32), jnp.ones(3), np.ones(3, np.float32)):
        probe(value)
    assert len(probe.ledger.cards) == 1
    assert [r.card for r in probe.records] == [0, 0, 0, 0]
    assert probe.ledger.cards[0].hits == 3


def test_a_watch_files_each_executable_on_its_card(caplog):
    def scaled_when_committed(x):
        return x * 3

    x = jnp.ones(3)
    committed = _committed(x)
    with compiles_logged(caplog, "scaled_when_committed") as compiled, jitlab.watch() as recorder:
        f = jax.jit(scaled_when_committed)
        for value in (x, committed, x, committed):
            f(value).block_until_ready()
    assert compiled() == 2
    calls = [c.record for c in recorder.calls if c.record.function == "scaled_when_committed"]
    assert [(r.kind, r.card) for r in calls] == [(CallKind.COMPILE, 0), (CallKind.RECOMPILE, 1)]
    (stats,) = [
        s for s in recorder.stats.values() if s.name == "scaled_when_committed" and s.filed.calls
    ]
    assert stats.site is not None and len(stats.site.ledger.cards) == 2
    assert stats.hits == 2
    # Each executable reads as its own: the committed one names its device.
    assert [str(r.signature) for r in calls] == ["x: f32[3]", f"x: f32[3] @ {_device_name()}"]


def _device_name() -> str:
    device = jax.devices()[0]
    return f"{device.platform}:{device.id}"


def test_a_committed_array_names_its_device_and_an_uncommitted_one_reads_as_before():
    probe = Probe(fresh())
    for value in (jnp.ones(3), _committed(jnp.ones(3)), np.ones(3, np.float32), 1.5):
        probe(value)
    texts = [str(card.signature) for card in probe.ledger.cards]
    assert texts == ["x: f32[3]", f"x: f32[3] @ {_device_name()}", "x: ~f32[]"]
    reason = probe.records[1].reason
    assert reason is not None
    (moved,) = reason.items  # named once, from the signatures (no second copy of it)
    assert (moved.before, moved.after, moved.detail) == (None, _device_name(), "device")


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.lists(st.sampled_from(NAMES), min_size=1, max_size=7))
def test_two_calls_share_a_card_exactly_when_jax_serves_them_with_one_executable(caplog, calls):
    probe = Probe(fresh())
    values = [VARIANTS[name]() for name in calls]
    with compiles_logged(caplog) as compiled:
        for value in values:
            probe(value)
        made = compiled()
    records = probe.records
    assert len(probe.ledger.cards) == made  # one card per executable JAX compiled
    for i, a in enumerate(calls):
        for j, b in enumerate(calls[:i]):
            same = records[i].card == records[j].card
            assert same == jax_shares(caplog, b, a), (calls, i, j, [r.card for r in records])
    hits = [r.card for r in records if r.kind is CallKind.CACHE_HIT]
    assert [card.hits for card in probe.ledger.cards] == [
        hits.count(card.index) for card in probe.ledger.cards
    ]


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.lists(st.sampled_from(NAMES), min_size=1, max_size=7))
def test_two_calls_read_alike_exactly_when_jax_serves_them_with_one_executable(caplog, calls):
    # The signature text every face shows (ledger, watch table, summary, card holder): one
    # per executable, so two cards that differ only in where the array lies read apart.
    probe = Probe(fresh())
    values = [VARIANTS[name]() for name in calls]
    with compiles_logged(caplog) as compiled:
        for value in values:
            probe(value)
        made = compiled()
    texts = [str(card.signature) for card in probe.ledger.cards]
    assert len(set(texts)) == len(texts) == made, texts  # one text per executable JAX made
    records = probe.records
    for i, a in enumerate(calls):
        assert str(records[i].signature) == texts[records[i].card]  # a hit reads as its card
        for j, b in enumerate(calls[:i]):
            alike = str(records[i].signature) == str(records[j].signature)
            assert alike == jax_shares(caplog, b, a), (calls, i, j, texts)
