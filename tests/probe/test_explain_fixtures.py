"""The explanation parser on JAX's own cache-miss texts, captured on each supported JAX
(tests/probe/fixtures/explanations/, made by capture.py there). Every version's text gives
the same changes; where an older JAX says less, jitlab says less — never a wrong reason."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jitlab.probe import explain
from jitlab.records.changes import ChangeKind as K

FIXTURES = Path(__file__).parent / "fixtures" / "explanations"
VERSIONS = ("0.6.2", "0.7.2", "0.8.3", "0.9.2", "0.10.2")


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
    assert _changes(text, data["context_names"]) == SAME[case]


@pytest.mark.parametrize("version", VERSIONS)
def test_a_static_value_is_named_by_position_where_jax_gives_one(version: str) -> None:
    data = _load(version)
    changes = _changes(_last_miss(data["cases"]["static_value"]["log"]), data["context_names"])
    if _v(version) < (0, 9):  # "now 3 and before 2": JAX names no position, nor does jitlab
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
