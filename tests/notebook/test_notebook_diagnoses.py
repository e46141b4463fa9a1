"""A watched and a probed notebook run show their diagnoses, in a real kernel: the watch's
recorder and a Probe (which runs the watch's diagnosers on its own compiles) each list
recompile-limit and identity-static with their sentence and page, the function named as its
cell, every recorded string escaped; in the HTML and in the plain text."""

from __future__ import annotations

from pathlib import Path

import pytest
from nbrun import data, error, execute

pytestmark = pytest.mark.slow

HOSTILE = "<b>x</b>"

SETUP = f"""import jax, jax.numpy as jnp, jitlab, jitlab.notebook
class Config:  # no __eq__ / __hash__: compared and hashed by identity
    def __init__(self, scale):
        self.scale = scale
    def __repr__(self):
        return f"Config(scale={{self.scale}})"
def grow(x):
    return x * 2
grow.__name__ = grow.__qualname__ = {HOSTILE!r}
def step(x, cfg):
    return x * cfg.scale
def run(grow_j, step_j):
    for n in range(1, 5):
        grow_j(jnp.ones(n))
    for epoch in range(3):
        step_j(jnp.ones(3), Config(2.0))
"""

CELLS = [
    SETUP,
    # 1: a watched run
    """with jitlab.watch(warn_after=2) as recorder:
    run(jax.jit(grow), jax.jit(step, static_argnums=1))
recorder""",
    # 2: a probed run: one probe per function (JAX's cache emptied: they compile anew)
    """jax.clear_caches()
probes = [jitlab.Probe(grow, warn_after=2), jitlab.Probe(step, static_argnums=1, warn_after=2)]
run(*probes)
print([(d.id, d.function, dict(d.figures)) for p in probes for d in p.diagnoses])
probes[0]""",
    "probes[1]",
]


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory):
    return execute(CELLS, tmp_path_factory.mktemp("diagnosed"))


def _items(html: str) -> list[str]:
    """Each listed diagnosis, in order."""
    lists = [part.split("</ul>")[0] for part in html.split('<ul class="diagnoses">')[1:]]
    return [item.split("</li>")[0] for ul in lists for item in ul.split("<li>")[1:]]


def test_a_watched_run_shows_its_diagnoses(ran) -> None:
    cell = ran.cells[1]
    assert error(cell) is None
    (html,) = data(cell, "text/html")
    assert HOSTILE not in html
    assert html.count("<h3>Diagnoses</h3>") == 2  # both functions
    joined = " ".join(_items(html))
    assert joined.count("<code>recompile-limit</code>") == 2
    assert joined.count("<code>identity-static</code>") == 1
    assert "&lt;b&gt;x&lt;/b&gt; (cell [1], line 7)" in joined  # named as its cell, escaped
    assert "identity-static.md</a>" in joined and "recompile-limit.md</a>" in joined
    (plain,) = data(cell, "text/plain")
    assert "Diagnoses:" in plain and "identity-static · step (cell [1], line 10)" in plain


def test_a_probed_run_shows_the_same_diagnoses(ran) -> None:
    cell = ran.cells[2]
    assert error(cell) is None
    said = "".join(o.text for o in cell.outputs if o.output_type == "stream")
    assert "('recompile-limit', '<b>x</b>', {'compiles': 3, 'limit': 2, 'argument': 'x'" in said
    assert "('identity-static', 'step', {'argument': 'cfg', 'class': '__main__.Config'" in said
    (grow,) = data(cell, "text/html")
    assert HOSTILE not in grow
    assert [i.split("</code>")[0] for i in _items(grow)] == ["<code>recompile-limit"]
    (step,) = data(ran.cells[3], "text/html")
    assert [i.split("</code>")[0] for i in _items(step)] == [
        "<code>identity-static",
        "<code>recompile-limit",
        "<code>executables-growing",  # each new Config keeps one more executable alive
    ]
    (plain,) = data(ran.cells[3], "text/plain")
    assert "identity-static · step (cell [1], line 10)" in plain


def test_the_page_links_point_at_the_pages(ran) -> None:
    (html,) = data(ran.cells[1], "text/html")
    root = Path(__file__).resolve().parents[2]
    for ident in ("recompile-limit", "identity-static"):
        url = (root / "docs" / "diagnoses" / f"{ident}.md").as_uri()
        assert f'<a href="{url}">{ident}.md</a>' in html
