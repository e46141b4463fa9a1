"""identity-static in a real `jitlab watch` of reproductions of flax#5548 / optax#353 /
equinox#940 (a static config re-created every epoch, equal in content but compared by
identity; synthetic data), counted against JAX's own compile log (JAX_LOG_COMPILES=1) in
the same run, with controls: a frozen dataclass (no recompile, no diagnosis) and a config
whose content really changes (a static-value reason, no identity-static)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

JITLAB = str(Path(sys.executable).with_name("jitlab"))
EPOCHS = 4

JAX_JIT = """
import dataclasses
import jax, jax.numpy as jnp

class Config:  # no __eq__ / __hash__: compared and hashed by identity
    def __init__(self, scale):
        self.scale = scale
    def __repr__(self):
        return f"Config(scale={self.scale})"

@dataclasses.dataclass(frozen=True)
class Frozen:  # __eq__ and __hash__ by value
    scale: float

def step_identity(x, cfg):
    return x * cfg.scale

def step_frozen(x, cfg):
    return x * cfg.scale

def step_changing(x, cfg):
    return x * cfg.scale

identity = jax.jit(step_identity, static_argnums=1)
frozen = jax.jit(step_frozen, static_argnums=1)
changing = jax.jit(step_changing, static_argnums=1)
x = jnp.ones(3)
for epoch in range(EPOCHS):
    identity(x, Config(2.0))         # the same content, a new object each epoch
    frozen(x, Frozen(2.0))           # the same content: one compile
    changing(x, Config(1.0 + epoch)) # the content really changes
print("done", flush=True)
"""

EQUINOX = """
import jax, jax.numpy as jnp
import equinox as eqx

class Config:  # no __eq__ / __hash__
    def __init__(self, scale):
        self.scale = scale
    def __repr__(self):
        return f"Config(scale={self.scale})"

class Model(eqx.Module):
    w: jax.Array
    cfg: Config  # not an array: part of the module's static structure

@eqx.filter_jit
def step_module(model, x):
    return model.w * x * model.cfg.scale

x = jnp.ones(3)
for epoch in range(EPOCHS):
    model = Model(jnp.ones(3), Config(2.0))  # rebuilt every epoch, as in equinox#940
    step_module(model, x)
print("done", flush=True)
"""

NNX = """
import jax.numpy as jnp
import optax
from flax import nnx

class Discriminator(nnx.Module):
    def __init__(self, rngs):
        self.linear = nnx.Linear(3, 2, rngs=rngs)
    def __call__(self, x):
        return self.linear(x)

@nnx.jit
def train_one_epoch(dis, dis_opt, x):
    def loss_fn(dis):
        return jnp.mean(dis(x) ** 2)
    loss, grads = nnx.value_and_grad(loss_fn)(dis)
    dis_opt.update(dis, grads)
    return loss

x = jnp.ones((4, 3))
for epoch in range(EPOCHS):  # flax#5548: rebuilt every epoch, the same architecture
    dis = Discriminator(rngs=nnx.Rngs(epoch))
    dis_opt = nnx.Optimizer(dis, optax.adam(1e-3), wrt=nnx.Param)
    train_one_epoch(dis, dis_opt, x)
print("done", flush=True)
"""


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JITLAB_", "JAX_"))}
    env.update(LANG="C.UTF-8", LC_ALL="C.UTF-8", PYTHONUNBUFFERED="1", JAX_LOG_COMPILES="1")
    env.update(JITLAB_WARN_AFTER="0")
    return env


def _watch(
    tmp_path: Path, program: str, **extra_env: str
) -> tuple[subprocess.CompletedProcess[str], Path]:
    script = tmp_path / "prog.py"
    script.write_text(f"EPOCHS = {EPOCHS}\n" + textwrap.dedent(program), encoding="utf-8")
    out = tmp_path / "run.jsonl"
    done = subprocess.run(
        [JITLAB, "watch", "--out", str(out), "--", "python", str(script)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env={**_env(), **extra_env},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "done" in done.stdout
    return done, out


def _jax_compiles(stderr: str, name: str) -> int:
    """JAX's own count: its compile log's lines for jit(name)."""
    return stderr.count(f"Finished XLA compilation of jit({name})")


def _summary(path: Path, *options: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [JITLAB, "summary", *options, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**_env(), "JAX_LOG_COMPILES": "0"},
    )
    assert done.returncode == 0, done.stderr
    return done


def _recorded(path: Path) -> tuple[dict[str, int], list[dict]]:
    compiles: dict[str, int] = {}
    reasons = []
    for line in path.read_text(encoding="utf-8").splitlines():
        obj = json.loads(line)
        if obj.get("type") == "call" and obj.get("kind") in ("compile", "recompile"):
            compiles[obj["function"]] = compiles.get(obj["function"], 0) + 1
            reasons.append(obj)
    return compiles, reasons


def test_a_static_config_made_anew_each_epoch_is_diagnosed_and_the_controls_are_not(tmp_path):
    done, out = _watch(tmp_path, JAX_JIT)
    compiles, calls = _recorded(out)
    # JAX compiled once per epoch for the identity-compared config, once for the frozen one.
    assert _jax_compiles(done.stderr, "step_identity") == EPOCHS == compiles["step_identity"]
    assert _jax_compiles(done.stderr, "step_frozen") == 1 == compiles["step_frozen"]
    assert _jax_compiles(done.stderr, "step_changing") == EPOCHS == compiles["step_changing"]
    data = json.loads(_summary(out, "--json").stdout)
    # One identity-static: step_identity's, none for the controls (call-site-cost and
    # executables-growing may be stated beside it: they say other things).
    (found,) = [d for d in data["diagnoses"]["0"] if d["id"] == "identity-static"]
    assert found["id"] == "identity-static" and found["function"] == "step_identity"
    assert found["figures"]["class"] == "__main__.Config"
    assert found["figures"]["argument"] == "cfg"
    assert found["figures"]["value"] == "Config(scale=2.0)"
    assert found["page"].endswith("docs/diagnoses/identity-static.md")
    assert Path(found["page"]).is_file()
    # The content that really changed is a static value's change, not identity-static.
    changing = [c for c in calls if c["function"] == "step_changing" and c["kind"] == "recompile"]
    assert len(changing) == EPOCHS - 1
    for call in changing:
        (item,) = call["reason"]["items"]
        assert (item["kind"], item["path"], item["detail"]) == ("static_value", "cfg", "")
        assert item["before"] != item["after"]
    text = _summary(out).stdout
    assert "identity-static · step_identity" in text
    assert "__main__.Config compares and hashes by identity" in text
    listed = text.split("Diagnoses:")[1]
    assert "identity-static · step_changing" not in listed  # (call-site-cost may name it)


def test_an_equinox_module_rebuilt_each_epoch_names_its_static_field(tmp_path):
    done, out = _watch(tmp_path, EQUINOX)
    compiles, _ = _recorded(out)
    assert _jax_compiles(done.stderr, "step_module") == EPOCHS == compiles["step_module"]
    data = json.loads(_summary(out, "--json").stdout)
    (found,) = [d for d in data["diagnoses"]["0"] if d["id"] == "identity-static"]
    assert (found["id"], found["function"]) == ("identity-static", "step_module")
    assert found["figures"]["class"] == "__main__.Config"
    assert found["figures"]["argument"] == "model.cfg"
    zh = _summary(out, "--lang", "zh").stdout
    assert "identity-static · step_module" in zh and "按对象身份比较" in zh


def test_a_flax_nnx_model_and_optimizer_rebuilt_each_epoch_names_the_graphs_attribute(tmp_path):
    pytest.importorskip("flax.nnx")
    pytest.importorskip("optax")
    done, out = _watch(tmp_path, NNX, JAX_EXPLAIN_CACHE_MISSES="1")
    compiles, _ = _recorded(out)
    # JAX compiled every epoch, and says why: the optimizer's graphdef (its tx) differs.
    assert _jax_compiles(done.stderr, "train_one_epoch") == EPOCHS == compiles["train_one_epoch"]
    assert done.stderr.count("at input path [0][1]._graphdef") == EPOCHS - 1
    # Said live, once, with the Flax NNX words.
    assert done.stderr.count("jitlab: identity-static: train_one_epoch") == 1
    data = json.loads(_summary(out, "--json").stdout)
    (found,) = [d for d in data["diagnoses"]["0"] if d["id"] == "identity-static"]
    assert found["function"] == "train_one_epoch"
    assert found["figures"]["argument"] == "dis_opt.tx" and found["figures"]["graph"] is True
    assert found["figures"]["class"] == "optax._src.base.GradientTransformationExtraArgs"
    assert found["figures"]["function"] == "optax.transforms._combining.chain.<locals>.init_fn"
    text = " ".join(_summary(out).stdout.split())  # as one line, however the terminal folds
    assert "identity-static · train_one_epoch" in text
    assert "dis_opt (Optimizer) was built anew: its Flax NNX graph is equal in" in text
    zh = "".join(_summary(out, "--lang", "zh").stdout.split())
    assert "dis_opt（Optimizer）被重新创建了" in zh
