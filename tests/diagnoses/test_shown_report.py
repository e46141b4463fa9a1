"""`jitlab report`: each function's section lists its diagnoses (id, sentence, a link to the
page), every recorded string escaped; an id from a newer jitlab by its id and page."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from html import escape
from pathlib import Path

import pytest
from diagnosed_run import HOSTILE, JITLAB, Watched

from jitlab.recordings.reader import read_recording
from jitlab.records.diagnoses import page, sentence

pytestmark = pytest.mark.slow


def _sections(html: str) -> dict[str, str]:
    """Each function's section, by its (escaped) name."""
    found = {}
    for part in html.split('<section class="function"')[1:]:
        name = re.search(r"<code>(.*?)</code>", part)
        assert name is not None
        found[name[1]] = part[: part.index("</section>")]
    return found


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_each_function_lists_its_diagnoses(watched: Watched, tmp_path: Path, lang: str) -> None:
    out = tmp_path / "report.html"
    done = subprocess.run(
        [JITLAB, "--lang", lang, "report", str(watched.path), "-o", str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    html = out.read_text()
    assert HOSTILE not in html  # never markup
    sections = _sections(html)
    grow, step = sections[escape(HOSTILE)], sections["step"]
    recording = read_recording(watched.path)[0]
    heading = "诊断" if lang == "zh" else "Diagnoses"
    for section, function in ((grow, HOSTILE), (step, "step")):
        assert f"<h3>{heading}</h3>" in section
        items = re.findall(
            r"<li><code>([a-z-]+)</code>(?: <em>.*?</em>)? — (.*?) "
            r"<code>jitlab explain \1</code> \(<a href=\"(.*?)\">",
            section,
        )
        # recorded, then call-site-cost (computed from the call lines): one list
        mine = [d for d in recording.every_diagnosis() if d.function == function]
        assert [i for i, _, _ in items] == [d.id for d in mine]
        for (_, text, href), d in zip(items, mine, strict=True):
            assert text == escape(sentence(d, lang), quote=True)
            assert href == Path(page(d.id)).as_uri() and Path(page(d.id)).is_file()
    assert "&lt;b&gt;x&lt;/b&gt; (" in grow  # the name in the sentence, escaped


def test_an_id_from_a_newer_jitlab_is_shown_by_id_and_page(watched: Watched, tmp_path: Path):
    newer = tmp_path / "newer.jsonl"
    line = {"type": "diagnosis", "id": "warp-drive", "function": "step", "site": None,
            "figures": {"n": 3}, "t": 1.0}  # fmt: skip
    lines = watched.path.read_text().splitlines()
    lines.insert(-1, json.dumps(line | {"site": _site(watched, "step")}))
    newer.write_text("\n".join(lines) + "\n")
    out = tmp_path / "report.html"
    done = subprocess.run(
        [sys.executable, "-m", "jitlab", "report", str(newer), "-o", str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    step = _sections(out.read_text())["step"]
    assert "<code>warp-drive</code>" in step
    assert "diagnosis warp-drive (from a newer jitlab)" in step
    assert "docs/diagnoses/warp-drive.md (not on this machine)" in step  # said, not linked


def _site(watched: Watched, function: str) -> str | None:
    recording = read_recording(watched.path)[0]
    return next(d.site for d in recording.diagnoses if d.function == function)
