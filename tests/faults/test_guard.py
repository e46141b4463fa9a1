"""The guard must not be blinded, and what it stands in with behaves like JAX's own (issue 20):
a program that clears JAX's listeners, sets ``jax_explain_cache_misses`` itself, or copies,
deep-copies, pickles and inspects a function jitted inside a watch."""

from __future__ import annotations

import copy
import inspect
import io
import json
import logging
import os
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest

from jitlab.records.messages import COUNTED_NOTICES
from jitlab.watching.recorder import watch
from jitlab.watching.standin import WatchedFunction

pytestmark = pytest.mark.slow

TIMEOUT = 240  # seconds a subprocess may take (a busy machine), never a bound on speed
ROOT = Path(__file__).parents[2]


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


# A program that removes every jax.monitoring listener halfway (a library may do it), under
# a watch; JAX's own jax_log_compiles counts what really compiled.
CLEARS = """
import json, sys
import jax, jax.numpy as jnp
import jitlab
from tests.real.conftest import jax_compile_log

before = jax.jit(lambda x: x - 1)  # jitted before the watch: seen through events only
before(jnp.ones(2))
with jax_compile_log() as log, jitlab.watch(sys.argv[1]) as recorder:
    def step(x):
        return x * 3
    f = jax.jit(step)
    f(jnp.ones(2))
    jax.monitoring.clear_event_listeners()
    f(jnp.ones(3)); f(jnp.ones(4)); f(jnp.ones(4))
    jax.monitoring.clear_event_listeners()
    before(jnp.ones(5))  # nothing of jitlab's runs here: unseen until the block ends
print(json.dumps({"log": dict(log.counts), "blinded": getattr(recorder, "blinded", None)}))
"""


def test_a_program_that_clears_jax_listeners_is_still_watched_and_says_so(tmp_path):
    out = tmp_path / "rec.jsonl"
    done = _run(CLEARS.replace("sys.argv[1]", repr(str(out))))
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    steps = [
        line["kind"] for line in lines if line["type"] == "call" and line["function"] == "step"
    ]
    hits = [line["hits"] for line in lines if line["type"] == "hits" and line["function"] == "step"]
    # Every compile JAX made of step is in the recording, and only the real hit is a hit.
    assert seen["log"]["step"] == 3
    assert steps == ["compile", "recompile", "recompile"]
    assert hits[-1] == 1
    # It says it was blind twice: in the recording, and on stderr (in the user's words).
    notices = [line for line in lines if line["type"] == "notice"]
    assert (
        [n["notice"] for n in notices if n["notice"] == "listeners_removed"]
        == ["listeners_removed"] * 2
        == ["listeners_removed"] * (seen["blinded"])
    )
    # and nothing else but what every watch counts at its end (JAX's own compiles, …)
    assert {n["notice"] for n in notices} <= {"listeners_removed", *COUNTED_NOTICES}
    assert done.stderr.count("clear_event_listeners()") == 2, done.stderr
    assert lines[-1]["type"] == "end"


GRAD = """
import json
import jax, jax.numpy as jnp
import jitlab
from tests.real.conftest import jax_compile_log

first = jitlab.Probe(jax.jit(lambda x: jnp.sum(jnp.sin(x))))
jax.grad(first)(jnp.ones(3))  # jitlab follows grad's backward passes from here on
jax.monitoring.clear_event_listeners()

def loss(x):
    return jnp.sum(jnp.cos(x) * 2)

probe = jitlab.Probe(jax.jit(loss))
with jax_compile_log() as log:
    jax.grad(probe)(jnp.ones(4))
print(json.dumps({"log": log.counts["loss"], "probe": sum(r.kind.compiled for r in probe.records)}))
"""


def test_every_listener_of_jitlab_comes_back_after_a_clear():
    # grad compiles the function's backward pass after the probed call returned: jitlab's
    # listener for it is registered again with the others.
    done = _run(GRAD)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["log"] == 2 and seen["probe"] == seen["log"]


BUDGET = """
import json
import jax, jax.numpy as jnp
import jitlab

f = jax.jit(lambda x: x + 1)
f(jnp.ones(2))
outcomes = []
for allowed in (0, 10):
    try:
        with jitlab.budget(allowed):
            g = jax.jit(lambda x: x * 2)
            g(jnp.ones(2))
            jax.monitoring.clear_event_listeners()
            f(jnp.ones(3 + allowed))  # compiled while jitlab could not see
        outcomes.append("passed")
    except jitlab.CompileBudgetExceeded as exc:
        outcomes.append(str(exc))
print(json.dumps(outcomes))
"""


def test_a_budget_that_could_not_see_fails(tmp_path):
    done = _run(BUDGET)
    assert done.returncode == 0, done.stderr
    zero, ten = json.loads(done.stdout.strip().splitlines()[-1])
    # budget(0): two real compiles (g, then f unseen) must fail, and say why it is unsure.
    assert zero != "passed" and "clear_event_listeners()" in zero
    # budget(10): within the budget by count, but a budget that could not see never passes.
    assert ten != "passed" and "clear_event_listeners()" in ten


@pytest.fixture
def root_warnings():
    """What a program that configured logging (a handler on the root logger) gets to see."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setLevel(logging.WARNING)
    logging.getLogger().addHandler(handler)
    yield stream
    logging.getLogger().removeHandler(handler)


@pytest.fixture
def explain_restored():
    before = jax.config.jax_explain_cache_misses
    yield
    jax.config.update("jax_explain_cache_misses", before)


def _misses() -> None:
    f = jax.jit(lambda x: x + 1)
    f(jnp.ones(3))
    f(jnp.ones(4))


def test_a_program_that_sets_explain_cache_misses_itself_sees_jaxs_warnings(
    root_warnings, explain_restored
):
    assert jax.config.jax_explain_cache_misses is False
    jax.config.update("jax_explain_cache_misses", True)
    _misses()
    plain = root_warnings.getvalue().count("TRACING CACHE MISS")
    assert plain == 2
    jax.config.update("jax_explain_cache_misses", False)
    root_warnings.seek(0)
    root_warnings.truncate()
    with watch() as recorder:
        jax.config.update("jax_explain_cache_misses", True)  # the program's own choice
        _misses()
    assert root_warnings.getvalue().count("TRACING CACHE MISS") == plain
    assert recorder.compiles[-1].record.reason.jax_explanation  # jitlab read them too
    # The value it set inside the block is the value after it: jitlab restores only its own.
    assert jax.config.jax_explain_cache_misses is True
    with watch():
        jax.config.update("jax_explain_cache_misses", False)
    assert jax.config.jax_explain_cache_misses is False


# -- the stand-in behaves like JAX's own jitted function ----------------------------------------
def make_scaled():
    def scaled(x, y=2.0):
        """Scale x by y."""
        return x * y

    return scaled


class Model:
    def __init__(self, fn):
        self.fn = fn
        self.w = jnp.ones(2)


def _observe(make, scaled):
    """What a program can see of ``make(scaled)`` and copies of it, as plain data."""
    fn = make(scaled)
    fn(1.0)
    shallow, deep = copy.copy(fn), copy.deepcopy(fn)
    model = copy.deepcopy(Model(fn))
    try:
        pickle.dumps(fn)
        pickled = "pickled"
    except Exception as exc:
        pickled = type(exc).__name__

    class Holder:
        method = make(lambda self, x: x + 1, static_argnums=0)

        def __hash__(self):
            return 0

        def __eq__(self, other):
            return isinstance(other, Holder)

    holder = Holder()
    bound = holder.method
    fn.note = "the program's own"  # an attribute the program sets on its jitted function
    return {
        "jax_attributes": {
            name: hasattr(fn, name)
            for name in ("lower", "trace", "eval_shape", "clear_cache", "_cache_size", "_fun")
        },
        "fun": fn._fun is scaled,
        "lowered": type(fn.lower(1.0)).__name__,
        "eval_shape": str(fn.eval_shape(1.0)),
        "cache_size": fn._cache_size(),
        "note": fn.note,
        "missing": _raises(lambda: fn.no_such_attribute),
        "results": [float(g(1.0)) for g in (fn, shallow, deep, model.fn)],
        "copies_distinct": [shallow is fn, deep is fn, shallow == fn, deep == fn],
        "wrapped": fn.__wrapped__ is scaled,
        "name": (fn.__name__, fn.__qualname__, fn.__module__, fn.__doc__),
        "signature": str(inspect.signature(fn)),
        "copy_signature": str(inspect.signature(shallow))
        if hasattr(shallow, "__wrapped__")
        else "",
        "pickled": pickled,
        "ismethod": inspect.ismethod(bound),
        "self": bound.__self__ is holder,
        "func": bound.__func__ is Holder.__dict__["method"],
        "method_result": float(bound(1.0)),
        "has_self": hasattr(fn, "__self__"),
        "hash_stable": hash(fn) == hash(fn),
    }


def _raises(read):
    try:
        read()
    except Exception as exc:
        return type(exc).__name__
    return "nothing"


def _jit(fun, **options):
    return jax.jit(fun, **options)


def test_a_function_jitted_inside_a_watch_copies_pickles_and_introspects_like_jaxs():
    plain = _observe(_jit, make_scaled())
    scaled = make_scaled()  # another function: JAX compiles it afresh inside the watch
    with watch() as recorder:
        watched = _observe(_jit, scaled)
        fn = jax.jit(scaled)
        assert isinstance(fn, WatchedFunction)  # the stand-in is what the program holds
        copies = [copy.copy(fn), copy.deepcopy(fn), copy.deepcopy(Model(fn)).fn]
        for g in copies:
            g(3.0)  # still watched: a hit of scaled, counted
    plain.pop("copy_signature")  # JAX's own shallow copy loses __wrapped__; ours keeps it
    assert watched.pop("copy_signature") == plain["signature"]
    assert watched == plain
    # By definition site too: a worker that ran other files holds sites of their own
    # `scaled` functions (a recorder counts every site from its start).
    here = f"{Path(__file__).resolve()}:{scaled.__code__.co_firstlineno}"
    (stats,) = [
        s
        for s in recorder.stats.values()
        if s.name == "scaled" and s.defined_at and s.defined_at.startswith(here)
    ]
    # One signature, one compile (the second jax.jit of scaled shares JAX's cache); every
    # call of the function and of its copies after it is a counted hit.
    assert stats.compiles == 1
    assert stats.hits == 4 + len(copies)


def test_the_blinded_line_speaks_the_commands_language(tmp_path):
    # `jitlab --lang zh watch`: what jitlab prints from inside the program follows --lang,
    # not the locale, and the program's environment is left as it was.
    program = tmp_path / "clears.py"
    program.write_text(
        "import os, jax, jax.numpy as jnp\n"
        "f = jax.jit(lambda x: x + 1)\n"
        "f(jnp.ones(2))\n"
        "jax.monitoring.clear_event_listeners()\n"
        "f(jnp.ones(3))\n"
        "print(sorted(k for k in os.environ if 'JITLAB' in k), os.environ.get('LANG'))\n"
    )
    env = {**os.environ, "LANG": "C.UTF-8", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "jitlab.cli",
            "--lang",
            "zh",
            "watch",
            "--out",
            str(tmp_path / "r.jsonl"),
            "--",
            "python",
            str(program),
        ],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        cwd=tmp_path,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert "jitlab：程序移除了 jitlab 的 JAX 监听器" in done.stderr, done.stderr
    assert "the program removed jitlab's JAX listeners" not in done.stderr
    given = sorted(k for k in env if "JITLAB" in k)  # the tests' own (JITLAB_PLUGINS=0)
    assert done.stdout.splitlines()[0] == f"{given} C.UTF-8"
