"""Never silently wrong: every face that counts compiles runs the whole contract check.

The faults are made for real, in a fresh interpreter, by a ``sitecustomize.py`` on its
``PYTHONPATH`` (Python imports it at start-up, before any of jitlab):

* a JAX whose compile events were renamed — every listener sees the three
  ``/jax/core/compile/…_duration`` events under new names, while the version and every private
  name jitlab reads are as they were. The names-only check passes; only the known compile
  sees the difference. Without it a budget of 0 passed two compiles and a recording called them
  cache hits.
* a JAX whose trace state cannot be read (``jax._src.core.trace_state_strong_ref`` replaced):
  ``jitlab doctor`` printed a traceback instead of its table.

Each face is also run without the fault, the control: the same program passes there.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import jax
import pytest
from environment_lines import program_lines

pytestmark = pytest.mark.slow

JITLAB = str(Path(sys.executable).with_name("jitlab"))

RENAMED_EVENTS = """
# A JAX whose compile events were renamed: every listener sees the three /jax/core/compile/
# duration events under new names; the version and the private names are unchanged.
from jax._src import monitoring


class _Renaming(list):
    def __iter__(self):
        for callback in list.__iter__(self):
            yield _renamed(callback)


def _renamed(callback):
    def listener(event, duration, **kwargs):
        if event.startswith("/jax/core/compile/"):
            event = event.replace("_duration", "_seconds")
        return callback(event, duration, **kwargs)

    return listener


monitoring._event_duration_secs_listeners = _Renaming(monitoring._event_duration_secs_listeners)
"""

UNREADABLE_TRACE_STATE = """
# A JAX whose trace state jitlab cannot read: the config state it reads is gone, replaced.
from jax._src import core

core.trace_state_strong_ref = object()
"""

PROGRAM = """
import jax
import jax.numpy as jnp

f = jax.jit(lambda x: x * 2)
f(jnp.ones(2))
f(jnp.ones(3))
print("the program ran")
"""


def faulty_env(tmp_path: Path, fault: str | None) -> dict[str, str]:
    env = dict(os.environ)
    if fault is not None:
        site = tmp_path / "site"
        site.mkdir(exist_ok=True)
        (site / "sitecustomize.py").write_text(textwrap.dedent(fault), encoding="utf-8")
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(site), env.get("PYTHONPATH")) if p)
    return env


def run(tmp_path: Path, fault: str | None, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        list(argv),
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env=faulty_env(tmp_path, fault),
    )


def python(tmp_path: Path, fault: str | None, code: str) -> subprocess.CompletedProcess[str]:
    return run(tmp_path, fault, sys.executable, "-c", textwrap.dedent(code))


def assert_refused_for_the_compile(text: str) -> None:
    assert f"JAX {jax.__version__}" in text, text
    assert "compile event missing" in text and "never fired" in text, text


# -- the renamed compile events, face by face ----------------------------------------------------
BUDGET = """
    import jax
    import jax.numpy as jnp
    import jitlab
    from jitlab.probe.contract import JaxContractError

    f = jax.jit(lambda x: x * 2)
    try:
        with jitlab.budget(0):
            print("the block ran")
            f(jnp.ones(2))
            f(jnp.ones(3))
    except JaxContractError as exc:
        print("refused:", exc)
    except jitlab.CompileBudgetExceeded as exc:
        print("over budget:", str(exc).splitlines()[0])
    else:
        print("passed")
"""


def test_a_budget_refuses_a_jax_whose_compile_events_were_renamed(tmp_path):
    done = python(tmp_path, RENAMED_EVENTS, BUDGET)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("refused: "), done.stdout
    assert_refused_for_the_compile(done.stdout)
    assert "the block ran" not in done.stdout and "passed" not in done.stdout
    control = python(tmp_path, None, BUDGET)
    assert control.returncode == 0, control.stderr
    assert "over budget: 2 compile(s) where the budget allows 0:" in control.stdout


WATCH_API = """
    import json
    import jax
    import jax.numpy as jnp
    import jitlab
    from jitlab.probe.contract import JaxContractError

    if {before!r} == "backend":
        jnp.zeros(1).block_until_ready()  # the program's backend is up before the watch
    elif {before!r} == "thread":  # another thread runs: the check is not forked
        import threading

        threading.Thread(target=threading.Event().wait, daemon=True).start()
    f = jax.jit(lambda x: x * 2)
    try:
        with jitlab.watch("w.jsonl") as recorder:
            print("the block ran")
            f(jnp.ones(2))
            f(jnp.ones(3))
    except JaxContractError as exc:
        print("refused:", exc)
    else:
        print("kinds:", json.dumps([c.record.kind.value for c in recorder.calls]))
"""


@pytest.mark.parametrize("before", ["nothing", "thread", "backend"])
def test_jitlab_watch_refuses_a_jax_whose_compile_events_were_renamed(tmp_path, before):
    # Before the backend starts the check runs in a process of its own (the program's
    # backend is its own to start): a fork of the program, or with another thread running a
    # fresh interpreter; after, in the program. Each time before anything is written.
    code = WATCH_API.format(before=before)
    done = python(tmp_path, RENAMED_EVENTS, code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("refused: "), done.stdout
    assert_refused_for_the_compile(done.stdout)
    assert "the block ran" not in done.stdout
    assert not (tmp_path / "w.jsonl").exists()
    control = python(tmp_path, None, code)
    assert control.returncode == 0, control.stderr
    assert 'kinds: ["compile", "recompile"]' in control.stdout, control.stdout


def test_the_jitlab_watch_command_refuses_before_the_program_runs(tmp_path):
    (tmp_path / "prog.py").write_text(PROGRAM, encoding="utf-8")
    out = tmp_path / "w.jsonl"
    command = (JITLAB, "watch", "--out", str(out), "--", "python", "prog.py")
    done = run(tmp_path, RENAMED_EVENTS, *command)
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "the program ran" not in done.stdout
    lines = program_lines(done.stderr)
    assert len(lines) == 1, done.stderr
    assert_refused_for_the_compile(lines[0])
    assert not out.exists()
    control = run(tmp_path, None, *command)
    assert control.returncode == 0, control.stderr
    assert "the program ran" in control.stdout
    kinds = [json.loads(line).get("kind") for line in out.read_text().splitlines()]
    assert "compile" in kinds and "recompile" in kinds, kinds


MARKED_TESTS = """
import jax
import jax.numpy as jnp
import pytest

f = jax.jit(lambda x: x * 2)


@pytest.mark.compile_budget(0)
def test_marked(tmp_path_factory):
    print("the body ran")
    f(jnp.ones(2))
    f(jnp.ones(3))


def test_fixture(compile_budget):
    with compile_budget(0):
        print("the block ran")
        f(jnp.ones(4))
"""


def test_the_pytest_marker_and_fixture_refuse_a_jax_whose_compile_events_were_renamed(tmp_path):
    (tmp_path / "test_marked.py").write_text(MARKED_TESTS, encoding="utf-8")
    command = (sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider")
    done = run(tmp_path, RENAMED_EVENTS, *command, "test_marked.py")
    out = done.stdout
    assert done.returncode == 1, out
    assert "2 failed" in out, out
    assert "the body ran" not in out and "the block ran" not in out
    assert "JaxContractError" in out and "compile event missing" in out, out
    control = run(tmp_path, None, *command, "test_marked.py")
    assert "2 failed" in control.stdout, control.stdout  # each compiles more than 0 there
    assert "CompileBudgetExceeded" in control.stdout


# -- doctor with JAX's trace state unreadable ----------------------------------------------------
def test_doctor_shows_its_table_when_the_trace_state_cannot_be_read(tmp_path):
    done = run(tmp_path, UNREADABLE_TRACE_STATE, JITLAB, "doctor")
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr and "Error" not in done.stderr.split(":")[0]
    flat = " ".join(done.stdout.split())
    assert "JAX trace state" in flat and "changed" in flat, done.stdout
    assert "checks are off" in flat
    lines = program_lines(done.stderr)
    assert len(lines) == 1 and "JAX trace state changed" in lines[0], done.stderr
    as_json = run(tmp_path, UNREADABLE_TRACE_STATE, JITLAB, "doctor", "--json")
    assert as_json.returncode == 1, as_json.stderr
    items = {i["name"]: i["status"] for i in json.loads(as_json.stdout)["contract"]["items"]}
    assert items["JAX trace state"] == "changed", items
