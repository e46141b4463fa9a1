"""Per-process recording files: where a recording's lines go, and how they are written.

**One recording per process.** Run in every process of a ``jax.distributed`` job, each
process writes its own file, ``run.p0.jsonl``, ``run.p1.jsonl``, … (``run.jsonl`` named by
the user), and every line carries ``"process": i``. The index comes from the launcher's
environment at start (:data:`~jitlab.probe._jax.LAUNCHER_PROCESS_VARIABLES`: Slurm, Open MPI,
PMI). Otherwise the program says it to ``jax.distributed.initialize`` itself: nothing is
wrapped; at the first line after ``start`` (the first compile, or the end) the recorder asks
JAX — ``jax.process_count()``, only once the backend runs, which any compile implies and
which ``jax.distributed.initialize`` must precede — and renames its file. Until then the
first process to lock ``run.jsonl`` writes there and the others write to a provisional
``run.pid<PID>.jsonl``. A single process keeps ``run.jsonl``, with no ``process`` field.
A forked child writes ``run.pid<PID>.jsonl``, its ``start`` line naming its parent.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import socket
import sys
import time
from pathlib import Path
from typing import IO, Any

import jax

import jitlab
from jitlab.probe import _jax
from jitlab.records.calls import dumps_strict
from jitlab.records.lines import ProcessInfo, RecordingStart
from jitlab.records.outputs import RECORDING, is_kind, is_stream, refusal

try:  # POSIX: two processes of one job never write the same file
    import fcntl
except ImportError:  # pragma: no cover - Windows: the first writer is not protected
    fcntl = None  # type: ignore[assignment]


def launcher_process(environ: Any = None) -> tuple[int, int] | None:
    """(index, count) from a launcher's environment when it started several processes."""
    environ = os.environ if environ is None else environ
    for index_name, count_name in _jax.LAUNCHER_PROCESS_VARIABLES:
        try:
            index, count = int(environ[index_name]), int(environ[count_name])
        except (KeyError, ValueError):
            continue
        if count > 1 and 0 <= index < count:
            return index, count
    return None


def process_path(path: str | Path, index: int) -> Path:
    """The recording of process ``index``: ``run.jsonl`` -> ``run.p1.jsonl``."""
    path = Path(path)
    return path.with_name(f"{path.stem}.p{index}{path.suffix}")


def open_lines(path: Path, mode: str) -> IO[str]:
    # Strict UTF-8; a line holding a lone surrogate (a non-UTF-8 byte in argv or a message)
    # is written escaped instead (see RecordingFile._write_line).
    return path.open(mode, encoding="utf-8")


def claim(path: Path) -> tuple[IO[str], Path]:
    """Open ``path`` for this process alone, or a provisional file when another holds it."""
    if is_stream(path):  # /dev/null, /dev/stdout | cat: written as it comes, never truncated
        return open_lines(path, "w"), path
    f = open_lines(path, "a")  # "a": never empty a file another process writes
    try:
        if fcntl is not None:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        f.close()
        pending = path.with_name(f"{path.stem}.pid{os.getpid()}{path.suffix}")
        why = refusal(pending, RECORDING)
        if why is not None:  # never over a user's file, whatever its name
            raise FileExistsError(why) from None
        return open_lines(pending, "w"), pending
    f.seek(0)
    f.truncate()
    return f, path


def child_path(path: str | Path, pid: int) -> Path:
    """A forked child's own recording: ``run.jsonl`` -> ``run.pid4242.jsonl``."""
    path = Path(path)
    return path.with_name(f"{path.stem}.pid{pid}{path.suffix}")


def child_recordings(output: RecordingFile) -> list[Path]:
    """The files forked children of this recording's process wrote (their ``start`` line
    names this process as ``parent``)."""
    if output.path is None or output.stream:
        return []
    found = []
    pattern = f"{output.path.stem}.pid*{output.path.suffix}"
    for candidate in sorted(output.path.parent.glob(pattern)):
        if not is_kind(candidate, RECORDING):
            continue
        try:
            with candidate.open("rb") as f:
                start = json.loads(f.readline(1 << 16))
        except (OSError, ValueError):
            continue
        if isinstance(start, dict) and start.get("parent") == output.pid:
            found.append(candidate)
    return found


def start_line(
    scripts: str | None, process: int | None = None, processes: int | None = None
) -> RecordingStart:
    """The ``start`` line of a recording made now, by this program."""
    return RecordingStart(
        tuple(sys.argv),
        jax.__version__,
        jitlab.__version__,
        time.time(),
        host=socket.gethostname(),
        process=process,
        processes=processes,
        scripts=scripts,
    )


class RecordingFile:
    """Where one recording's lines go (none without a path), and the clock of their ``t``."""

    def __init__(self, path: str | Path | None) -> None:
        self.path = Path(path) if path is not None else None
        self.file: IO[str] | None = None
        self.file_path: Path | None = None  # where the lines go now (see the module docstring)
        self.process: int | None = None  # this process's index in a multi-process job
        self.first_line: RecordingStart | None = None
        self.resolved = False
        self.stream = False  # writing to a device or a pipe: no rename, no rewrite
        self.pid = os.getpid()
        self.inherited: list[IO[str]] = []  # a forked child's copy of its parent's file
        self.started = 0.0

    def open(self, scripts: str | None) -> None:
        """Start the clock; with a path, claim this process's file and write ``start``."""
        self.started = time.monotonic()
        self.pid = os.getpid()
        if self.path is None:
            return
        # Absolute now: a program that changes folder does not move its recording.
        self.path = Path(os.path.abspath(self.path))
        why = refusal(self.path, RECORDING)
        if why is not None:  # never over a user's file
            raise FileExistsError(why)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        launched = launcher_process()
        self.resolved = False
        self.stream = is_stream(self.path)
        if launched is not None and not self.stream:
            self.process = launched[0]
            self.file_path = process_path(self.path, self.process)
            why = refusal(self.file_path, RECORDING)
            if why is not None:
                raise FileExistsError(why)
            self.file = open_lines(self.file_path, "w")
        else:
            self.process = launched[0] if launched is not None else None
            self.file, self.file_path = claim(self.path)
        self.first_line = start_line(scripts, self.process, launched[1] if launched else None)
        self.write(self.first_line.to_json(pid=os.getpid()))

    def open_in_child(self, scripts: str | None) -> bool:
        """In a forked child: leave the parent's file, open this process's own (False when
        there is none to open: no path, a stream, or a user's file by that name)."""
        parent, self.pid = self.pid, os.getpid()
        if self.file is not None:  # never closed here: its lock may be held from the fork
            self.inherited.append(self.file)
            self.file = None
        self.started = time.monotonic()
        if self.path is None or self.stream:  # a stream is the parent's: nothing written
            self.file_path = None
            return False
        self.file_path = child_path(self.path, self.pid)
        if refusal(self.file_path, RECORDING) is not None:  # a user's file by that name
            self.file_path = None
            return False
        self.file = open_lines(self.file_path, "w")
        self.process, self.resolved = None, True
        self.first_line = start_line(scripts)
        self.write(self.first_line.to_json(pid=self.pid, parent=parent))
        return True

    def close(self) -> None:
        if self.file is not None:
            self.file.close()
            self.file = None

    def elapsed(self) -> float:
        return round(time.monotonic() - self.started, 6)

    def write(self, obj: dict[str, Any]) -> None:
        if self.file is None:
            return
        if not self.resolved and obj.get("type") != "start":
            self._resolve_process()
        if self.process is not None:
            obj = {**obj, "process": self.process}
        self._write_line(dumps_strict(obj))  # never a bare NaN
        self.file.flush()  # a crash or Ctrl-C loses nothing written before it

    def _write_line(self, line: str) -> None:
        assert self.file is not None
        try:
            self.file.write(line + "\n")
        except UnicodeEncodeError:  # a lone surrogate (argv's undecodable bytes): escaped
            self.file.write(json.dumps(json.loads(line), ensure_ascii=True) + "\n")

    def _resolve_process(self) -> None:
        """Ask JAX which process this is, once, before the first line after ``start``.

        Only when the backend already runs (it does at any compile): starting it here would
        break the program's later ``jax.distributed.initialize``. A multi-process job renames
        the file to ``run.p{index}.jsonl``, rewrites its one ``start`` line with the index
        and writes a ``process`` line with the device counts.
        """
        self.resolved = True
        assert self.file is not None and self.path is not None and self.file_path is not None
        if not _jax.backends_are_initialized():
            return
        try:
            count, index = jax.process_count(), jax.process_index()
            local, total = jax.local_device_count(), jax.device_count()
        except Exception:  # a backend that cannot say: leave the file as it is
            return
        start = self.first_line or RecordingStart()
        if count > 1:
            start = dataclasses.replace(start, process=index, processes=count)
        elif self.process is None:
            return  # a single process: run.jsonl, as always
        else:  # a launcher said so, but JAX runs alone here: keep the launcher's index
            index, count = self.process, start.processes or count
        target = process_path(self.path, index)
        if self.stream:  # a device or a pipe: lines marked with the index, no rename
            self.process = index
        elif self.file_path != target and refusal(target, RECORDING) is not None:
            pass  # a user's file has that name: the lines stay under the first one
        elif self.file_path != target:
            with contextlib.suppress(OSError):  # on failure it stays under its first name
                os.replace(self.file_path, target)
                self.file_path = target
            self.process = index
            self.file.seek(0)
            self.file.truncate()
            self.first_line = start
            self.write(start.to_json(pid=os.getpid()))
        self.process = index
        info = ProcessInfo(index, count, socket.gethostname(), local, total, self.elapsed())
        self.write(info.to_json())
