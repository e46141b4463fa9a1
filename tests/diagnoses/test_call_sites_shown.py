"""call-site-cost in every face, from a real `jitlab watch` (:mod:`sites_run`): `jitlab summary`
ranks the call sites in a table and lists their diagnoses with the others; the report has a
call-site section and each function's diagnoses include call-site-cost; the notebook's
watched-run output has both. A helper called from two places shows as a trie of the lines
that led to it (the compile lines carry the user's stack; the hits do not)."""

from __future__ import annotations

import json
import os
import re
import subprocess
from html import escape
from pathlib import Path

import pytest
from diagnosed_run import HOSTILE, JITLAB
from sites_run import Sited, watch_sites

from jitlab.notebook.render import file_recording_html, file_recording_text
from jitlab.recordings.reader import read_recording
from jitlab.records.diagnoses import CALL_SITE_COST, sentence
from jitlab.records.site_costs import site_costs

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def sited(tmp_path_factory: pytest.TempPathFactory) -> Sited:
    return watch_sites(tmp_path_factory.mktemp("sited"))


def _run(*argv: str) -> str:
    env = {**os.environ, "COLUMNS": "250"}  # a row per site, never folded
    # The floor has its own tests (test_call_site_cost.py); here: how a stated one is shown
    # (this small program's lines compile in well under a second).
    env["JITLAB_SITE_COST_FLOOR_MS"] = "0"
    done = subprocess.run([JITLAB, *argv], capture_output=True, text=True, check=False, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_compile_lines_carry_the_path_and_hits_do_not(sited: Sited) -> None:
    lines = [json.loads(t) for t in sited.path.read_text().splitlines()]
    calls = [c for c in lines if c.get("type") == "call"]
    via_train = [c for c in calls if c.get("stack", [None])[0] == sited.line("TRAIN")]
    # train() -> helper(n) -> step(...): three user lines, outermost first, 3 compiles
    assert [c["stack"] for c in via_train] == [
        [sited.line("TRAIN"), sited.line("VIA_TRAIN"), sited.line("HELPER")]
    ] * 3
    assert all(c["kind"] in ("compile", "recompile") for c in calls if "stack" in c)
    # a call made at the module's level has no path beyond its line: no stack written
    direct = [c for c in calls if c["called_from"] == sited.line("DIRECT")]
    assert len(direct) == 3 and not any("stack" in c for c in direct)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_summary_ranks_the_sites_and_draws_the_trie(sited: Sited, lang: str, monkeypatch) -> None:
    monkeypatch.setenv("JITLAB_SITE_COST_FLOOR_MS", "0")  # as in _run
    text = _run("--lang", lang, "summary", str(sited.path))
    recording = read_recording(sited.path)[0]
    ranked = site_costs(recording.calls)
    lines = [line for line in text.splitlines() if "│" in line]
    site_rows = [line for line in lines if "prog.py:" in line and "%" in line]
    assert [re.search(r"prog\.py:\d+", r)[0] for r in site_rows] == [  # type: ignore[index]
        c.called_from.rsplit("/", 1)[-1] for c in ranked if c.called_from
    ]
    assert ("最耗时的函数" if lang == "zh" else "costliest function") in text
    assert HOSTILE in text  # the name as written, not console markup
    # The trie: the helper's line once, its two callers under it, train() under its line.
    trie = text[text.index("程序是怎样" if lang == "zh" else "How the program reached") :]
    rows = trie.splitlines()[1:8]
    helper = next(i for i, r in enumerate(rows) if r.strip().startswith(sited.line("HELPER")))
    depth = {r.strip().split(" — ")[0].removeprefix("← "): len(r) - len(r.lstrip()) for r in rows}
    assert (
        depth[sited.line("VIA_TRAIN")]
        == depth[sited.line("VIA_MODULE")]
        == depth[sited.line("HELPER")] + 2
    )
    assert depth[sited.line("TRAIN")] == depth[sited.line("VIA_TRAIN")] + 2
    compiles = "3 次编译" if lang == "zh" else "3 compiles"
    assert compiles in rows[helper + 1] and sited.line("VIA_TRAIN") in rows[helper + 1]
    # call-site-cost listed with the other diagnoses, in one list
    listed = text[text.index("诊断：" if lang == "zh" else "Diagnoses:") :]
    stated = [d for d in recording.every_diagnosis() if d.id == CALL_SITE_COST]
    # (lines break at spaces and after a path's "/": compared without white space)
    assert stated and all(
        "".join(sentence(d, lang).split()) in "".join(listed.split()) for d in stated
    )


def test_summary_json_lists_call_site_cost_with_the_diagnoses(sited: Sited) -> None:
    data = json.loads(_run("summary", "--json", str(sited.path)))
    ids = [d["id"] for d in data["diagnoses"]["0"]]
    assert CALL_SITE_COST in ids
    paths = data["call_sites"]["0"]["paths"]
    by_site = {p["site"]: p for p in paths}
    assert by_site[sited.line("HELPER")]["compiles"] == 4  # 3 via train(), 1 from the module
    assert by_site[sited.line("VIA_TRAIN")]["depth"] == 1
    assert by_site[sited.line("TRAIN")]["depth"] == 2


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_report_has_the_call_sites_and_their_diagnoses(
    sited: Sited, tmp_path: Path, lang: str
) -> None:
    out = tmp_path / "report.html"
    _run("--lang", lang, "report", str(sited.path), "-o", str(out))
    html = out.read_text()
    assert HOSTILE not in html  # never markup
    section = html[html.index('<section id="call-sites">') :]
    section = section[: section.index("</section>")]
    recording = read_recording(sited.path)[0]
    shown = re.findall(r"<tr><td><code>(.*?)</code></td>", section)
    assert shown == [c.called_from for c in site_costs(recording.calls)]
    assert f"<td>{escape(HOSTILE)}</td>" in section
    assert f"<code>{sited.line('VIA_TRAIN')} — " in section  # the trie
    # each function's diagnoses: call-site-cost too, in the function it names
    grow = html[html.index(f"<code>{escape(HOSTILE)}</code> <small>") :]
    grow = grow[: grow.index("</section>")]
    assert "<li><code>call-site-cost</code>" in grow


def test_the_notebook_shows_them(sited: Sited, monkeypatch) -> None:
    monkeypatch.setenv("JITLAB_SITE_COST_FLOOR_MS", "0")  # as in _run
    recording = read_recording(sited.path)[0]
    text = file_recording_text(recording, "en")
    assert "Compile cost by call site" in text and "costliest function" in text
    # each line compiled a new shape (nothing twice, no other diagnosis): a ranking
    assert "call-site-cost (for information, nothing to fix) · " in text
    assert "is where compile time goes" in text and f"← {sited.line('VIA_TRAIN')}" in text
    html = file_recording_html(recording, "en")
    assert '<section id="call-sites">' in html and HOSTILE not in html
    assert "<code>call-site-cost</code>" in html
