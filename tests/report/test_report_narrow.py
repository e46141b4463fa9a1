"""The report on a 1024 px screen, in English and Chinese, of a program whose function has a
long unbroken name (issue 54's leftover): the call sites' table ran off the page, its headers
squeezed to a character a line. Measured in a real browser (Debian's Chromium, headless): a
copy of the page with a measuring script added (the page itself has none)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest
from chromium import needs_chromium, run_chromium

import jitlab
from jitlab.cli import main

pytestmark = pytest.mark.slow

LONG = "a_very_long_function_name_without_any_breaks_that_goes_on_and_on"
# Each table's right edge against the page's width, written where --dump-dom shows it.
MEASURE = """<script>
const width = document.documentElement.clientWidth;
const tables = [...document.querySelectorAll("table")].map(t => ({
  cls: t.className, right: Math.ceil(t.getBoundingClientRect().right),
  head: Math.max(...[...t.querySelectorAll("th")].map(h => h.getBoundingClientRect().height))}));
document.body.setAttribute("data-measured", JSON.stringify({width, tables}));
</script>"""


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("narrow") / "run.jsonl"
    ns: dict[str, object] = {"jnp": jnp}
    exec(f"def {LONG}(x):\n    return (x * 2.0).sum()\n", ns)  # its name as given
    with jitlab.watch(path):
        step = jax.jit(ns[LONG])  # type: ignore[arg-type]
        for n in (3, 5, 7):
            step(jnp.ones(n))
    return path


@needs_chromium
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_table_runs_off_a_1024_px_page(recording: Path, tmp_path: Path, lang: str) -> None:
    page = tmp_path / f"report-{lang}.html"
    assert main(["--lang", lang, "report", str(recording), "-o", str(page)]) == 0
    text = page.read_text(encoding="utf-8")
    assert LONG in text
    measured = tmp_path / f"measured-{lang}.html"
    measured.write_text(text.replace("</body>", MEASURE + "</body>"), encoding="utf-8")
    done = run_chromium(tmp_path, "--window-size=1024,640", "--dump-dom", page=measured)
    found = re.search(r'data-measured="([^"]*)"', done.stdout)
    assert found, done.stderr[-2000:]
    facts = json.loads(found.group(1).replace("&quot;", '"'))
    tables = facts["tables"]
    assert any(t["cls"] == "sites" for t in tables)
    for table in tables:
        assert table["right"] <= facts["width"], (lang, table, facts["width"])
        # No header squeezed to a character a line ("编/译/次/数"): three lines at most.
        assert table["head"] <= 3 * 24, (lang, table)
