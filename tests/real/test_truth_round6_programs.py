"""Truth round six as programs: ``tests/real/programs/round6/`` (40 small programs in idioms
the earlier rounds did not cover: optax's inject_hyperparams, ``lax.map`` and
``associative_scan`` with static options, ``fori_loop`` with traced and static trip counts,
``jax.checkpoint`` policies, ``custom_jvp``/``custom_vjp`` with ``nondiff_argnums``,
checkify, ``shard_map`` and ``in_shardings`` on two CPU devices, ``jax.export``, bound
methods, ``functools.partial``, donation, ``keep_unused``, named scopes, weak types, x64 and
matmul precision as contexts, ``ensure_compile_time_eval``, containers, ``flax.struct``,
Equinox and NNX modules, jit in vmap in jit, closures, recursion, functions defined in a
loop, ``lru_cache``'d factories, AOT, the persistent cache, ``jax.clear_caches()``, threads),
each run as ``python prog.py`` and as ``jitlab watch --out X -- python prog.py``, both with
``JAX_LOG_COMPILES=1`` and ``JAX_EXPLAIN_CACHE_MISSES=1``, in real subprocesses:

* the program prints and exits as without jitlab (stdout byte for byte; stderr less JAX's
  log, its explanations and jitlab's own lines), and JAX compiled the same with and without;
* per function, the executables the recording counts are the compiles JAX logged in the
  same watched run, and each function's first executable is its one "compile";
* each compile's reason has the kinds checked against JAX's explanation of the same run when
  the round was written (the rules behind the disagreements: ``test_truth_round6.py``).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from jitlab.probe import _jax
from jitlab.recordings.reader import Recording, read_recording
from jitlab.recordings.summary import summarize

pytestmark = pytest.mark.slow

ROUND6 = Path(__file__).parent / "programs" / "round6"
_TIMEOUT_S = 300
_COMPILED = re.compile(r"Finished XLA compilation of jit\((?P<name>[^)]*)\)")
_JAX_LOG = re.compile(
    r"^(Finished tracing |Compiling \S+ with global|Finished jaxpr to MLIR"
    r"|Finished XLA compilation|Persistent compilation cache hit "
    r"|Not writing persistent cache entry|Writing jit)"
)
# JAX 0.6-0.8 log through absl's format: "WARNING:2026-12-06 17:03:32,856:jax._src.x:198: …".
_LOG_PREFIX = re.compile(r"^[A-Z]+:\d{4}-\d\d-\d\d [\d:,]+:[\w.]+:\d+: ")
# What differs from one process to the next in JAX's words (persistent-cache keys, ids).
_ID = re.compile(r"id=\d+|key '[^']*'|\([0-9.]+s\)|0x[0-9a-f]+")
# A jitlab line (a diagnosis said live, the end table, a notice) and its indented lines.
_JITLAB = re.compile(r"^jitlab[ :]")


@dataclass(frozen=True)
class Expect:
    # per function (as JAX's log names it), each compile's reason kinds, "+"-joined and sorted
    kinds: dict[str, list[str]]
    needs: tuple[str, ...] = ()  # modules it imports beyond JAX
    racy: bool = False  # threads: JAX may compile one signature twice, run to run
    # JAX 0.6-0.8 pick the closest earlier key by the size of the difference, not by the
    # part of the key that differs (0.9+): jitlab follows, and names other changes
    before_0_9: dict[str, list[str]] = field(default_factory=dict)
    # what some JAX does otherwise (each named where it was seen): accepted as well
    also: dict[str, list[list[str]]] = field(default_factory=dict)


F, S, SH, T = "first_call", "static_value", "shape", "tree_structure"
NEW, W, D = "new_function_object", "weak_type", "dtype"
EXPECT: dict[str, Expect] = {
    "aot_then_call": Expect({"loss": [F, SH, SH]}),
    "associative_scan": Expect({"cumulative": [F, S, S, f"{S}+{S}", S]}),
    # a.k changed after a.static_apply's first call: 0.9-0.10 serve the old program (its
    # hash changed, JAX finds it still); 0.6-0.8 and 0.12 compile again, 0.12 explaining
    # nothing ("explanation unavailable"), 0.6-0.8 against b's key
    "bound_methods": Expect(
        {"apply": [F, NEW], "static_apply": [F, S]},
        also={"static_apply": [[F, S, S], [F, S, "unknown"]]},
    ),
    # 0.6-0.8 give no explanation of the second safe_log (checkify traces it apart)
    "checkify_jit": Expect(
        {"safe_log": [F, NEW], "checked_fun": [F, f"{SH}+{SH}"]},
        before_0_9={"safe_log": [F, "unknown"]},
    ),
    "clear_caches_mid_run": Expect(
        {"square": [F, "cache_cleared", "cache_cleared"], "cube": [F, "cache_cleared"]}
    ),
    "closure_values": Expect({"scaled": [F], "times_k": [F, NEW, NEW]}),
    "compile_time_eval": Expect(
        {"windowed": [F, S, f"{SH}+{S}"]}, before_0_9={"windowed": [F, S, SH]}
    ),
    "custom_jvp_nondiff": Expect({"slope": [F, W], "app": [F, SH]}),
    "custom_vjp_nondiff": Expect({"clipped_grad": [F, S, S]}),
    "donate_argnums": Expect({"accumulate": [F, "jit_options", f"{SH}+{SH}", "jit_options"]}),
    "equinox_static_field": Expect(
        {"forward": [F, T, S, S, f"new_argument+{S}"]}, needs=("equinox",)
    ),
    "eval_shape_then_call": Expect({"outer_product": [F, f"{SH}+{SH}"]}),
    "export_roundtrip": Expect({"call_exported": [F], "twice": [F]}),
    "flax_struct_static": Expect({"run": [F, T, T, T]}, needs=("flax",)),
    "grad_of_jit_argnums": Expect({"<lambda>": [F, F], "loss": [F, SH, W]}),
    "in_out_shardings": Expect(
        {
            "double": [
                F,
                "sharding",
                SH,
                "jit_options+jit_options",
                "jit_options+jit_options",
                "sharding",
            ]
        }
    ),
    "jit_vmap_jit": Expect({"outer": [F, SH], "inner": ["transformed", F]}),
    "keep_unused": Expect({"first": [F, SH]}),
    "lax_map_batch": Expect(
        {"row_norms": [F, S, f"{SH}+{S}"]}, before_0_9={"row_norms": [F, S, SH]}
    ),
    "lru_cache_factory": Expect({"norm": [F, NEW, NEW, SH]}),
    "matmul_precision": Expect({"gram": [F, "tracing_context", "tracing_context"]}),
    "named_call": Expect({"model": [F, SH], "block": [F, NEW]}),
    "nnx_module_attr": Expect({"forward": [F, T, f"{SH}+{T}"]}, needs=("flax",)),
    "optax_inject_hyperparams": Expect({"train_step": [F, W]}, needs=("optax",)),
    "optax_schedule_chain": Expect({"update": [F, S]}, needs=("optax",)),
    "partial_objects": Expect({"scale": [F, NEW, NEW, NEW], "apply": [F, S, S, S]}),
    "persistent_cache_dir": Expect({"softplus_sum": [F, "cache_cleared", SH]}),
    "prng_keys": Expect({"sample": [F, D, D]}),
    "pytree_containers": Expect({"combine": [F, T, T, T, T, T, T, "new_argument"]}),
    "recursion_static_depth": Expect({"tower": [F, S, S, f"{SH}+{S}"]}),
    "redefined_in_loop": Expect({"step": [F, NEW, NEW], "<lambda>": [F, NEW, NEW]}),
    "remat_policy": Expect({"grad_of_stack": [F, S, "keyword_vs_positional"]}),
    "scan_unroll": Expect(
        {"running_max": [F, S, S, f"{SH}+{S}", S]},
        # 0.6-0.8 serve unroll=1 the program of unroll=True (1 == True in their key)
        before_0_9={"running_max": [F, S, S, SH]},
    ),
    "shard_map_two_devices": Expect({"total": [F, "sharding", "sharding", SH]}),
    "small_dtypes": Expect({"count_positive": [F, D, D, D, D, D]}),
    "static_argnames_keyword": Expect(
        {"reduce": [F, S, "keyword_vs_positional", S, f"keyword_vs_positional+{S}", S]},
        # 0.6-0.8 compare reduce(x, 0) with the call that passed no axis at all
        before_0_9={"reduce": [F, S, S, S, f"{S}+{S}", S]},
    ),
    "switch_branches": Expect({"pick": [F, S]}),
    "threads_one_function": Expect({"work": [F, SH, SH, SH]}, racy=True),
    "tree_util_partial": Expect({"apply": [F, T, f"{SH}+{T}"]}, before_0_9={"apply": [F, T, SH]}),
    "vmap_in_axes": Expect({"dot": [F, NEW, SH]}),
    "weak_type_promotion": Expect({"axpy": [F, W, D, W, D]}),
    "while_trip_counts": Expect(
        {"power_traced": [F], "power_static": [F, S, S], "halve_until": [F, W]}
    ),
    "x64_context": Expect(
        {
            "poly": [
                F,
                f"{D}+tracing_context",
                f"{D}+tracing_context",
                f"tracing_context+{W}",
                f"{D}+tracing_context",
            ]
        },
        # 0.9+ rank a context difference first, 0.6-0.8 take the fewest differences
        before_0_9={"poly": [F, f"{D}+tracing_context", D, D, D]},
    ),
}


def test_every_program_of_the_round_is_checked():
    assert sorted(EXPECT) == sorted(p.stem for p in ROUND6.glob("*.py"))


@dataclass
class Ran:
    returncode: int
    stdout: str
    stderr: str

    @property
    def jax_compiles(self) -> Counter[str]:
        return Counter(m["name"] for m in _COMPILED.finditer(self.stderr))

    def program_stderr(self) -> list[str]:
        """stderr less JAX's compile log and explanations (asked for in both runs; they
        name ids and times) and jitlab's own lines."""
        lines = self.stderr.splitlines()
        for n, line in enumerate(lines):
            if "jitlab watch · " in line:  # jitlab's end table, and all after it
                lines = lines[:n]
                break
        kept: list[str] = []
        skipping = False
        for line in lines:
            line = _LOG_PREFIX.sub("", line)
            if "TRACING CACHE MISS" in line or _JITLAB.match(line):
                skipping = True
                continue
            if skipping and (line.startswith(" ") or not line.strip()):
                continue
            skipping = False
            if not _JAX_LOG.match(line):
                kept.append(_ID.sub("N", line))
        return kept


@dataclass
class Runs:
    plain: Ran
    watched: Ran
    recording: Recording


_runs: dict[str, Runs] = {}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    def get(name: str) -> Runs:
        if name in _runs:
            return _runs[name]
        for module in EXPECT[name].needs:
            pytest.importorskip(module)
        base = tmp_path_factory.mktemp(name)
        out = base / "run.jsonl"
        script = str(ROUND6 / f"{name}.py")
        env = {
            **os.environ,
            "JAX_LOG_COMPILES": "1",
            "JAX_EXPLAIN_CACHE_MISSES": "1",
            "JAX_PLATFORMS": "cpu",
        }
        env.pop("XLA_FLAGS", None)  # the programs that need two devices set it themselves
        commands = [
            [sys.executable, script, str(base / "plain-cache")],
            [
                sys.executable,
                "-m",
                "jitlab.cli",
                "watch",
                "--out",
                str(out),
                "--",
                "python",
                script,
                str(base / "watched-cache"),
            ],
        ]
        started = [
            subprocess.Popen(
                command,
                cwd=base,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for command in commands
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
        plain, watched = ran
        assert plain.returncode == 0, plain.stderr[-3000:]
        assert out.exists(), watched.stderr[-3000:]
        recording, _ = read_recording(out)
        _runs[name] = Runs(plain, watched, recording)
        return _runs[name]

    return get


NAMES = sorted(EXPECT)


@pytest.mark.parametrize("name", NAMES)
def test_the_program_prints_and_exits_as_without_jitlab(name, runs):
    ran = runs(name)
    assert ran.watched.returncode == ran.plain.returncode, ran.watched.stderr[-3000:]
    assert ran.watched.stdout == ran.plain.stdout
    assert ran.watched.program_stderr() == ran.plain.program_stderr()
    assert ran.recording.ended


@pytest.mark.parametrize("name", NAMES)
def test_each_function_counts_the_executables_jax_logged(name, runs):
    ran, expect = runs(name), EXPECT[name]
    theirs = ran.watched.jax_compiles
    if not expect.racy:  # JAX compiled under jitlab what it compiled without it
        assert {f: theirs[f] for f in expect.kinds} == {
            f: ran.plain.jax_compiles[f] for f in expect.kinds
        }
    rows = summarize(ran.recording, include_internal=False)
    counted: Counter[str] = Counter()
    for row in rows:
        counted[row.function] += row.executables
        assert row.compiles + row.persistent_hits >= 1 or not row.executables, row
    assert set(expect.kinds) <= set(counted), (counted, theirs)
    for function, executables in counted.items():
        assert executables == theirs[function], (function, counted, theirs)


@pytest.mark.parametrize("name", NAMES)
def test_each_compile_says_what_was_checked_against_jaxs_explanation(name, runs):
    ran, expect = runs(name), EXPECT[name]
    found: dict[str, list[str]] = {}
    for call in ran.recording.calls:
        record = call.record
        if call.internal or not record.kind.compiled or record.function not in expect.kinds:
            continue
        kinds = sorted(str(k) for k in record.reason.kinds()) if record.reason else []
        found.setdefault(record.function, []).append("+".join(kinds))
    wanted = dict(expect.kinds)
    if _jax.VERSION < (0, 9, 0):
        wanted.update(expect.before_0_9)
    for function, kinds in found.items():
        accepted = [wanted.get(function), *expect.also.get(function, [])]
        if expect.racy:  # threads compile at once: filed in the order they end
            kinds, accepted = sorted(kinds), [sorted(a or []) for a in accepted]
        assert kinds in accepted, (function, kinds, accepted)
    assert set(found) == set(wanted), (found, wanted)


@pytest.mark.parametrize("name", NAMES)
def test_a_functions_first_executable_is_its_one_compile(name, runs):
    # Per function (name and definition), one first compile; every later executable is a
    # recompile (or a load from the persistent cache), whoever compiled it (an AOT compile,
    # another jit of it, a transformation).
    for row in summarize(runs(name).recording, include_internal=False):
        if row.executables:
            assert row.compiles == 1, (row.function, row.defined_at, row.totals)
