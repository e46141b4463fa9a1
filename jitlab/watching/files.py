"""Per-process recording files: where a recording's lines go, and how they are written.

**One recording per process.** Run in every process of a ``jax.distributed`` job, each
process writes its own file, ``run.p0.jsonl``, ``run.p1.jsonl``, … (``run.jsonl`` named by
the user), and every line carries ``"process": i``. The index comes from the launcher's
environment at start (:data:`~jitlab.records.lines.LAUNCHER_PROCESS_VARIABLES`: Slurm, Open MPI,
PMI). Otherwise the program says it to ``jax.distributed.initialize`` itself: nothing is
wrapped; at the first line after ``start`` (the first compile, or the end) the recorder asks
JAX — ``jax.process_count()``, only once the backend runs, which any compile implies and
which ``jax.distributed.initialize`` must precede — and renames its file. Until then the
first process to lock ``run.jsonl`` writes there and the others write to a provisional
``run.pid<PID>.jsonl``. A single process keeps ``run.jsonl``, with no ``process`` field.
A forked child writes ``run.pid<PID>.jsonl``, its ``start`` line naming its parent.

Importing this module imports no JAX: ``jitlab watch`` opens the recording before the program
runs, and JAX is imported where the program imports it (see :mod:`~jitlab.watching.deferred`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import json
import os
import socket
import stat
import sys
import time
from pathlib import Path
from typing import Any

from jitlab._version import __version__
from jitlab.records.calls import dumps_strict
from jitlab.records.lines import LAUNCHER_PROCESS_VARIABLES, ProcessInfo, RecordingStart
from jitlab.records.outputs import RECORDING, is_kind, is_stream, refusal

try:  # POSIX: two processes of one job never write the same file
    import fcntl
except ImportError:  # pragma: no cover - Windows: the first writer is not protected
    fcntl = None  # type: ignore[assignment]


def launcher_process(environ: Any = None) -> tuple[int, int] | None:
    """(index, count) from a launcher's environment when it started several processes."""
    environ = os.environ if environ is None else environ
    for index_name, count_name in LAUNCHER_PROCESS_VARIABLES:
        try:
            index, count = int(environ[index_name]), int(environ[count_name])
        except (KeyError, ValueError):
            continue
        if count > 1 and 0 <= index < count:
            return index, count
    return None


def job_process() -> tuple[int, int] | None:
    """(index, count) of this process in a multi-process job: JAX's once its backend runs
    (asking earlier would start it, and a later ``jax.distributed.initialize`` would fail),
    else the launcher's; None for a process alone."""
    if _backends_up():
        import jax

        with contextlib.suppress(Exception):  # a backend that cannot say
            count = jax.process_count()
            if count > 1:
                return jax.process_index(), count
    return launcher_process()


def _backends_up() -> bool:
    """Does JAX's backend run? Never imports JAX: one not imported yet has started none."""
    if "jax" not in sys.modules:
        return False
    from jitlab.probe import _jax

    return _jax.backends_are_initialized()


def process_path(path: str | Path, index: int) -> Path:
    """The recording of process ``index``: ``run.jsonl`` -> ``run.p1.jsonl``."""
    path = Path(path)
    return path.with_name(f"{path.stem}.p{index}{path.suffix}")


class LineFile:
    """A recording's open file, written a whole line at a time by ``os.write``.

    No buffer: nothing is left to be flushed later into a descriptor the program took over
    (``os.closerange(3, …)``, then a file of its own opened on the same number). Before each
    line the descriptor is checked to still be the file opened (device and inode); a
    failure to write raises ``OSError`` and the caller stops the recording (see
    :meth:`RecordingFile.write`). A regular file is cut back to its last whole line.
    """

    def __init__(self, path: Path, mode: str) -> None:
        flags = os.O_WRONLY | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
        if mode == "a" or not is_stream(path):
            flags |= os.O_APPEND  # writes go to the end, also after a truncation
        if mode == "w" and not is_stream(path):
            flags |= os.O_TRUNC
        self.fd = os.open(path, flags, 0o666)
        st = os.fstat(self.fd)
        self.identity = (st.st_dev, st.st_ino)
        self.regular = stat.S_ISREG(st.st_mode)
        self.size = st.st_size if mode == "a" else 0  # bytes of whole lines written
        self.closed = False

    def fileno(self) -> int:
        return self.fd

    def mine(self) -> bool:
        """Is the descriptor still this file (not closed, not another file on its number)?"""
        if self.closed:
            return False
        try:
            st = os.fstat(self.fd)
        except OSError:
            return False
        return (st.st_dev, st.st_ino) == self.identity

    def write(self, text: str) -> None:
        if not self.mine():
            raise OSError(errno.EBADF, os.strerror(errno.EBADF))
        encoded = text.encode("utf-8")
        data = memoryview(encoded)
        try:
            while data:
                data = data[os.write(self.fd, data) :]
        except OSError:
            if self.regular:  # a part written: cut back to the last whole line
                with contextlib.suppress(OSError):
                    os.ftruncate(self.fd, self.size)
            raise
        self.size += len(encoded)

    def truncate(self) -> None:
        os.ftruncate(self.fd, 0)
        self.size = 0

    def close(self) -> None:
        """Close the descriptor, only while it is still this file's."""
        if self.mine():
            with contextlib.suppress(OSError):
                os.close(self.fd)
        self.closed = True


def say_stopped(path: Path | None, exc: OSError, at: int) -> None:
    """The one line on stderr that says a recording stopped before its end, and why."""
    from jitlab.probe import monitor
    from jitlab.records import messages

    lang = monitor.user_language()
    number = exc.errno
    if number in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
        why = messages.say("watch.stop.disk_full", lang)
    elif number == errno.EFBIG:
        why = messages.say("watch.stop.too_large", lang)
    elif number == errno.EBADF:
        why = messages.say("watch.stop.closed", lang)
    else:
        why = exc.strerror or str(exc)
    key = "watch.recording_stopped" if at > 1 else "watch.recording_stopped_none"
    held = "1" if at == 2 else f"1…{at - 1}"
    line = messages.say(key, lang, why=why, n=at, held=held, path=path)
    monitor.say_words(line + "\n")


def open_lines(path: Path, mode: str) -> LineFile:
    # Strict UTF-8; a line holding a lone surrogate (a non-UTF-8 byte in argv or a message)
    # is written escaped instead (see RecordingFile._write_line).
    return LineFile(path, mode)


# The files this process's recordings write now, and those they wrote (device and inode, by
# process: a forked child inherits the sets, not the files). A second watch of one program
# into the same file writes its recording after the first one's (read back as recordings
# joined, summed); one into a file another watch of the process is writing now is refused.
_writing: set[tuple[int, int, int]] = set()
_written: set[tuple[int, int, int]] = set()


def _identity(path: Path) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (os.getpid(), st.st_dev, st.st_ino)


def _refuse_if_written_now(path: Path) -> None:
    """A watch of this process writes ``path`` now: refused in one line (FileExistsError)."""
    if _identity(path) in _writing:
        from jitlab.probe import monitor
        from jitlab.records import messages

        lang = monitor.user_language()
        raise FileExistsError(messages.say("watch.same_file", lang, path=path))


def written_before(path: Path) -> None:
    """``path`` holds what this process wrote before it replaced itself by exec (the pid
    stays): a recording started here goes on after it."""
    identity = _identity(path)
    if identity is not None:
        _written.add(identity)


def _mine(f: LineFile) -> tuple[int, int, int]:
    return (os.getpid(), *f.identity)


def claim(path: Path) -> tuple[LineFile, Path]:
    """Open ``path`` for this process alone, or a provisional file when another holds it."""
    if is_stream(path):  # /dev/null, /dev/stdout | cat: written as it comes, never truncated
        return open_lines(path, "w"), path
    _refuse_if_written_now(path)
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
    if _mine(f) not in _written:  # a recording this program wrote before: go on after it
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
    scripts: str | None,
    process: int | None = None,
    processes: int | None = None,
    jax_version: str | None = None,
) -> RecordingStart:
    """The ``start`` line of a recording made now, by this program (``jax_version``: the JAX
    it will import, as the command's check found it; else JAX's own, imported here)."""
    if jax_version is None:
        import jax

        jax_version = str(jax.__version__)
    return RecordingStart(
        tuple(sys.argv),
        jax_version,
        __version__,
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
        self.file: LineFile | None = None
        self.file_path: Path | None = None  # where the lines go now (see the module docstring)
        self.process: int | None = None  # this process's index in a multi-process job
        self.first_line: RecordingStart | None = None
        self.resolved = False
        self.stream = False  # writing to a device or a pipe: no rename, no rewrite
        self.pid = os.getpid()
        self.inherited: list[LineFile] = []  # a forked child's copy of its parent's file
        self.started = 0.0
        self.opened = False  # open() has run: the clock started, the start line written
        self.calls_written = 0  # ``call`` lines in the file
        self.failure: OSError | None = None  # why the recording stopped before its end
        self.failed_at = 0  # the call it stopped at (calls 1…failed_at-1 are in the file)

    def open(self, scripts: str | None, jax_version: str | None = None) -> None:
        """Start the clock; with a path, claim this process's file and write ``start``
        (``jax_version``: see :func:`start_line`)."""
        self.started, self.opened = time.monotonic(), True
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
        self.calls_written, self.failure, self.failed_at = 0, None, 0
        if launched is not None and not self.stream:
            self.process = launched[0]
            self.file_path = process_path(self.path, self.process)
            why = refusal(self.file_path, RECORDING)
            if why is not None:
                raise FileExistsError(why)
            made = not self.file_path.exists()
            self.file = open_lines(self.file_path, "w")
        else:
            self.process = launched[0] if launched is not None else None
            made = not self.path.exists()
            self.file, self.file_path = claim(self.path)
        processes = launched[1] if launched else None
        self.first_line = start_line(scripts, self.process, processes, jax_version)
        try:  # not even the start line: refused before the program runs (OSError)
            self._put(self.first_line.to_json(pid=os.getpid()))
        except OSError:
            self.file.close()
            self.file = None
            if made and not self.stream:
                with contextlib.suppress(OSError):
                    self.file_path.unlink()
            raise
        if not self.stream:
            _writing.add(_mine(self.file))

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
        try:
            self.file = open_lines(self.file_path, "w")
        except OSError:  # no place for it (a full disk, no descriptor left): not recorded
            self.file_path = None
            return False
        self.calls_written, self.failure, self.failed_at = 0, None, 0
        self.process, self.resolved = None, True
        self.first_line = start_line(scripts)
        self.write(self.first_line.to_json(pid=self.pid, parent=parent))
        return True

    def close(self) -> None:
        if self.file is not None:
            mine = _mine(self.file)
            if mine in _writing:
                _writing.discard(mine)
                _written.add(mine)
            self.file.close()
            self.file = None

    def elapsed(self) -> float:
        return round(time.monotonic() - self.started, 6)

    def write(self, obj: dict[str, Any]) -> None:
        """One line, flushed; a failure to write (a full disk, a size limit, the program
        closed the file) stops the recording, said in one line, and never reaches the
        program."""
        if self.file is None:
            return
        try:
            self._put(obj)
        except OSError as exc:
            self._stop_writing(exc)

    def _put(self, obj: dict[str, Any]) -> None:
        assert self.file is not None
        if not self.resolved and obj.get("type") != "start":
            self._resolve_process()
        if self.process is not None:
            obj = {**obj, "process": self.process}
        # Written at once, no buffer: a crash or Ctrl-C loses nothing written before it.
        self._write_line(dumps_strict(obj))  # never a bare NaN
        if obj.get("type") == "call":
            self.calls_written += 1

    def _write_line(self, line: str) -> None:
        assert self.file is not None
        try:
            text = line + "\n"
            text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate (argv's undecodable bytes): escaped
            text = json.dumps(json.loads(line), ensure_ascii=True) + "\n"
        self.file.write(text)

    def _stop_writing(self, exc: OSError) -> None:
        """Stop writing this recording: the file keeps its whole lines so far."""
        self.failure, self.failed_at = exc, self.calls_written + 1
        file, self.file = self.file, None
        if file is not None:
            file.close()  # only while the descriptor is still its own
        with contextlib.suppress(Exception):
            say_stopped(self.file_path or self.path, exc, self.failed_at)

    def _resolve_process(self) -> None:
        """Ask JAX which process this is, once, before the first line after ``start``.

        Only when the backend already runs (it does at any compile): starting it here would
        break the program's later ``jax.distributed.initialize``. A multi-process job renames
        the file to ``run.p{index}.jsonl``, rewrites its one ``start`` line with the index
        and writes a ``process`` line with the device counts.
        """
        self.resolved = True
        assert self.file is not None and self.path is not None and self.file_path is not None
        if not _backends_up():
            return
        import jax

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
            self.file.truncate()
            self.first_line = start
            self.write(start.to_json(pid=os.getpid()))
        self.process = index
        info = ProcessInfo(index, count, socket.gethostname(), local, total, self.elapsed())
        self.write(info.to_json())
