#!/usr/bin/env bash
# jitlab on an accelerator, in one short run (a few minutes on one GPU): doctor, the seed demo,
# the lesson verdicts, a watched training program against JAX's own log, the overhead
# benchmarks and the portable tests. Prints every figure it reads; exit status 1 if a check
# disagrees. Run it from a checkout whose jitlab is installed in the Python it finds:
#
#   PYTHON=.venv/bin/python benchmarks/gpu_check.sh [OUT_DIR]
#
# Nothing here assumes a GPU: on a CPU machine it runs the same checks on the CPU.
set -uo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
OUT=${1:-${OUT:-gpu-check}}
mkdir -p "$OUT"
export XLA_PYTHON_CLIENT_PREALLOCATE=false  # several processes share the GPU below
failed=0
step() { printf '\n== %s ==\n' "$*"; }
check() { "$@" || { echo "CHECK FAILED: $*"; failed=1; }; }

step "doctor (versions, devices, jitlab's check of this JAX)"
check "$PY" -m jitlab.cli doctor

step "the seed demo: dynamic-shapes, batch sizes 8, 8, 16, 8, 32, 8 (3 compiles expected)"
"$PY" -m jitlab.cli run dynamic-shapes --param batch_size=8,8,16,8,32,8 --json >"$OUT/seed.jsonl"
check "$PY" - "$OUT/seed.jsonl" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
kinds = [l["kind"] for l in lines if "kind" in l]
print("kinds:", kinds)
compiled = sum(k in ("compile", "recompile") for k in kinds)
assert compiled == 3 and len(kinds) == 6, (compiled, kinds)
PY

step "every lesson's verdict (--compare): pitfall against fix on the same calls"
for sid in $("$PY" -c 'from jitlab.lab.discovery import scenarios; print(*scenarios())'); do
  "$PY" -m jitlab.cli run "$sid" --compare --json >"$OUT/compare-$sid.jsonl" 2>"$OUT/compare-$sid.err"
  check "$PY" - "$sid" "$OUT/compare-$sid.jsonl" <<'PY'
import json, sys
sid, path = sys.argv[1], sys.argv[2]
verdict = json.loads(open(path).read().splitlines()[-1])["compare"]
print(f"{sid:16} better={verdict['better']:8} {verdict['verdict']}")
assert verdict["better"] == "fix", verdict  # every lesson's fix must win where it runs
PY
done

step "a watched training program (JAX's mnist_classifier, shrunk) against JAX_LOG_COMPILES"
prog=tests/real/programs/jax_mnist_classifier.py
JAX_LOG_COMPILES=1 "$PY" "$prog" >"$OUT/plain.out" 2>"$OUT/plain.log"
"$PY" -m jitlab.cli watch --out "$OUT/watch.jsonl" -- "$PY" "$prog" >"$OUT/watched.out" 2>"$OUT/watched.log"
check "$PY" - "$OUT" <<'PY'
import collections, glob, json, re, sys
out = sys.argv[1]
logged = collections.Counter(
    m.group(1) for m in re.finditer(r"Finished XLA compilation of jit\((\w+)\)", open(f"{out}/plain.log").read())
)
seen = collections.Counter()
for path in glob.glob(f"{out}/watch*.jsonl"):
    for line in open(path):
        rec = json.loads(line)
        if rec.get("kind") in ("compile", "recompile"):
            seen[rec.get("function", "")] += 1
print("JAX logged:", dict(logged), " jitlab recorded:", dict(seen))
for name in ("update",):
    assert logged[name] and seen[name] == logged[name], name
assert open(f"{out}/plain.out").read() == open(f"{out}/watched.out").read(), "output differs"
PY

step "overhead on a cache hit (probe; a watched call returns before the device is done)"
check "$PY" benchmarks/probe_overhead.py --calls 5000
check "$PY" benchmarks/watch_scale.py --quick --only python

step "portable tests (CPU devices for the ones that need 8: JAX_PLATFORMS=cpu)"
JAX_PLATFORMS=cpu check "$PY" -m pytest -q -p no:cacheprovider -n 4 tests/probe tests/records \
  tests/recordings tests/lab tests/watching tests/cli/test_cli.py tests/cli/test_cli_compare.py
step "probe tests on the default backend (the accelerator)"
check "$PY" -m pytest -q -p no:cacheprovider -n 4 tests/probe/test_probe.py tests/probe/test_reasons.py

echo
if ((failed)); then echo "gpu_check: some checks FAILED (see above)"; else echo "gpu_check: all checks passed"; fi
exit "$failed"
