"""The OpenTelemetry door: the metrics pushed over OTLP/HTTP with the OpenTelemetry SDK.

Configured as every OTLP exporter is, by the environment: ``OTEL_EXPORTER_OTLP_ENDPOINT``
(default the SDK's, ``http://localhost:4318``), ``OTEL_EXPORTER_OTLP_HEADERS``,
``OTEL_RESOURCE_ATTRIBUTES``, ``OTEL_METRIC_EXPORT_INTERVAL`` (milliseconds, default 60000)
and the SDK's other ``OTEL_*`` variables. jitlab's own ``MeterProvider``, never the global
one: the program's own OpenTelemetry, if any, is left as it was.

The provider is made at the first compile, once the program has said which process of a
job it is (``jax.distributed.initialize`` comes before any compile): the resource carries
``jax.process.index``, ``jax.process.count`` and ``host.name`` (and ``process.pid``), under
whatever ``OTEL_RESOURCE_ATTRIBUTES`` says. jitlab drives the exports from a thread of its
own, so a child the program forks leaves its parent's copy behind and exports its own
counts, as a process of its own.
"""

from __future__ import annotations

import contextlib
import math
import os
import socket
import threading
from typing import Any

from jitlab._version import __version__
from jitlab.watching.files import job_process
from jitlab.watching.fleet.metrics import (
    BUCKETS,
    CACHE_HITS,
    COMPILE_DURATION,
    COMPILES,
    DIAGNOSES,
    EXECUTABLES_LIVE,
    require,
)

OPTION = "--otlp"
# The SDK's defaults for its periodic reader, read from the same variables.
DEFAULT_INTERVAL_MS = 60_000.0
DEFAULT_TIMEOUT_MS = 30_000.0


def _milliseconds(name: str, default: float) -> float:
    try:
        value = float(os.environ.get(name, default))
    except ValueError:
        return default
    return value if 0 < value < math.inf else default


def resource_attributes() -> dict[str, Any]:
    """This process as the metrics' resource names it (before ``OTEL_RESOURCE_ATTRIBUTES``)."""
    attributes: dict[str, Any] = {"host.name": socket.gethostname(), "process.pid": os.getpid()}
    job = job_process()
    if job is not None:
        attributes["jax.process.index"], attributes["jax.process.count"] = job
    return attributes


class OtlpDoor:
    """jitlab's metrics pushed every ``OTEL_METRIC_EXPORT_INTERVAL`` and at the end."""

    def __init__(self) -> None:
        self._sdk = require("opentelemetry.sdk.metrics", OPTION)
        self._export = require("opentelemetry.sdk.metrics.export", OPTION)
        self._resources = require("opentelemetry.sdk.resources", OPTION)
        self._otlp = require("opentelemetry.exporter.otlp.proto.http.metric_exporter", OPTION)
        self.interval_s = _milliseconds("OTEL_METRIC_EXPORT_INTERVAL", DEFAULT_INTERVAL_MS) / 1e3
        self.timeout_ms = _milliseconds("OTEL_METRIC_EXPORT_TIMEOUT", DEFAULT_TIMEOUT_MS)
        self.provider: Any = None
        self._reader: Any = None
        self._instruments: dict[str, Any] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def open(self) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="jitlab-otlp", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            self._push()

    def _push(self) -> None:
        reader = self._reader
        if reader is not None:  # failures are the SDK's to log; the program goes on
            with contextlib.suppress(Exception):
                reader.collect(timeout_millis=self.timeout_ms)

    def _made(self) -> dict[str, Any]:
        """The instruments, with the provider made at the first use (see the docstring)."""
        if self._instruments:
            return self._instruments
        exporter = self._otlp.OTLPMetricExporter()
        # No interval: no thread or fork hook of the SDK's; _run exports.
        reader = self._export.PeriodicExportingMetricReader(
            exporter, export_interval_millis=math.inf, export_timeout_millis=self.timeout_ms
        )
        ours = self._resources.Resource(resource_attributes())
        resource = ours.merge(self._resources.Resource.create({}))  # the environment's win
        self.provider = self._sdk.MeterProvider(
            metric_readers=[reader], resource=resource, shutdown_on_exit=False
        )
        meter = self.provider.get_meter("jitlab", __version__)
        self._instruments = {
            "compiles": meter.create_counter(COMPILES.name, COMPILES.unit, COMPILES.description),
            "hits": meter.create_counter(CACHE_HITS.name, CACHE_HITS.unit, CACHE_HITS.description),
            "duration": meter.create_histogram(
                COMPILE_DURATION.name,
                COMPILE_DURATION.unit,
                COMPILE_DURATION.description,
                explicit_bucket_boundaries_advisory=BUCKETS,
            ),
            "diagnoses": meter.create_counter(
                DIAGNOSES.name, DIAGNOSES.unit, DIAGNOSES.description
            ),
            "live": meter.create_gauge(
                EXECUTABLES_LIVE.name, EXECUTABLES_LIVE.unit, EXECUTABLES_LIVE.description
            ),
        }
        self._reader = reader
        return self._instruments

    def compiled(self, function: str, kind: str, reason: str, seconds: float) -> None:
        made = self._made()
        made["compiles"].add(1, {"function": function, "kind": kind, "reason": reason})
        made["duration"].record(seconds, {"function": function, "kind": kind})

    def hits(self, function: str, n: int) -> None:
        self._made()["hits"].add(n, {"function": function})

    def diagnosed(self, function: str, id: str) -> None:
        self._made()["diagnoses"].add(1, {"function": function, "id": id})

    def live(self, function: str, n: int) -> None:
        self._made()["live"].set(n, {"function": function})

    def forked(self) -> None:
        """A forked child: the parent's provider and counts stay the parent's (its export
        thread did not come along); this process makes its own at its first record."""
        self.provider, self._reader, self._instruments = None, None, {}
        self.open()

    def close(self) -> None:
        """The last export (bounded by the exporter's timeout), then the provider shut down."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        self._push()
        provider, self.provider, self._reader = self.provider, None, None
        if provider is not None:
            with contextlib.suppress(Exception):
                provider.shutdown()
