"""The Prometheus door: ``/metrics`` served while the program runs (``prometheus_client``).

The metrics live in a registry of jitlab's own, never the library's default one the program
may use. With ``PROMETHEUS_MULTIPROC_DIR`` set (prometheus_client's multiprocess mode) each
process of a program that forks workers writes its values to that folder, and the port
serves them all, summed (each gauge over the processes alive); without it, only this
process's compiles are served, and a forked child's go nowhere.

The endpoint is prometheus_client's WSGI app served one request at a time on a bare
``_thread`` (as the recorder's flusher is): the program sees only its own threads in
``threading.enumerate()`` (a scrape is a few ms; a server that starts a thread per request
would show one while it lasts).
"""

from __future__ import annotations

import _thread
import os
import socket
import threading
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer

from jitlab.watching.fleet.metrics import (
    BUCKETS,
    CACHE_HITS,
    COMPILE_DURATION,
    COMPILES,
    DIAGNOSES,
    EXECUTABLES_LIVE,
    CannotServe,
    Metric,
    require,
)

OPTION = "--metrics-port"


class _Quiet(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # never a line per scrape
        pass


def _serve(server: WSGIServer, ended: threading.Event) -> None:
    try:
        server.serve_forever()
    except BaseException:  # never into the program (a bare thread would print it)
        pass
    finally:
        ended.set()


class PrometheusDoor:
    """jitlab's metrics on ``http://HOST:PORT/metrics`` while the watch runs."""

    def __init__(self, port: int, host: str = "127.0.0.1") -> None:
        client = require("prometheus_client", OPTION)
        values = require("prometheus_client.values", OPTION)
        self.port, self.host = port, host
        # Chosen by prometheus_client when it was first imported, from the environment.
        self.multiprocess = values.ValueClass is not values.MutexValue
        own = client.CollectorRegistry(auto_describe=True)
        if self.multiprocess:  # served: every process's files; own: where this one's go
            self.served = client.CollectorRegistry()
            require("prometheus_client.multiprocess", OPTION).MultiProcessCollector(self.served)
        else:
            self.served = own

        def made(kind: Any, metric: Metric, **options: Any) -> Any:
            return kind(
                metric.prometheus,
                metric.description,
                labelnames=metric.labels,
                registry=own,
                **options,
            )

        self.compiles = made(client.Counter, COMPILES)
        self.cache_hits = made(client.Counter, CACHE_HITS)
        self.duration = made(client.Histogram, COMPILE_DURATION, buckets=BUCKETS)
        self.diagnoses = made(client.Counter, DIAGNOSES)
        self.executables = made(client.Gauge, EXECUTABLES_LIVE, multiprocess_mode="livesum")
        self.active = True  # False in a forked child with nobody serving its values
        self._server: WSGIServer | None = None
        self._ended: threading.Event | None = None  # set when the serving thread has ended

    def __str__(self) -> str:
        return f"Prometheus ({self.address})"

    @property
    def address(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/metrics"

    def open(self) -> None:
        app = require("prometheus_client", OPTION).make_wsgi_app(self.served)
        try:  # in use, not allowed, no such address: said before the program runs
            family = socket.getaddrinfo(self.host, self.port, type=socket.SOCK_STREAM)[0][0]
            server_class = type("Server", (WSGIServer,), {"address_family": family})
            server = server_class((self.host, self.port), _Quiet)
        except OSError as exc:
            raise CannotServe(self.address, exc.strerror or str(exc)) from exc
        server.set_app(app)
        self._server, self._ended = server, threading.Event()
        _thread.start_new_thread(_serve, (server, self._ended))

    def compiled(self, function: str, kind: str, reason: str, seconds: float) -> None:
        if self.active:
            self.compiles.labels(function, kind, reason).inc()
            self.duration.labels(function, kind).observe(seconds)

    def hits(self, function: str, n: int) -> None:
        if self.active:
            self.cache_hits.labels(function).inc(n)

    def diagnosed(self, function: str, id: str) -> None:
        if self.active:
            self.diagnoses.labels(function, id).inc()

    def live(self, function: str, n: int) -> None:
        if self.active:
            self.executables.labels(function).set(n)

    def forked(self) -> None:
        """A forked child: the server is the parent's. In multiprocess mode its values go to
        the shared folder under its own pid (prometheus_client starts them anew); otherwise
        nobody would serve them."""
        self.active = self.multiprocess
        server, self._server, self._ended = self._server, None, None
        if server is not None:  # the listening socket is the parent's: let go of the copy
            server.socket.close()

    def close(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()  # serve_forever returns, then the thread ends
            server.server_close()
        if self._ended is not None:
            self._ended.wait()
            self._ended = None
        if self.multiprocess and self.active:  # this process's gauges are no longer alive
            multiprocess = require("prometheus_client.multiprocess", OPTION)
            multiprocess.mark_process_dead(os.getpid())
            self.active = False
