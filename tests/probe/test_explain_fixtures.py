"""The explanation parser on JAX's own cache-miss texts, captured on each supported JAX
(tests/probe/fixtures/explanations/, made by capture.py there). Every version's text gives
the same changes; where an older JAX says less, jitlab says less — never a wrong reason."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from jitlab.probe import explain
from jitlab.records.changes import ChangeKind as K

FIXTURES = Path(__file__).parent / "fixtures" / "explanations"
VERSIONS = ("0.6.2", "0.7.2", "0.8.3", "0.9.2", "0.10.2", "0.11.2", "0.12.0.1")
# From 0.11 JAX leaves static arguments out of its comparison: "explanation unavailable".
STATICS_UNEXPLAINED = {"static_value", "static_argnames"}


def _load(version: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / f"jax_{version}.json").read_text("utf-8"))
    assert data["jax"] == version
    return data


def _v(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in version.split("."))


def _last_miss(log: str) -> str:
    """The last explanation of a case (its first call's "never seen" comes before)."""
    return "TRACING CACHE MISS" + log.split("TRACING CACHE MISS")[-1]


# (kind, path, before, after) per case, the same on every version unless noted.
SAME = {
    "shape": [(K.SHAPE, "x", "f32[3]", "f32[4]")],
    "dtype": [(K.DTYPE, "x", "f32[3]", "i32[3]")],
    "weak_type": [(K.WEAK_TYPE, "x", "~f32[]", "f32[]")],
    "static_argnames": [(K.STATIC_VALUE, "[1]['mode']", "'a'", "'b'")],
    "tree_structure": [
        (
            K.TREE_STRUCTURE,
            "[0][0]",
            "<class 'dict'> with 1 child",
            "<class 'dict'> with 2 children",
        )
    ],
    "nested_leaf_shape": [(K.SHAPE, "p['w'][0]", "f32[3]", "f32[5]")],
    "two_changes": [(K.SHAPE, "x", "f32[3]", "f32[4]"), (K.DTYPE, "y", "f32[2]", "i32[5]")],
    "callable_object": [(K.SHAPE, "x", "f32[3]", "f32[4]")],
    "partial_function": [(K.SHAPE, "x", "f32[3]", "f32[6]")],
    "first_call": [(K.NEW_FUNCTION_OBJECT, "capture.py:35", None, None)],
}


def _changes(text: str, names: list[str]) -> list[tuple[Any, ...]]:
    return [(c.kind, c.path, c.before, c.after) for c in explain.parse(text, names)]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("case", sorted(SAME))
def test_each_version_gives_the_same_changes(version: str, case: str) -> None:
    data = _load(version)
    log = data["cases"][case]["log"]
    text = log if case == "first_call" else _last_miss(log)
    if case in STATICS_UNEXPLAINED and _v(version) >= (0, 11):
        assert explain.says_nothing(text), text  # no words to keep: jitlab's own reason stands
        assert [c[0] for c in _changes(text, data["context_names"])] == [K.UNKNOWN]
        return
    expected = SAME[case]
    if case == "first_call":  # the line of its def in the capture.py of that capture
        at = re.search(r"defined at (\S+)", log)
        assert at is not None
        expected = [(K.NEW_FUNCTION_OBJECT, at[1], None, None)]
    assert _changes(text, data["context_names"]) == expected


@pytest.mark.parametrize("version", VERSIONS)
def test_a_static_value_is_named_by_position_where_jax_gives_one(version: str) -> None:
    data = _load(version)
    changes = _changes(_last_miss(data["cases"]["static_value"]["log"]), data["context_names"])
    if _v(version) >= (0, 11):  # "explanation unavailable": JAX names nothing
        assert [c[0] for c in changes] == [K.UNKNOWN]
    elif _v(version) < (0, 9):  # "now 3 and before 2": JAX names no position, nor does jitlab
        assert changes == [(K.STATIC_VALUE, "", "2", "3")]
    else:
        assert changes == [(K.STATIC_VALUE, "[0][1]", "2", "3")]


@pytest.mark.parametrize("version", VERSIONS)
def test_keyword_vs_positional(version: str) -> None:
    data = _load(version)
    changes = _changes(_last_miss(data["cases"]["kwarg_vs_positional"]["log"]), [])
    if _v(version) < (0, 9):  # "different number of args and kwargs … keys ['y']"
        assert changes == [(K.KEYWORD_VS_POSITIONAL, "y", "position", "keyword")]
    else:  # the two tree nodes that differ (jitlab's own diff names the keyword)
        assert [c[:2] for c in changes] == [(K.TREE_STRUCTURE, "[0]"), (K.TREE_STRUCTURE, "[1]")]


@pytest.mark.parametrize("version", VERSIONS)
def test_a_context_change_names_the_option_or_says_less(version: str) -> None:
    data = _load(version)
    text = _last_miss(data["cases"]["context_precision"]["log"])
    changes = explain.parse(text, data["context_names"])
    assert len(changes) == 1 and changes[0].kind is K.TRACING_CONTEXT
    if (0, 9) <= _v(version) < (0, 10):  # "Tracing context doesn't match": no name, no values
        assert changes[0].path == "" and changes[0].before is None
    else:  # 0.6–0.8 by position, mapped with that JAX's names; 0.10 by name
        c = changes[0]
        assert (c.path, c.before, c.after) == ("jax_default_matmul_precision", "None", "float32")
    # Without the names of that JAX, a position is never given a name.
    unnamed = explain.parse(text, [])
    assert all(c.path in ("", "jax_default_matmul_precision") for c in unnamed)
    if _v(version) < (0, 9):
        assert unnamed[0].path == "" and unnamed[0].kind is K.TRACING_CONTEXT


@pytest.mark.parametrize("version", VERSIONS)
def test_a_new_function_object_keeps_jaxs_hint(version: str) -> None:
    data = _load(version)
    changes = explain.parse(_last_miss(data["cases"]["new_function_object"]["log"]), [])
    assert [c.kind for c in changes] == [K.NEW_FUNCTION_OBJECT]
    assert "re-defined repeatedly" in changes[0].detail
    assert explain.never_seen(data["cases"]["new_function_object"]["log"])


@pytest.mark.parametrize("version", VERSIONS)
def test_no_fixture_case_gives_raw_words_or_unknown(version: str) -> None:
    data = _load(version)
    for case, entry in data["cases"].items():
        if case in STATICS_UNEXPLAINED and _v(version) >= (0, 11):
            continue  # JAX explains nothing there (test_each_version_gives_the_same_changes)
        kinds = {c.kind for c in explain.parse(_last_miss(entry["log"]), data["context_names"])}
        assert not kinds & {K.JAX_EXPLAINED, K.UNKNOWN}, case


def test_an_unknown_old_block_is_kept_as_jaxs_words() -> None:
    text = (
        "TRACING CACHE MISS at f.py:1:1 (g) costing 1.000 ms because:\n"
        "  for g defined at f.py:1\n"
        "  all previously seen cache keys are different. Closest previous key:\n"
        "  * key with different fun_params:\n"
        "      now: 1\n != before: 2.\n"
        "  explanation unavailable! please open an issue at https://github.com/jax-ml/jax.\n"
    )
    changes = explain.parse(text, [])
    assert [c.kind for c in changes] == [K.UNKNOWN]
    assert "fun_params" in changes[0].detail


def test_an_empty_mesh_context_is_no_mesh() -> None:
    # JAX 0.12's words (captured with jax.set_mesh on 2 CPU devices): outside set_mesh the
    # context is an empty AbstractMesh from 0.11, None before.
    text = (
        "TRACING CACHE MISS at f.py:8:4 (<module>):\n"
        "  for f defined at f.py:4\n"
        "  all previously seen cache keys differ. For the closest previous key:\n"
        "  Tracing context doesn't match, e.g. due to config or context manager.\n"
        "  * abstract_mesh_context_manager differs: now AbstractMesh('x': 2, "
        "axis_types=(Explicit,), device_kind=cpu, num_cores=None, platform=cpu) and before "
        "AbstractMesh((), axis_types=())\n"
    )
    (change,) = explain.parse(text, [])
    assert change.kind is K.MESH_CONTEXT
    assert (change.before, change.after) == (None, "mesh(x=2)")
    assert explain._mesh("AbstractMesh((), axis_types=())") is None
    assert explain._mesh("None") is None


def test_explanation_unavailable_says_nothing_and_is_not_kept_beside_our_reason() -> None:
    from jitlab.records.calls import Change, Reason

    words = (
        "TRACING CACHE MISS at f.py:3:1 (<module>):\n  for g defined at f.py:1\n"
        "  all previously seen cache keys differ. For the closest previous key:\n"
        "  cache miss explanation unavailable\n"
    )
    assert explain.says_nothing(words) and explain.says_nothing(None)
    ours = Reason((Change(K.STATIC_VALUE, "z", "'foo'", "'bar'"),), words)
    assert explain.keep_words(ours).jax_explanation is None
    unknown = Reason((Change(K.UNKNOWN, detail="cache miss explanation unavailable"),), words)
    assert explain.keep_words(unknown) == unknown  # all there is: JAX's words stay
    assert not explain.says_nothing(
        words.replace("cache miss explanation unavailable", "* at x, now f32[4] and before f32[3]")
    )
