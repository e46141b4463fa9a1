"""The fleet view of a real 2-process ``jax.distributed`` job (beside the job's other tests,
``test_multiprocess.py``, which run on the main suite's JAX only) (local CPU processes, gloo
collectives), each process under ``jitlab watch --metrics-port P_i --otlp``: both processes
scraped while they run and both pushed to one OTLP receiver, told apart by the resource's
``jax.process.index``; each one's counts equal its own ``jax_log_compiles`` log."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.real.conftest import compiles_logged

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[1] / "watching"))
import distributed
from fleet_tools import otlp_receiver, settled, total

pytestmark = pytest.mark.slow

JOB = str(Path(__file__).parent / "fleet_job.py")
TIMEOUT = 300
# distributed.main: four steps; process 1 meets a short batch at one of them.
COMPILES = {0: {"preprocess": 1, "train_step": 1}, 1: {"preprocess": 2, "train_step": 1}}
HITS = {index: 8 - sum(compiles.values()) for index, compiles in COMPILES.items()}


def test_both_processes_of_a_job_are_scraped_and_pushed(tmp_path: Path) -> None:
    coordinator = distributed.free_port()
    ports = [distributed.free_port(), distributed.free_port()]
    go = tmp_path / "go"
    with otlp_receiver() as (endpoint, received):
        env = distributed.clean_env(
            JAX_LOG_COMPILES="1",
            OTEL_EXPORTER_OTLP_ENDPOINT=endpoint,
            OTEL_METRIC_EXPORT_INTERVAL="500",
        )
        children = []
        for index in (0, 1):
            command = distributed.watch_command(tmp_path / "run.jsonl", JOB)
            flags = ["--metrics-port", str(ports[index]), "--otlp"]
            command[4:4] = flags  # after `watch`, before `--out`
            program = [str(index), "2", str(coordinator), str(tmp_path / f"ready{index}"), str(go)]
            children.append(
                subprocess.Popen(
                    [*command, *program],
                    env=env,
                    cwd=tmp_path,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                )
            )
        scraped = []
        try:
            for index, child in enumerate(children):
                ready = tmp_path / f"ready{index}"
                deadline = time.monotonic() + TIMEOUT
                while not ready.exists():
                    assert child.poll() is None and time.monotonic() < deadline, child.stderr
                    time.sleep(0.05)
            scraped = [settled(ports[i], 3, function="train_step") for i in (0, 1)]
        finally:
            go.touch()
            errs = []
            for child in children:
                try:
                    errs.append(child.communicate(timeout=TIMEOUT)[1])
                finally:
                    if child.poll() is None:
                        child.kill()
                        child.wait()
    for index, child in enumerate(children):
        assert child.returncode == 0, errs[index][-3000:]
        logged = compiles_logged(errs[index])
        samples = scraped[index]
        resource = next(r for r in received.resources if r.get("process.pid") == child.pid)
        assert (resource["jax.process.index"], resource["jax.process.count"]) == (index, 2)
        assert resource["host.name"]
        for function, compiles in COMPILES[index].items():
            assert logged[function] == compiles, (index, function, logged)
            assert total(samples, "jitlab_compiles_total", function=function) == compiles
            pushed = received.total("jitlab.compiles", pid=child.pid, function=function)
            assert pushed == compiles, (index, function)
        # (JAX's own jitted helpers called in the program, _identity_fn, are counted too)
        hits = sum(total(samples, "jitlab_cache_hits_total", function=f) for f in COMPILES[index])
        assert hits == HITS[index]
        pushed = sum(
            received.total("jitlab.cache_hits", pid=child.pid, function=f) for f in COMPILES[index]
        )
        assert pushed == HITS[index]
    # Process 1's short batch: a recompile for a new shape, in both doors.
    shape = {"function": "preprocess", "kind": "recompile", "reason": "shape"}
    assert total(scraped[1], "jitlab_compiles_total", **shape) == 1
    assert total(scraped[0], "jitlab_compiles_total", **shape) == 0
    assert received.total("jitlab.compiles", pid=children[1].pid, **shape) == 1
