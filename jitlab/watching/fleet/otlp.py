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

A collector that cannot be reached costs the program little: every push is made on that
thread (a bare ``_thread``, as the recorder's flusher: the program sees only its own
threads), the last one (at the end) is waited for at most :data:`LAST_PUSH_S`, and what the
SDK logs about jitlab's pushes (retries, failures) is kept out of the program's log — jitlab
says the first failure in one line of its own where it speaks (:class:`_OwnPushes`).
"""

from __future__ import annotations

import _thread
import contextlib
import logging
import math
import os
import re
import socket
import threading
from typing import Any

from jitlab._version import __version__
from jitlab.probe import monitor
from jitlab.records import messages
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
LAST_PUSH_S = 3.0  # the end waits this long for the last push, then gives it up
# Where the SDK logs about an export: the reader, the OTLP/HTTP exporter and its client.
SDK_LOGGERS = (
    "opentelemetry.sdk.metrics._internal.export",
    "opentelemetry.exporter.otlp.proto.http.metric_exporter",
    "opentelemetry.exporter.otlp.common.http",
)
# The SDK's defaults for its periodic reader, read from the same variables.
DEFAULT_INTERVAL_MS = 60_000.0
DEFAULT_TIMEOUT_MS = 30_000.0


def _milliseconds(name: str, default: float) -> float:
    try:
        value = float(os.environ.get(name, default))
    except ValueError:
        return default
    return value if 0 < value < math.inf else default


class _OwnPushes(logging.Filter):
    """On the SDK's export loggers: a record made on jitlab's push threads is not the program's
    to see (retries, failures); the first failure is said once in jitlab's words. Records of
    every other thread — the program's own OpenTelemetry — pass as before. Stays installed,
    as it only drops what jitlab's own threads log. (Python's logging names the thread of a
    record it makes: on a bare thread that lists a "Dummy" thread, only once a push failed.)"""

    def __init__(self) -> None:
        super().__init__()
        self.said = False  # set back by each door that opens
        self.threads: set[int] = set()  # the push threads' idents

    def filter(self, record: logging.LogRecord) -> bool:
        if record.thread not in self.threads:
            return True
        if record.levelno >= logging.WARNING and not self.said:
            self.said = True
            with contextlib.suppress(Exception):
                text = record.getMessage()
                errno = re.search(r"\[Errno -?\d+\][^'\")]*", text)  # the socket's own words
                why = errno.group(0).strip() if errno else text.strip().splitlines()[0][:160]
                line = messages.say("watch.otlp_failed", monitor.user_language(), error=why)
                monitor.say_words(line + "\n")
        return False


OWN_PUSHES = _OwnPushes()


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
        self._ended: threading.Event | None = None  # set when the push thread has ended
        for name in SDK_LOGGERS:
            logger = logging.getLogger(name)
            if OWN_PUSHES not in logger.filters:
                logger.addFilter(OWN_PUSHES)

    def __str__(self) -> str:
        return "OpenTelemetry (OTLP/HTTP)"

    def open(self) -> None:
        OWN_PUSHES.said = False
        self._stop, self._ended = threading.Event(), threading.Event()
        _thread.start_new_thread(self._run, (self._stop, self._ended))

    def _run(self, stop: threading.Event, ended: threading.Event) -> None:
        me = _thread.get_ident()
        OWN_PUSHES.threads.add(me)
        try:
            while not stop.wait(self.interval_s):
                self._push()
            self._push()  # the last one, at the end
        except BaseException:  # never into the program (a bare thread would print it)
            pass
        finally:
            OWN_PUSHES.threads.discard(me)
            ended.set()

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
        """The last push, waited for at most LAST_PUSH_S; then the provider is shut down,
        which ends the exporter's retries, and the thread."""
        self._stop.set()
        ended, self._ended = self._ended, None
        if ended is not None:
            ended.wait(LAST_PUSH_S)
        provider, self.provider, self._reader = self.provider, None, None
        if provider is not None:
            with contextlib.suppress(Exception):
                provider.shutdown()
        if ended is not None:
            ended.wait()
