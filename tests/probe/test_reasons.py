"""Reasons that are right: changes are data, checked against what JAX itself did and said."""

from __future__ import annotations

import dataclasses
import json
import operator
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import NamedTuple

import jax
import jax.numpy as jnp
import pytest
from registered_dataclasses import FIELDS

from jitlab import Probe
from jitlab.probe import _jax, explain
from jitlab.probe.signature import static_value_changes as signature_static_changes
from jitlab.records import change_words
from jitlab.records.calls import CallKind, CallRecord, Change, Reason
from jitlab.records.changes import ChangeKind
from jitlab.watching.recorder import Recorder

pytestmark = pytest.mark.slow

K = ChangeKind


def kinds(record: CallRecord) -> tuple[ChangeKind, ...]:
    assert record.reason is not None
    return record.reason.kinds()


def jax_kinds(record: CallRecord) -> tuple[ChangeKind, ...]:
    """What JAX's own explanation of the same call says, turned into change kinds."""
    assert record.reason is not None
    return tuple(c.kind for c in explain.parse(record.reason.jax_explanation))


# -- 1. a change is data --------------------------------------------------------------------
def test_a_reason_is_data_in_json_and_words_in_both_languages():
    probe = Probe(lambda x: x * 2)
    probe(jnp.ones(8))
    probe(jnp.ones(16))
    reason = probe.records[1].reason
    assert reason.items == (Change(K.SHAPE, "x", "f32[8]", "f32[16]"),)
    assert set(reason.to_json()) == {"items", "jax"}  # data: no words in the data's own JSON
    data = json.loads(json.dumps(change_words.reason_json(reason)))
    assert data["changes"] == ["x: f32[16] ← f32[8]"]  # English, for humans and old readers
    assert data["text"] == "x: f32[16] ← f32[8]"
    assert data["items"] == [
        {"kind": "shape", "path": "x", "before": "f32[8]", "after": "f32[16]", "detail": "",
         "count": 0}
    ]  # fmt: skip
    assert Reason.from_json(data) == reason
    assert change_words.reason_text(reason, "zh") == "x 的形状变了：f32[16] ← f32[8]"
    assert change_words.reason_text(reason) == change_words.reason_text(reason, "en")


def test_an_old_recording_with_only_words_keeps_them_as_written():
    reason = Reason.from_json({"changes": ["x: f32[4] ← f32[8]"], "jax": None})
    assert reason.kinds() == (K.RECORDED,)
    assert change_words.reason_text(reason) == "x: f32[4] ← f32[8]"
    assert change_words.reason_text(reason, "zh") == "x: f32[4] ← f32[8]"  # never parsed back


@pytest.mark.parametrize("kind", list(ChangeKind))
def test_every_kind_has_words_in_both_languages(kind):
    change = Change(kind, "x", "f32[8]", "f32[16]", "JAX's words", 3)
    en, zh = change_words.render(change, "en"), change_words.render(change, "zh")
    assert en and zh
    if kind is not K.RECORDED:  # an older recording's words are shown as they were written
        assert en != zh


# -- 2. static values compared as objects ----------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Config:
    lr: float
    layers: tuple[int, ...] = (64,) * 40  # a repr far longer than any shortened text
    name: str = "m" * 80


class Pair(NamedTuple):
    a: int
    b: tuple


def test_a_static_config_names_the_field_that_differs():
    probe = Probe(lambda x, cfg: x * cfg.lr, static_argnames="cfg")
    probe(1.0, Config(0.1))
    probe(1.0, Config(0.2))
    assert [r.kind for r in probe.records] == [CallKind.COMPILE, CallKind.RECOMPILE]
    (change,) = probe.records[1].reason.items
    assert change == Change(K.STATIC_VALUE, "cfg.lr", "0.1", "0.2")
    assert change_words.render(change) == "static cfg.lr: 0.2 ← 0.1"
    assert probe.function._cache_size() == 2


class Opaque:
    """Hashable, compared by value, but its repr hides the value."""

    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return isinstance(other, Opaque) and other.value == self.value

    def __hash__(self):
        return hash(self.value)

    def __repr__(self):
        return "Opaque(" + "…" * 70 + ")"


def test_equal_long_reprs_with_unequal_values_are_still_a_change():
    probe = Probe(lambda x, o: x + 1, static_argnums=1)
    probe(1.0, Opaque(1))
    probe(1.0, Opaque(2))
    assert probe.function._cache_size() == 2  # JAX compiled twice
    (change,) = probe.records[1].reason.items
    assert change.kind is K.STATIC_VALUE and change.path == "o"
    assert change.before == change.after  # same text…
    assert "(same text, unequal values)" in change_words.render(change)  # …still named as a change


def test_namedtuple_and_tuple_statics_are_walked_to_the_leaf():
    probe = Probe(lambda x, p: x + p.a, static_argnums=1)
    probe(1.0, Pair(1, (("k", 1), ("j", 2))))
    probe(1.0, Pair(1, (("k", 1), ("j", 3))))
    assert probe.records[1].reason.items == (Change(K.STATIC_VALUE, "p.b[1][1]", "2", "3"),)


def test_static_parts_compare_as_objects_not_text():
    (change,) = signature_static_changes(
        "d", {"a": 1, "b": Config(0.5)}, {"a": 1, "b": Config(0.25)}
    )
    assert change == Change(K.STATIC_VALUE, "d['b'].lr", "0.25", "0.5")


# A register_dataclass node's static data is named by its meta fields whichever way the class
# was registered: listed (in another order than declared), the decorator form, no dataclass.
@pytest.mark.parametrize("make", list(FIELDS), ids=lambda c: c.__name__)
def test_a_registered_dataclass_names_the_meta_field_that_changed(make):
    def build(tag: str, n: int):
        return make(tag=tag, w=jnp.ones(2), n=n)

    probe = Probe(lambda m: m.w.sum() * m.n)
    for tag, n in (("a", 1), ("a", 2), ("b", 1)):
        probe(build(tag, n))
    assert [r.kind for r in probe.records] == ["compile", "recompile", "recompile"]
    assert probe.records[1].reason.items == (Change(K.TREE_STRUCTURE, "m.n", "1", "2", "static"),)
    assert probe.records[2].reason.items == (
        Change(K.TREE_STRUCTURE, "m.tag", "'a'", "'b'", "static"),
    )
    # JAX names the node's metadata, the last against the first program's too (tag only;
    # before 0.9 beside the second's, as closest as it)
    assert [set(jax_kinds(r)) for r in probe.records[1:]] == [{K.TREE_STRUCTURE}] * 2
    first = jax.tree_util.tree_structure(build("a", 1)).node_data()[1]
    jax_words = probe.records[2].reason.jax_explanation
    assert f"before {make!r} with pytree metadata {first!r}" in jax_words
    assert probe.function._cache_size() == 3


def test_a_leafless_child_of_a_listed_dataclass_is_named_by_its_data_field():
    @dataclasses.dataclass(frozen=True)
    class Two:
        b: object
        a: jax.Array

    jax.tree_util.register_dataclass(Two, data_fields=["a", "b"], meta_fields=[])
    probe = Probe(lambda m: m.a.sum())
    probe(Two((), jnp.ones(2)))
    probe(Two([], jnp.ones(2)))  # the leafless child b: a tuple, then a list
    (change,) = probe.records[1].reason.items
    assert (change.kind, change.path) == (K.TREE_STRUCTURE, "m.b")


# -- 3. keyword vs positional ------------------------------------------------------------------
def test_keyword_instead_of_position_is_named():
    f = jax.jit(lambda x, y: x + y)
    probe = Probe(f)
    probe(1.0, 2.0)
    probe(1.0, y=2.0)
    assert f._cache_size() == 2  # JAX caches the two call forms apart
    assert probe.records[1].kind is CallKind.RECOMPILE
    assert (
        change_words.reason_text(probe.records[1].reason)
        == "y passed by keyword, before by position"
    )
    assert (
        change_words.reason_text(probe.records[1].reason, "zh")
        == "y 这次按关键字传入，之前按位置传入"
    )
    probe(1.0, 2.0)  # back to positional: JAX's first executable, a hit
    assert probe.records[2].kind is CallKind.CACHE_HIT


# -- 4. tracing context ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("context", "name", "before", "after"),
    [
        (lambda: jax.default_matmul_precision("float32"), "jax_default_matmul_precision",
         "None", "float32"),
        (lambda: jax.numpy_rank_promotion("raise"), "jax_numpy_rank_promotion", "allow", "raise"),
    ],
)  # fmt: skip
def test_a_tracing_context_change_is_named_with_its_values(context, name, before, after):
    probe = Probe(lambda x: x @ x)
    x = jnp.ones((4, 4))
    probe(x)
    with context():
        probe(x)
    probe(x)  # back outside: JAX still holds the first executable
    assert [r.kind for r in probe.records] == ["compile", "recompile", "cache_hit"]
    assert probe.records[1].reason.items == (Change(K.TRACING_CONTEXT, name, before, after),)
    assert jax_kinds(probe.records[1]) == (K.TRACING_CONTEXT,)  # JAX names the same config
    assert len(probe.ledger.cards) == 2  # two executables for one signature


# -- 5. cache cleared only when it happened ----------------------------------------------------
def test_clear_caches_is_said_only_when_it_happened():
    f = jax.jit(lambda x: x * 3)
    probe = Probe(f)
    probe(jnp.ones(2))
    jax.clear_caches()
    probe(jnp.ones(2))
    assert kinds(probe.records[1]) == (K.CACHE_CLEARED,)


def test_committing_an_array_to_its_device_is_named_not_unknown():
    # A committed array recompiles (lower + compile, no trace, no explanation from JAX) with
    # the same abstract signature and device: JAX lowers an uncommitted one with no
    # sharding, a committed one with its own. Named as that move, never a cleared cache.
    probe = Probe(lambda x: x * 2)
    x = jnp.ones(3)
    probe(x)
    probe(jax.device_put(x, jax.devices()[0]))
    record = probe.records[1]
    assert record.kind is CallKind.RECOMPILE
    assert kinds(record) == (K.SHARDING,)
    text = change_words.reason_text(record.reason)
    assert text == f"device of x: {jax.devices()[0].platform}:0 ← uncommitted"


def test_without_its_own_diff_jitlab_uses_jax_explanation_as_data():
    text = textwrap.dedent(
        """\
        TRACING CACHE MISS at /tmp/a.py:9 (<module>):
          for f defined at /tmp/a.py:3
          all previously seen cache keys differ. For the closest previous key:
          different input types:
          * at x, now f32[8,4@data]({Explicit: ('data',)}) and before f32[8,4]({})
          * at y, now f32[] and before f32[]{weak_type=True}
          * something a later JAX says"""
    )
    parsed = explain.parse(text)
    assert [c.kind for c in parsed] == [K.SHARDING, K.WEAK_TYPE, K.JAX_EXPLAINED]
    assert parsed[1] == Change(K.WEAK_TYPE, "y", "~f32[]", "f32[]")
    assert parsed[2].detail == "something a later JAX says"


# -- 6. no false sharding for functions seen only through events --------------------------------
def test_eager_ops_never_get_a_made_up_sharding_reason():
    with Recorder(include_internal=True) as recorder:
        for n in (3, 4):
            jax.grad(lambda x: jnp.sum(jnp.sin(x) ** 2))(jnp.ones(n))
    later = [c for c in recorder.calls if c.record.kind.value == "recompile"]
    assert later  # eager primitives compiled again for the new shape
    for call in later:
        reason = call.record.reason
        assert "sharding" not in change_words.reason_text(reason)
        assert all(c.kind is not K.SHARDING for c in reason.items)


# -- 7. persistent-cache loads say what differed -----------------------------------------------
PERSISTENT = """
import json, sys
import jax, jax.numpy as jnp
jax.config.update("jax_compilation_cache_dir", sys.argv[1])
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
jax.config.update("jax_persistent_cache_min_entry_size_bytes", -1)
from jitlab import Probe

probe = Probe(lambda x: jnp.tanh(x @ x.T).sum())
probe(jnp.ones((8, 8)))
probe(jnp.ones((16, 8)))
for r in probe.records:
    print(json.dumps(r.to_json()))
"""


def test_a_persistent_load_after_a_shape_change_names_the_shape(tmp_path: Path):
    def run() -> list[dict]:
        done = subprocess.run(
            [sys.executable, "-c", PERSISTENT, str(tmp_path / "cache")],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
        return [json.loads(line) for line in done.stdout.splitlines()]

    run()  # fills the persistent cache
    warm = [Reason.from_json(r["reason"]) for r in run()]
    assert warm[0].kinds() == (K.FIRST_PERSISTENT_LOAD,)
    assert warm[1].items == (Change(K.SHAPE, "x", "f32[8,8]", "f32[16,8]"),)


# -- 8. cases ported from JAX's own tests (tests/api_test.py, cache-miss explanations) --------
def test_ported_jax_cache_miss_explanations():
    """JAX's ``test_cache_miss_explanations``: first call, shape, weak type, keyword, context.

    For each call, jitlab's own diff is compared with JAX's explanation of the same call.
    """

    @jax.jit
    def f(x, y):
        return jnp.sin(x) * y["hi"]

    probe = Probe(f)
    x = jnp.float32(1.0)
    y = {"hi": jnp.arange(3.0, dtype="float32")}

    probe(x, y)
    probe(x, y)
    assert [r.kind for r in probe.records] == ["compile", "cache_hit"]
    assert kinds(probe.records[0]) == (K.FIRST_CALL,)
    assert "never seen function" in probe.records[0].reason.jax_explanation

    probe(x, {"hi": jnp.arange(4, dtype="float32")})  # shape change
    shape = probe.records[2]
    assert shape.reason.items == (Change(K.SHAPE, "y['hi']", "f32[3]", "f32[4]"),)
    assert explain.parse(shape.reason.jax_explanation) == list(shape.reason.items)  # agree

    probe(1.0, y)  # weak type change (no x64)
    weak = probe.records[3]
    assert weak.reason.items == (Change(K.WEAK_TYPE, "x", "f32[]", "~f32[]"),)
    assert jax_kinds(weak) == (K.WEAK_TYPE,)

    probe(1, y=y)  # keyword change: JAX sees another pytree, jitlab names the keyword
    keyword = probe.records[4]
    assert keyword.kind is CallKind.RECOMPILE
    assert K.KEYWORD_VS_POSITIONAL in kinds(keyword)
    assert change_words.reason_text(keyword.reason).endswith(
        "y passed by keyword, before by position"
    )
    # 0.9+ explain it as two tree nodes; 0.6–0.8 say "different number of args and kwargs"
    theirs = (
        {K.TREE_STRUCTURE, K.DTYPE}
        if _jax.VERSION >= (0, 9)
        else {K.KEYWORD_VS_POSITIONAL, K.DTYPE}
    )
    assert jax_kinds(keyword) and set(jax_kinds(keyword)) <= theirs

    with jax.numpy_rank_promotion("warn"):  # tracing config change
        probe(x, y)
    context = probe.records[5]
    change = Change(K.TRACING_CONTEXT, "jax_numpy_rank_promotion", "allow", "warn")
    assert context.reason.items == (change,)
    parsed = explain.parse(context.reason.jax_explanation)
    if (0, 9) <= _jax.VERSION < (0, 10):  # JAX says only "Tracing context doesn't match"
        assert [(c.kind, c.path) for c in parsed] == [(K.TRACING_CONTEXT, "")]
    else:  # by name (0.10) or by position, named with this JAX's names (0.6–0.8)
        assert parsed == [change]


def test_ported_new_function_in_loop():
    """JAX's ``test_cache_miss_explanations_new_function_in_loop``: the same lambda jitted
    twice. JAX says 'another function defined on the same line'; jitlab says new function
    object at that line, and counts them."""
    with Recorder() as recorder:
        for _ in range(2):
            jax.jit(lambda x: 2 * x)(3)
    lines = [c for c in recorder.calls if c.record.function == "<lambda>"]
    assert [c.record.kind.value for c in lines] == ["compile", "recompile"]
    second = lines[1].record.reason
    (change,) = second.items
    assert change.kind is K.NEW_FUNCTION_OBJECT and change.count == 2
    assert change.path.endswith(f"{Path(__file__).name}:{_line_of('jax.jit(lambda x: 2 * x)(3)')}")
    assert "another function defined on the same line" in second.jax_explanation
    assert [c.kind for c in explain.parse(second.jax_explanation)] == [K.NEW_FUNCTION_OBJECT]


def test_ported_unpacks_transforms_with_key_arrays():
    """JAX's ``test_cache_miss_explanations_unpacks_transforms``: typed PRNG keys."""

    @jax.jit
    def f(key):
        return jax.random.truncated_normal(key, 1, 1, dtype=jnp.float32)

    probe = Probe(f)
    probe(jax.random.key(123))
    probe(jax.random.split(jax.random.key(0), 2)[0])  # another key, same type: a hit
    probe(jax.random.key(0, impl="rbg"))  # another PRNG implementation: another key type
    assert [r.kind for r in probe.records] == ["compile", "cache_hit", "recompile"]
    (change,) = probe.records[2].reason.items
    assert change.kind is K.DTYPE and change.path == "key"
    assert (change.before, change.after) == ("key<fry>[]", "key<rbg>[]")
    assert jax_kinds(probe.records[2]) == (K.DTYPE,)  # JAX names the same change


def test_ported_no_source_info():
    """JAX's ``test_cache_miss_explanations_no_source_info``: a builtin has no source, JAX
    logs nothing; jitlab still knows it is the first call."""
    probe = Probe(jax.jit(operator.add))
    probe(42, 24)
    assert kinds(probe.records[0]) == (K.FIRST_CALL,)
    probe(42.0, 24)
    assert K.WEAK_TYPE in kinds(probe.records[1]) or K.DTYPE in kinds(probe.records[1])


def _line_of(text: str) -> int:
    for n, line in enumerate(Path(__file__).read_text().splitlines(), 1):
        if text in line and "_line_of" not in line:
            return n
    raise AssertionError(text)
