"""The watched program is the program python runs (issue 51's leftovers): python itself runs
it, so its ``<module>`` is the outermost frame, and JAX is imported where the program imports
it. Each program runs under plain ``python`` and under ``jitlab watch`` in real subprocesses,
through a pipe and on a real pseudo-terminal, and what it printed is compared byte for byte
(jitlab's end table apart, which comes after all of it); the compiles recorded are those
JAX's own log shows."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from ptyrun import run_on_pty, screen, terminal

pytestmark = pytest.mark.slow

JITLAB = [sys.executable, "-m", "jitlab.cli"]
TIMEOUT = 300  # a run that takes longer is taken for a hang (no duration is asserted)
TABLE = "jitlab watch ·"  # the end table's title: the first line jitlab prints


def run(argv: list[str], cwd: Path, env=None, stdin: str | None = None):
    env = {**os.environ, "COLUMNS": "200", **(env or {})}
    try:
        return subprocess.run(
            argv, cwd=cwd, env=env, input=stdin, capture_output=True, text=True, timeout=TIMEOUT
        )
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"no end after {TIMEOUT} s: {exc.stdout!r} {exc.stderr!r}"[-3000:])


def both(tmp_path: Path, python_args: list[str], env=None, stdin: str | None = None):
    """``python ARGS`` and ``jitlab watch -- python ARGS`` (recording run.jsonl)."""
    plain = run([sys.executable, *python_args], tmp_path, env, stdin)
    watch = [*JITLAB, "watch", "--out", "run.jsonl", "--", "python", *python_args]
    return plain, run(watch, tmp_path, env, stdin)


def programs_own(err: str) -> str:
    """What the program wrote to stderr: all before jitlab's end table."""
    at = err.find(TABLE)
    return err if at < 0 else err[: err.rfind("\n", 0, at) + 1]


def calls(path: Path) -> list[str]:
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    return [line["function"] for line in lines if line["type"] == "call"]


# -- the stack the program sees ----------------------------------------------------------------
STACK = """
import faulthandler, inspect, sys, traceback, warnings
import numpy as np
import jax

def inner():
    traceback.print_stack(file=sys.stdout)
    print(len(traceback.extract_stack()), len(inspect.stack(0)))
    depth, frame = 0, sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    print("depth", depth)
    faulthandler.dump_traceback(sys.stdout, all_threads=False)
    warnings.warn("from the caller's caller", stacklevel=3)
    warnings.warn("past the program's outermost frame", stacklevel=6)

inner()
print(jax.jit(lambda x: x * 2)(np.ones(2, np.float32)))
"""
THREAD = re.compile(r"0x[0-9a-f]+")  # faulthandler's thread id: another in every run


@pytest.mark.parametrize("form", ["script", "module", "command"])
def test_the_program_sees_the_stack_python_gives_it(tmp_path, form):
    (tmp_path / "prog.py").write_text(STACK)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "tool.py").write_text(STACK)
    args = {"script": ["prog.py"], "module": ["-m", "pkg.tool"], "command": ["-c", STACK]}
    plain, watched = both(tmp_path, args[form], env={"JAX_LOG_COMPILES": "1"})
    assert plain.returncode == watched.returncode == 0, watched.stderr[-3000:]
    assert THREAD.sub("0x", watched.stdout) == THREAD.sub("0x", plain.stdout)
    # the warnings' lines (past the outermost frame: "sys:1:" before Python 3.12, "<sys>:0:"
    # after) and JAX's log, as python's
    said = [line for line in programs_own(watched.stderr).splitlines() if "Warning" in line]
    assert said == [line for line in plain.stderr.splitlines() if "Warning" in line]
    outermost = r"(sys:1|<sys>:0): UserWarning: past the program's outermost frame"
    assert re.search(outermost, plain.stderr), plain.stderr
    assert calls(tmp_path / "run.jsonl") == ["<lambda>"]  # watched all the same


# -- JAX imported where the program imports it -------------------------------------------------
BEFORE_JAX = """
import atexit, os, sys
import numpy as np
os.environ["JAX_ENABLE_X64"] = "1"  # JAX reads its variables when it is imported
print("JAX imported before the program:", "jax" in sys.modules)

def final_evaluation():  # registered before JAX: python runs it after JAX's own exit functions
    print("final evaluation", step(np.arange(3)), file=sys.stderr, flush=True)

atexit.register(final_evaluation)
import jax

def step(x):
    return x / 3

step = jax.jit(step)
print(step(np.arange(3)), step(np.arange(3)).dtype, flush=True)
atexit.register(lambda: print("last words", file=sys.stderr, flush=True))
"""


def compiled(err: str) -> list[str]:
    """The functions JAX's log (``JAX_LOG_COMPILES``) says it compiled, in order."""
    return re.findall(r"Compiling (?:jit\()?(\w+)", err)


def test_jax_is_imported_where_the_program_imports_it(tmp_path):
    (tmp_path / "prog.py").write_text(BEFORE_JAX)
    plain, watched = both(tmp_path, ["prog.py"], env={"JAX_LOG_COMPILES": "1"})
    assert plain.returncode == watched.returncode == 0, watched.stderr[-3000:]
    assert watched.stdout == plain.stdout
    assert plain.stdout.startswith("JAX imported before the program: False\n")
    assert "float64" in plain.stdout  # x64, as the program asked
    # the exit functions in python's order: the final evaluation after JAX's clean_up, which
    # dropped its executables: JAX compiles `step` again, and the recording says so
    mine = programs_own(watched.stderr)
    assert mine.index("last words") < mine.index("final evaluation")
    assert compiled(mine) == compiled(plain.stderr)
    assert compiled(plain.stderr).count("step") == 2
    assert [f for f in calls(tmp_path / "run.jsonl") if f == "step"] == ["step", "step"]
    assert TABLE in watched.stderr  # and the table after all of it


SEES = """
import json, os, sys
seen = {"orig_argv": sys.orig_argv, "environ": dict(os.environ), "jax": "jax" in sys.modules}
print(json.dumps(seen))
"""


def test_the_program_sees_its_own_command_line_and_environment(tmp_path):
    (tmp_path / "prog.py").write_text(SEES)
    for args in (["prog.py", "a", "--b"], ["-u", "-X", "dev", "prog.py", "a"]):
        plain, watched = both(tmp_path, args)
        assert plain.returncode == watched.returncode == 0, watched.stderr[-3000:]
        seen, expected = json.loads(watched.stdout), json.loads(plain.stdout)
        assert seen["orig_argv"][1:] == expected["orig_argv"][1:] == args
        assert seen["orig_argv"][0] == "python"  # the interpreter as the command named it
        assert seen == {**expected, "orig_argv": seen["orig_argv"]}


# -- an unhandled KeyboardInterrupt --------------------------------------------------------------
INTERRUPTED = """
import os, sys, time
import numpy as np
import jax
here = os.path.dirname(os.path.abspath(__file__))
log = open(os.path.join(here, "progress.log"), "w")  # never closed: flushed as python ends
step = jax.jit(lambda x: x + 1)
for i in range(100_000):
    log.write(f"step {i}\\n")
    step(np.ones(2, np.float32))
    if sys.argv[1:] == ["raise"] and i == 3:
        raise KeyboardInterrupt
    print("step", i, flush=True)
    time.sleep(0.05)
"""

# A terminal's job gets Ctrl-C as SIGINT at its default, as an interactive shell starts it.
SIGINT_DEFAULT = [
    sys.executable,
    "-c",
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
    "os.execv(sys.argv[1], sys.argv[1:])",
]


def test_an_unhandled_keyboard_interrupt_ends_as_under_python(tmp_path):
    (tmp_path / "prog.py").write_text(INTERRUPTED)
    plain, watched = both(tmp_path, ["prog.py", "raise"])
    assert plain.returncode == watched.returncode == -signal.SIGINT
    assert watched.stdout == plain.stdout
    assert programs_own(watched.stderr) == plain.stderr
    # finalised before the end by SIGINT: the file's buffer written, as under python
    assert (tmp_path / "progress.log").read_text().splitlines()[-1] == "step 3"


def test_ctrl_c_on_a_terminal_keeps_what_python_keeps(tmp_path):
    (tmp_path / "prog.py").write_text(INTERRUPTED)
    env = terminal()
    prog = str(tmp_path / "prog.py")
    plain = run_on_pty([*SIGINT_DEFAULT, sys.executable, prog], env=env, ctrl_c_after=("step", 3))
    kept = (tmp_path / "progress.log").read_text().splitlines()
    assert plain.status == -signal.SIGINT and kept[-1].startswith("step"), plain.output
    (tmp_path / "progress.log").unlink()
    watch = [*JITLAB, "watch", "--out", str(tmp_path / "run.jsonl"), "--", "python", prog]
    watched = run_on_pty([*SIGINT_DEFAULT, *watch], env=env, ctrl_c_after=("step", 3))
    assert watched.status == -signal.SIGINT, watched.output
    assert TABLE in watched.output
    kept = (tmp_path / "progress.log").read_text().splitlines()
    assert kept and kept[-1].startswith("step")  # the unclosed file's buffer, written


# -- on a terminal: a prompt, the stack, a traceback ---------------------------------------------
ON_A_TERMINAL = """
import sys, traceback
import numpy as np
import jax
print("a terminal:", sys.stdin.isatty(), sys.stdout.isatty(), sys.stdout.line_buffering)
name = input("name? ")
print("hello", name, jax.jit(lambda x: x * 2)(np.float32(21)))
traceback.print_stack()
raise ValueError(f"bad name {name!r}")
"""


def test_on_a_terminal_the_program_reads_prints_and_fails_as_under_python(tmp_path):
    (tmp_path / "prog.py").write_text(ON_A_TERMINAL)
    prog = str(tmp_path / "prog.py")
    env = terminal()
    plain = run_on_pty([sys.executable, prog], env=env, type_after=("name? ", 1, "bob\r"))
    watch = [*JITLAB, "watch", "--out", str(tmp_path / "run.jsonl"), "--", "python", prog]
    watched = run_on_pty(watch, env=env, type_after=("name? ", 1, "bob\r"))
    assert plain.status == watched.status == 1, watched.output[-3000:]
    lines = screen(watched.output)
    table = next(i for i, line in enumerate(lines) if TABLE in line)
    assert lines[:table] == screen(plain.output)
    assert "ValueError: bad name 'bob'" in lines[table - 1]
    assert calls(tmp_path / "run.jsonl") == ["<lambda>"]


# -- where python is not handed the program, and a child forked before JAX ------------------------
COMPILES = """
import os, sys
pid = os.fork() if sys.argv[1:] == ["fork"] else None
import numpy as np
import jax
def step(x):
    return x * 2
# One write per process: parent and child print at once, and print's text and its newline
# may reach the pipe as two writes, interleaved with the other's.
os.write(1, f"{jax.jit(step)(np.ones(2, np.float32))}\\n".encode())
if pid == 0:
    os._exit(0)
if pid:
    os.waitpid(pid, 0)
"""


def test_with_minus_i_python_reads_no_pythonpath_and_the_program_runs_inside_the_watch(tmp_path):
    (tmp_path / "prog.py").write_text(COMPILES)
    plain, watched = both(tmp_path, ["-I", "prog.py"])
    assert plain.returncode == watched.returncode == 0, watched.stderr[-3000:]
    assert watched.stdout == plain.stdout
    assert calls(tmp_path / "run.jsonl") == ["step"]


def test_a_child_forked_before_the_program_imports_jax_records_its_own_file(tmp_path):
    (tmp_path / "prog.py").write_text(COMPILES)
    plain, watched = both(tmp_path, ["prog.py", "fork"])
    assert plain.returncode == watched.returncode == 0, watched.stderr[-3000:]
    assert sorted(watched.stdout.splitlines()) == sorted(plain.stdout.splitlines())
    parent = json.loads((tmp_path / "run.jsonl").read_text().splitlines()[0])
    (child,) = tmp_path.glob("run.pid*.jsonl")
    first = json.loads(child.read_text().splitlines()[0])
    assert first["type"] == "start" and first["parent"] == parent["pid"]
    assert calls(child) == calls(tmp_path / "run.jsonl") == ["step"]
