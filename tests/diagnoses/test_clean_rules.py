"""The rules behind stop 61's false alarms, found by watching other people's idioms (the
``clean/`` programs of ``tests/real/diagnoses_suite.py``): each run here on real JAX code
watched in this process, with JAX's own compile log in the same run, beside the fault the
rule must still find.

* recompile-limit: buckets met in any order, each compiled once and then reused, are
  settled (the average spacing of the latest compiles), as a sweep is; a wobble is not.
* recompile-limit: a transformation of inputs the function already had (its gradient,
  Hessian, JVP, vmap over the same arrays) and grad's backward pass are programs of their
  own, each compiled once, not the function compiled again; a wobble under grad names the
  argument whose shape changed, with the bucket fix.
* executables-growing: one program kept many times, measured by the executables'
  fingerprints; ten lambdas that print alike but compute ten things are ten programs.
* a family of closures built once and all in use (a factory's metrics, losses with their
  own constants) is ten functions, not one function made again: no recompile-limit, no
  captured-constant; the same closure made anew each epoch, the old one dropped, is.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

import jax
import jax.numpy as jnp
from measured import measure, named

from jitlab.records.diagnoses import (
    CAPTURED_CONSTANT,
    EXECUTABLES_GROWING,
    RECOMPILE_LIMIT,
    is_settled,
)

BUCKETS = (8, 12, 16, 24, 32, 48, 64, 96, 128, 192)
# Ten buckets met in any order, some more often (as real lengths fill them), each reused.
ORDER = (3, 3, 7, 3, 1, 7, 3, 0, 1, 7, 5, 3, 2, 1, 9, 7, 6, 3, 8, 0, 4, 3, 7, 1) * 2


def buckets(name: str, wobble: bool = False) -> None:
    def encode(tokens):
        return jnp.tanh(tokens).sum()

    f = jax.jit(named(encode, name))
    if wobble:  # the same ten sizes, each met once, one after the other: a compile a call
        for size in BUCKETS:
            f(jnp.ones((4, size)))
        return
    for i in ORDER:
        f(jnp.ones((4, BUCKETS[i])))


def test_buckets_met_in_any_order_are_settled_a_wobble_is_not(tmp_path: Path) -> None:
    found = measure(tmp_path / "buckets.jsonl", lambda: buckets("encode_buckets"))
    assert found.jax["encode_buckets"] == 10 > 8  # JAX compiled a program per bucket
    assert found.problems() == []
    wobble = measure(tmp_path / "wobble.jsonl", lambda: buckets("encode_wobble", wobble=True))
    assert wobble.jax["encode_wobble"] == 10
    (d,) = wobble.problems(RECOMPILE_LIMIT)
    assert (d.figures["change"], d.figures["argument"], d.figures["fix"]) == (
        "shape",
        "tokens",
        "bucket",
    )


def test_settled_is_the_average_spacing_of_the_latest_compiles() -> None:
    assert is_settled([(0, 0), (1, 0), (2, 0), (9, 0)])  # 6 hits over 3 gaps
    assert not is_settled([(0, 0), (1, 0), (2, 0), (3, 0)])  # a compile a call
    assert not is_settled([(0, 0), (2, 0), (4, 0)])  # each size used twice, then gone
    assert is_settled([(0, 0), (3, 0), (6, 0)])  # two hits a compile: a sweep
    # Compiles not counted (a backward pass) take a call number each: not hits.
    assert not is_settled([(0, 0), (5, 3), (10, 6)])
    assert is_settled([(0, 0), (5, 1), (10, 2)])
    assert not is_settled([(-1, 0), (-1, 0)])  # calls unseen (JAX's events only)
    assert not is_settled([(0, 0)])


def transforms(name: str) -> None:
    def energy(x, k):
        return jnp.sum(k * (x[1:] - x[:-1]) ** 2) + jnp.sum(x**4) / 4

    f = jax.jit(named(energy, name))
    grad, hess = jax.grad(f), jax.hessian(f)
    jac_fwd, jac_rev = jax.jacfwd(grad), jax.jacrev(grad)
    batched = jax.vmap(grad, in_axes=(0, None))
    x, k = jnp.linspace(-1.0, 1.0, 6), jnp.float32(0.5)
    for _ in range(3):
        g = grad(x, k)
        x = x - jnp.linalg.solve(hess(x, k) + jnp.eye(6), g)
        jax.jvp(lambda x: f(x, k), (x,), (g,))
        jax.vjp(lambda x: f(x, k), x)[1](1.0)
        jac_fwd(x, k), jac_rev(x, k), batched(x[None] + jnp.arange(3.0)[:, None], k), f(x, k)


def test_transformations_of_inputs_the_function_had_are_not_recompiles(tmp_path: Path) -> None:
    found = measure(tmp_path / "run.jsonl", lambda: transforms("energy_transformed"))
    assert found.jax["energy_transformed"] >= 12  # a program per transformation, once each
    assert found.problems() == []


def wobble_under_grad(name: str) -> None:
    def loss(w, x):
        return jnp.mean((x @ w) ** 2)

    f = jax.jit(named(loss, name))
    w = jnp.ones((3, 1))
    for n in (5, 17, 9, 28, 13, 31, 7, 22, 11, 26, 19, 3):
        w = w - 0.01 * jax.grad(f)(w, jnp.ones((n, 3)))


def test_a_wobble_under_grad_names_the_argument_and_the_bucket_fix(tmp_path: Path) -> None:
    found = measure(tmp_path / "run.jsonl", lambda: wobble_under_grad("loss_grad_wobble"))
    assert found.jax["loss_grad_wobble"] == 24  # forward and backward, per size
    (d,) = found.problems(RECOMPILE_LIMIT)
    assert (d.figures["change"], d.figures["argument"], d.figures["fix"]) == (
        "shape",
        "x",
        "bucket",
    )
    assert d.figures["compiles"] == 9  # forward programs: the backward passes come with them


def static_functions(name: str, equal: bool) -> None:
    def step(w, x, feature):
        return w - 0.05 * jax.grad(lambda w: jnp.mean((feature(x) @ w) ** 2))(w)

    f = partial(jax.jit, static_argnums=2)(named(step, name))
    features = [lambda x, k=k: x**k for k in range(1, 11)]  # ten programs that print alike
    w, x = jnp.zeros((2, 1)), jnp.linspace(-1, 1, 8).reshape(4, 2)
    for k in range(10):
        feature = (lambda x: x**2) if equal else features[k]  # equal: one made anew each time
        for _ in range(3):
            w = f(w, x, feature)


def test_executables_growing_counts_one_program_kept_not_programs_that_print_alike(
    tmp_path: Path,
) -> None:
    found = measure(tmp_path / "ten.jsonl", lambda: static_functions("step_ten", False))
    assert found.jax["step_ten"] == 10
    assert found.of(EXECUTABLES_GROWING) == [] and found.problems() == []
    kept = measure(tmp_path / "kept.jsonl", lambda: static_functions("step_kept", True))
    assert kept.jax["step_kept"] == 10
    (d,) = kept.problems(EXECUTABLES_GROWING)
    assert d.figures["same_signature"] == 9 and d.figures["live"] == 9


def family(name: str, anew: bool) -> None:
    def make(delta):
        def huber(r):
            a = jnp.abs(r)
            return jnp.mean(jnp.where(a < delta, 0.5 * r**2, delta * (a - 0.5 * delta)))

        return jax.jit(named(huber, name))

    deltas = (0.1, 0.2, 0.5, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0, 20.0)
    r = jnp.linspace(-3, 3, 16)
    if anew:  # one made each epoch, the last one dropped: the function made again
        for delta in deltas:
            loss = make(delta)
            for _ in range(3):
                loss(r)
        return
    losses = [make(delta) for delta in deltas]  # built once, all in use
    for _ in range(3):
        [loss(r) for loss in losses]


def test_a_family_of_closures_is_not_one_function_made_again(tmp_path: Path) -> None:
    found = measure(tmp_path / "family.jsonl", lambda: family("huber_family", False))
    assert found.jax["huber_family"] == 10
    assert found.problems() == []
    rebuilt = measure(tmp_path / "anew.jsonl", lambda: family("huber_anew", True))
    assert rebuilt.jax["huber_anew"] == 10
    (said,) = rebuilt.problems(CAPTURED_CONSTANT)
    assert said.figures["told"] and (said.figures["before"], said.figures["after"]) == (
        "0.1",
        "0.2",
    )
    (limit,) = rebuilt.problems(RECOMPILE_LIMIT)
    assert (limit.figures["change"], limit.figures["fix"]) == ("new_function_object", "recreate")


def test_a_family_member_is_measured_beside_the_others_alive(tmp_path: Path) -> None:
    found = measure(tmp_path / "family.jsonl", lambda: family("huber_alive", False))
    held = [
        c.record.executables.others
        for c in found.recording.calls
        if c.record.function == "huber_alive" and c.record.kind.compiled
    ]
    assert held == list(range(10))  # each made beside all the earlier ones, alive
    rebuilt = measure(tmp_path / "anew.jsonl", lambda: family("huber_gone", True))
    gone = [
        c.record.executables.others
        for c in rebuilt.recording.calls
        if c.record.function == "huber_gone" and c.record.kind.compiled
    ]
    assert gone == [0] * 10  # the last one dropped before the next compiled
