"""The notebook's faces nested in a watched kernel (issue 51 row 1), in a real kernel:
``%jitlab_watch on`` before JAX's backend started, then ``%%jitlab`` cells (one with a
budget), a ``jitlab.budget``, a ``jitlab.watch()`` block and a ``Probe`` inside cells. Each
used to wait forever where a face's contract check compiled through the watch's stand-in;
a cell that does not end within the kernel's timeout fails the test (no duration is
asserted). Every count is JAX's own: the function's cache size beside it."""

from __future__ import annotations

import json

import pytest
from nbrun import error, execute, text

pytestmark = pytest.mark.slow

CELLS = [
    "%load_ext jitlab",
    "%jitlab_watch on",  # 1: before JAX's backend started
    # 2: the backend starts under the watch
    "import json, jax, numpy as np, jitlab\n"
    "g = jax.jit(lambda x: x * 2 + 1)\ng(np.ones(2, np.float32))\nprint('cache', g._cache_size())",
    # 3: %%jitlab in the watched kernel
    "%%jitlab\ng(np.ones(3, np.float32)); g(np.ones(4, np.float32))\n"
    "print('cache', g._cache_size())",
    # 4: its budget fails the cell with one compile over
    "%%jitlab --budget 0\ng(np.ones(5, np.float32))",
    # 5-7: a budget, a watch block and a Probe in a watched cell
    "with jitlab.budget(1) as b:\n    g(np.ones(6, np.float32))\n"
    "print('budget', len(b.compiles), g._cache_size())",
    "with jitlab.watch('cell.jsonl') as w:\n"
    "    g(np.ones(7, np.float32)); g(np.ones(7, np.float32))\n"
    "print('watch', len(w.compiles), g._cache_size())",
    "p = jitlab.Probe(lambda x: x - 1)\np(np.ones(2, np.float32)); p(np.ones(3, np.float32))\n"
    "print('probe', json.dumps([r.kind.value for r in p.records]))",
    # 8: a budget inside a %%jitlab cell
    "%%jitlab\nwith jitlab.budget(1) as b:\n    g(np.ones(8, np.float32))\n"
    "print('inner budget', len(b.compiles))",
    "%jitlab_watch off",
]


@pytest.fixture(scope="module")
def nb(tmp_path_factory: pytest.TempPathFactory):
    return execute(CELLS, tmp_path_factory.mktemp("nesting"), timeout=300)


def said(cell, word: str) -> list[str]:
    line = next(x for x in text(cell).splitlines() if x.startswith(word + " "))
    return line[len(word) + 1 :].split()


def test_every_cell_ends_and_counts_what_jax_compiled(nb):
    cells = nb.cells
    for i in (1, 2, 3, 5, 6, 7, 8, 9):
        assert error(cells[i]) is None, (i, error(cells[i]))
    assert said(cells[2], "cache") == ["1"]
    assert said(cells[3], "cache") == ["3"]  # two more compiles, shown by %%jitlab
    failed = error(cells[4])
    assert failed is not None and failed.ename == "CompileBudgetExceeded"
    assert said(cells[5], "budget") == ["1", "5"]
    assert said(cells[6], "watch") == ["1", "6"]
    assert json.loads(" ".join(said(cells[7], "probe"))) == ["compile", "recompile"]
    assert said(cells[8], "inner budget") == ["1"]
