"""The fleet view's tests read the metrics as a fleet would: :func:`scrape` over real HTTP,
parsed by ``prometheus_client``'s own parser, and :func:`otlp_receiver`, a small
``http.server`` that decodes each OTLP/HTTP export with ``opentelemetry-proto`` (the protobuf
a collector reads) and keeps the latest value of every series (the exports are cumulative)."""

from __future__ import annotations

import gzip
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any
from urllib.request import urlopen

import pytest

# The fleet extra (jitlab[fleet]) and the collector's protobuf: the test extra installs both;
# a machine with only jitlab's core (a TPU VM given wheels) skips the fleet's tests.
pytest.importorskip("prometheus_client", reason="jitlab[fleet] is not installed here")
pytest.importorskip("opentelemetry.proto", reason="opentelemetry-proto is not installed here")

from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
    ExportMetricsServiceResponse,
)
from prometheus_client.parser import text_string_to_metric_families

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def scrape(port: int, host: str = "127.0.0.1") -> Samples:
    """Every sample ``/metrics`` serves now, by name and labels."""
    with urlopen(f"http://{host}:{port}/metrics", timeout=30) as reply:
        text = reply.read().decode("utf-8")
    samples: Samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def total(samples: Samples, name: str, **labels: str) -> float:
    """The sum of ``name``'s samples whose labels include ``labels``."""
    return sum(
        value
        for (sample, held), value in samples.items()
        if sample == name and all(dict(held).get(k) == v for k, v in labels.items())
    )


def settled(port: int, at_least: float, seconds: float = 60.0, **labels: str) -> Samples:
    """The scrape once the flush path (about once a second) has handed on ``at_least`` cache
    hits of the functions ``labels`` pick; the last scrape when it did not in ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        samples = scrape(port)
        if total(samples, "jitlab_cache_hits_total", **labels) >= at_least:
            return samples
        if time.monotonic() > deadline:
            return samples
        time.sleep(0.2)


def label_values(samples: Samples, name: str, label: str) -> set[str]:
    return {dict(held)[label] for (sample, held) in samples if sample == name}


def _value(any_value: Any) -> Any:
    return getattr(any_value, any_value.WhichOneof("value"))


def _attributes(pairs: Any) -> dict[str, Any]:
    return {kv.key: _value(kv.value) for kv in pairs}


@dataclass
class Received:
    """What the receiver was sent: requests, their headers, and each series' latest point."""

    requests: int = 0
    headers: list[dict[str, str]] = field(default_factory=list)
    resources: list[dict[str, Any]] = field(default_factory=list)
    # (resource's process.pid, metric name, attributes as a sorted tuple) -> latest point
    latest: dict[tuple[Any, str, tuple[tuple[str, Any], ...]], dict[str, Any]] = field(
        default_factory=dict
    )
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, request: ExportMetricsServiceRequest, headers: dict[str, str]) -> None:
        with self.lock:
            self.requests += 1
            self.headers.append(headers)
            for resource_metrics in request.resource_metrics:
                resource = _attributes(resource_metrics.resource.attributes)
                if resource not in self.resources:
                    self.resources.append(resource)
                pid = resource.get("process.pid")
                for scope in resource_metrics.scope_metrics:
                    for metric in scope.metrics:
                        for point in _points(metric):
                            labels = tuple(sorted(point.pop("attributes").items()))
                            self.latest[(pid, metric.name, labels)] = point

    def values(self, name: str, pid: Any = None, **labels: Any) -> list[dict[str, Any]]:
        """The latest points of ``name`` whose attributes include ``labels``."""
        with self.lock:
            return [
                point
                for (p, metric, attrs), point in self.latest.items()
                if metric == name
                and (pid is None or p == pid)
                and all(dict(attrs).get(k) == v for k, v in labels.items())
            ]

    def total(self, name: str, pid: Any = None, **labels: Any) -> float:
        return sum(p.get("value", p.get("count", 0)) for p in self.values(name, pid, **labels))


def _points(metric: Any) -> Iterator[dict[str, Any]]:
    data = metric.WhichOneof("data")
    if data in ("sum", "gauge"):
        for point in getattr(metric, data).data_points:
            number = point.as_int if point.WhichOneof("value") == "as_int" else point.as_double
            yield {"attributes": _attributes(point.attributes), "value": number, "type": data}
    elif data == "histogram":
        for point in metric.histogram.data_points:
            yield {
                "attributes": _attributes(point.attributes),
                "count": point.count,
                "sum": point.sum,
                "bounds": list(point.explicit_bounds),
                "type": data,
            }


@contextmanager
def otlp_receiver() -> Iterator[tuple[str, Received]]:
    """(endpoint for ``OTEL_EXPORTER_OTLP_ENDPOINT``, what it received) for the block."""
    received = Received()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            if self.headers.get("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
            if self.path != "/v1/metrics":
                self.send_response(404)
                self.end_headers()
                return
            request = ExportMetricsServiceRequest()
            request.ParseFromString(body)
            received.add(request, {k.lower(): v for k, v in self.headers.items()})
            reply = ExportMetricsServiceResponse().SerializeToString()
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

    # One request at a time: a test that looks at the program's threads sees no handler's.
    server = HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, name="otlp-receiver", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", received
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
