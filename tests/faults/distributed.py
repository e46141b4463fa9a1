"""A real ``jax.distributed`` job on this machine, each process under ``jitlab watch``.

As a module: :func:`run_job` starts ``N`` local CPU processes (gloo collectives) joined through
``jax.distributed.initialize("localhost:PORT", num_processes=N, process_id=i)``, each one
``python -m jitlab watch --out DIR/run.jsonl -- python distributed.py i N PORT``, and kills
them all if any fails or the job outlives its timeout.

As a script: one process of that job. ``train_step`` is sharded over every process's device
(a collective, the same shapes everywhere, so it cannot deadlock); ``preprocess`` is a
process-local jit, and process 1 feeds it 7 rows instead of 8 at step 2, so process 1
compiles one signature more than the others. ``on_my_device`` takes an array committed to
the process's own device: one program in each, on a device of its own (no divergence).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve()
ROOT = HERE.parents[2]
LAUNCHER_NAMES = ("SLURM_", "OMPI_", "PMI_", "JAX_COORDINATOR", "JAX_NUM_PROCESSES", "JAX_PROC")
DIVERGENT_STEP = 2  # the step at which process 1's local batch is short


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return int(s.getsockname()[1])


def clean_env(**extra: str) -> dict[str, str]:
    """This environment without any launcher's variables (the test says which it wants)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(LAUNCHER_NAMES)}
    env.pop("XLA_FLAGS", None)  # one CPU device per process
    env["JAX_PLATFORMS"] = "cpu"  # the CPU's, on a GPU machine too (gloo collectives)
    env["PYTHONPATH"] = str(ROOT)
    env.update(extra)
    return env


def watch_command(out: Path, *program: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "jitlab.cli",
        "watch",
        "--out",
        str(out),
        "--",
        "python",
        *program,
    ]


def run_job(
    out: Path,
    processes: int = 2,
    timeout: float = 90.0,
    env: dict[int, dict[str, str]] | None = None,
) -> list[subprocess.CompletedProcess[str]]:
    """Run the job, each process under ``jitlab watch --out out``; all killed on failure."""
    port = free_port()
    children = []
    for i in range(processes):
        command = watch_command(out, str(HERE), str(i), str(processes), str(port))
        children.append(
            subprocess.Popen(
                command,
                env=clean_env(**(env or {}).get(i, {})),
                cwd=out.parent,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    deadline = time.monotonic() + timeout
    results = []
    try:
        for child in children:
            stdout, stderr = child.communicate(timeout=max(1.0, deadline - time.monotonic()))
            results.append(
                subprocess.CompletedProcess(child.args, child.returncode, stdout, stderr)
            )
            if child.returncode != 0:
                raise AssertionError(f"process {len(results) - 1} failed:\n{stderr[-3000:]}")
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
                child.wait()
    return results


def main(process_id: int, processes: int, port: int) -> None:
    import jax
    import numpy as np

    jax.config.update("jax_cpu_collectives_implementation", "gloo")
    jax.distributed.initialize(f"localhost:{port}", num_processes=processes, process_id=process_id)
    import jax.numpy as jnp
    from jax.sharding import NamedSharding
    from jax.sharding import PartitionSpec as P

    mesh = jax.make_mesh((jax.device_count(),), ("batch",))
    sharding = NamedSharding(mesh, P("batch"))

    @jax.jit
    def preprocess(x):  # process-local: no collective, whatever its shape
        return (x - x.mean()) * 2.0

    @jax.jit
    def train_step(w, x):  # sharded over every process: the same shapes everywhere
        return w - 0.01 * jnp.sum(x @ w, axis=0)

    @jax.jit
    def on_my_device(x):  # committed to the process's own device: cpu:0 in one, cpu:1 in another
        return x + 1

    on_my_device(jax.device_put(jnp.ones(8), jax.local_devices()[0])).block_until_ready()
    w = jnp.ones((8,), jnp.float32)
    for step in range(4):
        rows = 7 if (process_id == 1 and step == DIVERGENT_STEP) else 8
        local = np.asarray(preprocess(np.full((rows, 8), step + process_id, np.float32)))
        local = np.pad(local, ((0, 8 - rows), (0, 0)))
        x = jax.make_array_from_process_local_data(sharding, local)
        w = train_step(jax.device_put(jnp.ones((8, 8)), NamedSharding(mesh, P())), x)
    w.block_until_ready()
    jax.distributed.shutdown()


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]))
