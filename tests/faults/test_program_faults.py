"""What the program itself does, under ``jitlab watch`` as under plain python (issue 51 rows
2-5, 7, 10, 11): it joins every thread but main, chains to the SIGTERM handler it replaced,
moves its stderr, compiles in its exit functions, replaces itself by ``exec``, names another
Python, and logs the tracebacks it catches. Each is a real program in a subprocess (real
signals, real descriptors, a real pseudo-terminal, a real exec), run under plain python and
under the watch, compared; the compiles recorded are those JAX's own log shows."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest
from ptyrun import run_on_pty

import jitlab

pytestmark = pytest.mark.slow

JITLAB = [sys.executable, "-m", "jitlab.cli"]
TIMEOUT = 300  # a run that takes longer is taken for a hang (no duration is asserted)
TABLE = "jitlab watch ·"  # the end table's title


def run(argv: list[str], cwd: Path, **kw) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200", **kw.pop("env", {})}
    try:
        return subprocess.run(
            argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT, **kw
        )
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"no end after {TIMEOUT} s: {exc.stdout!r} {exc.stderr!r}"[-3000:])


def both(tmp_path: Path, source: str, *args: str, env=None):
    """The program run by plain python, then under ``jitlab watch`` (recording run.jsonl)."""
    (tmp_path / "prog.py").write_text(textwrap.dedent(source))
    plain = run([sys.executable, "prog.py", *args], tmp_path, env=env or {})
    watched = run(
        [*JITLAB, "watch", "--out", "run.jsonl", "--", "python", "prog.py", *args],
        tmp_path,
        env=env or {},
    )
    return plain, watched


def lines_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def user_compiles(stderr: str) -> list[str]:
    """The functions of the program JAX's log (``JAX_LOG_COMPILES``) says it compiled."""
    return sorted(
        line.split("Compiling jit(", 1)[1].split(")", 1)[0]
        for line in stderr.splitlines()
        if "Compiling jit(" in line and "Compiling jit(<lambda>" not in line
        and not any(f"jit({k})" in line for k in ("broadcast_in_dim", "convert_element_type"))
    )  # fmt: skip


def recorded(path: Path) -> list[str]:
    return sorted(x["function"] for x in lines_of(path) if x["type"] == "call")


# -- row 2: the threads the program sees ------------------------------------------------------
JOIN_ALL = """
import threading
import numpy as np
import jax
def step(x):
    return x * 2
jax.jit(step)(np.ones(3, np.float32))
print(sorted(t.name for t in threading.enumerate()), threading.active_count())
for t in threading.enumerate():  # joins every thread but main: never returns if one lives on
    if t is not threading.main_thread():
        t.join()
print("joined")
"""


def test_a_program_that_joins_every_thread_but_main_returns_as_under_python(tmp_path):
    plain, watched = both(tmp_path, JOIN_ALL)
    assert plain.returncode == watched.returncode == 0, watched.stderr[-2000:]
    assert watched.stdout == plain.stdout == "['MainThread'] 1\njoined\n"
    assert lines_of(tmp_path / "run.jsonl")[-1]["type"] == "end"


# -- row 3: a SIGTERM handler that chains to the one it replaced ------------------------------
# PyTorch Lightning's signal connector (trainer/connectors/signal_connector.py): it keeps a
# handler it finds (getsignal not in (None, SIG_DFL)) and calls each one that is callable.
CHAINED = """
import os, signal, sys, time
import numpy as np
import jax
def step(x):
    return x + 1
step = jax.jit(step)
step(np.ones(2, np.float32))
stop = []
class Compose:
    def __init__(self, handlers):
        self.handlers = handlers
    def __call__(self, signum, frame):
        for handler in self.handlers:
            if callable(handler):
                handler(signum, frame)
def on_term(signum, frame):
    stop.append(signum)
previous = signal.getsignal(signal.SIGTERM)
kept = [previous] if previous not in (None, signal.SIG_DFL) else []
signal.signal(signal.SIGTERM, Compose([on_term, *kept]))
print("ready", flush=True)
while not stop:
    step(np.ones(2, np.float32))
    time.sleep(0.01)
with open(sys.argv[1], "w") as f:  # the checkpoint written on the way out
    f.write("checkpoint")
print("saved", flush=True)
"""


def _terminated(argv: list[str], cwd: Path) -> tuple[int, str]:
    proc = subprocess.Popen(
        argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline() == "ready\n"
        proc.send_signal(signal.SIGTERM)  # a real signal, from outside, as a scheduler sends
        out, _ = proc.communicate(timeout=TIMEOUT)
    finally:
        proc.kill()
        proc.communicate()
    return proc.returncode, out


def test_a_sigterm_handler_that_chains_to_the_one_it_replaced_saves_as_under_python(tmp_path):
    (tmp_path / "prog.py").write_text(CHAINED)
    plain = _terminated([sys.executable, "prog.py", "plain.ckpt"], tmp_path)
    argv = [*JITLAB, "watch", "--out", "run.jsonl", "--", "python", "prog.py", "watched.ckpt"]
    watched = _terminated(argv, tmp_path)
    assert plain == watched == (0, "saved\n")
    assert (tmp_path / "watched.ckpt").read_text() == "checkpoint"
    lines = lines_of(tmp_path / "run.jsonl")
    assert lines[-1] == {"type": "end", "t": lines[-1]["t"]}  # an ordinary end: no signal


def test_sigterm_to_a_program_without_a_handler_still_ends_the_recording(tmp_path):
    (tmp_path / "prog.py").write_text(
        "import time, numpy as np, jax\nf = jax.jit(lambda x: x + 1)\nf(np.ones(2))\n"
        "print('ready', flush=True)\ntime.sleep(600)\n"
    )
    argv = [*JITLAB, "watch", "--out", "run.jsonl", "--", "python", "prog.py"]
    status, _ = _terminated(argv, tmp_path)
    assert status == -signal.SIGTERM
    assert lines_of(tmp_path / "run.jsonl")[-1]["signal"] == "SIGTERM"


# -- row 4: a program that moves its stderr -----------------------------------------------------
MOVES_STDERR = """
import io, os, sys
import numpy as np
import jax
if sys.argv[1] == "dup2":
    log = os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.dup2(log, 2)
else:
    sys.stderr = kept = io.StringIO()
def step(x):
    return x * 2
step = jax.jit(step)
for n in range(1, 5):  # recompiles: --warn-after 2 says so live
    step(np.ones(n, np.float32))
print("the program's own line", file=sys.stderr)
sys.stderr.flush()
if sys.argv[1] != "dup2":
    print(repr(kept.getvalue()))
"""


@pytest.mark.parametrize("how", ["dup2", "assign"])
def test_a_program_that_moves_its_stderr_keeps_its_log_and_jitlab_speaks_on_the_terminal(
    tmp_path, how
):
    (tmp_path / "prog.py").write_text(MOVES_STDERR)
    plain = run([sys.executable, "prog.py", how, "plain.log"], tmp_path)
    argv = ["watch", "--warn-after", "2", "--out", "run.jsonl", "--", "python", "prog.py"]
    watched = run([*JITLAB, *argv, how, "watched.log"], tmp_path)
    assert plain.returncode == watched.returncode == 0, watched.stderr[-2000:]
    assert watched.stdout == plain.stdout
    if how == "dup2":
        log = (tmp_path / "watched.log").read_text()
        assert log == (tmp_path / "plain.log").read_text() == "the program's own line\n"
    # jitlab's words, the live warning and the end table, on the command's own stderr
    assert TABLE in watched.stderr and "recompile-limit" in watched.stderr


def test_on_a_real_terminal_jitlab_speaks_there_and_the_programs_log_stays_its_own(tmp_path):
    (tmp_path / "prog.py").write_text(MOVES_STDERR)
    prog, log = str(tmp_path / "prog.py"), str(tmp_path / "watched.log")
    out = str(tmp_path / "run.jsonl")
    argv = [*JITLAB, "watch", "--warn-after", "2", "--out", out, "--", "python", prog, "dup2"]
    result = run_on_pty([*argv, log], env={**os.environ, "TERM": "xterm"})
    assert result.status == 0, result.output[-2000:]
    assert TABLE in result.output and "recompile-limit" in result.output
    assert Path(log).read_text() == "the program's own line\n"


# -- row 5: compiles in the program's exit functions ---------------------------------------------
AT_EXIT = """
import atexit, sys
import numpy as np
import jax
def train(x):
    return x * 2
def evaluate(x):
    return x - 1
train = jax.jit(train)
train(np.ones(3, np.float32))
def final_evaluation():  # registered by the program: runs at exit, and compiles
    e = jax.jit(evaluate)
    e(np.ones(3, np.float32)); e(np.ones(4, np.float32)); train(np.ones(5, np.float32))
    print("evaluated", file=sys.stderr, flush=True)
atexit.register(final_evaluation)
"""


def test_compiles_in_the_programs_exit_functions_are_recorded_before_the_table(tmp_path):
    plain, watched = both(tmp_path, AT_EXIT, env={"JAX_LOG_COMPILES": "1"})
    assert plain.returncode == watched.returncode == 0, watched.stderr[-2000:]
    assert plain.stdout == watched.stdout
    logged = user_compiles(watched.stderr)
    assert logged == user_compiles(plain.stderr) == ["evaluate", "evaluate", "train", "train"]
    assert recorded(tmp_path / "run.jsonl") == logged
    assert watched.stderr.index("evaluated") < watched.stderr.index(TABLE)


# -- row 7: os.execv restarts ------------------------------------------------------------------
RESUME = """
import os, sys
import numpy as np
import jax
def step(x):
    return x * 2
step = jax.jit(step)
n = int(sys.argv[1]) if len(sys.argv) > 1 else 0
step(np.ones(3 + n, np.float32))
print("round", n, os.getpid(), flush=True)
if n < 2:  # resume: the same program again, one round further
    os.execv(sys.executable, [sys.executable, sys.argv[0], str(n + 1)])
"""


def test_an_exec_restart_is_recorded_and_the_new_image_followed(tmp_path):
    plain, watched = both(tmp_path, RESUME, env={"JAX_LOG_COMPILES": "1"})
    assert plain.returncode == watched.returncode == 0, watched.stderr[-2000:]
    rounds = [line.split()[:2] for line in watched.stdout.splitlines()]
    assert rounds == [line.split()[:2] for line in plain.stdout.splitlines()]
    assert len({line.split()[2] for line in watched.stdout.splitlines()}) == 1  # one process
    lines = lines_of(tmp_path / "run.jsonl")
    assert [x["type"] for x in lines].count("start") == 3
    assert [x["notice"] for x in lines if x["type"] == "notice"] == ["exec", "exec"]
    assert user_compiles(watched.stderr) == recorded(tmp_path / "run.jsonl") == ["step"] * 3
    said = " ".join(watched.stderr.split())
    assert said.count(TABLE) == 1 and "replaced itself by exec" in said


def test_an_exec_of_another_program_ends_the_recording_and_says_so(tmp_path):
    source = RESUME.replace(
        "os.execv(sys.executable, [sys.executable, sys.argv[0], str(n + 1)])",
        'os.execv("/bin/echo", ["echo", "bye"])',
    )
    plain, watched = both(tmp_path, source)
    assert plain.returncode == watched.returncode == 0
    assert [x.split()[:2] for x in watched.stdout.splitlines()] == [["round", "0"], ["bye"]]
    lines = lines_of(tmp_path / "run.jsonl")
    assert [x["notice"] for x in lines if x["type"] == "notice"] == ["exec_not_followed"]
    assert lines[-1]["type"] == "end"
    said = " ".join(watched.stderr.split())
    assert TABLE in said and "/bin/echo, which jitlab cannot watch" in said


# -- row 10: another Python named --------------------------------------------------------------
WHERE = "import sys\nprint(sys.prefix)\n"


def _venv(folder: Path, *, with_jitlab: bool) -> Path:
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True, timeout=TIMEOUT
    )
    python = folder / "bin" / "python"
    if with_jitlab:  # this environment's packages (JAX, jitlab) seen from the new one
        ask = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
        purelib = run([str(python), "-c", ask], folder).stdout.strip()
        ours = sysconfig.get_paths()["purelib"]
        root = str(Path(jitlab.__file__).resolve().parents[1])
        (Path(purelib) / "ours.pth").write_text(f"import site; site.addsitedir({ours!r})\n{root}\n")
    return python


def test_a_python_named_in_the_command_runs_the_program(tmp_path):
    python = _venv(tmp_path / "other", with_jitlab=True)
    (tmp_path / "prog.py").write_text(WHERE)
    plain = run([str(python), "prog.py"], tmp_path)
    watched = run([*JITLAB, "watch", "--out", "run.jsonl", "--", str(python), "prog.py"], tmp_path)
    assert plain.returncode == watched.returncode == 0, watched.stderr[-2000:]
    assert watched.stdout == plain.stdout == f"{tmp_path / 'other'}\n"
    assert lines_of(tmp_path / "run.jsonl")[-1]["type"] == "end"


def test_a_python_that_cannot_run_jitlab_is_refused_in_one_line(tmp_path):
    python = _venv(tmp_path / "bare", with_jitlab=False)  # the same executable, another venv
    (tmp_path / "prog.py").write_text("print('the program ran')\n")
    done = run([*JITLAB, "watch", "--out", "run.jsonl", "--", str(python), "prog.py"], tmp_path)
    assert done.returncode == 2 and "the program ran" not in done.stdout
    (line,) = done.stderr.strip().splitlines()
    assert str(python) in line and "cannot import jitlab" in line
    assert not (tmp_path / "run.jsonl").exists()


# -- row 11: a traceback the program catches and logs ------------------------------------------
LOGS = """
import logging, sys, traceback
import numpy as np
import jax
logging.basicConfig(stream=sys.stdout, format="%(message)s")
def bad(x):
    return x.reshape(7)
def outer(x):
    return jax.jit(bad)(x) + 1  # a jitted function inside another one's trace
for fun in (jax.jit(bad), jax.jit(outer)):
    try:
        fun(np.ones(3, np.float32))
    except Exception:
        print(traceback.format_exc())
        logging.exception("caught")
try:
    jax.jit(bad, static_argnums="x")
except Exception:
    print(traceback.format_exc())
"""


@pytest.mark.parametrize("filtering", ["auto", "off", "remove_frames"])
def test_a_caught_traceback_is_the_one_python_would_log(tmp_path, filtering):
    plain, watched = both(tmp_path, LOGS, env={"JAX_TRACEBACK_FILTERING": filtering})
    assert plain.returncode == watched.returncode == 0, watched.stderr[-2000:]
    assert "cannot reshape" in plain.stdout and "static_argnums" in plain.stdout
    assert watched.stdout == plain.stdout  # byte for byte
