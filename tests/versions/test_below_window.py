"""On a JAX below jitlab's window (< 0.6) every way in refuses loudly; nothing is recorded.

Below 0.6 compile events carry no function name, so a probe that went on would call every
compile a cache hit: a confident wrong answer. Each way in — `jitlab run`, `jitlab watch`,
a `jitlab.watch()` block, a `Probe` call — must refuse in one line that names the installed
JAX, exit non-zero, and leave no recording that counts a hit.

Runs only in the matrix's `below-window` session (`nox -s below-window`, JAX 0.5.3); on a JAX
inside the window (the main suite) the whole file is skipped. Real subprocesses, real JAX.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import jax
import pytest
from environment_lines import program_lines

JAX_VERSION = jax.__version__


def _below_window() -> bool:
    major, minor = (int(part) for part in JAX_VERSION.split(".")[:2])
    return (major, minor) < (0, 6)


pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not _below_window(), reason=f"JAX {JAX_VERSION} is inside the window (below-window session)"
    ),
]

# A program with one jitted function called three times: on a working JAX, one compile and
# two hits; here it must never get as far as counting anything.
PROGRAM = textwrap.dedent(
    """
    import jax
    import jax.numpy as jnp

    @jax.jit
    def double(x):
        return x * 2

    for _ in range(3):
        double(jnp.ones(4)).block_until_ready()
    print("program ran")
    """
)

# Inside Python the refusal is an exception: print its message alone so the test can read it.
WATCH_BLOCK = textwrap.dedent(
    """
    import sys
    import jax
    import jax.numpy as jnp
    import jitlab

    try:
        with jitlab.watch(sys.argv[1]) as recorder:
            double = jax.jit(lambda x: x * 2)
            for _ in range(3):
                double(jnp.ones(4)).block_until_ready()
    except Exception as error:
        print(str(error), file=sys.stderr)
        sys.exit(3)
    print("no refusal:", [call.kind for call in recorder.calls])
    """
)

PROBE_CALL = textwrap.dedent(
    """
    import sys
    import jax
    import jax.numpy as jnp
    from jitlab import Probe

    try:
        probe = Probe(jax.jit(lambda x: x * 2))
        for _ in range(3):
            probe(jnp.ones(4))
    except Exception as error:
        print(str(error), file=sys.stderr)
        sys.exit(3)
    print("no refusal:", [str(record.kind) for record in probe.records])
    """
)


def _env() -> dict[str, str]:
    env = dict(os.environ, JAX_PLATFORMS="cpu", PYTHONIOENCODING="utf-8")
    env.pop("XLA_FLAGS", None)  # jitlab's own device simulation must not be needed to refuse
    return env


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args, cwd=cwd, env=_env(), capture_output=True, text=True, timeout=120, check=False
    )


def _jitlab(*args: str) -> list[str]:
    # The installed `jitlab` command, as a user types it (next to this venv's python).
    return [str(Path(sys.executable).with_name("jitlab")), *args]


def assert_refused(done: subprocess.CompletedProcess[str]) -> str:
    """Non-zero, no traceback, and exactly one line on stderr naming jitlab and this JAX."""
    shown = f"exit {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    assert done.returncode != 0, shown
    assert "Traceback" not in done.stderr, shown
    lines = [line for line in program_lines(done.stderr) if line.strip()]
    assert len(lines) == 1, shown
    assert JAX_VERSION in lines[0], shown
    assert "jitlab" in lines[0].lower(), shown
    return lines[0]


def assert_no_hits(folder: Path) -> None:
    """No recording in ``folder`` counts a cache hit (a hit here would be a guess, not a fact)."""
    for path in folder.rglob("*.jsonl"):
        for text in path.read_text(encoding="utf-8").splitlines():
            if not text.strip():
                continue
            line = json.loads(text)
            assert not (line.get("type") == "hits" and line.get("hits")), (path, line)
            assert "hit" not in str(line.get("kind", "")), (path, line)


def test_jitlab_run_refuses_in_one_line(tmp_path: Path) -> None:
    done = _run(_jitlab("run", "dynamic-shapes", "--json"), tmp_path)
    assert_refused(done)
    assert '"hit"' not in done.stdout, done.stdout
    assert_no_hits(tmp_path)


def test_jitlab_watch_refuses_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "prog.py").write_text(PROGRAM, encoding="utf-8")
    out = tmp_path / "run.jsonl"
    done = _run(_jitlab("watch", "--out", str(out), "--", sys.executable, "prog.py"), tmp_path)
    assert_refused(done)
    assert_no_hits(tmp_path)


def test_a_watch_block_refuses_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "block.py").write_text(WATCH_BLOCK, encoding="utf-8")
    done = _run([sys.executable, "block.py", str(tmp_path / "block.jsonl")], tmp_path)
    assert done.returncode == 3, f"{done.stdout}\n{done.stderr}"  # raised, did not record
    assert_refused(done)
    assert_no_hits(tmp_path)


def test_a_probe_call_refuses_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "probe.py").write_text(PROBE_CALL, encoding="utf-8")
    done = _run([sys.executable, "probe.py"], tmp_path)
    assert done.returncode == 3, f"{done.stdout}\n{done.stderr}"
    assert_refused(done)


def test_importing_jitlab_alone_still_works(tmp_path: Path) -> None:
    # The refusal is at the door of JAX work, not at `import jitlab` (the app, `jitlab list`
    # and reading recordings need no JAX): a user can still ask what is wrong.
    done = _run([sys.executable, "-c", "import jitlab; print(jitlab.__name__)"], tmp_path)
    assert done.returncode == 0, done.stderr
