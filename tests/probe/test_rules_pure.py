"""Issue 50's rules where they are decided from data (JAX-free): how close an earlier
program is, as JAX ranks its keys, and what a cleared cache says."""

from __future__ import annotations

from jitlab.probe import diff, reasons
from jitlab.records.calls import Change, LeafSpec, Signature
from jitlab.records.change_words import reason_text
from jitlab.records.changes import ChangeKind

K = ChangeKind


def _sig(n: int, function: int = 0) -> Signature:
    return Signature((LeafSpec("x", (n,), "float32", False),), (), "[*]", function)


def test_closeness_ranks_as_jax_does_a_pytree_difference_before_a_types_one():
    shape = [Change(K.SHAPE, "x", "f32[3]", "f32[4]")]
    static = [Change(K.TREE_STRUCTURE, "m.act", "'a'", "'b'", detail="static")]
    both = shape + static
    context = [Change(K.TRACING_CONTEXT, "jax_enable_x64", "False", "True")]
    device = [Change(K.SHARDING, "x", "cpu:0", "cpu:1", detail="device")]
    new_object = [Change(K.NEW_FUNCTION_OBJECT, "a.py:1")]
    ranked = sorted([new_object, shape, both, static, context, device], key=diff.closeness)
    # The trace shared (a device: below the trace) first; JAX's parts in its order; then
    # within a part every difference counted; another function object last.
    assert ranked == [device, context, static, both, shape, new_object]
    # Before JAX 0.9: by the size of the difference alone.
    assert diff.closeness(shape, by_part=False) < diff.closeness(both, by_part=False)
    assert diff.closeness(shape, by_part=False) == diff.closeness(static, by_part=False)


def test_a_compile_of_a_held_signature_says_what_cleared_the_cache():
    earlier = [reasons.Earlier(_sig(3))]
    words = {}
    for cleared in ("jax.clear_caches()", "clear_cache()", "evicted", ""):
        reason = reasons.infer(_sig(3), None, earlier, dropped=True, cleared=cleared, name="step")
        (change,) = reason.items
        assert (change.kind, change.detail) == (K.CACHE_CLEARED, cleared)
        words[cleared] = reason_text(reason)
    assert words["clear_cache()"].startswith("step.clear_cache() emptied this function's cache")
    assert words["jax.clear_caches()"].startswith("jax.clear_caches() emptied JAX's caches")
    assert "evicted" in words["evicted"] and "clear_caches" not in words["evicted"]
    assert words[""] == "JAX's cache no longer had this signature (jax.clear_caches() or eviction)"


def test_the_closest_card_is_the_one_jax_would_explain_with():
    # The card differing in static data only beats the one differing in a leaf's type (JAX
    # explains with the pytree's key first), though each differs in one thing.
    new = Signature((LeafSpec("m.w", (4,), "float32", False),), (), "T(a)[*]")
    static_only = Signature((LeafSpec("m.w", (4,), "float32", False),), (), "T(b)[*]")
    shape_only = Signature((LeafSpec("m.w", (3,), "float32", False),), (), "T(a)[*]")
    earlier = [reasons.Earlier(static_only), reasons.Earlier(shape_only)]  # oldest first
    (change,) = reasons.infer(new, None, earlier).items
    assert change.kind is K.TREE_STRUCTURE  # the tree's text, whole: no keys to walk here
    (change,) = reasons.infer(new, None, earlier, by_part=False).items
    assert change.kind is K.SHAPE  # before JAX 0.9 a tie by size: the newest
