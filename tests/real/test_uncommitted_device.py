"""An uncommitted array is no cause (issue 41 item 1): JAX places it where the call runs and
ignores where it lives; only a committed array's device is part of JAX's cache key.

Cases: the issue's own (arrays made outside ``jax.default_device(cpu1)``, called inside it);
jax-ml/jax tests/pjit_test.py test_pjit_on_different_default_device_with_uncommitted_inputs
(arrays made inside the context); tests/api_test.py test_jit_default_device (a Python
scalar under each default device); and a committed array beside an uncommitted one. Each
runs probed and watched, against JAX's own ``jax_log_compiles`` log in the same child.

Run in a child process: two CPU devices need XLA_FLAGS set before JAX starts.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.slow

_CHILD = textwrap.dedent(
    """
    import json, logging, os
    os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"
    os.environ["JAX_PLATFORMS"] = "cpu"  # CPU devices, on a GPU machine too
    import jax, jax.numpy as jnp
    from jitlab.records.change_words import reason_text
    from jitlab.probe.probe import Probe
    from jitlab.watching.recorder import watch

    compiles = []  # JAX's own log: one line per backend compile

    class Log(logging.Handler):
        def emit(self, record):
            message = record.getMessage()
            if message.startswith("Finished XLA compilation of jit("):
                compiles.append(message.split("jit(")[1].split(")")[0])

    logging.getLogger("jax").addHandler(Log(logging.DEBUG))
    jax.config.update("jax_log_compiles", True)
    cpu0, cpu1 = jax.devices()[:2]
    out = {}

    def account(records):
        return [
            (r.kind.value, [c.kind.value for c in r.reason.items] if r.reason else [],
             reason_text(r.reason) if r.reason else "")
            for r in records if r.kind.value != "cache_hit"
        ]

    def outside_in(f):  # the issue's case: made outside, called inside
        x = jnp.ones(3)
        with jax.default_device(cpu1):
            y = jnp.ones(3)  # uncommitted, on cpu:1
        f(y)
        with jax.default_device(cpu1):
            f(x)
            f(y)
        f(x)

    def made_inside(f):  # pjit_test: arrays made inside the context
        a = jnp.array([1, 2, 3], dtype=jnp.float32)
        f(a, a)
        with jax.default_device(cpu1):
            b = jnp.array([4, 5, 6], dtype=jnp.float32)
            assert not b.committed
            out["inside_device"] = str(list(f(b, b).devices())[0])

    def scalar(f):  # api_test test_jit_default_device
        f(1)
        with jax.default_device(cpu1):
            f(1)
        f(1)

    def mixed(f):  # a committed array beside an uncommitted one: only the committed moves
        u = jnp.ones(3)
        f(jax.device_put(jnp.ones(3), cpu0), u)
        f(jax.device_put(jnp.ones(3), cpu1), u)

    cases = {
        "outside_in": (lambda x: x + 1, outside_in),
        "made_inside": (lambda x, y: x + y, made_inside),
        "scalar": (lambda x: x + 1, scalar),
        "mixed": (lambda c, u: c * u, mixed),
    }
    for name, (body, run) in cases.items():
        for mode in ("probe", "watch"):
            fun = f"{name}_{mode}"
            names = ", ".join(body.__code__.co_varnames[: body.__code__.co_argcount])
            source = "def %s(%s):\\n    return body(%s)" % (fun, names, names)
            code = compile(source, "<case>", "exec")
            space = {"body": body}
            exec(code, space)
            before = len(compiles)
            if mode == "probe":
                p = Probe(space[fun])
                run(p)
                records = p.records
            else:
                with watch() as recorder:
                    run(jax.jit(space[fun]))
                records = [c.record for c in recorder.calls if c.record.function == fun]
            out[fun] = {"jitlab": account(records), "jax": compiles[before:].count(fun)}
    print("RESULT" + json.dumps(out))
    """
)


@pytest.fixture(scope="module")
def child() -> dict:
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
    done = subprocess.run(
        [sys.executable, "-c", _CHILD], capture_output=True, text=True, timeout=600, env=env
    )
    assert done.returncode == 0, done.stderr[-3000:]
    (line,) = [x for x in done.stdout.splitlines() if x.startswith("RESULT")]
    return json.loads(line.removeprefix("RESULT"))


CASES = ["outside_in", "made_inside", "scalar", "mixed"]


@pytest.mark.parametrize("mode", ["probe", "watch"])
@pytest.mark.parametrize("case", CASES)
def test_compiles_counted_as_jax_logs(child, case, mode):
    got = child[f"{case}_{mode}"]
    compiled = [kind for kind, _, _ in got["jitlab"] if kind in ("compile", "recompile")]
    assert len(compiled) == got["jax"]


@pytest.mark.parametrize("mode", ["probe", "watch"])
@pytest.mark.parametrize("case", ["outside_in", "made_inside", "scalar"])
def test_an_uncommitted_array_is_never_blamed(child, case, mode):
    got = child[f"{case}_{mode}"]
    assert got["jax"] == 2  # JAX compiled again for the default device only
    texts = [text for _, _, text in got["jitlab"]]
    assert not any("device of" in text for text in texts), texts
    assert texts[-1].startswith("tracing context jax_default_device: cpu:1 ← None"), texts


def test_the_uncommitted_call_ran_where_jax_put_it(child):
    assert child["inside_device"].endswith("1")


@pytest.mark.parametrize("mode", ["probe", "watch"])
def test_a_committed_array_beside_is_still_named(child, mode):
    got = child[f"mixed_{mode}"]
    assert got["jax"] == 2
    (text,) = [text for kind, _, text in got["jitlab"] if kind == "recompile"]
    assert text == "device of c: cpu:1 ← cpu:0"
