"""Run a command on a real pseudo-terminal: what a user's terminal does, unlike a pipe.

The pty is made in a fresh helper interpreter (``python ptyrun.py CONFIG``), never in the
test process: forking a process that has JAX's threads running can deadlock the child.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def terminal(term: str = "xterm-256color") -> dict[str, str]:
    """This environment as a user's terminal has it: ``TERM`` set, no ``COLUMNS``/``LINES``
    (the pty's own size is the width)."""
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env["TERM"] = term
    return env


def screen(output: str) -> list[str]:
    """A pty's output as its lines read on the screen (colours and carriage returns gone)."""
    return ANSI.sub("", output).replace("\r", "").splitlines()


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
    ctrl_c_after: tuple[str, int] | None = None,
    type_after: tuple[str, int, str] | None = None,
) -> PtyResult:
    """Run ``argv`` on a pty (in a clean helper process); ``ctrl_c_after=(text, n)`` types
    Ctrl-C once ``text`` has appeared ``n`` times in the output (escape codes removed),
    ``type_after=(text, n, keys)`` types ``keys`` then (an answer to a prompt: "bob\r")."""
    if ctrl_c_after is not None:
        type_after = (*ctrl_c_after, "\x03")  # the terminal turns it into SIGINT for the job
    config = {
        "argv": list(argv),
        "timeout": timeout,
        "columns": columns,
        "rows": rows,
        "env": env,
        "type_after": type_after,
    }
    done = subprocess.run(
        [sys.executable, __file__, json.dumps(config)],
        capture_output=True,
        text=True,
        timeout=timeout + 30,
        check=True,
    )
    result = json.loads(done.stdout)
    return PtyResult(result["output"], result["status"], result["seconds"])


def _main(config: dict) -> None:
    after = config["type_after"]
    on_output = None
    if after is not None:
        text, count, keys = after

        def on_output(so_far: str, fd: int) -> bool:
            if ANSI.sub("", so_far).count(text) >= count:
                os.write(fd, keys.encode())
                return True
            return False

    result = _run(
        config["argv"],
        timeout=config["timeout"],
        columns=config["columns"],
        rows=config["rows"],
        env=config["env"],
        on_output=on_output,
    )
    print(json.dumps({"output": result.output, "status": result.status, "seconds": result.seconds}))


def _run(
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


if __name__ == "__main__":
    _main(json.loads(sys.argv[1]))
