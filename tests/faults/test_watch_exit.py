"""A watched program ends as under plain python: its globals are finalised at exit, so a file
it never closed keeps what it wrote and ``__del__`` of an object alive at exit runs (issue 40).
Real subprocesses, real files, compared with the same program under plain ``python``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

JITLAB = [sys.executable, "-m", "jitlab.cli"]
TIMEOUT = 180

# A jitted function in a module global (JAX's caches keep it, and so its globals), a file
# written and never closed, an object whose __del__ complains at exit.
PROGRAM = """
import jax, jax.numpy as jnp

@jax.jit
def f(x):
    return x * 2

class Noisy:
    def __del__(self):
        raise RuntimeError("finalised at exit")

log = open("unclosed.txt", "w")
log.write("result: " + str(float(f(jnp.float32(21.0)))) + "\\n" * 10 + "x" * 40)
keep = Noisy()
"""

# Something that holds the __main__ module python started with, as JAX's own imports may
# (etils does `import __main__`): then python wipes __main__'s globals at exit.
SITECUSTOMIZE = "import sys\n_held = sys.modules['__main__']\n"


def ending(cwd: Path, argv: list[str], env: dict[str, str]) -> tuple[int, int, bool]:
    """(exit status, bytes in the unclosed file, whether __del__ complained)."""
    target = cwd / "unclosed.txt"
    target.unlink(missing_ok=True)
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT)
    size = target.stat().st_size if target.exists() else -1
    complained = "Exception ignored in" in done.stderr and "finalised at exit" in done.stderr
    return done.returncode, size, complained


@pytest.mark.parametrize("held", [True, False], ids=["main-held", "as-installed"])
@pytest.mark.parametrize("how", ["script", "module"])
def test_globals_are_finalised_at_exit_as_under_python(tmp_path, how, held):
    (tmp_path / "prog.py").write_text(PROGRAM)
    env = dict(os.environ)
    if held:
        site = tmp_path / "site"
        site.mkdir()
        (site / "sitecustomize.py").write_text(SITECUSTOMIZE)
        env["PYTHONPATH"] = os.pathsep.join([str(site), env.get("PYTHONPATH", "")]).rstrip(
            os.pathsep
        )
    args = ["prog.py"] if how == "script" else ["-m", "prog"]
    plain = ending(tmp_path, [sys.executable, *args], env)
    watched = ending(tmp_path, [*JITLAB, "watch", "--out", "rec.jsonl", "--", "python", *args], env)
    if held:  # python itself finalises here: all written, the complaint printed
        assert plain == (0, 62, True)
    assert watched == plain
