"""The ``compile_budget`` marker and ``jitlab.budget`` refuse a budget that is no count, before
the test's body runs, naming the argument: a mistyped keyword (which silently meant budget 0),
a string (which raised ``TypeError`` after the body ran), a negative number (accepted), and
two budgets (read as the first)."""

from __future__ import annotations

import jax  # noqa: F401  # before pytester's in-process run, which forgets what it imported
import pytest

import jitlab

MARKED = """
import pathlib

import jax
import jax.numpy as jnp
import pytest

f = jax.jit(lambda x: x * 2)


def ran(name):
    pathlib.Path("ran_" + name).write_text("the body ran")


@pytest.mark.compile_budget(max_compile=5)
def test_typo():
    ran("typo")


@pytest.mark.compile_budget("2")
def test_string():
    ran("string")


@pytest.mark.compile_budget(-1)
def test_negative():
    ran("negative")


@pytest.mark.compile_budget(5, 0)
def test_two():
    ran("two")


@pytest.mark.compile_budget(True)
def test_bool():
    ran("bool")


@pytest.mark.compile_budget(max_compiles=1)
def test_one_compile_allowed():
    ran("ok")
    f(jnp.ones(3))


@pytest.mark.compile_budget(0)
def test_zero_positional():
    ran("zero")
    f(jnp.ones(4))
"""


def test_a_marker_that_is_no_budget_is_a_usage_error_before_the_body(pytester: pytest.Pytester):
    pytester.makepyfile(test_marked=MARKED)
    result = pytester.runpytest("-q", "-p", "no:cacheprovider", "-rA")
    result.assert_outcomes(passed=1, failed=1, errors=5)
    out = result.stdout.str()
    for name in ("typo", "string", "negative", "two", "bool"):
        assert f"ERROR test_marked.py::test_{name}" in out, out
        assert not (pytester.path / f"ran_{name}").exists(), name
    assert "unknown argument max_compile= (it takes max_compiles=N)" in out
    assert (
        "max_compiles must be a whole number >= 0 (how many compiles are allowed), not '2'" in out
    )
    assert "not -1" in out and "not True" in out
    assert "takes one budget (max_compiles=N), not (5, 0)" in out
    assert "Traceback" not in out  # a usage error, one line each
    # The good ones ran: one within its budget, the other over it (a real compile, budget 0).
    assert (pytester.path / "ran_ok").exists() and (pytester.path / "ran_zero").exists()
    assert "PASSED test_marked.py::test_one_compile_allowed" in out
    assert "FAILED test_marked.py::test_zero_positional" in out


def test_jitlab_budget_refuses_a_budget_that_is_no_count_before_the_block():
    for bad, error in (("2", TypeError), (-1, ValueError), (1.5, TypeError), (None, TypeError)):
        ran = []
        match = "max_compiles must be a whole number >= 0"
        with pytest.raises(error, match=match), jitlab.budget(bad):  # type: ignore[arg-type]
            ran.append(bad)
        assert ran == []
    with (
        pytest.raises(ValueError, match="max_compiles 必须是 ≥ 0 的整数"),
        jitlab.budget(-2, lang="zh"),
    ):
        pass
