"""JAX's error headlines in our words (issue 21): real JAX errors, explained in Chinese, with
JAX's own text left as it is; an error we have no words for gets none (no guess)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

from jitlab.probe.anatomy import analyze
from jitlab.records.error_words import explain_headline


def _raise(fn, *args):
    with pytest.raises(Exception) as info:
        fn(*args)
    return info.value


def test_real_tracer_errors_are_explained_in_both_languages() -> None:
    @jax.jit
    def sign(x):
        if x > 0:
            return 1.0
        return -1.0

    @jax.jit
    def tile(x, n):
        return jnp.repeat(x, n)

    for exc, zh in (
        (_raise(sign, 3.0), "True/False"),
        (_raise(tile, jnp.ones(3), 2), "具体的数"),
    ):
        found = analyze(exc).to_json()
        assert found["headline"] == str(exc).strip().splitlines()[0]  # JAX's words, kept
        words = found["headline_explained"]
        assert words is not None and zh in words["zh"] and words["en"]


def test_a_shape_error_is_explained_by_its_category_and_an_unknown_one_not_at_all() -> None:
    exc = _raise(jax.jit(lambda a, b: a @ b), jnp.ones((2, 3)), jnp.ones((4, 5)))
    found = analyze(exc).to_json()
    assert found["category"] == "shape"
    assert "形状" in found["headline_explained"]["zh"]
    assert explain_headline("SomeNewJaxError", "other") is None
