"""``jitlab watch`` hands the program to python itself: ``python OPTIONS PROGRAM ARGS``.

A program run from inside jitlab's own frames sees them: ``traceback.print_stack()``,
``inspect.stack()``, ``sys._getframe`` depth, a warning's ``stacklevel`` past its
``<module>`` and ``faulthandler`` showed ten frames of the command below the program's
``<module>``, which python shows as the outermost frame. Python offers no way to run code
below no frame but its own start, so the command checks what it can first (its options, the
recording's file, JAX's contract, the metrics port) and then replaces itself (exec, the
same process) by the interpreter the program asked for, with ``boot/sitecustomize.py`` of
this folder found first on ``PYTHONPATH``: python imports it as it starts, as it imports any
``sitecustomize`` (``opentelemetry-instrument`` and ``ddtrace-run`` start the same way). It
takes its folder out of ``sys.path`` and the environment again at once, calls
:func:`jitlab.cli.watch.begin_launched` (the recording opened, the end set as an exit
function, the recorder waiting for the program's ``import jax``:
:mod:`jitlab.watching.deferred`), then runs the user's own ``sitecustomize``. Python then
runs the program as it runs any: ``__main__``, ``sys.argv``, ``sys.path[0]``, ``-m``,
``-c``, its exit status, tracebacks, Ctrl-C, thread joins and exit functions are python's.

With ``-E`` or ``-I`` python reads no ``PYTHONPATH``: the program then runs inside jitlab's
frames (:func:`jitlab.cli.program.run_program`), as the README says.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import NoReturn

from jitlab.cli._usage import language
from jitlab.cli.program import Program, exec_or_fail

ENVIRONMENT = "JITLAB_WATCH_BOOT"  # the watch's settings, read and removed by the boot
BOOT = Path(__file__).resolve().with_name("boot")  # the folder of boot/sitecustomize.py
_ARGS = (  # what the end and an exec'd image need of the command's arguments
    "out",
    "include_internal",
    "scripts",
    "script_texts",
    "warn_after",
    "verbose",
    "metrics_port",
    "metrics_host",
    "otlp",
    "metrics_max_functions",
    "lang",
    "after_exec",
)


def can_launch(program: Program) -> bool:
    """False where python would not read ``PYTHONPATH``: ``-E``/``-I`` asked for the program
    (and this interpreter started with them: an image re-executed for them)."""
    ignores = {"-E", "-I"} & set(program.options)
    return not ignores and not sys.flags.ignore_environment


def launch(
    args: argparse.Namespace,
    program: Program,
    out: Path,
    warn_after: int,
    environment: dict[str, str],
) -> NoReturn:
    """Replace this process by ``python OPTIONS PROGRAM ARGS`` that starts the watch first
    (:func:`jitlab.cli.watch.begin_launched`), in ``environment`` (the command's as it
    started). A JAX that breaks jitlab's contract is refused here (JaxContractError), before
    the program runs."""
    from jitlab.probe import contract

    report = contract.require_elsewhere()  # in a child: the program's import of JAX is the first
    fd = args.words_fd
    if fd is None:  # jitlab's words go to the terminal the command started on
        try:
            fd = os.dup(2)
        except OSError:
            fd = None
    if fd is not None:
        os.set_inheritable(fd, True)
    env = dict(environment)  # what importing JAX here adds (TF_CPP_MIN_LOG_LEVEL) left out
    settings = {
        "args": {name: getattr(args, name, None) for name in _ARGS},
        "out": str(out),
        "warn_after": warn_after,
        "words_fd": fd,
        "lang": language(),
        "jax": report.jax_version,
        "contract": contract.passed_on(),
        "pythonpath": env.get("PYTHONPATH"),
        "orig_argv": [program.python, *program.given],
    }
    env[ENVIRONMENT] = json.dumps(settings)  # ASCII: a surrogate of argv is escaped
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(BOOT), env.get("PYTHONPATH")) if p)
    argv = [sys.executable, *program.given]  # as python was given them
    exec_or_fail(sys.executable, argv, env)
    raise SystemExit(2)  # not reached: exec_or_fail has said why it could not start
