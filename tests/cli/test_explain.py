"""`jitlab explain ID` (issue 52, item 7): a diagnosis's page in the display language, as
`rustc --explain` prints an error's — rendered on a real terminal (a pty), the Markdown as
written into a pipe; every id has a page with an English and a Chinese section, each with
its own before/after code; an unknown id is one usage line and exit 2."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from jitlab.records.diagnoses import IDS, page_text

pytestmark = pytest.mark.slow

JITLAB = str(Path(sys.executable).with_name("jitlab"))
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_CJK = re.compile(r"[\u4e00-\u9fff]")


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([JITLAB, *argv], capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.parametrize("ident", IDS)
def test_every_page_has_both_languages_each_with_its_own_code(ident: str) -> None:
    en, zh = page_text(ident, "en"), page_text(ident, "zh")
    assert en is not None and zh is not None
    assert en.startswith(f"# `{ident}`") and zh.startswith(f"# `{ident}`")
    assert "### What happened" in en and "### 发生了什么" not in en
    assert "### 发生了什么" in zh and "### What happened" not in zh
    assert len(_CJK.findall(zh)) > 300 and not _CJK.search(en.replace("中文", ""))
    # A reader of either section sees the fix's code there (not "see the English above").
    assert en.count("```python") == zh.count("```python") >= 1, ident
    assert "英文部分" not in zh
    # The page names the command that prints it.
    assert f"explain {ident}" in " ".join(en.split())
    assert f"explain {ident}" in " ".join(zh.split())


def test_a_pipe_gets_the_markdown_as_written_in_the_display_language() -> None:
    done = _run("explain", "identity-static")
    assert done.returncode == 0, done.stderr
    assert done.stdout == page_text("identity-static", "en")
    zh = _run("--lang", "zh", "explain", "identity-static")
    assert zh.returncode == 0 and zh.stdout == page_text("identity-static", "zh")
    also = _run("explain", "--lang", "zh", "identity-static")
    assert also.stdout == zh.stdout


def test_a_terminal_gets_it_rendered() -> None:
    sys.path.insert(0, str(Path(__file__).parents[1] / "faults"))
    from ptyrun import run_on_pty

    for lang, heading in (("en", "What happened"), ("zh", "发生了什么")):
        shown = run_on_pty([JITLAB, "--lang", lang, "explain", "recompile-limit"], columns=100)
        assert shown.status == 0, shown.output
        text = _ANSI.sub("", shown.output)
        assert heading in text and f"### {heading}" not in text  # a heading, drawn
        assert "def bucket(n):" in text  # the code block, shown


def test_no_id_lists_them_and_an_unknown_one_is_a_usage_error() -> None:
    listed = _run("explain")
    assert listed.returncode == 0
    assert [line.strip() for line in listed.stdout.splitlines()[1:]] == list(IDS)
    unknown = _run("explain", "warp-drive")
    assert unknown.returncode == 2 and unknown.stdout == ""
    (line,) = unknown.stderr.splitlines()
    assert "warp-drive" in line and "recompile-limit" in line
    zh = _run("--lang", "zh", "explain", "warp-drive")
    assert zh.returncode == 2 and "没有名为 warp-drive 的诊断" in zh.stderr
