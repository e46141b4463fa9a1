"""``%%jitlab --live`` in a real kernel: the kitchen moves while the cell runs (the widget's
updates reach the front-end while the kernel is busy in the cell), at most 5 redraws a second,
and the view becomes the cell's static summary when it ends (a saved notebook holds no widget).

The cell waits on conditions (the view has drawn a state), never on a clock."""

from __future__ import annotations

import datetime
import re
from html import unescape
from pathlib import Path

import nbclient
import pytest
from nbrun import data, error, execute, text

pytestmark = pytest.mark.slow

WIDGET = "application/vnd.jupyter.widget-view+json"

CELLS = [
    "%load_ext jitlab",
    """%%jitlab --live
import jax, jax.numpy as jnp
from jitlab.notebook import live

def sq(x):
    return (x * x).sum()
sq = jax.jit(sq)
view = live.current()
sq(jnp.ones(3))
print("first", live.wait_for(lambda: view.line.startswith("First script written: card #1")))
sq(jnp.ones(4))
print("again", live.wait_for(lambda: view.line.startswith("Re-rehearsed! New card #2")))
for _ in range(20):
    sq(jnp.ones(4))
print("hit", live.wait_for(lambda: view.line.startswith("Served from a script already")))
print("cache", sq._cache_size())""",
    # in Chinese, the app's words
    """%%jitlab --live --lang zh
view = live.current()
sq(jnp.ones(5))
print("zh", live.wait_for(lambda: "重新排练了" in view.line))""",
    # the program clears JAX's listeners (public API): the view hears the next compile all
    # the same, counted against JAX's own log of it
    """%%jitlab --live
import logging
logged = []
class Count(logging.Handler):
    def emit(self, record):
        if "XLA compilation of jit(sq)" in record.getMessage():
            logged.append(record)
logging.getLogger("jax").addHandler(Count())
view = live.current()
jax.monitoring.clear_event_listeners()
jax.config.update("jax_log_compiles", True)
sq(jnp.ones(6))
jax.config.update("jax_log_compiles", False)
heard = [name for _, phase, name in view.heard() if phase == "compiled"]
print("cleared", len(logged), heard.count("sq"))""",
]


class Watching(nbclient.NotebookClient):
    """Keeps every widget message the kernel sent, by cell."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.messages: list[tuple[int, dict]] = []

    def handle_comm_msg(self, outs, msg, cell_index):
        self.messages.append((cell_index, msg))
        return super().handle_comm_msg(outs, msg, cell_index)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory):
    clients: list[Watching] = []

    class Client(Watching):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            clients.append(self)

    nb = execute(CELLS, tmp_path_factory.mktemp("live"), client_class=Client)
    return nb, clients[0].messages


def _states(messages, cell: int) -> list[str]:
    """The kitchen lines the front-end was sent for ``cell``, in order."""
    lines = []
    for index, msg in messages:
        value = msg["content"].get("data", {}).get("state", {}).get("value")
        if index == cell and isinstance(value, str):
            found = re.search(r'<p class="live-state"[^>]*>(.*?)</p>', value)
            if found:
                lines.append(unescape(found.group(1)))
    return lines


def test_the_kitchen_moved_while_the_cell_ran(run):
    nb, messages = run
    cell = nb.cells[1]
    assert error(cell) is None, error(cell)
    assert text(cell).split()[:6] == ["first", "True", "again", "True", "hit", "True"]
    states = _states(messages, 1)
    assert states[0] == "Waiting for an order"
    firsts = [i for i, s in enumerate(states) if s.startswith("First script written: card #1")]
    agains = [i for i, s in enumerate(states) if s.startswith("Re-rehearsed! New card #2")]
    hits = [i for i, s in enumerate(states) if s.startswith("Served from a script already")]
    assert firsts and agains and hits
    assert firsts[0] < agains[0] < hits[-1]
    assert all(" · sq" in states[i] for i in firsts + agains)


def test_at_most_five_redraws_a_second(run):
    nb, messages = run
    timing = nb.cells[1].metadata.execution
    began = datetime.datetime.fromisoformat(timing["iopub.execute_input"].replace("Z", "+00:00"))
    ended = datetime.datetime.fromisoformat(timing["shell.execute_reply"].replace("Z", "+00:00"))
    seconds = (ended - began).total_seconds()
    redraws = len(_states(messages, 1)) - 1  # the first is the view's opening picture
    assert 3 <= redraws <= 5 * seconds + 2, (redraws, seconds)


def test_the_view_becomes_the_static_summary(run):
    nb, _ = run
    cell = nb.cells[1]
    assert not [o for o in cell.outputs if WIDGET in o.get("data", {})]
    (html,) = data(cell, "text/html")
    assert 'class="overview"' in html and 'class="timeline"' in html
    assert "<code>sq</code>" in html and 'class="live-state"' not in html
    (plain,) = [t for t in data(cell, "text/plain") if "function" in t]
    row = next(line.split() for line in plain.splitlines() if line.startswith("sq "))
    assert int(row[1]) == int(text(cell).split()[-1])  # compiles: JAX's cache size


def test_chinese(run):
    nb, messages = run
    cell = nb.cells[2]
    assert error(cell) is None, error(cell)
    assert text(cell).split() == ["zh", "True"]
    states = _states(messages, 2)
    assert states[0] == "等待点单"
    assert any(s.startswith("重新排练了！卡片架上多了") for s in states)
    (html,) = data(cell, "text/html")
    assert 'lang="zh-CN"' in html


def test_the_view_hears_compiles_after_the_program_clears_jaxs_listeners(run):
    # The view hears JAX through jitlab's one registration: cleared, it comes back with the
    # watch's (and jitlab says so on stderr).
    nb, _ = run
    cell = nb.cells[3]
    assert error(cell) is None, error(cell)
    assert text(cell).split() == ["cleared", "1", "1"]  # JAX logged one compile; heard
    stderr = "".join(o.text for o in cell.outputs if o.get("name") == "stderr")
    assert "clear_event_listeners()" in stderr


def test_the_saved_notebook_holds_no_live_widget(run, tmp_path: Path):
    import nbformat

    nb, _ = run
    path = tmp_path / "saved.ipynb"
    nbformat.write(nb, path)
    saved = path.read_text(encoding="utf-8")
    assert WIDGET not in saved


# A kernel without ipywidgets (the import refused, as where it is not installed): --live
# shows the static summary at the end, and nothing fails.
NO_WIDGETS = [
    "import sys\nsys.modules['ipywidgets'] = None  # import ipywidgets now raises ImportError",
    "%load_ext jitlab",
    """%%jitlab --live
import jax, jax.numpy as jnp
from jitlab.notebook import live

def tw(x):
    return x * 2
tw = jax.jit(tw)
print("view", live.current())
for n in (2, 2, 3, 2):
    tw(jnp.ones(n))
print("cache", tw._cache_size())""",
    "print('widgets', sys.modules['ipywidgets'])",
]


def test_without_ipywidgets_live_shows_the_static_summary(tmp_path: Path):
    nb = execute(NO_WIDGETS, tmp_path)
    for cell in nb.cells:
        assert error(cell) is None, error(cell)
        assert not [o for o in cell.outputs if o.get("name") == "stderr"], cell.outputs
    cell = nb.cells[2]
    printed = text(cell).split()
    assert printed[:2] == ["view", "None"]  # no live view: nothing to move
    cache = int(printed[-1])
    assert printed[-2] == "cache" and cache == 2
    assert not [o for o in cell.outputs if WIDGET in o.get("data", {})]
    displays = [o for o in cell.outputs if o.output_type == "display_data"]
    assert len(displays) == 1  # the summary, once, at the end
    assert cell.outputs[-1] is displays[0]
    (html,) = data(cell, "text/html")
    assert 'class="overview"' in html and 'class="timeline"' in html
    assert "<code>tw</code>" in html and 'class="live-state"' not in html
    (plain,) = [t for t in data(cell, "text/plain") if "function" in t]
    row = next(line.split() for line in plain.splitlines() if line.startswith("tw "))
    assert (int(row[1]), int(row[2]), int(row[3])) == (cache, cache - 1, 4 - cache)
    assert text(nb.cells[3]).split() == ["widgets", "None"]  # never imported behind our back
