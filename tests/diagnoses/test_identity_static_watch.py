"""identity-static in this process: jitlab's decision on real objects (diff), a Probe's
record, jitlab.watch() against JAX's own compile log, and the words in both languages."""

from __future__ import annotations

import dataclasses
import functools
import logging

import jax
import jax.numpy as jnp
import pytest

import jitlab
from jitlab import Probe
from jitlab.probe.diff import identity_class, static_value_changes
from jitlab.recordings.reader import read_recording
from jitlab.records import change_words
from jitlab.records.calls import CallKind
from jitlab.records.changes import ChangeKind
from jitlab.records.diagnoses import IDENTITY_STATIC, IDS, Diagnosis, page, sentence, warning_lines

HERE = __name__


class Config:  # no __eq__ / __hash__: compared by identity
    def __init__(self, scale, name="adam"):
        self.scale = scale
        self.name = name

    def __repr__(self):
        return f"Config(scale={self.scale})"


class Bare:  # the default repr names the address; the fields still tell
    def __init__(self, n):
        self.n = n


class Slotted:
    __slots__ = ("n",)

    def __init__(self, n):
        self.n = n


@dataclasses.dataclass(frozen=True)
class Frozen:
    scale: float


@dataclasses.dataclass(eq=False, frozen=True)
class IdentityData:  # a dataclass that opted out of __eq__: identity again
    scale: float


def test_the_decision_needs_two_objects_of_one_class_equal_in_content():
    a, b = Config(2.0), Config(2.0)
    assert identity_class(b, a) == f"{HERE}.Config"
    assert identity_class(Bare(1), Bare(1)) == f"{HERE}.Bare"
    assert identity_class(Slotted(1), Slotted(1)) == f"{HERE}.Slotted"
    assert identity_class(IdentityData(1.0), IdentityData(1.0)) == f"{HERE}.IdentityData"
    assert identity_class(a, a) is None  # one object: no recompile to explain
    assert identity_class(Frozen(1.0), Frozen(1.0)) is None  # equal to jit: a hit
    assert identity_class(Config(2.0), Config(3.0)) is None  # the content changed
    assert identity_class(Config(2.0, "sgd"), Config(2.0)) is None  # a field the repr hides
    assert identity_class(Bare(1), Slotted(1)) is None  # two classes
    assert identity_class(Bare(lambda: 0), Bare(lambda: 0)) is None  # cannot tell: no claim
    (change,) = static_value_changes("cfg", Config(2.0), Config(2.0))
    assert (change.kind, change.path, change.detail) == (
        ChangeKind.STATIC_VALUE,
        "cfg",
        f"identity:{HERE}.Config;kind=config",
    )
    (change,) = static_value_changes("cfg", Config(3.0), Config(2.0))
    assert change.detail == "" and (change.before, change.after) == (
        "Config(scale=2.0)",
        "Config(scale=3.0)",
    )


def _step(x, cfg):
    return x * cfg.scale


def test_a_probe_record_keeps_the_class_of_an_identity_compared_static():
    p = Probe(jax.jit(_step, static_argnums=1))
    x = jnp.ones(3)
    p(x, Config(2.0))
    p(x, Config(2.0))
    assert p.last.kind is CallKind.RECOMPILE and p.last.reason is not None
    (item,) = p.last.reason.items
    assert item.detail == f"identity:{HERE}.Config;kind=config" and item.path == "cfg"
    assert f"(equal content, but {HERE}.Config compares by identity: identity-static)" in (
        change_words.reason_text(p.last.reason)
    )
    assert f"但 {HERE}.Config 按对象身份比较" in change_words.reason_text(p.last.reason, "zh")
    held = Frozen(2.0)
    p(x, held)
    p(x, Frozen(2.0))
    assert p.last.kind is CallKind.CACHE_HIT


class _Compiles(logging.Handler):
    def __init__(self):
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record):
        self.lines.append(record.getMessage())


def test_watch_in_process_against_jax_log_compiles(tmp_path):
    handler = _Compiles()
    logger = logging.getLogger("jax")
    logger.addHandler(handler)
    path = tmp_path / "run.jsonl"
    try:
        with jax.log_compiles(True), jitlab.watch(path, warn_after=0):

            def epoch_step(x, cfg):
                return x * cfg.scale

            def frozen_step(x, cfg):
                return x * cfg.scale

            f = jax.jit(epoch_step, static_argnums=1)
            g = jax.jit(frozen_step, static_argnums=1)
            x = jnp.ones(3)
            for _ in range(3):
                f(x, Config(2.0))  # re-created every epoch, as in flax#5548
                g(x, Frozen(2.0))
    finally:
        logger.removeHandler(handler)
    jax_count = sum("Finished XLA compilation of jit(epoch_step)" in t for t in handler.lines)
    frozen_count = sum("Finished XLA compilation of jit(frozen_step)" in t for t in handler.lines)
    assert (jax_count, frozen_count) == (3, 1)
    recording, _ = read_recording(path)
    ours = [c for c in recording.calls if c.record.function == "epoch_step"]
    assert sum(c.record.kind.compiled for c in ours) == jax_count
    (d,) = recording.diagnoses  # once for the function, none for frozen_step
    assert (d.id, d.function) == (IDENTITY_STATIC, "epoch_step")
    assert d.figures == {
        "argument": "cfg",
        "class": f"{HERE}.Config",
        "value": "Config(scale=2.0)",
        "kind": "config",
    }
    assert d.site is not None and d.site.endswith(f":{epoch_step.__code__.co_firstlineno}")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_words_name_the_class_the_argument_and_the_fix(lang):
    assert IDENTITY_STATIC in IDS
    d = Diagnosis(
        IDENTITY_STATIC,
        "step",
        "train.py:7",
        {"argument": "cfg", "class": "train.Config", "value": "Config(lr=0.1)"},
    )
    back = Diagnosis.from_json(d.to_json())
    assert back == d and back.known
    text = sentence(d, lang)
    assert "step (train.py:7)" in text and "cfg" in text and "train.Config" in text
    lines = warning_lines(d, lang)
    assert "__eq__" in lines[1] and "__hash__" in lines[1]
    assert ("frozen dataclass" if lang == "en" else "冻结的 dataclass") in lines[1]
    assert page(IDENTITY_STATIC).endswith("docs/diagnoses/identity-static.md")
    assert lines[2].endswith("jitlab explain identity-static")


def _factory(rate, scale=None):  # optax's pattern: a transform's functions are closures
    def update(g):
        return g * rate

    return (update, scale)


def test_a_function_made_anew_is_equal_in_content_only_with_its_code_and_closure():
    from jitlab.probe.identity import identity_of, static_parts

    made = f"{HERE}._factory.<locals>.update"
    assert identity_of(_factory(0.1), _factory(0.1)) == ("builtins.tuple", made, "config")
    assert identity_of(_factory(0.1)[0], _factory(0.1)[0]) == (made, made, "function")
    assert identity_of(_factory(0.1), _factory(0.2)) is None  # the closure differs: no claim
    assert identity_of(_factory(0.1, Config(1.0)), _factory(0.1, Config(2.0))) is None
    assert identity_of(lambda: 0, lambda: 0) is None  # two codes (two lambdas): no claim
    nested = _factory(0.1)
    for _ in range(40):  # deeper than jitlab looks: it cannot tell, so it claims nothing
        nested = _factory(nested)
    deep = _factory(0.1)
    for _ in range(40):
        deep = _factory(deep)
    assert identity_of(nested, deep) is None
    # A static value holding functions made anew is named whole (``tx``, not ``tx[0]``).
    (change,) = static_value_changes("tx", _factory(0.1), _factory(0.1))
    assert (change.path, change.detail) == (
        "tx",
        f"identity:builtins.tuple;function={made};kind=config",
    )
    # A pytree node's static data is read only where its layout is known.
    assert static_parts(Config, ((), ("a",), (1,)), ((), ("a",), (2,))) is None


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_words_of_a_graph_a_pytree_and_a_function(lang):
    made = "optax.transforms._combining.chain.<locals>.init_fn"
    base = {"class": "optax._src.base.GradientTransformationExtraArgs", "value": "G(…)"}
    graph = {**base, "argument": "opt.tx", "function": made, "graph": True}
    graph["node"] = "flax.nnx.training.optimizer.Optimizer"
    pytree = {**base, "argument": "state.tx", "function": made}
    pytree["node"] = "flax.training.train_state.TrainState"
    static = {**base, "argument": "tx", "function": made}
    said = {}
    for name, figures in (("graph", graph), ("pytree", pytree), ("static", static)):
        d = Diagnosis(IDENTITY_STATIC, "step", "train.py:7", figures)
        assert Diagnosis.from_json(d.to_json()) == d
        said[name] = warning_lines(d, lang)
        assert made in said[name][0] and figures["argument"] in said[name][0]
    if lang == "en":
        assert "opt (Optimizer) was built anew: its Flax NNX graph" in said["graph"][0]
        assert "nnx.update(opt, nnx.state(new))" in said["graph"][1]
        assert "pytree argument (TrainState)" in said["pytree"][0]
        assert "build tx once, outside the loop" in said["static"][1]
    else:
        assert "opt（Optimizer）被重新创建了" in said["graph"][0]
        assert "pytree 参数（TrainState）" in said["pytree"][0]
        assert "在循环外只创建一次 tx" in said["static"][1]


class Loss:  # a callable object without __eq__ (jax#4274's static argument)
    def __init__(self, weight):
        self.weight = weight

    def __call__(self, x):
        return x * self.weight


def _fk(q):
    return q * 2


def test_callables_are_compared_by_their_parts():
    from jitlab.probe.identity import identity_of

    # A callable object by its fields (it used to fall to its repr, which names an address).
    assert identity_of(Loss(0.5), Loss(0.5)) == (f"{HERE}.Loss", None, "callable")
    assert identity_of(Loss(0.5), Loss(0.7)) is None
    # A jax.jit object (equinox#686) by the function it wraps and its options.
    assert identity_of(jax.jit(_fk), jax.jit(_fk)) == ("jax.jit", None, "jit")
    assert identity_of(jax.jit(_fk), jax.jit(_fk, donate_argnums=0)) is None  # other options
    assert identity_of(jax.jit(_fk), jax.jit(lambda q: q * 2)) is None  # another function
    # A bound method by its function and self; a partial by its function and arguments.
    assert identity_of(Loss(0.5).__call__, Loss(0.5).__call__) == (
        "builtins.method",
        None,
        "method",
    )
    assert identity_of(Loss(1.0).__call__, Loss(2.0).__call__) is None
    scaled = functools.partial(_fk)
    assert identity_of(functools.partial(_fk), scaled) == ("functools.partial", None, "partial")
    assert identity_of(functools.partial(_fk, 1), functools.partial(_fk, 2)) is None
    double = jax.tree_util.Partial(jax.tree_util.Partial(_fk))  # jax#13071
    inner = double.func
    again = jax.tree_util.Partial(inner)
    assert identity_of(again, jax.tree_util.Partial(inner))[2] == "partial"  # type: ignore[index]


def test_a_jit_object_in_a_static_field_is_identity_static_on_a_probe():
    p = Probe(jax.jit(lambda x, fwd: fwd(x), static_argnums=1))
    x = jnp.ones(3)
    p(x, jax.jit(_fk))
    p(x, jax.jit(_fk))  # a new jit object of the same function: JAX compiles again
    assert p.last.kind is CallKind.RECOMPILE and p.last.reason is not None
    (item,) = p.last.reason.items
    assert item.detail == "identity:jax.jit;kind=jit"
    (d,) = [d for d in p.diagnoses if d.id == IDENTITY_STATIC]
    assert d.figures["kind"] == "jit" and "hand that same jax.jit object" in warning_lines(d)[1]
