"""Other people's example programs, run as ``python prog.py`` and as
``jitlab watch --out X -- python prog.py``, both with ``JAX_LOG_COMPILES=1``.

The programs (tests/real/programs/, each naming its source) are JAX's, Flax's and Equinox's
examples shrunk to synthetic data and a few steps. For each, in real subprocesses:

* per function, the executables the recording counts equal the compiles in JAX's own log
  of the same watched run, and JAX compiled exactly what it compiled without jitlab;
* the program's stdout, exit status, and stderr (less JAX's compile-log lines and jitlab's
  summary) are those of the plain run.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from jitlab.recordings.reader import Recording, read_recording
from jitlab.recordings.summary import summarize
from jitlab.records.calls import CallKind
from jitlab.records.changes import ChangeKind

pytestmark = pytest.mark.slow

K = ChangeKind
PROGRAMS = Path(__file__).parent / "programs"
_TIMEOUT_S = 180
_COMPILED = re.compile(r"Finished XLA compilation of jit\((?P<name>[^)]*)\)")
# What jax_log_compiles writes, one line each (the run asked for it, with or without jitlab).
_JAX_LOG = re.compile(
    r"^(Finished tracing |Compiling jit\(|Finished jaxpr to MLIR|Finished XLA compilation"
    r"|Persistent compilation cache hit )"
)


_ID = re.compile(r"id=\d+|key '[^']*'|\([0-9.]+s\)")


@dataclass
class Ran:
    returncode: int
    stdout: str
    stderr: str

    @property
    def jax_compiles(self) -> Counter[str]:
        return Counter(m["name"] for m in _COMPILED.finditer(self.stderr))

    def program_stderr(self) -> list[str]:
        """stderr without JAX's compile log and without jitlab's summary (the last part)."""
        lines = self.stderr.splitlines()
        for n, line in enumerate(lines):
            if "jitlab watch · " in line:
                lines = lines[:n]
                break
        # JAX's explanations (when the program asked) name function ids, cache keys and
        # compile times that differ from one process to the next.
        return [_ID.sub("N", line) for line in lines if not _JAX_LOG.match(line)]


def _run_both(plain: list[str], watched: list[str], cwd: tuple[Path, Path], more_env) -> tuple:
    """Both runs at once (each its own process; they share no file): a program's two runs
    take the time of one where a core is free."""
    env = {**os.environ, "JAX_LOG_COMPILES": "1", "JAX_PLATFORMS": "cpu", **more_env}
    env.pop("XLA_FLAGS", None)  # the programs that need 8 devices set it themselves
    started = [
        subprocess.Popen(
            command,
            cwd=where,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for command, where in zip((plain, watched), cwd, strict=True)
    ]
    ran = []
    try:
        for process in started:
            stdout, stderr = process.communicate(timeout=_TIMEOUT_S)
            ran.append(Ran(process.returncode, stdout, stderr))
    finally:
        for process in started:
            if process.poll() is None:
                process.kill()
                process.communicate()
    return tuple(ran)


@dataclass(frozen=True)
class Program:
    file: str
    functions: tuple[str, ...]  # the program's jitted functions, as JAX's log names them
    args: Callable[[Path], list[str]] = lambda tmp: []
    needs: tuple[str, ...] = ()  # modules it imports beyond JAX
    returncode: int = 0  # the plain run's exit status
    relative: bool = False  # run as `python programs/NAME.py` from tests/real
    jax_names: dict[str, str] = field(default_factory=dict)  # ours -> JAX's log's, if not equal
    env: dict[str, str] = field(default_factory=dict)  # more environment, for both runs
    variant: str = ""  # tells two runs of one file apart

    @property
    def id(self) -> str:
        return self.file.removesuffix(".py") + (f"-{self.variant}" if self.variant else "")

    xfail: dict[str, str] = field(default_factory=dict)  # "output" / "counts" -> what differs


def _calls(recording: Recording, name: str):
    return [c for c in recording.calls if c.record.function == name and not c.internal]


PROGRAM_LIST = [
    Program("jax_mnist_classifier.py", ("update",)),
    Program("jax_spmd_mnist.py", ("train_step", "accuracy")),
    Program("jax_pjit_sharding.py", ("mismatch", "sin_sum", "doubled")),
    Program("jax_pjit_devices.py", ("on_device",)),
    Program(
        "jax_persistent_cache.py",
        ("<lambda>",),
        args=lambda tmp: [str(tmp / "jax-cache")],
    ),
    Program("jax_dp_sgd.py", ("private_update",)),
    Program(
        "jax_spmd_mnist_pmap.py",
        ("spmd_update", "accuracy"),
        jax_names={"spmd_update": "_fun"},  # pmap compiles as jit(shard_map(_fun))
    ),
    Program(
        "jax_jit_docs_error.py",
        ("f",),
        args=lambda tmp: ["a", "b"],
        returncode=1,
        relative=True,
    ),
    Program(
        "jax_persistent_cache.py",
        ("<lambda>",),
        args=lambda tmp: [str(tmp / "jax-cache")],
        # compilation_cache_test.py::test_persistent_cache_miss_logging_with_explain: asked
        # for, JAX's explanations and "Not writing persistent cache entry" reach stderr, the
        # same with jitlab as without.
        env={"JAX_EXPLAIN_CACHE_MISSES": "1"},
        variant="explain",
    ),
    Program("flax_nnx_functional_api.py", ("train_step", "test_step"), needs=("flax",)),
    Program("flax_nnx_mnist_tutorial.py", ("train_step", "eval_step"), needs=("flax", "optax")),
    Program("equinox_train_rnn.py", ("make_step",), needs=("equinox", "optax")),
]
PROGRAMS_BY_FILE = {p.id: p for p in PROGRAM_LIST}


@dataclass
class Runs:
    plain: Ran
    watched: Ran
    recording: Recording


_runs: dict[str, Runs] = {}


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> Callable[[Program], Runs]:
    """Each program run twice (plainly, then under jitlab watch), once per test module."""

    def get(program: Program) -> Runs:
        if program.id in _runs:
            return _runs[program.id]
        for module in program.needs:
            pytest.importorskip(module)
        script = str(PROGRAMS / program.file)
        base = tmp_path_factory.mktemp(program.id)
        plain_dir, watched_dir = base / "plain", base / "watched"
        plain_dir.mkdir()
        watched_dir.mkdir()
        if program.relative:  # as a user types it; the program itself writes nothing
            script = f"{PROGRAMS.name}/{program.file}"
            plain_dir = watched_dir = PROGRAMS.parent
        out = base / "watched" / "run.jsonl"
        command = [sys.executable, "-m", "jitlab.cli", "watch", "--out", str(out), "--"]
        plain, watched = _run_both(
            [sys.executable, script, *program.args(plain_dir)],
            [*command, "python", script, *program.args(watched_dir)],
            (plain_dir, watched_dir),
            program.env,
        )
        assert plain.returncode == program.returncode, plain.stderr[-3000:]
        assert out.exists(), watched.stderr[-3000:]
        recording, _ = read_recording(out)
        _runs[program.id] = Runs(plain, watched, recording)
        return _runs[program.id]

    return get


def _params(part: str):
    for program in PROGRAM_LIST:
        marks = []
        if part in program.xfail:
            marks.append(pytest.mark.xfail(strict=True, reason=program.xfail[part]))
        yield pytest.param(program, id=program.id, marks=marks)


@pytest.mark.parametrize("program", list(_params("output")))
def test_program_under_watch_prints_and_exits_as_the_plain_run(program, runs):
    ran = runs(program)
    assert ran.watched.returncode == ran.plain.returncode, ran.watched.stderr[-3000:]
    assert ran.watched.stdout == ran.plain.stdout
    assert ran.watched.program_stderr() == ran.plain.program_stderr()
    assert ran.recording.ended


@pytest.mark.parametrize("program", list(_params("counts")))
def test_program_under_watch_counts_each_functions_compiles_like_jax(program, runs):
    ran = runs(program)
    # JAX compiled under jitlab exactly what it compiled without it (eager ops included).
    assert ran.watched.jax_compiles == ran.plain.jax_compiles
    counted: Counter[str] = Counter()
    for row in summarize(ran.recording, include_internal=False):
        counted[row.function] += row.executables
    assert set(program.functions) <= set(counted), (counted, ran.watched.jax_compiles)
    for name, executables in counted.items():
        jax_name = program.jax_names.get(name, name)
        assert executables == ran.watched.jax_compiles[jax_name], (name, counted)


# -- what the recordings say, against what JAX did and said -------------------------------------
def test_spmd_train_step_outside_set_mesh_blames_no_sharding(runs):
    """The SPMD example calls train_step once outside ``jax.set_mesh`` between epochs: JAX
    compiles it again because the mesh context changed; the shardings are the same to JAX
    (``P()`` is ``P(None, None)``)."""
    recording = runs(PROGRAMS_BY_FILE["jax_spmd_mnist"]).recording
    first, again = _calls(recording, "train_step")
    assert first.record.reason.kinds() == (K.FIRST_CALL,)
    reason = again.record.reason
    assert "abstract_mesh" in (reason.jax_explanation or "")  # JAX: the mesh context
    # The mesh context named (as such, or as the trace-context entry JAX names), and no
    # sharding change: the shardings are those of the first call to JAX's cache.
    assert set(reason.kinds()) & {K.MESH_CONTEXT, K.TRACING_CONTEXT}, str(reason)
    assert K.SHARDING not in reason.kinds(), str(reason)


def test_pjit_sharding_mismatch_names_x_as_jax_does(runs):
    """pjit_test.py::test_cache_miss_explanations_sharding_mismatch."""
    recording = runs(PROGRAMS_BY_FILE["jax_pjit_sharding"]).recording
    _, mismatch = _calls(recording, "mismatch")
    reason = mismatch.record.reason
    assert "at x, now f32[8]({Auto: ('x',)}) and before f32[8]({})" in reason.jax_explanation
    assert {(c.kind, c.path) for c in reason.items} == {(K.SHARDING, "x")}


def test_pjit_different_device_recompilation_is_a_recompile(runs):
    """pjit_test.py::test_pjit_different_device_recompilation: JAX compiles twice."""
    recording = runs(PROGRAMS_BY_FILE["jax_pjit_devices"]).recording
    kinds = [c.record.kind for c in _calls(recording, "on_device")]
    assert kinds == [CallKind.COMPILE, CallKind.RECOMPILE]


def test_equivalent_shardings_are_not_blamed(runs):
    """Issue 19's item 2: ``P()`` and ``P(None, None)`` are one sharding to JAX's cache."""
    recording = runs(PROGRAMS_BY_FILE["jax_pjit_sharding"]).recording
    calls = _calls(recording, "doubled")
    assert [c.record.kind for c in calls] == [CallKind.COMPILE, CallKind.RECOMPILE]
    assert {(c.kind, c.path) for c in calls[1].record.reason.items} == {(K.DTYPE, "w")}


def test_persistent_cache_load_of_a_new_lambda(runs):
    """compilation_cache_test.py::test_persistent_cache_hit_logging: the second lambda is
    loaded from the persistent cache; JAX logs a hit for it."""
    ran = runs(PROGRAMS_BY_FILE["jax_persistent_cache"])
    assert ran.watched.stderr.count("Persistent compilation cache hit for 'jit__lambda'") == 1
    kinds = [c.record.kind for c in _calls(ran.recording, "<lambda>")]
    assert kinds == [CallKind.COMPILE, CallKind.PERSISTENT_HIT, CallKind.COMPILE]


def test_flax_tutorial_eval_step_recompiles_for_the_partial_batch(runs):
    """The NNX MNIST tutorial's test set ends in a batch of 8: JAX compiles eval_step again
    (its log: 2 compiles); jitlab names the batch's arrays whose shape changed."""
    ran = runs(PROGRAMS_BY_FILE["flax_nnx_mnist_tutorial"])
    calls = _calls(ran.recording, "eval_step")
    assert [c.record.kind for c in calls] == [CallKind.COMPILE, CallKind.RECOMPILE]
    assert ran.watched.jax_compiles["eval_step"] == 2
    changed = {(c.kind, c.path) for c in calls[1].record.reason.items}
    assert changed == {(K.SHAPE, "batch['image']"), (K.SHAPE, "batch['label']")}, changed
    hits = [n for key, n in ran.recording.hits.items() if key[0] == "eval_step"]
    assert sum(hits) == 2  # epoch 2's two batches
