"""The advice fits what the static value is (issue 52, item 6): for each kind — a method's
``self``, a ``functools.partial``, a callable object (jax#4274), a ``jax.jit`` object held by
an Equinox module (equinox#686), a bound method, a config, a Flax NNX module rebuilt each
epoch, an int that sets a shape — the pitfall is diagnosed with the advice of its kind (and
not with advice that cannot apply, such as "pass it as a traced argument" for ``self``), and
the program with that advice applied is diagnosed no more, JAX compiling once (its own log,
same run). Real JAX, jitlab.watch in this process; each run jits functions of a name of its
own (jitlab, like JAX, keeps one account per function across the watches of a process)."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest
from measured import measure, named

from jitlab.records.diagnoses import IDENTITY_STATIC, RECOMPILE_LIMIT, warning_lines

EPOCHS = 3


# -- a method's self (JAX's FAQ: static_argnums=0), the object built anew each epoch ----------
def _scaler_class(with_eq: bool, name: str) -> type:
    class Scaler:
        def __init__(self, factor):
            self.factor = factor

        def apply(self, x):
            return x * self.factor

        apply = jax.jit(named(apply, name), static_argnums=0)

        if with_eq:  # the advice: equality over the fields the method reads

            def __eq__(self, other):
                return isinstance(other, Scaler) and other.factor == self.factor

            def __hash__(self):
                return hash(self.factor)

    return Scaler


def self_pitfall():
    scaler = _scaler_class(False, "apply")
    x = jnp.ones(4)
    for _ in range(EPOCHS):
        s = scaler(2.0)
        for _ in range(2):
            x = s.apply(x)


def self_built_once():
    scaler = _scaler_class(False, "apply_once")
    x, s = jnp.ones(4), scaler(2.0)
    for _ in range(EPOCHS):
        for _ in range(2):
            x = s.apply(x)


def self_with_eq():
    scaler = _scaler_class(True, "apply_eq")
    x = jnp.ones(4)
    for _ in range(EPOCHS):
        s = scaler(2.0)
        for _ in range(2):
            x = s.apply(x)


# -- a functools.partial made anew each epoch --------------------------------------------------
def _leaky(x, alpha):
    return jnp.where(x > 0, x, alpha * x)


def _layer(name: str):
    def layer(w, x, act):
        return act(x @ w)

    return jax.jit(named(layer, name), static_argnames="act")


def partial_pitfall():
    layer, w, x = _layer("layer"), jnp.eye(4), jnp.ones((2, 4))
    for _ in range(EPOCHS):
        act = functools.partial(_leaky, alpha=0.1)
        x = layer(w, x, act=act)


def partial_once():
    layer, w, x = _layer("layer_once"), jnp.eye(4), jnp.ones((2, 4))
    act = functools.partial(_leaky, alpha=0.1)
    for _ in range(EPOCHS):
        x = layer(w, x, act=act)


# -- a callable object passed static (jax#4274, jax#2813) ---------------------------------------
class WeightedLoss:
    def __init__(self, weight):
        self.weight = weight

    def __call__(self, pred, y):
        return self.weight * jnp.mean((pred - y) ** 2)


@dataclasses.dataclass(frozen=True)
class FrozenLoss:  # the advice: __eq__ and __hash__ by value, __call__ kept
    weight: float

    def __call__(self, pred, y):
        return self.weight * jnp.mean((pred - y) ** 2)


def _loss_step(name: str):
    def loss_step(w, x, y, loss_fn):
        return w - 0.1 * jax.grad(lambda w: loss_fn(x @ w, y))(w)

    return jax.jit(named(loss_step, name), static_argnames="loss_fn")


def _losses(make: Callable[[float], object], name: str) -> None:
    step, w, x, y = _loss_step(name), jnp.zeros((4, 1)), jnp.ones((8, 4)), jnp.ones((8, 1))
    for _ in range(EPOCHS):
        loss_fn = make(0.5)  # built again each epoch
        for _ in range(2):
            w = step(w, x, y, loss_fn=loss_fn)


def callable_pitfall():
    _losses(WeightedLoss, "loss_step")


def callable_frozen():
    _losses(FrozenLoss, "loss_step_frozen")


# -- a jax.jit object held by an Equinox module, the module built anew (equinox#686) ---------
def _fk(q):
    return jnp.stack([jnp.cos(q[..., 0]), jnp.sin(q[..., 1]), q[..., 2]], axis=-1)


def _trajectories(shared_forward: bool, name: str) -> None:
    eqx = pytest.importorskip("equinox")
    forward_once = jax.jit(_fk)  # the advice: jit it once and hand that same object over

    class Trajectory(eqx.Module):
        layer: eqx.nn.Linear
        forward: object

        def __init__(self, key):
            self.layer = eqx.nn.Linear(1, 3, key=key)
            self.forward = forward_once if shared_forward else jax.jit(_fk)

        def __call__(self, t):
            return self.forward(self.layer(t))

    def fit_step(model, t, y):
        loss = lambda m: jnp.mean((jax.vmap(m)(t) - y) ** 2)  # noqa: E731
        grads = eqx.filter_grad(loss)(model)
        return eqx.apply_updates(model, jax.tree.map(lambda g: -0.1 * g, grads))

    fit_step = eqx.filter_jit(named(fit_step, name))

    t, y = jnp.linspace(0, 1, 8)[:, None], jnp.zeros((8, 3))
    for run in range(EPOCHS):  # a fresh model per run, as in the thread's second loop
        model = Trajectory(jax.random.PRNGKey(run))
        for _ in range(2):
            model = fit_step(model, t, y)


def jit_pitfall():
    _trajectories(False, "fit_step")


def jit_shared():
    _trajectories(True, "fit_step_shared")


# -- a bound method passed static, its object built anew ----------------------------------------
class Act:
    def __init__(self, slope):
        self.slope = slope

    def scale(self, x):
        return x * self.slope


def _apply(name: str):
    def apply(x, fn):
        return fn(x)

    return jax.jit(named(apply, name), static_argnames="fn")


def method_pitfall():
    apply, x = _apply("apply_fn"), jnp.ones(3)
    for _ in range(EPOCHS):
        x = apply(x, fn=Act(2.0).scale)


def method_bound_once():
    apply, x = _apply("apply_fn_once"), jnp.ones(3)
    fn = Act(2.0).scale
    for _ in range(EPOCHS):
        x = apply(x, fn=fn)


# -- a config object made anew ------------------------------------------------------------------
class Config:
    def __init__(self, scale):
        self.scale = scale


@dataclasses.dataclass(frozen=True)
class FrozenConfig:
    scale: float


def _configured(make: Callable[[float], object], name: str) -> None:
    def scaled(x, cfg):
        return x * cfg.scale

    scaled = jax.jit(named(scaled, name), static_argnums=1)
    x = jnp.ones(3)
    for _ in range(EPOCHS):
        x = scaled(x, make(2.0))


def config_pitfall():
    _configured(Config, "scaled")


def config_frozen():
    _configured(FrozenConfig, "scaled_frozen")


# -- a Flax NNX module (a graph) rebuilt each epoch (flax#5548's shape) ------------------------
def _modules(once: bool, name: str) -> None:
    nnx = pytest.importorskip("flax.nnx")

    class Head(nnx.Module):
        def __init__(self, rngs):
            self.linear = nnx.Linear(3, 2, rngs=rngs)
            self.activation = lambda y: y * 2  # a new function object for every instance

        def __call__(self, x):
            return self.activation(self.linear(x))

    def forward(model, x):
        return jnp.mean(model(x) ** 2)

    forward = nnx.jit(named(forward, name))

    x = jnp.ones((4, 3))
    model = Head(nnx.Rngs(0))
    for epoch in range(EPOCHS):
        if once:  # the advice: keep the module, copy a new one's values into it
            nnx.update(model, nnx.state(Head(nnx.Rngs(epoch))))
        else:
            model = Head(nnx.Rngs(epoch))
        forward(model, x)


def module_pitfall():
    _modules(False, "forward")


def module_updated():
    _modules(True, "forward_updated")


CASES = {
    # kind: (pitfall, its fixes, the function, the words of the advice, words it must not have)
    "self": (
        self_pitfall,
        (self_built_once, self_with_eq),
        "apply",
        "keep calling the method on that same object",
        "pass its numbers",
    ),
    "partial": (partial_pitfall, (partial_once,), "layer", "make the partial once", "__eq__"),
    "callable": (
        callable_pitfall,
        (callable_frozen,),
        "loss_step",
        "a frozen dataclass with a __call__ method",
        "traced argument",
    ),
    "jit": (
        jit_pitfall,
        (jit_shared,),
        "fit_step",
        "hand that same jax.jit object",
        "__eq__",
    ),
    "method": (method_pitfall, (method_bound_once,), "apply_fn", "bind the method once", "__eq__"),
    "config": (config_pitfall, (config_frozen,), "scaled", "frozen dataclass", "the method"),
    "module": (module_pitfall, (module_updated,), "forward", "nnx.update(", "__eq__"),
}


@pytest.mark.parametrize("kind", list(CASES))
def test_the_advice_fits_the_kind_and_applying_it_removes_the_diagnosis(
    tmp_path: Path, kind: str
) -> None:
    pitfall, fixes, function, advice, never = CASES[kind]
    found = measure(tmp_path / "pitfall.jsonl", pitfall)
    assert found.jax[function] == EPOCHS  # JAX recompiled each epoch (its own log)
    (d,) = found.of(IDENTITY_STATIC)
    assert d.function == function and d.problem
    if kind not in ("self", "module"):  # told by the argument's name / by the NNX graph
        assert d.figures.get("kind") == kind
    for lang in ("en", "zh"):
        assert warning_lines(d, lang)[2].endswith(f"jitlab explain {IDENTITY_STATIC}")
    fix = warning_lines(d)[1]
    assert advice in fix and never not in fix.replace(advice, "")
    for applied in fixes:
        fixed = measure(tmp_path / f"{applied.__name__}.jsonl", applied)
        assert sum(fixed.jax.values()) >= 1 and fixed.problems() == [], applied.__name__
        (name,) = {c.record.function for c in fixed.recording.calls if c.record.kind.compiled}
        assert fixed.jax[name] == 1, applied.__name__  # one compile: the advice worked


# -- an int that sets a shape, taking a new value on every call ----------------------------------
SIZES = (9, 17, 12, 30, 21, 10, 26, 14, 32, 19, 11, 28)  # twelve values, none repeated


def _windows(bucketed: bool, name: str) -> None:
    def window(x, n):
        return jnp.cumsum(x)[:n]  # n sets the output's shape: it cannot be traced

    window = jax.jit(named(window, name), static_argnums=1)
    x = jnp.ones(64)
    for n in SIZES:
        size = 1 << (n - 1).bit_length() if bucketed else n  # the advice: round up
        window(x, size)[:n]


def test_an_int_that_sets_a_shape_is_told_to_be_rounded_up_never_traced(tmp_path: Path):
    found = measure(tmp_path / "pitfall.jsonl", lambda: _windows(False, "window"))
    assert found.jax["window"] == len(SIZES)
    (d,) = found.of(RECOMPILE_LIMIT)
    assert (d.figures["argument"], d.figures["fix"]) == ("n", "static_int")
    for lang in ("en", "zh"):
        fix = warning_lines(d, lang)[1]
        assert ("round it up" if lang == "en" else "向上取整") in fix
    assert "pass it as a traced argument" not in warning_lines(d)[1]
    fixed = measure(tmp_path / "bucketed.jsonl", lambda: _windows(True, "window_bucketed"))
    assert fixed.jax["window_bucketed"] == 2  # 16 and 32
    assert fixed.problems() == []
