#!/usr/bin/env bash
# jitlab on an accelerator (a TPU, a GPU; the CPU too), in one run of about 8 minutes on a
# one-chip TPU VM: doctor, every lesson's verdict (`jitlab run ID --compare`), watched
# programs against JAX's own log (JAX_LOG_COMPILES), the overhead benchmarks, the probe and
# watch tests on the default backend, and the portable tests on the CPU. Ends on a PASS/FAIL
# table; exit status 1 if a check failed.
#
#   PYTHON=.venv/bin/python bash benchmarks/accel_check.sh [--quick] [--only STEP,...]
#
# --quick: shorter benchmarks and no portable CPU tests (a CPU machine's dry run:
# `JAX_PLATFORMS=cpu bash benchmarks/accel_check.sh --quick`). --only: some of the steps
# bench, doctor, lessons, programs, chip-tests, cpu-tests (two runs under a 10-minute limit).
# With OUT set (the device machine's $OUT), everything printed is also written to
# $OUT/accel-check.txt, the table's rows to $OUT/results.tsv as they come, the test logs
# beside them. Needs jitlab installed in $PYTHON's environment, its `jitlab` command beside
# it (README "On an accelerator": benchmarks/accel_wheels.sh makes one on a TPU VM).
#
# A TPU admits one process at a time: every step that uses the default backend runs alone,
# one after another (the probe and watch tests in one process, `-n 0 -m "not slow"`: a slow
# test starts processes); the CPU-only tests run meanwhile in parallel with JAX_PLATFORMS=cpu,
# after the timing benchmarks (which run with the machine to themselves).
set -uo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
QUICK=0
ONLY=bench,doctor,lessons,programs,chip-tests,cpu-tests
while (($#)); do
  case $1 in
    --quick) QUICK=1 ;;
    --only) ONLY=$2; shift ;;
    *) echo "usage: $0 [--quick] [--only STEP,...]" >&2; exit 2 ;;
  esac
  shift
done
((QUICK)) && ONLY=${ONLY//cpu-tests/}
wants() { [[ ",$ONLY," == *",$1,"* ]]; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/accel-check.XXXXXX")
if [[ -n "${OUT:-}" ]]; then
  mkdir -p "$OUT"
  exec > >(tee "$OUT/accel-check.txt") 2>&1
  LOGS="$OUT"
else
  LOGS="$WORK"
fi
RESULTS="$LOGS/results.tsv"
: >"$RESULTS"
export XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONUNBUFFERED=1
CORES=$(nproc 2>/dev/null || echo 2)
WORKERS=$((CORES > 2 ? CORES - 2 : 1))  # the chip's steps keep a core or two
((WORKERS > 10)) && WORKERS=10
started=$SECONDS

step() { printf '\n== %s  (%ds) ==\n' "$*" "$((SECONDS - started))"; }
# record NAME STATUS FIGURE: one row of the final table.
record() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$RESULTS"; printf -- '-> %s: %s %s\n' "$1" "$2" "$3"; }
# judge NAME COMMAND...: runs a reader that prints one figure line; 0 PASS, 2 SKIP, else FAIL.
judge() {
  local name=$1 figure rc
  shift
  figure=$("$@" 2>&1 | tail -1)
  rc=${PIPESTATUS[0]}
  case $rc in 0) record "$name" PASS "$figure" ;; 2) record "$name" SKIP "$figure" ;; *) record "$name" FAIL "$figure" ;; esac
}
reader() { "$PY" benchmarks/accel_check.py "$@"; }

step "jitlab on $("$PY" -c 'import sys; print(sys.version.split()[0])'), $(JAX_PLATFORMS=cpu "$PY" -c 'import jax; print("jax", jax.__version__)' 2>/dev/null)"

# -- the overhead benchmarks first, with the machine to themselves ------------------------------
# The after-the-sync figure is a difference of two ~15 µs costs on calls that spread over
# 400-620 µs on a TPU: pooled over 20,000 calls a way it is known within about ±1 µs (its 95 %
# interval printed, from resampling the rounds).
if ((QUICK)); then CALLS=500 SYNC=1000 STEPS=20 BLOCKS=10; else CALLS=2000 SYNC=20000 STEPS=100 BLOCKS=30; fi
if wants bench; then
  step "the probe's overhead on a cache hit ($CALLS calls), and after the sync against the control ($SYNC)"
  "$PY" benchmarks/probe_overhead.py --calls "$CALLS" --after-sync-calls "$SYNC" | tee "$WORK/probe_overhead.txt"
  if [[ ${PIPESTATUS[0]} == 0 ]]; then
    figures=$(awk '/^trivial/ && !t {t = "trivial +" $5 " µs"} /^  probe over the control/ {o = $5}
      /of which after its wait/ {w = $6} /95 % interval/ {i = $(NF-3) " … " $(NF-1)}
      END {print t "; after the sync, over the control " o " µs (95 % interval " i ", rounds resampled; after its wait " w ")"}' \
      "$WORK/probe_overhead.txt")
    record "probe overhead" PASS "$figures"
  else
    record "probe overhead" FAIL "probe_overhead.py failed"
  fi
  step "a watched training loop against an unwatched one ($BLOCKS blocks x $STEPS steps)"
  "$PY" benchmarks/watch_overhead.py --steps "$STEPS" --blocks "$BLOCKS" | tee "$WORK/watch_overhead.txt"
  if [[ ${PIPESTATUS[0]} == 0 ]]; then
    record "watch overhead" PASS "$(grep -m1 '^paired' "$WORK/watch_overhead.txt" | sed 's/  */ /g')"
  else
    record "watch overhead" FAIL "watch_overhead.py failed"
  fi
fi

# -- the CPU-only tests, in parallel, while the default backend's steps run below ----------------
cpu_pid=""
if wants cpu-tests; then
  read -r -a portable <<<"$(reader portable)"
  step "the portable tests on the CPU, $WORKERS workers, in the background (log: cpu-tests.log)"
  JAX_PLATFORMS=cpu "$PY" -m pytest -q -p no:cacheprovider -n "$WORKERS" \
    --maxprocesses "$WORKERS" -rs "${portable[@]}" \
    >"$LOGS/cpu-tests.log" 2>&1 &
  cpu_pid=$!
fi

# -- the default backend, one process at a time --------------------------------------------------
if wants doctor; then
  step "doctor: versions, devices, jitlab's check of this JAX"
  "$PY" -m jitlab.cli doctor | tee "$WORK/doctor.txt"
  if [[ ${PIPESTATUS[0]} == 0 ]]; then
    record doctor PASS "$(grep -m1 -i 'devices' "$WORK/doctor.txt" | sed 's/  */ /g' | cut -c1-80)"
  else
    record doctor FAIL "jitlab doctor exited non-zero"
  fi
fi

if wants lessons; then
  step "every lesson's verdict: jitlab run ID --compare (the fix must win, its output the call's)"
  for sid in $(JAX_PLATFORMS=cpu reader lessons); do
    "$PY" -m jitlab.cli run "$sid" --compare --json >"$WORK/compare-$sid.jsonl" 2>"$WORK/compare-$sid.err"
    judge "lesson $sid" reader verdict "$sid" "$WORK/compare-$sid.jsonl"
  done
fi

watch_program() {  # NAME FILE FUNCTION...: plainly, then watched, both with JAX's compile log
  local name=$1 prog=$2 dir="$WORK/$1"
  shift 2
  mkdir -p "$dir"
  JAX_LOG_COMPILES=1 "$PY" "$prog" >"$dir/plain.out" 2>"$dir/plain.err"
  JAX_LOG_COMPILES=1 "$PY" -m jitlab.cli watch --out "$dir/run.jsonl" -- "$PY" "$prog" \
    >"$dir/watched.out" 2>"$dir/watched.err"
  judge "watched $name" reader watched "$name" "$dir" "$@"
}
if wants programs; then
  step "watched programs against JAX_LOG_COMPILES: JAX's mnist example"
  watch_program mnist tests/real/programs/jax_mnist_classifier.py update
  step "watched programs against JAX_LOG_COMPILES: Flax NNX's MNIST tutorial"
  if "$PY" -c 'import flax.nnx, optax' 2>/dev/null; then
    watch_program nnx-mnist tests/real/programs/flax_nnx_mnist_tutorial.py train_step eval_step
  else
    record "watched nnx-mnist" SKIP "flax or optax is not installed"
  fi
fi

if wants chip-tests; then
  # In-process tests only (-m "not slow"): a slow test starts processes, and on a TPU a
  # second process cannot open the chip this one holds.
  step "the probe and watch tests on the default backend, in one process (log: chip-tests.log)"
  chip_tests=(tests/probe/test_probe.py tests/probe/test_steady_path.py tests/probe/test_runtime_output.py
    tests/probe/test_probe_repr.py tests/probe/test_probe_diagnoses.py tests/watching
    tests/real/test_jax_ports.py tests/real/test_watch_transforms.py
    tests/diagnoses/test_slow_dispatch_probe.py)
  "$PY" -m pytest -q -p no:cacheprovider -n 0 -m "not slow" -rs "${chip_tests[@]}" \
    >"$LOGS/chip-tests.log" 2>&1
  tail -3 "$LOGS/chip-tests.log"
  judge "tests on $("$PY" -c 'import jax; print(jax.default_backend())' 2>/dev/null)" \
    reader pytest "$LOGS/chip-tests.log"
fi

if [[ -n "$cpu_pid" ]]; then
  step "waiting for the portable tests on the CPU"
  wait "$cpu_pid"
  tail -3 "$LOGS/cpu-tests.log"
  judge "tests on the CPU (portable)" reader pytest "$LOGS/cpu-tests.log"
fi

step "done in $((SECONDS - started)) s"
reader table "$RESULTS"
status=$?
if [[ -n "${OUT:-}" ]]; then
  rm -rf "$WORK"
else
  echo "(logs and recordings kept in $WORK)"
fi
exit "$status"
