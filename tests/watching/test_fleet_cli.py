"""``jitlab watch --metrics-port / --otlp`` on real programs: scraped over HTTP while they
run, pushed to an OTLP receiver, forked workers summed in prometheus_client's multiprocess
mode; the counts equal JAX's ``jax_log_compiles`` log of the same run, and the program's
output and exit status are those of the plain run."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.real.conftest import compiles_logged

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[1] / "faults"))
import distributed
import fleet_serving
from fleet_tools import otlp_receiver, scrape, settled, total

pytestmark = pytest.mark.slow

HERE = Path(__file__).parent

SERVING = str(HERE / "fleet_serving.py")
TIMEOUT = 300


def watch_command(*flags: str) -> list[str]:
    return [sys.executable, "-m", "jitlab.cli", "watch", *flags, "--", "python"]


def environment(**extra: str) -> dict[str, str]:
    return distributed.clean_env(JAX_LOG_COMPILES="1", **extra)


def wait_for(path: Path, child: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + TIMEOUT
    while not path.exists():
        if child.poll() is not None or time.monotonic() > deadline:
            _, err = child.communicate()
            raise AssertionError(f"the program ended or hung before {path.name}:\n{err[-3000:]}")
        time.sleep(0.05)


def test_jitlab_watch_serves_the_metrics_while_a_serving_program_runs(tmp_path: Path) -> None:
    (tmp_path / "done").touch()
    plain = subprocess.run(
        [sys.executable, SERVING, str(tmp_path / "plain"), str(tmp_path / "done"), "3"],
        env=environment(),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    port = distributed.free_port()
    ready, go = tmp_path / "ready", tmp_path / "go"
    command = watch_command("--out", str(tmp_path / "run.jsonl"), "--metrics-port", str(port))
    child = subprocess.Popen(
        [*command, SERVING, str(ready), str(go), "3"],
        env=environment(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for(ready, child)
        samples = settled(port, fleet_serving.HITS)  # while the program still runs
    finally:
        go.touch()
        out, err = child.communicate(timeout=TIMEOUT)
    assert (child.returncode, out) == (plain.returncode, plain.stdout) == (3, plain.stdout), err
    logged = compiles_logged(err)
    assert logged["serve"] == compiles_logged(plain.stderr)["serve"] == fleet_serving.SHAPES
    compiles = "jitlab_compiles_total"
    assert total(samples, compiles, function="serve") == logged["serve"]
    assert total(samples, compiles, kind="compile", reason="first_call") == 1
    assert total(samples, compiles, kind="recompile", reason="shape") == logged["serve"] - 1
    assert total(samples, "jitlab_cache_hits_total", function="serve") == fleet_serving.HITS
    assert total(samples, "jitlab_compile_duration_seconds_count") == logged["serve"]
    assert total(samples, "jitlab_executables_live", function="serve") == fleet_serving.SHAPES
    with pytest.raises(OSError):  # the port closed with the program
        scrape(port)


@pytest.mark.parametrize(
    ("flag", "hidden"), [("--metrics-port=9", "prometheus_client"), ("--otlp", "opentelemetry")]
)
def test_without_the_extra_the_flags_refuse_in_one_line(
    tmp_path: Path, flag: str, hidden: str
) -> None:
    # A Python where the library is not importable (as when the extra was not installed).
    hide = (
        f"import sys; sys.modules[{hidden!r}] = None; "
        "from jitlab.cli import main; sys.exit(main(sys.argv[1:]))"
    )
    ready = tmp_path / "ready"
    done = subprocess.run(
        [sys.executable, "-c", hide, "watch", flag, "--", "python", SERVING, str(ready), "go"],
        env=environment(),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        cwd=tmp_path,
    )
    assert done.returncode == 2 and done.stdout == ""
    [line] = done.stderr.splitlines()
    assert hidden in line and "pip install 'jitlab[fleet]'" in line, line
    assert not ready.exists() and not (tmp_path / "jitlab-watch.jsonl").exists()


def test_a_taken_port_is_refused_in_one_line_before_the_program_runs(tmp_path: Path) -> None:
    ready = tmp_path / "ready"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [*watch_command("--metrics-port", str(port)), SERVING, str(ready), "go"],
            env=environment(),
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            cwd=tmp_path,
        )
    assert done.returncode == 2 and done.stdout == ""
    [line] = done.stderr.splitlines()
    assert f"cannot serve metrics at http://127.0.0.1:{port}/metrics" in line, line
    assert not ready.exists() and not (tmp_path / "jitlab-watch.jsonl").exists()


def test_otlp_pushes_a_serving_programs_metrics(tmp_path: Path) -> None:
    with otlp_receiver() as (endpoint, received):
        env = environment(
            OTEL_EXPORTER_OTLP_ENDPOINT=endpoint,
            OTEL_RESOURCE_ATTRIBUTES="service.name=serving",
            OTEL_METRIC_EXPORT_INTERVAL="250",
        )
        done = subprocess.run(
            [*watch_command("--out", str(tmp_path / "run.jsonl"), "--otlp"), SERVING],
            env=env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
    assert done.returncode == 0, done.stderr
    logged = compiles_logged(done.stderr)
    assert received.total("jitlab.compiles", function="serve") == logged["serve"] == 4
    assert received.total("jitlab.cache_hits", function="serve") == fleet_serving.HITS
    [resource] = received.resources
    assert resource["service.name"] == "serving" and resource["process.pid"] != os.getpid()


FORKS = """
import multiprocessing as mp, sys, time
from pathlib import Path
import jax, jax.numpy as jnp

@jax.jit
def work(x):
    return x * 2 + 1

def worker(n):
    for _ in range(3):
        work(jnp.ones(n)).block_until_ready()

if __name__ == "__main__":
    ctx = mp.get_context("fork")
    children = [ctx.Process(target=worker, args=(n,)) for n in (2, 3)]
    for child in children:
        child.start()
    for child in children:
        child.join(timeout=120)
    work(jnp.ones(1)).block_until_ready()  # the parent compiles after the forks
    print("exit codes", [child.exitcode for child in children], flush=True)
    Path(sys.argv[1]).touch()
    while not Path(sys.argv[2]).exists():
        time.sleep(0.05)
"""


def test_forked_workers_are_served_together_in_multiprocess_mode(tmp_path: Path) -> None:
    (tmp_path / "prog.py").write_text(FORKS)
    folder = tmp_path / "prometheus"
    folder.mkdir()
    port = distributed.free_port()
    ready, go = tmp_path / "ready", tmp_path / "go"
    child = subprocess.Popen(
        [*watch_command("--metrics-port", str(port)), "prog.py", str(ready), str(go)],
        env=environment(PROMETHEUS_MULTIPROC_DIR=str(folder)),
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for(ready, child)
        samples = settled(port, 4)  # each worker's two hits, flushed as it ended
    finally:
        go.touch()
        out, err = child.communicate(timeout=TIMEOUT)
    assert child.returncode == 0 and "exit codes [0, 0]" in out, err
    logged = compiles_logged(err)  # the workers log to the same stderr
    assert logged["work"] == 3
    assert total(samples, "jitlab_compiles_total", function="work") == logged["work"]
    assert total(samples, "jitlab_cache_hits_total", function="work") == 4
    # The workers have ended: only the parent's executables are alive.
    assert total(samples, "jitlab_executables_live", function="work") == 1


def test_forked_workers_push_their_own_counts_over_otlp(tmp_path: Path) -> None:
    (tmp_path / "prog.py").write_text(FORKS)
    (tmp_path / "go").touch()
    with otlp_receiver() as (endpoint, received):
        env = environment(OTEL_EXPORTER_OTLP_ENDPOINT=endpoint, OTEL_METRIC_EXPORT_INTERVAL="250")
        done = subprocess.run(
            [*watch_command("--otlp"), "prog.py", "ready", "go"],
            env=env,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
    assert done.returncode == 0 and "exit codes [0, 0]" in done.stdout, done.stderr
    assert compiles_logged(done.stderr)["work"] == 3
    # Three processes, each its own resource (process.pid) with its own counts: the parent's
    # counts never come along into a worker's.
    pids = {resource["process.pid"] for resource in received.resources}
    assert len(pids) == 3
    for pid in pids:
        assert received.total("jitlab.compiles", pid=pid, function="work") == 1
    assert received.total("jitlab.cache_hits", function="work") == 4
