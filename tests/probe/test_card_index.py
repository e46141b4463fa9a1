"""A hit's card told by the few leaves where the cards differ (CardIndex), on real JAX.

Every test calls real jitted functions with known signatures in a known order and checks
that each hit is filed under the card of the shape it was called with, that the index (not
the full key of every leaf) answered where it may, and that it stays out of the way where
it may not (an executable JAX holds that is no card of ours).
"""

from __future__ import annotations

import functools
import threading

import jax
import jax.numpy as jnp
import pytest

from jitlab import Probe
from jitlab.probe import signature
from jitlab.records.calls import CallKind
from jitlab.records.changes import ChangeKind


@pytest.fixture
def full_keys(monkeypatch):
    """How many times the probe keyed a whole call (signature.fast_key)."""
    counted = [0]
    real = signature.fast_key

    def counting(*args, **kwargs):
        counted[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(signature, "fast_key", counting)
    return counted


def loss(params, batch):
    return sum(p.sum() for p in params) + batch.sum()


def card_of(probe: Probe, shape: tuple[int, ...], path: str = "b") -> int:
    """The card whose signature has ``shape`` at ``path``."""
    found = [
        card.index
        for card in probe.ledger.cards
        for leaf in card.signature.leaves
        if leaf.path == path and leaf.shape == shape
    ]
    assert len(found) == 1, (shape, found)
    return found[0]


def test_a_thousand_leaves_and_eight_signatures_each_hit_filed_under_its_card(full_keys):
    params = [jnp.ones(3) for _ in range(999)]
    batches = [jnp.ones((size, 3)) for size in (1, 2, 3, 5, 8, 13, 21, 34)]
    probe = Probe(jax.jit(lambda p, b: loss(p, b)))
    for batch in batches:
        probe(params, batch)
    assert [r.kind for r in probe.records] == [CallKind.COMPILE] + [CallKind.RECOMPILE] * 7
    assert probe.cache_entries() == 8
    keyed_before = full_keys[0]
    order = [3, 0, 7, 7, 1, 6, 2, 5, 4, 0, 3, 3, 6, 1]
    for i in order:
        probe(params, batches[i])
    assert full_keys[0] == keyed_before, "the index answered, not the full key"
    hits = probe.records[8:]
    assert all(r.kind is CallKind.CACHE_HIT for r in hits)
    expected = [card_of(probe, tuple(batches[i].shape)) for i in order]
    assert [r.card for r in hits] == expected
    # The ledger's per-card counts agree with the records and with what was called.
    for card in probe.ledger.cards:
        assert card.hits == expected.count(card.index)
    assert probe.summary().cache_hits == len(order)


def test_a_discriminating_leaf_deep_in_the_pytree(full_keys):
    """The cards differ only in a leaf three levels down a keyword argument."""

    def step(params, *, state):
        return params["w"].sum() + state["cache"][1]["k"].sum()

    params = {"w": jnp.ones(4), "layers": [jnp.ones(2) for _ in range(50)]}

    def state_of(n):
        return {"cache": [jnp.zeros(2), {"k": jnp.ones((n, 2)), "v": jnp.ones(2)}]}

    states = [state_of(n) for n in (1, 2, 4, 8)]
    probe = Probe(jax.jit(step))
    for state in states:
        probe(params, state=state)
    lookup = probe._held.index._lookup
    assert lookup is not None and len(lookup[1]) >= 1
    order = [2, 0, 3, 1, 1, 3]
    keyed_before = full_keys[0]
    for i in order:
        probe(params, state=states[i])
    assert full_keys[0] == keyed_before, "the index answered, not the full key"
    hits = probe.records[4:]
    assert [r.kind for r in hits] == [CallKind.CACHE_HIT] * len(order)
    path = "state['cache'][1]['k']"
    cards = [card_of(probe, (n, 2), path) for n in (1, 2, 4, 8)]
    assert [r.card for r in hits] == [cards[i] for i in order]


def test_a_recompile_in_a_leaf_no_earlier_card_differed_in():
    params = {"w": jnp.ones(3), "b": jnp.ones(3)}
    probe = Probe(jax.jit(lambda p, b: p["w"].sum() + p["b"].sum() + b.sum()))
    probe(params, jnp.ones((2, 3)))
    probe(params, jnp.ones((4, 3)))  # the cards differ in the batch only
    wide = {"w": jnp.ones(5), "b": jnp.ones(3)}
    probe(wide, jnp.ones((4, 3)))
    record = probe.last
    assert record is not None and record.kind is CallKind.RECOMPILE
    assert probe.cache_entries() == 3  # JAX compiled it too
    changes = record.reason.items
    assert [(c.kind, c.path) for c in changes] == [(ChangeKind.SHAPE, "p['w']")]
    assert (changes[0].before, changes[0].after) == ("f32[3]", "f32[5]")
    # Now the cards differ in two places; hits on all three are still filed right.
    calls = [(wide, 4), (params, 2), (params, 4), (wide, 4)]
    for p, n in calls:
        probe(p, jnp.ones((n, 3)))
    by_call = {(3, 2): 0, (3, 4): 1, (5, 4): 2}
    hits = probe.records[3:]
    assert [r.card for r in hits] == [by_call[(p["w"].shape[0], n)] for p, n in calls]


def test_an_executable_jax_holds_that_is_no_card_is_not_filed_under_one(full_keys):
    """Cards A (x f32[2], y f32[3]) and B (f32[4], f32[3]) differ only in x. The program
    calls the jitted function itself with C (f32[2], f32[5]): JAX compiles it without the
    probe. A probed call of C is then a hit on no card of ours — not A, though A's x
    matches."""
    probe = Probe(jax.jit(lambda x, y: x.sum() + y.sum()))
    probe(jnp.ones(2), jnp.ones(3))
    probe(jnp.ones(4), jnp.ones(3))
    probe.function(jnp.ones(2), jnp.ones(5))  # not through the probe
    assert probe.cache_entries() == 3
    keyed = full_keys[0]
    probe(jnp.ones(2), jnp.ones(5))
    record = probe.last
    assert record is not None and record.kind is CallKind.CACHE_HIT
    assert record.card is None
    assert full_keys[0] > keyed  # keyed in full: the index stood aside
    assert [card.hits for card in probe.ledger.cards] == [0, 0]
    # A later compile of ours does not make the index trust the cache again.
    probe(jnp.ones(6), jnp.ones(3))
    probe(jnp.ones(2), jnp.ones(5))
    assert probe.last is not None and probe.last.card is None


def test_static_values_and_weak_types_tell_cards_apart():
    probe = Probe(jax.jit(lambda x, n: x * n, static_argnums=1))
    x = jnp.ones(3)
    for n in (1, 2, 3):
        probe(x, n)
    order = [2, 3, 1, 1, 3]
    for n in order:
        probe(x, n)
    assert [r.card for r in probe.records[3:]] == [n - 1 for n in order]

    weak = Probe(jax.jit(lambda v: v + 1))
    weak(1.0)  # a Python float: weakly typed f32[]
    weak(jnp.float32(1.0))  # strongly typed: JAX compiles again
    assert weak.cache_entries() == 2
    for v in (jnp.float32(2.0), 3.0, 4.0, jnp.float32(5.0)):
        weak(v)
    assert [r.card for r in weak.records[2:]] == [1, 0, 0, 1]


def test_threads_on_eight_cards_count_every_hit_on_its_card():
    probe = Probe(jax.jit(lambda p, b: loss(p, b)), keep_records=False)
    params = [jnp.ones(2) for _ in range(20)]
    batches = [jnp.ones((n, 2)) for n in range(1, 9)]
    for batch in batches:
        probe(params, batch)
    rounds = 40

    def work(offset: int) -> None:
        for r in range(rounds):
            probe(params, batches[(r + offset) % 8])

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert probe.summary().cache_hits == 4 * rounds
    assert [card.hits for card in probe.ledger.cards] == [4 * rounds // 8] * 8


def test_many_cards_a_compile_is_compared_with_the_closest_not_only_the_newest():
    """Past 8 cards a compile is compared with the closest few: with 30 sizes of x at y
    f32[3] and then one card far from everything, a call that changes only y from a held
    card is explained by that one change."""
    probe = Probe(jax.jit(lambda x, y: x.sum() + y.sum()))
    for n in range(1, 31):
        probe(jnp.ones(n), jnp.ones(3))
    probe(jnp.ones(100), jnp.ones(100))
    probe(jnp.ones(5), jnp.ones(4))
    record = probe.last
    assert record is not None and record.kind is CallKind.RECOMPILE
    assert [(c.kind, c.path, c.before, c.after) for c in record.reason.items] == [
        (ChangeKind.SHAPE, "y", "f32[3]", "f32[4]")
    ]


class Scaler:
    def __init__(self, k: float) -> None:
        self.k = k

    @functools.partial(jax.jit, static_argnums=0)
    def forward(self, x, scale):
        return x * self.k * scale.sum()


def test_a_bound_method_and_an_equinox_filter_jit_read_their_split_arguments(full_keys):
    """The index reads leaves as the function's own split gives them: a bound jitted method
    (its instance the static first argument) and equinox's filter_jit (arrays traced, the
    rest static)."""
    probe = Probe(Scaler(2.0).forward)
    xs = [jnp.ones(n) for n in (1, 2, 3)]
    scale = jnp.ones(2)
    for x in xs:
        probe(x, scale)
    keyed = full_keys[0]
    order = [2, 0, 1, 1, 2]
    for i in order:
        probe(xs[i], scale)
    assert full_keys[0] == keyed
    assert [r.card for r in probe.records[3:]] == order

    eqx = pytest.importorskip("equinox")

    @eqx.filter_jit
    def step(params, batch, activation):
        return activation(params["w"] * batch.sum())

    eqx_probe = Probe(step)
    params = {"w": jnp.ones(3)}
    batches = [jnp.ones((n, 3)) for n in (2, 4, 8)]
    for batch in batches:
        eqx_probe(params, batch, jnp.tanh)
    assert len(eqx_probe.ledger.cards) == 3
    keyed = full_keys[0]
    for i in order:
        eqx_probe(params, batches[i], jnp.tanh)
    assert [r.card for r in eqx_probe.records[3:]] == order
    assert full_keys[0] == keyed
