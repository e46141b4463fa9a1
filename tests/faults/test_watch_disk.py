"""The recorder never kills the program (issue 40): a full disk under ``--out`` (a real 24 KB
tmpfs), a file size limit (``RLIMIT_FSIZE``), a program that closes every descriptor
(``os.closerange(3, 4096)``, as daemons do) or deletes the recording's folder. Recording
failures stop the recording with one line on stderr and the program goes on exactly as
under plain python; ``--out /dev/full`` is refused before the program runs. Real
subprocesses, real files, real filesystems."""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from environment_lines import program_lines

from jitlab.recordings.reader import read_recording

pytestmark = pytest.mark.slow

JITLAB = [sys.executable, "-m", "jitlab.cli"]
TIMEOUT = 240

# One function compiled at 40 shapes: 40 call lines of about 800 bytes each.
MANY = """
import jax, jax.numpy as jnp

@jax.jit
def f(x):
    return x * 2

total = 0
for n in range(1, 41):
    total += int(f(jnp.ones(n)).sum())
print("total", total)
"""


def run(argv: list[str], cwd: Path, **kw) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT, **kw)


def stopped_lines(stderr: str) -> list[str]:
    return [
        line for line in stderr.splitlines() if "recording stopped" in line or "记录已停止" in line
    ]


def call_lines(path: Path) -> list[dict]:
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    return [line for line in lines if line["type"] == "call"]


def _unshare() -> list[str]:
    """A private mount namespace (as root; else also a user namespace that maps us to root)."""
    tool = shutil.which("unshare")
    if tool is None or not sys.platform.startswith("linux"):
        pytest.skip("no unshare(1): no private mount namespace for a small tmpfs")
    if os.geteuid() == 0:
        return [tool, "--mount"]
    return [tool, "--user", "--map-root-user", "--mount"]


# Mount a tmpfs of $SIZE on $DISK in a private mount namespace, run the command there, keep
# the recording ($DISK/rec.jsonl -> $KEPT: the tmpfs goes with the namespace).
_ON_SMALL_DISK = (
    'mount -t tmpfs -o size="$SIZE" tmpfs "$DISK" || exit 97; "$@"; status=$?; '
    'cp "$DISK/rec.jsonl" "$KEPT" 2>/dev/null; exit $status'
)


def on_small_disk(tmp_path: Path, argv: list[str], size: str = "24k"):
    disk, kept = tmp_path / "disk", tmp_path / "kept.jsonl"
    disk.mkdir(exist_ok=True)
    kept.unlink(missing_ok=True)
    env = {**os.environ, "SIZE": size, "DISK": str(disk), "KEPT": str(kept)}
    done = run([*_unshare(), "sh", "-c", _ON_SMALL_DISK, "sh", *argv], tmp_path, env=env)
    if done.returncode == 97 or done.stderr.startswith("unshare:"):
        pytest.skip(f"cannot mount a small tmpfs here: {done.stderr.strip()[:200]}")
    return done, kept


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_full_disk_stops_the_recording_in_one_line_and_the_program_goes_on(tmp_path, lang):
    (tmp_path / "prog.py").write_text(MANY)
    plain = run([sys.executable, "prog.py"], tmp_path)
    assert plain.returncode == 0, plain.stderr
    out = str(tmp_path / "disk" / "rec.jsonl")
    command = [*JITLAB, "--lang", lang, "watch", "--out", out, "--", "python", "prog.py"]
    watched, kept = on_small_disk(tmp_path, command)
    # The program went on as plain: its output and status, no traceback.
    assert (watched.returncode, watched.stdout) == (0, plain.stdout), watched.stderr
    assert "Traceback" not in watched.stderr and "Errno" not in watched.stderr, watched.stderr
    # One line says where it stopped; the file holds exactly the calls before it, whole.
    [line] = stopped_lines(watched.stderr)
    calls = call_lines(kept)
    n = len(calls) + 1
    assert 1 < n < 41, line
    if lang == "en":
        assert (
            f"recording stopped: disk full at call {n}; the recording holds calls 1…{n - 1}" in line
        )
    else:
        assert f"记录已停止：第 {n} 次调用时磁盘已满" in line and f"第 1…{n - 1} 次调用" in line
    recording, _ = read_recording(str(kept))
    assert not recording.bad_lines and len(recording.calls) == n - 1


def _limited_file_size() -> None:  # in the child: a real size limit, its signal ignored
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (20_000, 20_000))


# preexec_fn makes subprocess fork rather than spawn, and JAX (imported in this process) warns
# at every fork; the child only sets a limit and execs a fresh Python, so nothing can deadlock.
@pytest.mark.filterwarnings("ignore:os.fork\\(\\) was called:RuntimeWarning")
def test_a_file_size_limit_stops_the_recording_in_one_line(tmp_path):
    (tmp_path / "prog.py").write_text(MANY)
    plain = run([sys.executable, "prog.py"], tmp_path, preexec_fn=_limited_file_size)
    watched = run(
        [*JITLAB, "watch", "--out", "rec.jsonl", "--", "python", "prog.py"],
        tmp_path,
        preexec_fn=_limited_file_size,
    )
    assert (
        (watched.returncode, watched.stdout)
        == (plain.returncode, plain.stdout)
        == (
            0,
            plain.stdout,
        )
    ), watched.stderr
    assert "Traceback" not in watched.stderr, watched.stderr
    [line] = stopped_lines(watched.stderr)
    n = len(call_lines(tmp_path / "rec.jsonl")) + 1
    assert f"file size limit reached at call {n}; the recording holds calls 1…{n - 1}" in line


# Closes every descriptor, opens its own files (on the numbers the recording had), compiles.
CLOSER = """
import os, jax, jax.numpy as jnp

@jax.jit
def f(x):
    return x * 2

print(float(f(1.0)))
os.closerange(3, 4096)
mine = [open(f"own{i}.txt", "w") for i in range(8)]
for n in range(1, 6):
    print(float(f(jnp.ones(n)).sum()))
for i, fh in enumerate(mine):
    fh.write(f"the program's own file {i}\\n")
    fh.close()
print("done")
"""


def test_a_program_that_closes_every_descriptor_goes_on_and_its_files_stay_its_own(tmp_path):
    (tmp_path / "prog.py").write_text(CLOSER)
    plain = run([sys.executable, "prog.py"], tmp_path)
    assert plain.returncode == 0, plain.stderr
    watched = run([*JITLAB, "watch", "--out", "rec.jsonl", "--", "python", "prog.py"], tmp_path)
    assert (watched.returncode, watched.stdout) == (0, plain.stdout), watched.stderr
    assert "Traceback" not in watched.stderr, watched.stderr
    [line] = stopped_lines(watched.stderr)
    assert "the program closed the recording's file at call 2" in line, line
    for i in range(8):  # not one recording line written into a file the program opened
        assert (tmp_path / f"own{i}.txt").read_text() == f"the program's own file {i}\n"
    assert len(call_lines(tmp_path / "rec.jsonl")) == 1


def test_out_dev_full_is_refused_in_one_line_before_the_program_runs(tmp_path):
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full")
    (tmp_path / "prog.py").write_text("open('ran.txt', 'w').write('ran')\n")
    for lang, words in (("en", "cannot write /dev/full"), ("zh", "无法写入 /dev/full")):
        done = run(
            [*JITLAB, "--lang", lang, "watch", "--out", "/dev/full", "--", "python", "prog.py"],
            tmp_path,
        )
        assert done.returncode == 2, done.stderr
        assert len(program_lines(done.stderr)) == 1 and words in done.stderr, done.stderr
        assert not (tmp_path / "ran.txt").exists()


def test_a_recording_the_program_deleted_is_said_gone(tmp_path):
    (tmp_path / "prog.py").write_text(
        "import shutil, sys, jax, jax.numpy as jnp\n"
        "shutil.rmtree(sys.argv[1])\n"
        "f = jax.jit(lambda x: x + 1)\n"
        "f(1.0); f(jnp.ones(2))\n"
    )
    done = run(
        [*JITLAB, "watch", "--out", "out/rec.jsonl", "--", "python", "prog.py", "out"], tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert "stream" not in done.stderr, done.stderr
    assert "out/rec.jsonl was deleted while the program ran (2 call lines written to it)" in (
        done.stderr
    )


# The program's own DEBUG log, as under python; only JAX's tracing-cache explanations are
# jitlab's to read.
LOGGING = """
import logging, sys
logging.basicConfig(level=logging.DEBUG, stream=sys.stdout, format="%(levelname)s %(message)s")
import jax, jax.numpy as jnp

@jax.jit
def f(x):
    return x * 2

f(1.0)
f(jnp.ones(3))
"""


def test_the_programs_debug_log_keeps_jaxs_lines_and_the_recording_only_explanations(tmp_path):
    (tmp_path / "prog.py").write_text(LOGGING)

    def misses(text: str) -> list[str]:
        return [line.split(" with key ")[0] for line in text.splitlines() if "CACHE MISS" in line]

    plain = run([sys.executable, "prog.py"], tmp_path)
    watched = run([*JITLAB, "watch", "--out", "rec.jsonl", "--", "python", "prog.py"], tmp_path)
    assert plain.returncode == watched.returncode == 0, watched.stderr
    assert misses(plain.stdout)  # JAX logs its persistent-cache misses at DEBUG
    assert misses(watched.stdout) == misses(plain.stdout)
    explained = [c["reason"]["jax"] for c in call_lines(tmp_path / "rec.jsonl") if c["reason"]]
    explained = [text for text in explained if text]
    assert explained and all("TRACING CACHE MISS" in text for text in explained)
    assert not any("PERSISTENT" in text for text in explained), explained
