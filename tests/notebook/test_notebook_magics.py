"""``%load_ext jitlab``, ``%%jitlab`` and ``%jitlab_watch`` in a real kernel.

Every count the summary shows is checked against JAX's own in the same kernel: the jitted
function's cache size and the compiles JAX logs (``jax_log_compiles``)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from nbrun import data, error, execute, table_row, text

pytestmark = pytest.mark.slow

CELLS = [
    "%load_ext jitlab",
    # 1: a batch-size jitter under %%jitlab, JAX's own counts printed beside it
    """%%jitlab
import json, logging
import jax, jax.numpy as jnp

logged = []
class Count(logging.Handler):
    def emit(self, record):
        if "XLA compilation of jit(step)" in record.getMessage():
            logged.append(record)
handler = Count()
logging.getLogger("jax").addHandler(handler)
jax.config.update("jax_log_compiles", True)

def step(x):
    return jnp.tanh(x).sum()
step = jax.jit(step)

batches = [8, 5, 8, 12, 5, 16, 8, 3, 3]
for n in batches:
    step(jnp.ones((n, 4)))
jax.config.update("jax_log_compiles", False)
logging.getLogger("jax").removeHandler(handler)
print("JAX", json.dumps({"cache": step._cache_size(), "logged": len(logged),
                         "calls": len(batches)}))
step._cache_size()""",
    # 2: a budget of 0 and a shape not seen yet: the cell fails with the budget's message
    "%%jitlab --budget 0\nstep(jnp.ones((7, 4)))",
    # 3: the kernel goes on; the same shape again compiles nothing: the budget holds
    "%%jitlab --budget 0\nstep(jnp.ones((7, 4)))\nprint('after', step._cache_size())",
    # 4: in Chinese
    "%%jitlab --lang zh\nstep(jnp.ones((9, 4)))\nprint('cache', step._cache_size())",
    # 5: the cell's own error is the cell's error; what ran before it is still shown
    "%%jitlab\nstep(jnp.ones((10, 4)))\n1 / 0",
    # 6-9: %jitlab_watch across cells
    "%jitlab_watch on",
    "g = jax.jit(lambda x: x + 1)\nfor n in [1, 2, 2, 2]:\n    g(jnp.ones(n))\n"
    "print('g', g._cache_size())",
    "g(jnp.ones(1));",
    "%jitlab_watch off\nprint(jax.jit.__module__)",
    # 10: a budget in Chinese: the budget's own message in Chinese
    "%%jitlab --budget 0 --lang zh\nstep(jnp.ones((11, 4)))",
    # 11: --fold: the report's functions all folded under their summary lines
    "%%jitlab --fold\nstep(jnp.ones((13, 4)))",
]


@pytest.fixture(scope="module")
def nb(tmp_path_factory: pytest.TempPathFactory):
    return execute(CELLS, tmp_path_factory.mktemp("magics"))


def shown(html: str) -> str:
    """The page without its tooltips (JAX's own words, kept as JAX wrote them)."""
    return re.sub(r'title="[^"]*"', "", html)


def _jax_counts(cell) -> dict:
    line = next(x for x in text(cell).splitlines() if x.startswith("JAX "))
    return json.loads(line[4:])


def test_the_kernel_runs_this_python(tmp_path: Path):
    import sys

    done = execute(["import sys; print(sys.executable)"], tmp_path)
    assert Path(text(done.cells[0]).strip()) == Path(sys.executable)


def test_load_ext_shows_nothing_and_fails_nothing(nb):
    assert nb.cells[0].outputs == []


def test_the_cell_summary_counts_what_jax_counted(nb):
    cell = nb.cells[1]
    assert error(cell) is None, error(cell)
    jax_counts = _jax_counts(cell)
    assert jax_counts["cache"] == jax_counts["logged"] > 1  # JAX agrees with itself
    (plain,) = [t for t in data(cell, "text/plain") if "function" in t]
    row = table_row(plain, "step")
    assert int(row["compiles"]) == jax_counts["cache"]
    assert int(row["recompiles"]) == jax_counts["cache"] - 1
    assert int(row["hits"]) == jax_counts["calls"] - jax_counts["cache"]
    assert int(row["signatures"]) == jax_counts["cache"]
    # The cell's value is its Out, as without %%jitlab.
    results = [o for o in cell.outputs if o.output_type == "execute_result"]
    assert [r.data["text/plain"] for r in results] == [str(jax_counts["cache"])]
    # The same facts as HTML: the report's overview, timeline and ledger, its changed cells.
    (html,) = data(cell, "text/html")
    assert 'class="overview"' in html and 'class="timeline"' in html
    assert 'class="ledger"' in html and "<mark>" in html
    assert "<code>step</code>" in html
    # where step is defined: its cell (the kernel's In [2]) and line, not IPython's temp file
    assert "cell [2], line 13" in html and "ipykernel" not in shown(html)


def test_a_budget_of_zero_fails_the_cell_with_the_budget_message(nb):
    err = error(nb.cells[2])
    assert err is not None
    assert err.ename == "CompileBudgetExceeded"
    assert err.evalue.startswith("1 compile(s) where the budget allows 0:")
    assert "step recompile" in err.evalue and "over budget" in err.evalue
    # The summary is shown too, saying the budget failed.
    (html,) = data(nb.cells[2], "text/html")
    assert "The compile budget failed" in html


def test_a_budget_in_chinese_fails_with_the_message_in_chinese(nb):
    from jitlab.records.messages import say

    err = error(nb.cells[10])
    assert err is not None and err.ename == "CompileBudgetExceeded"
    first, *compiles = err.evalue.splitlines()
    assert first == say("budget.over", "zh", n=1, max=0) == "编译了 1 次，而预算只允许 0 次："
    (line,) = compiles
    assert line.startswith("  1. step 重编译，位于 ") and line.endswith("ms）  ← 超出预算")
    assert "f32[11,4]" in line  # the reason: the shape that changed
    for english in ("compile(s)", "budget allows", "over budget", "recompile", " at "):
        assert english not in err.evalue
    (html,) = data(nb.cells[10], "text/html")
    assert "编译预算未通过" in html


def test_the_next_cell_runs_and_a_budget_that_holds_passes(nb):
    cell = nb.cells[3]
    assert error(cell) is None, error(cell)
    assert text(cell).split() == ["after", str(_jax_counts(nb.cells[1])["cache"] + 1)]


def test_chinese(nb):
    cell = nb.cells[4]
    assert error(cell) is None
    (plain,) = [t for t in data(cell, "text/plain") if "函数" in t]
    assert "编译次数" in plain
    (html,) = data(cell, "text/html")
    assert 'lang="zh-CN"' in html and "编译耗费的时间" in html
    assert "单元格 [2] 第 13 行" in html and "ipykernel" not in shown(html)
    assert "Time lost" not in html


def test_the_cells_own_error_is_raised_after_its_summary(nb):
    cell = nb.cells[5]
    err = error(cell)
    assert err is not None and err.ename == "ZeroDivisionError"
    (plain,) = [t for t in data(cell, "text/plain") if "function" in t]
    assert table_row(plain, "step")["recompiles"] == "1"  # the call before the error


def test_jitlab_watch_summarises_each_cell_that_compiled(nb):
    on, compiled, hit_only, off = nb.cells[6:10]
    assert "watching every cell" in text(on)
    assert error(compiled) is None, error(compiled)
    cache = int(text(compiled).split()[-1])
    (plain,) = [t for t in data(compiled, "text/plain") if "function" in t]
    row = table_row(plain, "<lambda>")
    assert int(row["compiles"]) == cache
    assert int(row["hits"]) == 4 - cache
    (html,) = data(compiled, "text/html")
    assert "cell [8], line 1" in html and "ipykernel" not in shown(html)  # g's own cell
    # A cell that only hit the cache shows nothing.
    assert error(hit_only) is None and hit_only.outputs == []
    # Off: jax.jit is JAX's own again.
    assert error(off) is None
    assert "stopped watching" in text(off)
    assert not text(off).strip().splitlines()[-1].startswith("jitlab")


def test_load_ext_imports_neither_jax_nor_qt():
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from IPython.testing.globalipapp import start_ipython\n"
        "ip = start_ipython()\n"
        "ip.run_line_magic('load_ext', 'jitlab')\n"
        "assert 'jitlab' in ip.magics_manager.magics['cell']\n"
        "assert 'jitlab_watch' in ip.magics_manager.magics['line']\n"
        "print(sorted(m for m in ('jax', 'jaxlib', 'PySide6', 'ipywidgets') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_fold_leaves_every_function_folded(nb):
    (folded,) = data(nb.cells[11], "text/html")
    (opened,) = data(nb.cells[1], "text/html")
    assert "<details open>" in opened  # the report opens the first function
    assert "<details open>" not in folded and "<details><summary>1. <code>step</code>" in folded
