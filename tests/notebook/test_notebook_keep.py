"""The notebook keeps the learner's work, in a real kernel: ``%unload_ext jitlab`` ends every
watch and gives ``jax.jit`` back; a ``%%jitlab`` option that makes no sense is a usage error
before the cell runs; a JAX jitlab cannot see is refused in one line, with no widget left."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from environment_lines import program_lines
from nbrun import data, error, execute, outputs, text

pytestmark = pytest.mark.slow

WIDGET = "application/vnd.jupyter.widget-view+json"


def stderr(cell) -> str:
    return "".join(o.text for o in outputs(cell, "stream") if o.name == "stderr")


def said(cell) -> str:
    """What the cell showed of a failure: its stderr and its error, if any."""
    failed = error(cell)
    shown = stderr(cell)
    if failed is not None:
        shown += f"{failed.ename}: {failed.evalue}\n" + "\n".join(failed.traceback)
    return shown


def one_usage_line(cell) -> str:
    """The one line a usage error shows (no traceback), and that the cell did not run."""
    shown = said(cell)
    assert "the cell ran" not in text(cell), text(cell)
    assert "Traceback" not in shown and "File " not in shown, shown
    lines = [line for line in shown.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("UsageError: "), shown
    return lines[0]


CELLS = [
    "%load_ext jitlab",
    # 1-3: options that make no sense: usage errors, the cell not run
    "%%jitlab --lang fr\nprint('the cell ran')",
    "%%jitlab --budget -1\nprint('the cell ran')",
    "%%jitlab --budget two\nprint('the cell ran')",
    # 4-6: %jitlab_watch on, then %unload_ext: jax.jit is JAX's own again
    "import jax, jax.numpy as jnp\nreal_jit = jax.jit",
    "%jitlab_watch on",
    "print('watched', jax.jit is not real_jit)",
    "%unload_ext jitlab",
    "f = jax.jit(lambda x: x + 1)\nf(jnp.ones(3))\n"
    "print('restored', jax.jit is real_jit, type(f) is type(real_jit(abs)))",
    # 9: the magics went with the extension
    "%%jitlab\nprint('the cell ran')",
    # 10-11: loaded again, all works as before
    "%load_ext jitlab",
    "%%jitlab --budget 0\nprint('the cell ran', f(jnp.ones(3)).shape)",
]


@pytest.fixture(scope="module")
def nb(tmp_path_factory: pytest.TempPathFactory):
    return execute(CELLS, tmp_path_factory.mktemp("keep"))


def test_an_unknown_language_is_a_usage_error_before_the_cell_runs(nb):
    line = one_usage_line(nb.cells[1])
    assert "--lang 'fr': jitlab speaks en or zh; the cell did not run" in line
    assert "jitlab 只会说 en 或 zh" in line  # said in both: no language was chosen


def test_a_budget_that_is_no_count_is_a_usage_error_before_the_cell_runs(nb):
    for cell, value in ((nb.cells[2], "'-1'"), (nb.cells[3], "'two'")):
        line = one_usage_line(cell)
        assert f"--budget {value}: a budget is a whole number of compiles >= 0" in line, line


def test_unload_ends_the_watch_and_gives_jax_jit_back(nb):
    assert text(nb.cells[6]).split() == ["watched", "True"]
    unload = nb.cells[7]
    assert "can't be unloaded" not in text(unload) + said(unload)
    assert error(unload) is None, said(unload)
    # jax.jit is JAX's own: a function jitted after the unload is JAX's, not a stand-in.
    assert text(nb.cells[8]).split() == ["restored", "True", "True"], text(nb.cells[8])
    gone = said(nb.cells[9])
    assert "the cell ran" not in text(nb.cells[9])
    assert "Cell magic `%%jitlab` not found" in gone, gone


def test_loaded_again_it_works(nb):
    cell = nb.cells[11]
    assert error(cell) is None, said(cell)
    assert "the cell ran (3,)" in text(cell)
    assert data(cell, "text/html"), cell.outputs  # its summary


OUTSIDE_WINDOW = """
import jax

jax.__version__ = "0.5.3"  # what a JAX below the window reports
"""

REFUSED = [
    "%load_ext jitlab",
    "%%jitlab --live\nprint('the cell ran')",
    "%%jitlab\nprint('the cell ran')",
    "%jitlab_watch on",
    "print('the kernel goes on')",
]


def test_a_jax_outside_the_window_is_one_line_no_widget_and_the_cell_not_run(tmp_path: Path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(OUTSIDE_WINDOW, encoding="utf-8")
    before = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(site), before) if p)
    try:
        done = execute(REFUSED, tmp_path)
    finally:
        if before is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = before
    live, plain, watch = done.cells[1], done.cells[2], done.cells[3]
    for cell in (live, plain, watch):
        line = one_usage_line(cell)
        assert "jitlab cannot see what JAX 0.5.3 does" in line, line
        assert "JAX version changed (0.5.3, outside" in line, line
    assert "; the cell did not run" in one_usage_line(live)
    # No live view left behind: not a widget, not a display of any kind.
    assert not [o for o in live.outputs if o.output_type == "display_data"], live.outputs
    assert not data(live, WIDGET)
    assert "jitlab is watching" not in text(watch)
    assert text(done.cells[4]).strip() == "the kernel goes on"


# -- `jitlab notebook` run again never writes over the learner's work ----------------------------
def jitlab(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "jitlab.cli", *args], capture_output=True, text=True, timeout=600
    )


def test_notebook_run_again_keeps_the_learner_s_cells_and_force_replaces(tmp_path: Path):
    nbformat = pytest.importorskip("nbformat")
    out = tmp_path / "lesson.ipynb"
    assert jitlab("notebook", "dynamic-shapes", "-o", str(out)).returncode == 0
    # Unchanged, or only run (outputs, counts: no one's work): written again.
    nb = nbformat.read(out, as_version=4)
    code = next(c for c in nb.cells if c.cell_type == "code")
    code.execution_count = 1
    code.outputs = [nbformat.v4.new_output("stream", name="stdout", text="ran\n")]
    nbformat.write(nb, out)
    done = jitlab("notebook", "dynamic-shapes", "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert "ran\n" not in out.read_text(encoding="utf-8")
    # The learner writes a prediction and a note, as Jupyter saves them.
    nb = nbformat.read(out, as_version=4)
    nb.cells[1].source += "\n\nMy prediction: 3 compiles, because the batch size changes."
    nb.cells.append(nbformat.v4.new_markdown_cell("My note: pad to a bucket."))
    nbformat.write(nb, out)
    mine = out.read_bytes()
    for lang, words in (("en", "its cells changed since jitlab wrote it"), ("zh", "已被改过")):
        done = jitlab("--lang", lang, "notebook", "dynamic-shapes", "-o", str(out))
        assert done.returncode == 2, (done.stdout, done.stderr)
        assert len(program_lines(done.stderr)) == 1 and words in done.stderr, done.stderr
        assert "--force" in done.stderr and "lesson.ipynb" in done.stderr
        assert out.read_bytes() == mine  # nothing lost
    # --force: replaced, as asked; and then it is jitlab's again (a next run may replace it).
    done = jitlab("notebook", "dynamic-shapes", "-o", str(out), "--force")
    assert done.returncode == 0, done.stderr
    assert "My prediction" not in out.read_text(encoding="utf-8")
    assert jitlab("notebook", "dynamic-shapes", "-o", str(out)).returncode == 0


def test_notebook_refuses_a_notebook_it_did_not_write_unless_forced(tmp_path: Path):
    nbformat = pytest.importorskip("nbformat")
    out = tmp_path / "mine.ipynb"
    own = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")])
    nbformat.write(own, out)
    before = out.read_bytes()
    done = jitlab("notebook", "dynamic-shapes", "-o", str(out))
    assert done.returncode == 2 and len(program_lines(done.stderr)) == 1, done.stderr
    assert "is not a notebook of `jitlab notebook`" in done.stderr and "--force" in done.stderr
    assert out.read_bytes() == before
    # A lesson notebook from a jitlab before fingerprints: it cannot tell, so it keeps it.
    old = tmp_path / "old.ipynb"
    assert jitlab("notebook", "dynamic-shapes", "-o", str(old)).returncode == 0
    nb = nbformat.read(old, as_version=4)
    del nb.metadata["jitlab"]["cells_sha256"]
    nbformat.write(nb, old)
    done = jitlab("notebook", "dynamic-shapes", "-o", str(old))
    assert done.returncode == 2 and "changed since jitlab wrote it" in done.stderr
    assert jitlab("notebook", "dynamic-shapes", "-o", str(out), "--force").returncode == 0
    assert nbformat.read(out, as_version=4).metadata["jitlab"]["lesson"] == "dynamic-shapes"
    # --force never replaces what is no notebook.
    script = tmp_path / "lesson.py"
    script.write_text("print('my work')\n", encoding="utf-8")
    done = jitlab("notebook", "dynamic-shapes", "-o", str(script), "--force")
    assert done.returncode == 2 and script.read_text(encoding="utf-8") == "print('my work')\n"
