"""Run a command on a real pseudo-terminal: what a user's terminal does, unlike a pipe."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import signal
import struct
import termios
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass


@dataclass
class PtyResult:
    output: str
    status: int | None  # exit status (-N for a signal), None when it had to be killed
    seconds: float


def run_on_pty(
    argv: Sequence[str],
    *,
    timeout: float = 120.0,
    columns: int = 160,
    rows: int = 50,
    env: dict[str, str] | None = None,
    on_output: Callable[[str, int], bool] | None = None,
) -> PtyResult:
    """Run ``argv`` with a pty as its terminal; ``on_output(text_so_far, master_fd)`` may act
    (e.g. type Ctrl-C) and returns True once it has acted, after which it is not called again.
    """
    pid, fd = pty.fork()
    if pid == 0:  # the child: its stdin/stdout/stderr are the terminal
        try:
            if env is not None:
                os.execvpe(argv[0], list(argv), env)
            os.execvp(argv[0], list(argv))
        finally:
            os._exit(127)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    chunks: list[bytes] = []
    start = time.monotonic()
    status: int | None = None
    acted = on_output is None
    try:
        while True:
            if time.monotonic() - start > timeout:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                break
            ready, _, _ = select.select([fd], [], [], 0.1)
            if ready:
                try:
                    data = os.read(fd, 65536)
                except OSError:  # the child closed the terminal
                    data = b""
                if data:
                    chunks.append(data)
                    if not acted:
                        acted = on_output(b"".join(chunks).decode(errors="replace"), fd)
                    continue
            done, raw = os.waitpid(pid, os.WNOHANG)
            if done:
                status = os.waitstatus_to_exitcode(raw)
                # Drain what is left in the terminal.
                while select.select([fd], [], [], 0.05)[0]:
                    try:
                        data = os.read(fd, 65536)
                    except OSError:
                        break
                    if not data:
                        break
                    chunks.append(data)
                break
    finally:
        os.close(fd)
    return PtyResult(b"".join(chunks).decode(errors="replace"), status, time.monotonic() - start)
