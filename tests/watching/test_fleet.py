"""The fleet view in this process: ``jitlab.watch(metrics_port=…)`` scraped over real HTTP
while the block runs, ``jitlab.watch(otlp=True)`` pushing to a receiver in the test; the
counts compared with JAX's own ``jax_log_compiles`` log of the same run."""

from __future__ import annotations

import socket
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.error import URLError

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jitlab
from jitlab.watching.fleet import METRICS, CannotServe
from jitlab.watching.fleet.metrics import reason_label
from tests.real.conftest import jax_compile_log

sys.path.insert(0, str(Path(__file__).parent))
from fleet_tools import label_values, otlp_receiver, scrape, settled, total

SIZES = (1, 4, 1, 8, 4, 16, 8, 1) + (4, 8, 16, 1) * 10  # four shapes, then the cache


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def until(check: Callable[[], Any], seconds: float = 120.0) -> Any:
    """``check()`` once it is truthy (the flush path runs about once a second)."""
    deadline = time.monotonic() + seconds
    while True:
        found = check()
        if found or time.monotonic() > deadline:
            return found
        time.sleep(0.1)


def run_requests(name: str) -> Any:
    """A serving loop jitted inside the watch (so its hits are counted): a new function of
    its own name each time (JAX shares one cache between the jax.jit objects of a function;
    jitlab counts the same code jitted again as the same function)."""

    def serve(params, batch):
        return jnp.tanh(batch @ params).sum(axis=-1)

    serve.__name__ = serve.__qualname__ = name
    serve = jax.jit(serve)
    params = np.full((16, 4), 0.5, np.float32)
    for n in SIZES:
        serve(params, np.ones((n, 16), np.float32)).block_until_ready()
    return serve


def test_a_serving_program_is_scraped_over_http_while_it_runs() -> None:
    from prometheus_client import REGISTRY

    port = free_port()
    threads = threading.enumerate()
    with jax_compile_log() as log, jitlab.watch(metrics_port=port):
        serve = run_requests("serve")
        hits = len(SIZES) - 4
        samples = settled(port, hits)
        assert threading.enumerate() == threads  # served from a thread the program never sees
        assert serve._cache_size() == 4  # JAX holds the four executables
    assert log.counts["serve"] == 4  # JAX's own log: four compiles of the step
    compiles = "jitlab_compiles_total"
    assert total(samples, compiles, function="serve") == log.counts["serve"]
    assert total(samples, compiles, function="serve", kind="compile", reason="first_call") == 1
    assert total(samples, compiles, function="serve", kind="recompile", reason="shape") == 3
    assert total(samples, "jitlab_cache_hits_total", function="serve") == hits
    duration = "jitlab_compile_duration_seconds"
    assert total(samples, f"{duration}_count", function="serve") == 4
    assert total(samples, f"{duration}_sum", function="serve") > 0
    assert total(samples, "jitlab_executables_live", function="serve") == 4
    # The program's default registry holds none of jitlab's metrics.
    assert not [m for m in REGISTRY.collect() if m.name.startswith("jitlab")]
    # The port is closed with the block.
    with pytest.raises(URLError):
        scrape(port)
    assert threading.enumerate() == threads


def test_every_metric_is_served_under_its_documented_name() -> None:
    port = free_port()
    with jitlab.watch(metrics_port=port):
        run_requests("described")
        samples = settled(port, len(SIZES) - 4)
    names = {name for name, _ in samples}
    for metric in METRICS:
        if metric.type == "histogram":
            assert f"{metric.exposed}_bucket" in names
        elif metric.name != "jitlab.diagnoses":  # none stated in this run
            assert metric.exposed in names


def test_function_names_past_the_cap_are_counted_as_other() -> None:
    port = free_port()

    def make(k):
        def f(x):
            return x + k

        f.__name__ = f.__qualname__ = f"f{k}"
        return f

    with jitlab.watch(metrics_port=port, metrics_max_functions=2):
        for k in range(5):
            jax.jit(make(k))(jnp.ones(3)).block_until_ready()
        samples = until(lambda: scrape(port))
    functions = label_values(samples, "jitlab_compiles_total", "function")
    assert functions == {"f0", "f1", "other"}
    assert total(samples, "jitlab_compiles_total", function="other") == 3


def test_a_diagnosis_is_counted_by_its_id(capsys) -> None:
    port = free_port()
    with jitlab.watch(metrics_port=port, warn_after=2):
        step = jax.jit(lambda x: x * 2)
        for n in (1, 2, 3, 4):
            step(jnp.ones(n)).block_until_ready()

        def counted():
            samples = scrape(port)
            return samples if total(samples, "jitlab_diagnoses_total") else None

        samples = until(counted)
    assert "recompile-limit" in capsys.readouterr().err  # said live, as without metrics
    assert total(samples, "jitlab_diagnoses_total", function="<lambda>", id="recompile-limit") == 1


def test_a_taken_port_is_refused_before_the_block_runs() -> None:
    real_jit, threads = jax.jit, threading.enumerate()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(CannotServe, match=f"127.0.0.1:{port}"), jitlab.watch(metrics_port=port):
            pytest.fail("the block ran")
    assert jax.jit is real_jit and threading.enumerate() == threads


def test_bad_options_are_refused() -> None:
    with pytest.raises(ValueError, match="metrics_port"), jitlab.watch(metrics_port=70000):
        pass
    capped = jitlab.watch(metrics_port=free_port(), metrics_max_functions=0)
    with pytest.raises(ValueError, match="max_functions"), capped:
        pass


def test_otlp_pushes_the_metrics_with_the_standard_variables(monkeypatch) -> None:
    from opentelemetry import metrics

    global_provider = metrics.get_meter_provider()
    with otlp_receiver() as (endpoint, received):
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", "authorization=Bearer fleet-token")
        monkeypatch.setenv("OTEL_RESOURCE_ATTRIBUTES", "service.name=serving,team=infra")
        monkeypatch.setenv("OTEL_METRIC_EXPORT_INTERVAL", "200")
        threads = threading.enumerate()
        with jax_compile_log() as log, jitlab.watch(otlp=True):
            run_requests("pushed")
            # Pushed while the block runs, not only at its end.
            assert until(lambda: received.total("jitlab.cache_hits") == len(SIZES) - 4)
            assert threading.enumerate() == threads  # pushed from a thread it never sees
        assert threading.enumerate() == threads
    assert metrics.get_meter_provider() is global_provider  # the global one left alone
    assert received.total("jitlab.compiles", function="pushed") == log.counts["pushed"] == 4
    assert received.total("jitlab.compiles", kind="compile", reason="first_call") == 1
    assert received.total("jitlab.compiles", kind="recompile", reason="shape") == 3
    [duration] = received.values("jitlab.compile.duration", function="pushed", kind="recompile")
    assert duration["count"] == 3 and duration["sum"] > 0 and duration["bounds"][0] == 0.005
    assert received.total("jitlab.executables.live", function="pushed") == 4
    assert all(h["authorization"] == "Bearer fleet-token" for h in received.headers)
    [resource] = received.resources
    assert resource["service.name"] == "serving" and resource["team"] == "infra"
    assert resource["host.name"] == socket.gethostname()
    assert "jax.process.index" not in resource  # a process alone is no job


def test_the_reason_label_joins_each_kind_once_in_a_fixed_order() -> None:
    from jitlab.records.calls import Change, Reason
    from jitlab.records.changes import ChangeKind

    both = Reason((Change(ChangeKind.SHAPE), Change(ChangeKind.DTYPE), Change(ChangeKind.SHAPE)))
    assert reason_label(both) == "shape+dtype"
    assert reason_label(Reason((Change(ChangeKind.DTYPE), Change(ChangeKind.SHAPE)))) == (
        "shape+dtype"
    )
    assert reason_label(None) == "none"
