"""`jitlab watch -- python ARGS` runs the program as `python ARGS` would, and the recording
survives the ways a program ends (issues 19 item 9 and 20): real subprocesses, signals, files."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest
from environment_lines import program_lines

import jitlab

pytestmark = pytest.mark.slow

JITLAB = [sys.executable, "-m", "jitlab.cli"]
# jitlab's own code, by its folder (a checkout may well be named "jitlab" too).
PACKAGE = str(Path(jitlab.__file__).resolve().parent)
TIMEOUT = 180

# What the program sees of itself, written to module.json next to it.
SELF = """
import json, os, sys
main = sys.modules["__main__"]
seen = {
    "keys": sorted(k for k in vars(main) if k.startswith("__")),
    "file": getattr(main, "__file__", None),
    "loader": type(getattr(main, "__loader__", None)).__name__,
    "builtins": type(main.__builtins__).__name__,
    "spec": getattr(main.__spec__, "name", None),
    "package": main.__package__,
    "argv": sys.argv,
    "path0": sys.path[0],
    "main_is_module": main is sys.modules["__main__"],
    "dev_mode": sys.flags.dev_mode,
    "optimize": sys.flags.optimize,
    "warnoptions": sys.warnoptions,
}
with open(os.path.join(os.environ["SEEN_DIR"], "module.json"), "w") as f:
    json.dump(seen, f)
"""


def run(argv: list[str], cwd: Path, **kw) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT, cwd=cwd, **kw)


def seen_under(tmp_path: Path, python_args: list[str]) -> tuple[dict, dict]:
    """module.json from `python ARGS` and from `jitlab watch -- python ARGS`."""
    env = {**os.environ, "SEEN_DIR": str(tmp_path)}
    plain = run([sys.executable, *python_args, "x", "--epochs", "3"], tmp_path, env=env)
    assert plain.returncode == 0, plain.stderr
    plain_seen = json.loads((tmp_path / "module.json").read_text())
    watched = run(
        [
            *JITLAB,
            "watch",
            "--out",
            "rec.jsonl",
            "--",
            "python",
            *python_args,
            "x",
            "--epochs",
            "3",
        ],
        tmp_path,
        env=env,
    )
    assert watched.returncode == 0, watched.stderr
    return plain_seen, json.loads((tmp_path / "module.json").read_text())


def test_a_script_sees_itself_as_under_python(tmp_path):
    # A name that begins with "python", with its own options after it: a script, not python.
    (tmp_path / "python_train.py").write_text(SELF)
    plain, watched = seen_under(tmp_path, ["python_train.py"])
    assert watched == plain
    assert os.path.isabs(watched["file"]) and watched["builtins"] == "module"
    assert watched["loader"] == "SourceFileLoader"


@pytest.mark.parametrize("kind", ["folder", "zip", "module"])
def test_a_folder_a_zip_and_a_module_run_as_under_python(tmp_path, kind):
    if kind == "folder":
        (tmp_path / "app").mkdir()
        (tmp_path / "app" / "__main__.py").write_text(SELF)
        args = ["app"]
    elif kind == "zip":
        with zipfile.ZipFile(tmp_path / "app.zip", "w") as z:
            z.writestr("__main__.py", SELF)
        args = ["app.zip"]
    else:
        (tmp_path / "pkg").mkdir()
        (tmp_path / "pkg" / "__init__.py").write_text("")
        (tmp_path / "pkg" / "tool.py").write_text(SELF)
        args = ["-m", "pkg.tool"]
    plain, watched = seen_under(tmp_path, args)
    assert watched == plain


def test_interpreter_options_hold_as_under_python(tmp_path):
    (tmp_path / "prog.py").write_text(SELF)
    plain, watched = seen_under(tmp_path, ["-X", "dev", "-W", "error", "-O", "-u", "prog.py"])
    assert watched == plain
    assert watched["dev_mode"] and watched["optimize"] == 1 and "error" in watched["warnoptions"]
    done = run([*JITLAB, "watch", "--", "python", "-i", "prog.py"], tmp_path)
    assert done.returncode == 2 and len(program_lines(done.stderr)) == 1, done.stderr
    assert "-i" in done.stderr


CRASH = """
import sys
import jax, jax.numpy as jnp

def step(x):
    return jax.jit(lambda v: v * 2)(x)

def bad(x):
    raise ValueError("bad batch")

def train():
    step(jnp.ones(2))
    if "--in-jit" in sys.argv:
        jax.jit(bad)(jnp.ones(2))  # raised inside the watched call
    raise ValueError("bad batch")

if "--hook" in sys.argv:
    sys.excepthook = lambda t, v, tb: print(f"the program's hook: {t.__name__}: {v}",
                                            file=sys.stderr)
train()
"""


def _traceback(stderr: str) -> list[str]:
    lines = stderr.splitlines()
    start = lines.index("Traceback (most recent call last):")
    end = next(i for i, line in enumerate(lines) if line.startswith("ValueError"))
    return lines[start : end + 1]


def test_a_traceback_starts_at_the_users_code_and_its_own_hook_runs(tmp_path):
    (tmp_path / "prog.py").write_text(CRASH)
    plain = run([sys.executable, "prog.py"], tmp_path)
    watched = run([*JITLAB, "watch", "--out", "r.jsonl", "--", "python", "prog.py"], tmp_path)
    assert watched.returncode == plain.returncode == 1
    assert _traceback(watched.stderr) == _traceback(plain.stderr)
    assert PACKAGE not in "\n".join(_traceback(watched.stderr))  # no frame of jitlab's
    plain = run([sys.executable, "prog.py", "--in-jit"], tmp_path)
    watched = run(
        [*JITLAB, "watch", "--out", "r.jsonl", "--", "python", "prog.py", "--in-jit"], tmp_path
    )
    assert watched.returncode == plain.returncode == 1
    assert _traceback(watched.stderr) == _traceback(plain.stderr)  # no probe frames inside
    hooked = run(
        [*JITLAB, "watch", "--out", "r.jsonl", "--", "python", "prog.py", "--hook"], tmp_path
    )
    assert hooked.returncode == 1
    assert "the program's hook: ValueError: bad batch" in hooked.stderr
    assert "Traceback" not in hooked.stderr


def lines_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_sigterm_ends_as_plain_python_with_the_last_hits_and_the_end_written(tmp_path):
    (tmp_path / "prog.py").write_text(
        textwrap.dedent(
            """
            import sys, time
            import jax, jax.numpy as jnp
            f = jax.jit(lambda x: x + 1)
            x = jnp.ones(2)
            for _ in range(57):
                f(x)
            print("ready", flush=True)
            for _ in range(600):
                time.sleep(0.5)
            """
        )
    )
    proc = subprocess.Popen(
        [*JITLAB, "watch", "--out", "r.jsonl", "--", "python", "prog.py"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout.readline().strip() == "ready"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=TIMEOUT) == -signal.SIGTERM  # as a plain run
    finally:
        proc.kill()
        proc.communicate(timeout=TIMEOUT)
    lines = lines_of(tmp_path / "r.jsonl")
    assert lines[-1]["type"] == "end" and lines[-1]["signal"] == "SIGTERM"
    assert [line["hits"] for line in lines if line["type"] == "hits"][-1] == 56


def test_os_exit_keeps_the_counts_and_the_summary_says_the_end_was_abrupt(tmp_path):
    (tmp_path / "prog.py").write_text(
        "import os\nimport jax, jax.numpy as jnp\n"
        "f = jax.jit(lambda x: x + 1)\n"
        "for _ in range(41):\n    f(jnp.ones(2))\n"
        "g = jax.jit(lambda x: x * 3)\n"
        "g(jnp.ones(2))\n"
        "os._exit(3)\n"
    )
    done = run([*JITLAB, "watch", "--out", "r.jsonl", "--", "python", "prog.py"], tmp_path)
    assert done.returncode == 3
    lines = lines_of(tmp_path / "r.jsonl")
    assert "end" not in [line["type"] for line in lines]
    g_compile = [i for i, line in enumerate(lines) if line["type"] == "call"][1]
    before = [line for line in lines[:g_compile] if line["type"] == "hits"]
    assert before and before[-1]["hits"] == 40  # written before g's compile, not lost
    summary = run([*JITLAB, "summary", "r.jsonl"], tmp_path)
    assert "no end line" in summary.stdout and "os._exit" in summary.stdout


def test_chdir_and_closed_streams_end_as_under_python(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "x.txt").write_text("42")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "prog.py").write_text(
        textwrap.dedent(
            """
            import os, sys
            import jax, jax.numpy as jnp
            here = os.path.dirname(__file__)
            os.chdir(os.path.join(here, "elsewhere"))
            print(open(os.path.join(here, "data", "x.txt")).read())
            jax.jit(lambda x: x + 1)(jnp.ones(2))
            sys.stdout.close()
            sys.stderr.close()
            """
        )
    )
    plain = run([sys.executable, "prog.py"], tmp_path)
    watched = run([*JITLAB, "watch", "--out", "chdir.jsonl", "--", "python", "prog.py"], tmp_path)
    assert watched.returncode == plain.returncode == 0, watched.stderr
    assert watched.stdout == plain.stdout == "42\n"
    assert lines_of(tmp_path / "chdir.jsonl")[-1]["type"] == "end"  # where it started
    assert not (tmp_path / "elsewhere" / "chdir.jsonl").exists()


def test_undecodable_argv_and_a_surrogate_in_a_message_are_recorded(tmp_path):
    (tmp_path / "prog.py").write_text(
        "import sys\nimport jax, jax.numpy as jnp\n"
        "@jax.jit\ndef f(x):\n    raise ValueError('bad: ' + sys.argv[1])\n"
        "try:\n    f(jnp.ones(2))\nexcept ValueError:\n    pass\n"
        "sys.exit(sys.argv[1] == '\\udcff' and 5)\n"
    )
    argv = [os.fsencode(a) for a in (*JITLAB, "watch", "--out", "r.jsonl", "--")]
    plain = subprocess.run(
        [os.fsencode(sys.executable), b"prog.py", b"\xff"],
        capture_output=True,
        timeout=TIMEOUT,
        cwd=tmp_path,
    )
    done = subprocess.run(
        [*argv, b"python", b"prog.py", b"\xff"], capture_output=True, timeout=TIMEOUT, cwd=tmp_path
    )
    assert done.returncode == plain.returncode == 5, done.stderr.decode(errors="replace")
    assert b"UnicodeEncodeError" not in done.stderr
    lines = lines_of(tmp_path / "r.jsonl")
    assert lines[0]["argv"] == ["prog.py", "\udcff"]
    errors = [line for line in lines if line["type"] == "call" and line["kind"] == "error"]
    assert errors and "\udcff" in errors[0]["error"]["message"]
    for command in (["summary", "r.jsonl"], ["report", "r.jsonl", "-o", "r.html"]):
        shown = subprocess.run(
            [*JITLAB, *command], capture_output=True, text=True, timeout=TIMEOUT, cwd=tmp_path
        )
        assert shown.returncode == 0 and "Traceback" not in shown.stderr, shown.stderr


CHILDREN = """
import multiprocessing as mp, sys
import jax, jax.numpy as jnp

def work(n):
    f = jax.jit(lambda x: x * n)
    for _ in range(4):
        f(jnp.ones(3))

if __name__ == "__main__":
    ctx = mp.get_context(sys.argv[1])
    children = [ctx.Process(target=work, args=(i,)) for i in range(2)]
    for child in children:
        child.start()
    for child in children:
        child.join(timeout=120)
    print("exit codes", [child.exitcode for child in children])
    g = jax.jit(lambda x: x - 1)  # the parent compiles after the forks (JAX must not be forked)
    g(jnp.ones(2))
"""


def test_forked_children_record_their_own_files_and_spawned_ones_are_said_unwatched(tmp_path):
    (tmp_path / "prog.py").write_text(CHILDREN)
    done = run(
        [*JITLAB, "watch", "--out", "run.jsonl", "--", "python", "prog.py", "fork"], tmp_path
    )
    assert done.returncode == 0 and "exit codes [0, 0]" in done.stdout, done.stderr
    parent = lines_of(tmp_path / "run.jsonl")
    g_line = next(
        i for i, text in enumerate(CHILDREN.splitlines(), 1) if text.startswith("    g =")
    )
    compiled_at = [line["defined_at"] for line in parent if line["type"] == "call"]
    assert compiled_at == [f"{tmp_path / 'prog.py'}:{g_line}"]  # the parent's own only
    children = sorted(tmp_path.glob("run.pid*.jsonl"))
    assert len(children) == 2
    for path in children:
        lines = lines_of(path)
        assert lines[0]["type"] == "start" and lines[0]["parent"] == parent[0]["pid"]
        assert [line["type"] for line in lines].count("call") == 1
        assert [line["hits"] for line in lines if line["type"] == "hits"][-1] == 3
        assert lines[-1]["type"] == "end"
    assert "run.pid" in done.stderr  # the summary names them
    streamed = run(
        [*JITLAB, "watch", "--out", "/dev/null", "--", "python", "prog.py", "fork"], tmp_path
    )
    assert streamed.returncode == 0, streamed.stderr
    assert "2 forked child process(es) not recorded" in streamed.stderr  # said, never silent
    spawned = run(
        [*JITLAB, "watch", "--out", "s.jsonl", "--", "python", "prog.py", "spawn"], tmp_path
    )
    assert spawned.returncode == 0 and "exit codes [0, 0]" in spawned.stdout, spawned.stderr
    assert "spawn" in spawned.stderr and "not watched" in spawned.stderr


def test_a_call_failing_thousands_of_times_is_kept_bounded_and_counted_exactly():
    import tracemalloc

    import jax
    import jax.numpy as jnp

    import jitlab

    with jitlab.watch(None) as recorder:

        @jax.jit
        def f(x):
            if x.sum() > 0:  # fails while tracing, so JAX traces it again on every call
                return x
            return -x

        x = jnp.ones(3)
        tracemalloc.start()
        for _ in range(500):
            with pytest.raises(jax.errors.TracerBoolConversionError):
                f(x)
        grown, _ = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    errors = [c for c in recorder.calls if c.record.error is not None]
    (key,) = recorder.errors
    assert recorder.errors[key] == 500  # exact
    assert len(errors) == 20 and len(recorder.latest_errors[key]) == 20  # first and latest
    assert all(c.record.error.exception is None for c in errors)  # no traceback's frames kept
    assert grown < 2_000_000, grown  # was ~12 KB per failing call


# A terminal's job gets Ctrl-C as SIGINT at its default, as an interactive shell starts it;
# a suite started with SIGINT ignored (`nohup … &`, `bash -c '… & wait'`, many CI runners)
# would hand the ignored signal down, and even plain python would then ignore the ^C.
SIGINT_DEFAULT = [
    sys.executable,
    "-c",
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
    "os.execv(sys.argv[1], sys.argv[1:])",
]


def test_ctrl_c_on_a_terminal_ends_as_under_python_with_the_recording_complete(tmp_path):
    from ptyrun import run_on_pty

    (tmp_path / "prog.py").write_text(
        textwrap.dedent(
            """
            import time
            import jax, jax.numpy as jnp
            f = jax.jit(lambda x: x + 1)
            for i in range(10_000):
                f(jnp.ones(2))
                print("step", i, flush=True)
                time.sleep(0.05)
            """
        )
    )
    env = {**os.environ, "TERM": "xterm-256color"}
    plain = run_on_pty(
        [*SIGINT_DEFAULT, sys.executable, str(tmp_path / "prog.py")],
        env=env,
        ctrl_c_after=("step", 3),
    )
    out = str(tmp_path / "r.jsonl")
    watched = run_on_pty(
        [
            *SIGINT_DEFAULT,
            *JITLAB,
            "watch",
            "--out",
            out,
            "--",
            "python",
            str(tmp_path / "prog.py"),
        ],
        env=env,
        ctrl_c_after=("step", 3),
    )
    assert watched.status == plain.status == -signal.SIGINT  # the shell shows 130 for both
    assert "KeyboardInterrupt" in watched.output and "KeyboardInterrupt" in plain.output
    assert PACKAGE not in watched.output.split("KeyboardInterrupt")[0].split("Traceback")[-1]
    lines = lines_of(Path(out))
    assert lines[-1]["type"] == "end" and lines[-1]["t"] > 0
    assert [line["hits"] for line in lines if line["type"] == "hits"][-1] >= 2
