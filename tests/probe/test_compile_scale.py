"""A compile's filing stays flat as the model and the card holder grow, and stays true.

The probe describes a signature once per structure and type (memos), diffs only where two
signatures differ, adds a card to the hit lookup in place, ranks a compile's candidates
without reading every card, and asks JAX for its (costly) words past monitor.EXPLAIN_AT_ONCE
executables only where its own diff cannot say. Each test checks that the fast way gives
what the plain way gives, on real JAX.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import pytest
from hypothesis import given
from hypothesis import strategies as st

from jitlab import Probe
from jitlab.probe import _jax, diff, monitor, signature
from jitlab.records.calls import CallKind, Change, LeafSpec, Signature
from jitlab.records.changes import ChangeKind as K

MANY = monitor.EXPLAIN_AT_ONCE + 5


def _defers() -> bool:
    """JAX's explanations can be put off (0.10 and later; older JAX explains each at once)."""
    return _jax.defer_explanations(monitor._deferral_sink, monitor.EXPLAIN_AT_ONCE)


def test_past_eight_executables_a_probe_leaves_jax_unasked_where_its_diff_names_the_change():
    monitor.install()
    if not _defers():
        pytest.skip("this JAX explains every miss at once")
    probe = Probe(jax.jit(lambda x: x * 2))
    for n in range(1, MANY + 1):
        probe(jnp.ones(n))
    assert probe.cache_entries() == MANY  # each size compiled once
    records = probe.records
    assert [r.kind for r in records] == [CallKind.COMPILE] + [CallKind.RECOMPILE] * (MANY - 1)
    for record, n in zip(records[1:], range(2, MANY + 1), strict=True):
        assert record.reason is not None
        assert [(c.kind, c.before, c.after) for c in record.reason.items] == [
            (K.SHAPE, f"f32[{n - 1}]", f"f32[{n}]")
        ]
    # JAX's words at once while it held at most EXPLAIN_AT_ONCE executables, then not made.
    words = [r.reason.jax_explanation is not None for r in records[1:] if r.reason]
    at_once = monitor.EXPLAIN_AT_ONCE
    assert words == [True] * at_once + [False] * (MANY - 1 - at_once)


def test_past_eight_executables_jaxs_put_off_words_are_made_where_the_diff_cannot_say():
    """A probe made on a function JAX already holds ten executables of, after a hit: its
    first compile has no card to compare with, so only JAX can say; its put-off words are
    made and read."""
    monitor.install()
    if not _defers():
        pytest.skip("this JAX explains every miss at once")

    def halve(x):
        return x / 2

    jitted = jax.jit(halve)
    for n in range(1, 11):
        jitted(jnp.ones(n))
    probe = Probe(jitted)
    probe(jnp.ones(1))  # served by JAX: a hit on no card of ours
    probe(jnp.ones(11))
    record = probe.last
    assert record is not None and record.reason is not None
    assert jitted._cache_size() == 11
    words = record.reason.jax_explanation
    assert words is not None and "TRACING CACHE MISS" in words and "halve" in words
    assert [(c.kind, c.before, c.after) for c in record.reason.items] == [
        (K.SHAPE, "f32[10]", "f32[11]")
    ]


# -- describe: memos give what a plain description gives ------------------------------------
def plain_describe(
    spec: signature.StaticSpec, generation: int, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Signature:
    """The description without memos (as the probe made it before)."""
    traced, static = spec.split(args, kwargs)
    flat, tree = jax.tree_util.tree_flatten_with_path([value for _, value in traced])
    leaves = []
    for path, leaf in flat:
        rest = jax.tree_util.keystr(tuple(path[1:])) if len(path) > 1 else ""
        aval = jax.typeof(leaf)
        sharding = getattr(leaf, "sharding", None)
        committed = isinstance(leaf, jax.Array) and leaf.committed
        leaves.append(
            LeafSpec(
                path=f"{traced[path[0].idx][0]}{rest}",
                shape=tuple(int(d) for d in aval.shape),
                dtype=str(aval.dtype),
                weak_type=bool(getattr(aval, "weak_type", False)),
                sharding=signature._sharding_text(sharding),
                device=signature._device_text(sharding) if committed else None,
            )
        )
    statics = tuple((name, diff.short_repr(value)) for name, value in static)
    return Signature(tuple(leaves), statics, signature._tree_text(tree), generation)


def _on_device(x: Any) -> Any:
    return jax.device_put(x, jax.devices()[0])


class Pair(NamedTuple):
    left: Any
    right: Any


def model(params, batch, *rest, scale=1.0, **named):
    return params, batch, rest, scale, named


CALLS: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
    (({"w": jnp.ones((2, 3)), "b": jnp.zeros(3)}, jnp.ones((4, 2))), {}),
    (({"w": jnp.ones((2, 3)), "b": jnp.zeros(3)}, jnp.ones((5, 2))), {"scale": 2.0}),
    (({"w": jnp.ones((2, 3), jnp.bfloat16), "b": jnp.zeros(3)}, 3), {"extra": jnp.arange(3)}),
    ((Pair(jnp.ones(2), [1.5, jnp.ones(1, jnp.int8)]), True, jnp.ones(2)), {"z": None}),
    (([jnp.ones(2)] * 3, jnp.ones(1, bool)), {"b": jnp.ones(2), "a": jnp.ones(1)}),
    # committed to its device (a card of its own), beside the same array uncommitted
    (([_on_device(jnp.ones(2)), jnp.ones(2)], jnp.ones(1)), {"b": _on_device(jnp.ones(2))}),
    ((jax.random.key(0), jnp.ones(2)), {"keys": jax.random.split(jax.random.key(1), 3)}),
]


@pytest.mark.parametrize("statics", [(), (1,)])
def test_describe_with_memos_gives_the_plain_description_every_time(statics):
    spec = signature.StaticSpec.for_function(statics, (), model)
    for _ in range(2):  # the second round is served from the memos
        for args, kwargs in CALLS:
            if statics and not isinstance(args[1], int | bool):
                continue  # a static argument must hash
            plain = plain_describe(spec, 3, args, kwargs)
            assert signature.describe(spec, 3, args, kwargs) == plain
            # Lent the call's key (its leaves' avals and shardings, read once), the same.
            key = signature.hashed_once(signature.fast_key(spec, 3, args, kwargs))
            assert signature.describe(spec, 3, args, kwargs, key) == plain


_SHAPES = [(2,), (3,), (2, 2)]
_DTYPES = [jnp.float32, jnp.int32]
_KEPT = [jnp.ones(s, d) for s in _SHAPES for d in _DTYPES]  # the same objects, call to call


@given(
    st.lists(
        st.lists(st.tuples(st.booleans(), st.integers(0, len(_KEPT) - 1)), min_size=4, max_size=4),
        min_size=1,
        max_size=6,
    )
)
def test_specs_reused_from_the_last_call_of_a_structure_are_the_plain_description(calls):
    # One structure (four leaves), called again and again: each leaf either the very array of
    # the last call or a fresh one, of any of six types. A spec is taken from the last call
    # only where the leaf's aval and sharding are equal to it there.
    spec = signature.StaticSpec.for_function((), (), model)
    last = None
    for leaves in calls:
        values = [
            _KEPT[k] if kept else jnp.zeros(_KEPT[k].shape, _KEPT[k].dtype) for kept, k in leaves
        ]
        args = ({"w": values[0], "b": values[1]}, values[2])
        kwargs = {"extra": values[3]}
        key = signature.fast_key(spec, 0, args, kwargs)
        described = signature.describe(spec, 0, args, kwargs, key)
        assert described == plain_describe(spec, 0, args, kwargs)
        if last is not None:  # an equal leaf is the very spec object of the last call
            for a, b in zip(described.leaves, last.leaves, strict=True):
                assert (a is b) == (a == b)
        last = described


def test_a_key_lends_its_leaves_only_in_the_signatures_order():
    # No statics: the key flattens (args, kwargs), JAX sorting the keywords by name, while
    # the signature lists them as called. Passed out of order, b's leaves come first.
    spec = signature.StaticSpec.for_function((), (), model)
    args, kwargs = (jnp.ones(1), jnp.ones(2)), {"b": jnp.ones(3), "a": jnp.ones((4, 4))}
    key = signature.fast_key(spec, 0, args, kwargs)
    assert not signature.key_in_leaf_order(spec, key)
    described = signature.describe(spec, 0, args, kwargs, key)
    assert [(leaf.path, leaf.shape) for leaf in described.leaves] == [
        ("params", (1,)),
        ("batch", (2,)),
        ("named['b']", (3,)),
        ("named['a']", (4, 4)),
    ]
    in_order = signature.fast_key(spec, 0, args, {"a": kwargs["a"], "b": kwargs["b"]})
    assert signature.key_in_leaf_order(spec, in_order)
    # A static argument: the key flattens the traced arguments as called, as describe does.
    with_static = signature.StaticSpec.for_function((1,), (), model)
    assert signature.key_in_leaf_order(
        with_static, signature.fast_key(with_static, 0, (jnp.ones(1), 2), kwargs)
    )


def test_a_hashed_key_is_the_plain_key_to_a_dict():
    spec = signature.StaticSpec.for_function((), (), model)
    plain = signature.fast_key(spec, 0, (jnp.ones(2), jnp.ones(3)), {})
    once = signature.hashed_once(plain)
    assert type(once) is signature.HashedKey and once == plain and hash(once) == hash(plain)
    assert {once: 1}[signature.fast_key(spec, 0, (jnp.ones(2), jnp.ones(3)), {})] == 1
    assert signature.hashed_once(None) is None
    unhashable = (0, None, ([1],), (), ())
    assert signature.hashed_once(unhashable) is unhashable


def test_one_spec_object_per_path_and_type():
    spec = signature.StaticSpec.for_function((), (), model)
    params = {"w": jnp.ones((2, 3)), "b": jnp.zeros(3)}
    one = signature.describe(spec, 0, (params, jnp.ones((4, 2))), {})
    two = signature.describe(spec, 0, (params, jnp.ones((5, 2))), {})
    same = [a is b for a, b in zip(one.leaves, two.leaves, strict=True)]
    assert same == [True, True, False]  # params['b'], params['w'] shared; batch differs


def test_same_structure_other_names_get_their_own_paths():
    """One treedef, two call layouts: the path texts are made per structure and names."""

    def f(*args, **kwargs):
        return args, kwargs

    spec = signature.StaticSpec.for_function((), (), f)
    x = jnp.ones(2)
    as_a = signature.describe(spec, 0, (), {"a": x})
    as_b = signature.describe(spec, 0, (), {"b": x})
    assert [leaf.path for leaf in as_a.leaves] == ["kwargs['a']"]
    assert [leaf.path for leaf in as_b.leaves] == ["kwargs['b']"]


# -- diff: the aligned walk gives what the walk by paths gives ------------------------------
def by_paths(new: Signature, old: Signature) -> list[Change]:
    """The changes of :func:`diff.diff`, found by path (the walk it takes when the leaves
    are not aligned)."""
    old_leaves = {leaf.path: leaf for leaf in old.leaves}
    changes: list[Change] = []
    for leaf in new.leaves:
        before = old_leaves.get(leaf.path)
        if before is None:
            changes.append(Change(K.NEW_ARGUMENT, leaf.path, None, leaf.type_text))
        else:
            diff._leaf_changes(changes, leaf, before)
    new_paths = {leaf.path for leaf in new.leaves}
    for leaf in old.leaves:
        if leaf.path not in new_paths:
            changes.append(Change(K.ARGUMENT_GONE, leaf.path, leaf.type_text))
    return diff._regrown(changes, new.leaves, old.leaves)


leaf_types = st.tuples(
    st.sampled_from([(), (2,), (3, 2)]),
    st.sampled_from(["float32", "int32"]),
    st.booleans(),
    st.sampled_from([None, "P('x') on mesh(x=2)"]),
)


@given(st.lists(st.tuples(leaf_types, leaf_types, st.booleans()), min_size=1, max_size=6))
def test_the_aligned_diff_names_what_the_diff_by_paths_names(rows):
    old_leaves, new_leaves = [], []
    for i, ((s1, d1, w1, h1), (s2, d2, w2, h2), shared) in enumerate(rows):
        before = LeafSpec(f"p[{i}]", s1, d1, w1, h1)
        old_leaves.append(before)
        new_leaves.append(before if shared else LeafSpec(f"p[{i}]", s2, d2, w2, h2))
    old = Signature(tuple(old_leaves), (), "[*]")
    new = Signature(tuple(new_leaves), (), "[*]")
    assert diff.diff(new, old) == by_paths(new, old)


def test_leaves_in_another_order_are_diffed_by_path():
    a, b = LeafSpec("a", (2,), "float32", False), LeafSpec("b", (3,), "float32", False)
    moved = LeafSpec("b", (4,), "float32", False)
    new = Signature((moved, a), (), "[*, *]")
    old = Signature((a, b), (), "[*, *]")
    assert diff.diff(new, old) == [Change(K.SHAPE, "b", "f32[3]", "f32[4]")]


# -- the hit lookup grows in place, and is built again when a new card needs it -------------
def test_a_card_the_read_leaves_cannot_tell_apart_rebuilds_the_lookup(monkeypatch):
    """Three sizes of x (x alone tells them apart), then a card with a held size of x and a
    new y: x no longer separates; the lookup reads y too, and every hit is filed right with
    no full key."""
    probe = Probe(jax.jit(lambda x, y: x.sum() + y.sum()))
    shapes = [(1, 3), (2, 3), (3, 3), (1, 4)]
    for nx, ny in shapes:
        probe(jnp.ones(nx), jnp.ones(ny))
    keyed = [0]
    real = signature.fast_key

    def counting(*args: Any, **kwargs: Any) -> Any:
        keyed[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(signature, "fast_key", counting)
    for _ in range(3):
        for nx, ny in shapes:
            probe(jnp.ones(nx), jnp.ones(ny))
    assert keyed[0] == 0  # every hit found by the few leaves it read
    assert [card.hits for card in probe.ledger.cards] == [3, 3, 3, 3]
    for card, (nx, ny) in zip(probe.ledger.cards, shapes, strict=True):
        assert [leaf.shape for leaf in card.signature.leaves] == [(nx,), (ny,)]


def test_cards_share_the_leaf_pairs_and_flags_their_calls_have_in_common():
    # A card keeps its compile's key: the parameters' leaf keys and the
    # committed flags are the very objects of the card before (memory per card: the leaves
    # that changed), and each key still finds its card.
    def loss(params, batch):
        return params[0].sum() + batch.sum()

    params = [jnp.ones(4) for _ in range(50)]
    probe = Probe(jax.jit(loss))
    for size in (1, 2, 3):
        probe(params, jnp.ones((size, 4)))
    first, second, third = probe.ledger.cards
    shared = [a is b for a, b in zip(second.key[2], third.key[2], strict=True)]
    assert shared == [True] * 50 + [False]  # the batch differs, every parameter is shared
    assert second.committed is third.committed and len(third.committed) == 51
    for size, card in ((1, first), (2, second), (3, third)):
        fresh = signature.fast_key(
            probe._statics, probe._generation, (params, jnp.ones((size, 4))), {}
        )
        assert fresh == card.key and hash(fresh) == hash(card.key)
        probe(params, jnp.ones((size, 4)))
        assert probe.last is not None and probe.last.card == card.index  # a hit on its card
