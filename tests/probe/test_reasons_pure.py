"""Why a call compiled, decided from data alone: :func:`jitlab.probe.reasons.infer` needs no
JAX (the probe gathers the evidence; these tests hand it in)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from jitlab.probe.reasons import Earlier, infer
from jitlab.records.calls import CallKind, Change, LeafSpec, Signature
from jitlab.records.changes import ChangeKind as K

pytestmark = pytest.mark.slow


def sig(*shapes: tuple[int, ...], dtype: str = "float32", function: int = 0) -> Signature:
    leaves = tuple(LeafSpec(f"x{i}", shape, dtype, False) for i, shape in enumerate(shapes))
    return Signature(leaves, (), "(*)", function)


def kinds(reason) -> list[K]:
    return [c.kind for c in reason.items]


_CHILD = """
import json, sys
from jitlab.probe.reasons import Earlier, infer
from jitlab.records.calls import LeafSpec, Signature
old = Signature((LeafSpec("x", (3,), "float32", False),), (), "(*)")
new = Signature((LeafSpec("x", (4,), "float32", False),), (), "(*)")
reason = infer(new, None, [Earlier(old)])
print(json.dumps({"jax": "jax" in sys.modules, "kinds": [c.kind.value for c in reason.items]}))
"""


def test_the_reason_function_imports_no_jax():
    done = subprocess.run(
        [sys.executable, "-c", _CHILD], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    facts = json.loads(done.stdout.strip().splitlines()[-1])
    assert facts == {"jax": False, "kinds": ["shape"]}


def test_a_first_compile_is_the_first_call_or_the_first_persistent_load():
    assert kinds(infer(sig((3,)), None, kind=CallKind.COMPILE)) == [K.FIRST_CALL]
    load = infer(sig((3,)), None, kind=CallKind.PERSISTENT_HIT)
    assert kinds(load) == [K.FIRST_PERSISTENT_LOAD]


def test_the_closest_card_explains_and_the_newest_wins_a_tie():
    earlier = [Earlier(sig((3,), (5,))), Earlier(sig((4,), (6,))), Earlier(sig((4,), (7,)))]
    reason = infer(sig((4,), (8,)), None, earlier)
    (change,) = reason.items
    assert change.kind is K.SHAPE and change.path == "x1"
    assert (change.before, change.after) == ("f32[7]", "f32[8]")  # the newest of the two closest


def test_no_difference_is_a_cleared_cache_only_when_one_was_seen():
    same = [Earlier(sig((3,)))]
    assert kinds(infer(sig((3,)), None, same, dropped=True)) == [K.CACHE_CLEARED]
    assert kinds(infer(sig((3,)), None, same, retired=True)) == [K.CACHE_CLEARED]
    # Seen neither: no guess. JAX's own words when it gave some, else "unknown".
    unknown = infer(sig((3,)), None, same)
    assert kinds(unknown) == [K.UNKNOWN]
    jax_words = "TRACING CACHE MISS at f.py:1\n  * at x, now f32[4] and before f32[3]"
    explained = infer(sig((3,)), jax_words, same)
    assert kinds(explained) == [K.SHAPE] and explained.jax_explanation == jax_words


def test_without_a_signature_jax_explanation_or_unknown():
    assert kinds(infer(None, None)) == [K.UNKNOWN]
    words = "TRACING CACHE MISS at f.py:1\n  * at y, now f32[3] and before i32[3]"
    assert kinds(infer(None, words)) == [K.DTYPE]


def test_jit_options_replace_a_new_function_object():
    option = Change(K.JIT_OPTIONS, "donate_argnums", "()", "(0,)")
    old = Earlier(sig((3,), function=0), options=(option,))
    reason = infer(sig((3,), function=1), None, [old], site="f.py:3")
    assert reason.items == (option,)
    plain = infer(sig((3,), function=1), None, [Earlier(sig((3,), function=0))], site="f.py:3")
    (change,) = plain.items
    assert change.kind is K.NEW_FUNCTION_OBJECT and change.path == "f.py:3"


def test_a_new_function_object_keeps_jax_hint():
    words = (
        "TRACING CACHE MISS at f.py:9\n never seen function: f id=1 defined at f.py:3\n"
        " but seen another function defined on the same line; maybe the function is being"
        " re-defined repeatedly, preventing caching?"
    )
    (change,) = infer(sig((3,), function=1), words, [Earlier(sig((3,)))]).items
    assert change.kind is K.NEW_FUNCTION_OBJECT and "re-defined repeatedly" in change.detail


def test_trace_context_and_devices_come_with_the_card():
    earlier = Earlier(sig((3,)), context=("highest", 1))
    reason = infer(sig((3,)), None, [earlier], context=("default", 1), context_names=("prec", "x"))
    (change,) = reason.items
    assert (change.kind, change.path, change.before, change.after) == (
        K.TRACING_CONTEXT,
        "prec",
        "highest",
        "default",
    )
    # A device is part of the signature (an array committed to one): its move is named.
    on = [
        Signature((LeafSpec("x0", (3,), "float32", False, device=d),), (), "(*)")
        for d in ("cpu:1", "cpu:0")
    ]
    moved = Change(K.SHARDING, "x0", "cpu:0", "cpu:1", detail="device")
    assert infer(on[0], None, [Earlier(on[1])]).items == (moved,)
    uncommitted = Change(K.SHARDING, "x0", None, "cpu:1", detail="device")
    assert infer(on[0], None, [Earlier(sig((3,)))]).items == (uncommitted,)


def test_a_first_compile_after_hits_compares_with_other_probes_cards():
    theirs = [Earlier(sig((3,), function=4))]
    reason = infer(sig((5,)), None, kind=CallKind.RECOMPILE, hits_seen=True, theirs=theirs)
    assert kinds(reason) == [K.SHAPE]  # not a new function object: another jit of it
    alone = infer(sig((5,)), None, kind=CallKind.COMPILE, hits_seen=True)
    assert kinds(alone) == [K.FIRST_SEEN]
