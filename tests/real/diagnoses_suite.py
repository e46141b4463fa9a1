"""The diagnoses' precision and recall on real programs (issue 52).

*Precision*: well-written programs — the example programs of ``programs/`` (JAX's, Flax's,
Equinox's examples, shrunk) and training loops in ``programs/clean/`` (Flax NNX, Optax,
Equinox, NumPyro on two dataset sizes, a scan, deliberate buckets, an architecture and a
depth sweep, validation with a debug print) — are watched, and every diagnosis stated as a
problem (:attr:`~jitlab.records.diagnoses.Diagnosis.problem`) counts as a false alarm unless
the program is a reproduction that holds that problem.

*Recall*: reproductions of upstream threads in ``programs/recall/``, each written from the
thread's shape (named in its docstring), must each be found by the ids it holds.

Every program runs as ``jitlab watch --out REC -- python PROG`` (a program that starts
``jitlab.watch()`` itself runs plainly and writes REC), with JAX's own compile log
(``JAX_LOG_COMPILES=1``) in the same run: the recording's compiles of each jitted function
are checked against JAX's count.

``python tests/real/diagnoses_suite.py`` runs it all and prints each id's figures (the
README's Diagnoses section quotes them); ``tests/real/test_diagnoses_suite.py`` holds them.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from jitlab.recordings.reader import Recording, read_recording
from jitlab.records.diagnoses import IDS, Diagnosis

PROGRAMS = Path(__file__).parent / "programs"
TIMEOUT_S = 300
_COMPILED = re.compile(r"Finished XLA compilation of jit\((?P<name>[^)]*)\)")

IS = "identity-static"
RL = "recompile-limit"
EG = "executables-growing"
CC = "captured-constant"
CSC = "call-site-cost"
SD = "slow-dispatch"


@dataclass(frozen=True)
class Case:
    file: str  # under programs/
    required: frozenset[str] = frozenset()  # ids it must be diagnosed with, as problems
    allowed: frozenset[str] = frozenset()  # ids that are true of it too (stated or not)
    args: tuple[str, ...] = ()  # "{out}": the run's own folder
    self_watching: bool = False  # starts jitlab.watch(argv[1]) itself: run plainly
    needs: tuple[str, ...] = ()  # modules it imports beyond JAX
    returncode: int = 0

    @property
    def name(self) -> str:
        return self.file.removesuffix(".py")

    @property
    def true(self) -> frozenset[str]:
        return self.required | self.allowed


CLEAN = (
    Case("jax_mnist_classifier.py"),
    Case("jax_spmd_mnist.py"),
    Case("jax_pjit_sharding.py"),
    Case("jax_pjit_devices.py"),
    Case("jax_persistent_cache.py", args=("{out}/jax-cache",)),
    Case("jax_dp_sgd.py"),
    Case("jax_spmd_mnist_pmap.py"),
    Case("jax_jit_docs_error.py", args=("a", "b"), returncode=1),
    Case("flax_nnx_functional_api.py", needs=("flax",)),
    Case("flax_nnx_mnist_tutorial.py", needs=("flax", "optax")),
    Case("equinox_train_rnn.py", needs=("equinox", "optax")),
    Case("clean/buckets.py"),
    Case("clean/sweep.py"),
    Case("clean/layers_sweep.py"),
    Case("clean/validate_print.py"),
    Case("clean/scan_loop.py"),
    Case("clean/optax_loop.py", needs=("optax",)),
    Case("clean/nnx_loop.py", needs=("flax", "optax")),
    Case("clean/eqx_loop.py", needs=("equinox", "optax")),
    Case("clean/numpyro_two.py", needs=("numpyro",)),
    # Stop 61's outside set: idioms of other people's code, each with nothing wrong.
    Case("clean/partial_batch_padded.py"),
    Case("clean/bucket_ten.py"),
    Case("clean/python_scalars.py"),
    Case("clean/scan_epochs.py", needs=("optax",)),
    Case("clean/eval_batch.py"),
    Case("clean/grad_of_jit.py"),
    Case("clean/vmap_of_jit.py"),
    Case("clean/transforms_of_jit.py"),
    Case("clean/threads.py"),
    Case("clean/nnx_train_eval.py", needs=("flax", "optax")),
    Case("clean/eqx_methods.py", needs=("equinox", "optax")),
    Case("clean/eqx_inference.py", needs=("equinox", "optax")),
    Case("clean/distinct_functions.py"),
    Case("clean/metric_factory.py"),
    Case("clean/huber_family.py"),
    Case("clean/activation_sweep.py"),
    Case("clean/clear_between_phases.py"),
    Case("clean/clear_per_trial.py"),
    Case("clean/aot_warmup.py"),
    Case("clean/rejit_each_epoch.py"),
    Case("clean/optax_inject.py", needs=("optax",)),
    Case("clean/linen_trainstate.py", needs=("flax", "optax")),
    Case("clean/ensemble_vmap.py"),
    Case("clean/keywords.py"),
    Case("clean/donate.py"),
    Case("clean/solver_tolerance.py"),
    Case("clean/restore_checkpoint.py"),
    Case("clean/nested_jit.py"),
    Case("clean/remat_mixed.py"),
    Case("clean/dataclass_state.py"),
    Case("clean/sharded_dp.py"),
    Case("clean/numpy_inputs.py"),
    Case("clean/typed_keys.py"),
    Case("clean/debug_nans.py"),
    Case("clean/cache_with_print.py", args=("{out}/jax-cache",)),
)

# What each reproduction holds. A compile repeated for the same signature makes its costly
# line a call-site-cost too (stated once past its floor of time: allowed, not required).
RECALL = (
    Case(
        "recall/equinox_686_jit_in_module.py",
        frozenset({IS}),
        frozenset({CSC}),
        needs=("equinox", "optax"),
    ),
    Case("recall/jax_4274_callable_static.py", frozenset({IS}), frozenset({CSC})),
    Case("recall/jax_13071_double_partial.py", frozenset({IS}), frozenset({CSC})),
    Case("recall/partial_static_rebuilt.py", frozenset({IS}), frozenset({CSC})),
    Case("recall/static_self_rebuilt.py", frozenset({IS}), frozenset({CSC})),
    Case(
        "recall/jitted_before_watch.py",
        frozenset({IS}),
        frozenset({CSC}),
        args=("{out}/rec.jsonl",),
        self_watching=True,
    ),
    Case("recall/wobble_batch.py", frozenset({RL}), frozenset({CSC})),
    Case("recall/optax_577_lr_captured.py", frozenset({CC}), frozenset({CSC}), needs=("optax",)),
    Case(
        "recall/nnx_5548_rebuilt.py",
        frozenset({IS, EG}),
        frozenset({RL, CSC}),
        needs=("flax", "optax"),
    ),
    Case("recall/hot_callback.py", frozenset({SD})),
    # Stop 61: one per rule its clean set changed, so a fix cannot silence the diagnosis.
    Case("recall/vmap_wobble.py", frozenset({RL}), frozenset({CSC})),
    Case("recall/jit_in_loop.py", frozenset({RL}), frozenset({CSC})),
    Case("recall/static_step_counter.py", frozenset({RL}), frozenset({CSC})),
    Case("recall/kept_jits.py", frozenset({EG}), frozenset({RL, CSC})),
    Case("recall/static_lambda_each_epoch.py", frozenset({IS, EG}), frozenset({RL, CSC})),
    Case(
        "recall/linen_tx_each_epoch.py", frozenset({IS}), frozenset({CSC}), needs=("flax", "optax")
    ),
    Case("recall/progress_callback.py", frozenset({SD})),
)


@dataclass
class Ran:
    case: Case
    recording: Recording
    stderr: str
    jax: Counter[str]  # backend compiles per function, as JAX logged them
    problems: list[Diagnosis] = field(default_factory=list)

    @property
    def stated(self) -> set[str]:
        return {d.id for d in self.problems}

    @property
    def false_alarms(self) -> list[Diagnosis]:
        return [d for d in self.problems if d.id not in self.case.true]

    @property
    def missed(self) -> set[str]:
        return set(self.case.required) - self.stated


def run(case: Case, folder: Path) -> Ran:
    """The case watched in ``folder`` (made here), JAX's compile log on."""
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / ("rec.jsonl" if case.self_watching else "run.jsonl")
    program = [sys.executable, str(PROGRAMS / case.file)]
    program += [a.replace("{out}", str(folder)) for a in case.args]
    if not case.self_watching:
        program = [sys.executable, "-m", "jitlab.cli", "watch", "--out", str(out), "--", *program]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JITLAB_", "JAX_"))}
    env |= {"JAX_PLATFORMS": "cpu", "JAX_LOG_COMPILES": "1", "PYTHONUNBUFFERED": "1"}
    env.pop("XLA_FLAGS", None)  # the programs that need 8 devices set it themselves
    done = subprocess.run(
        program, capture_output=True, text=True, env=env, cwd=folder, timeout=TIMEOUT_S
    )
    if done.returncode != case.returncode or not out.exists():
        raise AssertionError(f"{case.file}: exit {done.returncode}\n{done.stderr[-3000:]}")
    recording, _ = read_recording(out)
    jax = Counter(m["name"] for m in _COMPILED.finditer(done.stderr))
    problems = [d for d in recording.every_diagnosis() if d.problem]
    return Ran(case, recording, done.stderr, jax, problems)


def run_all(cases: Iterable[Case], folder: Path, workers: int = 2) -> list[Ran]:
    """Each case in a folder of its own, ``workers`` at a time."""
    cases = list(cases)
    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(lambda c: run(c, folder / c.name.replace("/", "-")), cases))


@dataclass
class Figures:
    """One id's account: statements as problems (true, false), reproductions found."""

    stated: int = 0
    false: int = 0
    required: int = 0
    found: int = 0

    @property
    def precision(self) -> str:
        return f"{self.stated - self.false}/{self.stated}" if self.stated else "-"

    @property
    def recall(self) -> str:
        return f"{self.found}/{self.required}" if self.required else "-"


def figures(ran: Sequence[Ran]) -> dict[str, Figures]:
    """Per id: how many problem statements, how many false, reproductions found."""
    table = {ident: Figures() for ident in IDS}
    for r in ran:
        for d in r.problems:
            row = table.setdefault(d.id, Figures())
            row.stated += 1
            row.false += d.id not in r.case.true
        for ident in r.case.required:
            table[ident].required += 1
            table[ident].found += ident in r.stated
    return table


def main() -> int:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        ran = run_all([*CLEAN, *RECALL], Path(folder))
    for r in ran:
        alarms = ", ".join(f"{d.id} ({d.function})" for d in r.false_alarms)
        print(f"{r.case.file}: stated {sorted(r.stated) or '-'}", end="")
        print(f"; false: {alarms}" if alarms else "", end="")
        print(f"; missed: {sorted(r.missed)}" if r.missed else "")
    clean = sum(1 for r in ran if not r.case.true)
    print(f"\n{clean} clean programs, {len(ran) - clean} reproductions")
    print(f"{'id':24} {'precision':>10} {'recall':>8}")
    for ident, row in figures(ran).items():
        print(f"{ident:24} {row.precision:>10} {row.recall:>8}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
