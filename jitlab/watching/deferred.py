"""A recording that waits for the program to import JAX: ``jitlab watch``'s recorder.

Under plain python JAX is imported where the program imports it: after the program has set
``JAX_ENABLE_X64``, ``JAX_PLATFORMS`` or ``XLA_FLAGS`` in ``os.environ`` (JAX reads its
flags' variables when it is imported), and with JAX's exit functions (``clean_up``, the
collectives' ``Finalize``) registered at that moment, so that an exit function the program
registered before it ran after them. A watch that imported JAX before the program gave it
JAX without x64, and ran those exit functions in another order.

So the recording's file is opened, and its ``start`` line written, before the program runs
(a file that cannot be written is refused then), and the recorder starts when the program's
``import jax`` has run JAX's ``__init__``, before the import returns to the program: jitted
functions, the stand-in for ``jax.jit``, JAX's listeners are all in place before the
program's first use of JAX. Where JAX is imported already, it starts at once. Until then it
writes nothing but the ``end`` line; a child forked before JAX was imported writes its own
file once it imports JAX (``run.pid<PID>.jsonl``), none otherwise.

Importing this module imports no JAX.
"""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.machinery
import os
import sys
import threading
from collections.abc import Callable
from typing import Any

from jitlab.records.lines import RecordedNotice, RecordingEnd
from jitlab.watching.files import RecordingFile


class _AfterImport(importlib.abc.MetaPathFinder):
    """Finds the top-level module ``name`` as the finders after it do, and calls ``then()``
    once its code has run, before the import returns to its importer. The module's
    ``__loader__`` and ``__spec__.loader`` are the real loader's again by then."""

    def __init__(self, name: str, then: Callable[[], None]) -> None:
        self.name, self.then = name, then

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname != self.name:
            return None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if finder is self or find is None:
                continue
            spec = find(fullname, path, target)
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        spec.loader = _ThenLoader(loader, self)
        return spec


class _ThenLoader(importlib.abc.Loader):
    def __init__(self, loader: Any, finder: _AfterImport) -> None:
        self.loader, self.finder = loader, finder

    def create_module(self, spec: Any) -> Any:
        return self.loader.create_module(spec)

    def exec_module(self, module: Any) -> None:
        spec = getattr(module, "__spec__", None)
        try:
            self.loader.exec_module(module)
        finally:  # the module as the real loader leaves it
            with contextlib.suppress(Exception):
                module.__loader__ = self.loader
                if spec is not None and spec.loader is self:
                    spec.loader = self.loader
        self.finder.then()

    def __getattr__(self, name: str) -> Any:  # resources, source, …: the real loader's
        return getattr(self.loader, name)


class Deferred:
    """``jitlab watch``'s recording: :attr:`output` is open (see the module docstring), and
    ``make(output)`` makes and starts the :class:`~jitlab.watching.recorder.Recorder` once
    JAX is imported. ``said(exc)`` says a recorder that could not start (the program goes
    on, unwatched). Answers what the watch's end asks of a recorder."""

    def __init__(
        self,
        output: RecordingFile,
        scripts: str | None,
        make: Callable[[RecordingFile], Any],
        said: Callable[[BaseException], None],
    ) -> None:
        self.output, self.scripts = output, scripts
        self.recorder: Any = None
        self._make, self._said = make, said
        self._finder: _AfterImport | None = None
        self._lock = threading.RLock()
        self._stopped = False

    def begin(self) -> None:
        """Start now where JAX is imported (what cannot start raises), else at its import."""
        if "jax" in sys.modules:
            self._start()
            return
        self._finder = _AfterImport("jax", self._start_quietly)
        sys.meta_path.insert(0, self._finder)

    def _start_quietly(self) -> None:
        try:
            self._start()
        except (Exception, SystemExit) as exc:  # never into the program's import
            with contextlib.suppress(Exception):
                self._said(exc)

    def _start(self) -> None:
        with self._lock:
            self._forget_finder()
            if self.recorder is not None or self._stopped:
                return
            if os.getpid() != self.output.pid:  # forked before JAX: this process's own file
                self.output.open_in_child(self.scripts)
            self.recorder = self._make(self.output)

    def _forget_finder(self) -> None:
        finder, self._finder = self._finder, None
        if finder is not None:
            with contextlib.suppress(ValueError):
                sys.meta_path.remove(finder)

    # -- what the watch's end, its signal handlers and its exec hook ask --------------------
    @property
    def recording(self) -> bool:
        if self.recorder is not None:
            return bool(self.recorder.recording)
        return not self._stopped and self.output.opened and os.getpid() == self.output.pid

    @property
    def file_path(self) -> Any:
        return self.output.file_path

    @property
    def forks(self) -> int:
        return int(self.recorder.forks) if self.recorder is not None else 0

    @property
    def calls(self) -> list[Any]:
        return list(self.recorder.calls) if self.recorder is not None else []

    def note(self, notice: str) -> None:
        if self.recorder is not None:
            self.recorder.note(notice)
        elif self.recording:
            self.output.write(RecordedNotice(notice, self.output.elapsed()).to_json())

    def stop(self, *, signal: str | None = None) -> None:
        """The recording's end; before JAX, only its ``end`` line (in the process that
        opened the file: a child forked before JAX has no file of its own)."""
        with self._lock:
            self._forget_finder()
            if self.recorder is not None:
                self.recorder.stop(signal=signal)
                return
            recording, self._stopped = self.recording, True
            if recording:
                self.output.write(RecordingEnd(self.output.elapsed(), signal).to_json())
                self.output.close()
