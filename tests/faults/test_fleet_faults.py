"""The fleet view under faults: a collector that cannot be reached, a door that breaks, a
program ended by SIGTERM while it serves its metrics. The program's output and exit status
stay those of the plain run; jitlab says what failed in one line of its own."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest

from jitlab.watching.fleet import Fleet
from jitlab.watching.fleet.prometheus import PrometheusDoor
from jitlab.watching.recorder import Recorder

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[1] / "watching"))
import distributed
from fleet_tools import scrape, settled, total

pytestmark = pytest.mark.slow

SERVING = str(Path(__file__).parents[1] / "watching" / "fleet_serving.py")
TIMEOUT = 300


def watch(*flags: str) -> list[str]:
    return [sys.executable, "-m", "jitlab.cli", "watch", *flags, "--", "python", SERVING]


def test_a_collector_that_cannot_be_reached_is_said_once_and_the_program_goes_on(
    tmp_path: Path,
) -> None:
    with_plain = dict(env=distributed.clean_env(), capture_output=True, text=True, timeout=TIMEOUT)
    plain = subprocess.run([sys.executable, SERVING], **with_plain)
    env = distributed.clean_env(
        OTEL_EXPORTER_OTLP_ENDPOINT=f"http://127.0.0.1:{distributed.free_port()}",  # nobody
        OTEL_METRIC_EXPORT_INTERVAL="200",
    )
    done = subprocess.run(
        watch("--out", str(tmp_path / "run.jsonl"), "--otlp"),
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert (done.returncode, done.stdout) == (plain.returncode, plain.stdout) == (0, plain.stdout)
    said = [line for line in done.stderr.splitlines() if "OTLP" in line]
    assert len(said) == 1 and "Connection refused" in said[0], done.stderr
    # The SDK's own retries and failures about jitlab's pushes stay out of the program's log.
    assert "Transient error" not in done.stderr and "Failed to export" not in done.stderr
    assert (tmp_path / "run.jsonl").read_text().splitlines()[-1].startswith('{"type": "end"')


class BrokenDoor:
    """A door whose library breaks when hits are handed on (as an exporter's bug would)."""

    closed = False

    def open(self) -> None: ...

    def compiled(self, function: str, kind: str, reason: str, seconds: float) -> None: ...

    def hits(self, function: str, n: int) -> None:
        raise RuntimeError("the exporter broke")

    def diagnosed(self, function: str, id: str) -> None: ...

    def live(self, function: str, n: int) -> None: ...

    def forked(self) -> None: ...

    def close(self) -> None:
        self.closed = True

    def __str__(self) -> str:
        return "broken door"


def test_a_door_that_breaks_is_left_out_in_one_line_and_the_others_go_on(capsys) -> None:
    port = distributed.free_port()
    broken = BrokenDoor()
    with Recorder(None, metrics=Fleet([broken, PrometheusDoor(port)])):
        step = jax.jit(lambda x: x + 1)
        for n in (1, 2, 1, 1):
            step(jnp.ones(n)).block_until_ready()  # never raises into the program
        samples = settled(port, 2)
    [line] = [line for line in capsys.readouterr().err.splitlines() if "broken door" in line]
    assert "RuntimeError: the exporter broke" in line and broken.closed
    assert total(samples, "jitlab_compiles_total", function="<lambda>") == 2
    assert total(samples, "jitlab_cache_hits_total", function="<lambda>") == 2


def test_sigterm_while_serving_metrics_ends_as_plain_with_the_recording_ended(
    tmp_path: Path,
) -> None:
    port = distributed.free_port()
    ready, go = tmp_path / "ready", tmp_path / "never"
    command = watch("--out", str(tmp_path / "run.jsonl"), "--metrics-port", str(port))
    child = subprocess.Popen(
        [*command, str(ready), str(go)],
        env=distributed.clean_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + TIMEOUT
        while not ready.exists():
            assert child.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        assert total(scrape(port), "jitlab_compiles_total") == 4
        child.send_signal(signal.SIGTERM)
        out, err = child.communicate(timeout=TIMEOUT)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == -signal.SIGTERM, err
    assert out.startswith("served ")
    last = (tmp_path / "run.jsonl").read_text().splitlines()[-1]
    assert '"type": "end"' in last and '"signal": "SIGTERM"' in last
    with pytest.raises(OSError):  # the port went with the program
        scrape(port)
