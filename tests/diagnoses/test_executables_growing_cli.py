"""executables-growing in a real `jitlab watch` of a reproduction of flax#5548 / jax#16778
with Optax (synthetic data): the optimizer re-created every epoch and passed static, so each
epoch compiles a new executable the jit object keeps; counted against JAX's own compile log
(JAX_LOG_COMPILES=1) in the same run; with the control of the optimizer built once (one
compile, nothing said). `jitlab summary` says it (id and one sentence), `--json` carries
its id and figures."""

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
EPOCHS = 5
WARN_AFTER = 3

OPTAX = """
import functools
import jax, jax.numpy as jnp
import optax

@functools.partial(jax.jit, static_argnums=2)
def train_step(params, opt_state, optimizer, batch):
    loss, grads = jax.value_and_grad(lambda p: jnp.mean((batch @ p) ** 2))(params)
    updates, opt_state = optimizer.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state

@functools.partial(jax.jit, static_argnums=2)
def steady_step(params, opt_state, optimizer, batch):
    loss, grads = jax.value_and_grad(lambda p: jnp.mean((batch @ p) ** 2))(params)
    updates, opt_state = optimizer.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state

batch = jnp.ones((8, 4))
params = steady = jnp.ones(4)
once = optax.adam(1e-3)  # the control: built once
steady_state = once.init(steady)
for epoch in range(EPOCHS):
    optimizer = optax.adam(1e-3)  # re-created every epoch (new functions: a new static key)
    opt_state = optimizer.init(params)
    for _ in range(3):
        params, opt_state = train_step(params, opt_state, optimizer, batch)
        steady, steady_state = steady_step(steady, steady_state, once, batch)
print("done", flush=True)
"""


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JITLAB_", "JAX_"))}
    env.update(LANG="C.UTF-8", LC_ALL="C.UTF-8", PYTHONUNBUFFERED="1")
    return env


def _summary(path: Path, *options: str) -> str:
    done = subprocess.run(
        [JITLAB, "summary", *options, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(),
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_an_optax_optimizer_recreated_per_epoch_is_diagnosed(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(f"EPOCHS = {EPOCHS}\n" + textwrap.dedent(OPTAX), encoding="utf-8")
    out = tmp_path / "run.jsonl"
    done = subprocess.run(
        [
            JITLAB,
            "watch",
            "--warn-after",
            str(WARN_AFTER),
            "--out",
            str(out),
            "--",
            "python",
            str(script),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env={**_env(), "JAX_LOG_COMPILES": "1"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "done" in done.stdout
    # JAX's own count: one compile per epoch for train_step, one in all for steady_step.
    assert done.stderr.count("Finished XLA compilation of jit(train_step)") == EPOCHS
    assert done.stderr.count("Finished XLA compilation of jit(steady_step)") == 1
    calls = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    compiled = [
        c
        for c in calls
        if c.get("type") == "call"
        and c["function"] == "train_step"
        and c["kind"] in ("compile", "recompile")
    ]
    assert [c["executables"]["live"] for c in compiled] == list(range(1, EPOCHS + 1))
    assert "jitlab: executables-growing: train_step" in done.stderr  # said while it ran
    data = json.loads(_summary(out, "--json"))
    (found,) = [d for d in data["diagnoses"]["0"] if d["id"] == "executables-growing"]
    assert found["function"] == "train_step"  # none for steady_step
    figures = found["figures"]
    assert figures["live"] == figures["same_signature"] == WARN_AFTER + 1
    assert figures["limit"] == WARN_AFTER
    assert (
        figures["argument_bytes"] == (WARN_AFTER + 1) * compiled[0]["executables"]["argument_bytes"]
    )
    assert Path(found["page"]).is_file()
    text = _summary(out)
    assert "executables-growing · train_step" in text and "steady_step (" not in text
    zh = _summary(out, "--lang", "zh")
    assert "executables-growing · train_step" in zh and "仍有 4 个可执行程序存活" in zh
