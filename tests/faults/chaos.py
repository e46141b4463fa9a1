"""Run a program with faults injected (``python chaos.py SCHEDULE PROGRAM ARGS``), the same
under plain python and under ``jitlab watch``: the test compares the two runs.

SCHEDULE is JSON: ``{"faults": [{"kind": ..., "at": seconds, ...}], "out": folder}``. Each
fault's effect on the output is the same whenever it strikes (a signal handler notes it, a
thread ends), so two runs compare byte for byte; what each fault did is printed at the end:

- ``sigterm``: a SIGTERM handler that chains to the one it replaced when that is callable
  (PyTorch Lightning's signal connector), then SIGTERM sent from a thread at ``at``;
- ``sigusr1``: a handler that notes it, the signal sent from a thread at ``at``;
- ``thread``: a thread that ends at ``at``; at the end every thread but main is joined;
- ``stderr``: descriptor 2 moved onto a log file of the program's before it runs;
- ``face``: the program run inside ``jitlab.budget`` / ``jitlab.watch()``, or a ``Probe``
  called first (``face`` names which): what it counted is printed;
- ``atexit``: an exit function that compiles a new function (inside a budget);
- ``exec``: once the program ends, this script replaces itself by ``os.execv`` and the new
  image compiles one function more.
"""

from __future__ import annotations

import atexit
import json
import os
import runpy
import signal
import sys
import threading
import time

# Imported first, as a program does before it registers exit functions that use it: JAX's own
# exit function (clean_up: backends and caches cleared) then runs after the program's, as under
# the watch, which imports JAX before the program (see the README's fault table).
import jax


def main() -> None:
    schedule = json.loads(sys.argv[1])
    program, args = sys.argv[2], sys.argv[3:]
    if schedule.get("resumed"):
        _resumed()
        return
    faults = {fault["kind"]: fault for fault in schedule["faults"]}
    seen: dict[str, object] = {}
    timers = []

    def later(at: float, action) -> None:
        timer = threading.Thread(target=lambda: (time.sleep(at), action()), name="chaos")
        timer.start()
        timers.append(timer)

    if "stderr" in faults:
        log = os.open(os.path.join(schedule["out"], "program.log"), os.O_WRONLY | os.O_CREAT)
        os.dup2(log, 2)
    if "sigterm" in faults:
        previous = signal.getsignal(signal.SIGTERM)
        handlers = [lambda signum, frame: seen.__setitem__("sigterm", "noted")]
        if previous not in (None, signal.SIG_DFL):
            handlers.append(previous)

        def compose(signum, frame) -> None:
            for handler in handlers:
                if callable(handler):
                    handler(signum, frame)

        signal.signal(signal.SIGTERM, compose)
        later(faults["sigterm"]["at"], lambda: os.kill(os.getpid(), signal.SIGTERM))
    if "sigusr1" in faults:
        signal.signal(signal.SIGUSR1, lambda signum, frame: seen.__setitem__("sigusr1", "noted"))
        later(faults["sigusr1"]["at"], lambda: os.kill(os.getpid(), signal.SIGUSR1))
    if "thread" in faults:
        later(faults["thread"]["at"], lambda: None)
    if "atexit" in faults:
        atexit.register(_at_exit)
    sys.argv = [program, *args]
    face = faults.get("face", {}).get("face")
    status: object = 0
    try:
        if face == "probe":
            import jax.numpy as jnp

            import jitlab

            probe = jitlab.Probe(lambda x: x * 2)
            probe(jnp.ones(2)), probe(jnp.ones(3))
            seen["probe"] = [r.kind.value for r in probe.records]
        if face in ("budget", "watch"):
            import jitlab

            block = (
                jitlab.budget(10**6)
                if face == "budget"
                else jitlab.watch(os.path.join(schedule["out"], "inner.jsonl"))
            )
            with block as counted:
                status = _run(program)
            seen[face] = len(counted.compiles)
        else:
            status = _run(program)
    finally:
        for timer in timers:  # each fault has struck before the end is told
            timer.join()
        if "thread" in faults:  # every thread but main joined: it must return
            for thread in threading.enumerate():
                if thread is not threading.main_thread():
                    thread.join()
            seen["threads"] = threading.active_count()
        print("chaos:", json.dumps(seen, sort_keys=True), flush=True)
    if "exec" in faults:
        resumed = json.dumps({"resumed": True})
        os.execv(sys.executable, [sys.executable, os.path.abspath(__file__), resumed, program])
    if status:
        raise SystemExit(status)


def _run(program: str) -> object:
    try:
        runpy.run_path(program, run_name="__main__")
    except SystemExit as exc:
        return exc.code
    return 0


def _at_exit() -> None:
    import jax.numpy as jnp

    import jitlab

    with jitlab.budget(10**6) as counted:
        jax.jit(lambda x: x - 1)(jnp.ones(4))
    print("at exit:", len(counted.compiles), flush=True)


def _resumed() -> None:
    import jax.numpy as jnp

    def resumed(x):
        return x + 7

    print("resumed:", float(jax.jit(resumed)(jnp.ones(())).item()), flush=True)


if __name__ == "__main__":
    main()
