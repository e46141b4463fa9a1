"""A report page is known as jitlab's in every language: by the mark in its head, which
says nothing in any language, and, for pages written before the mark, by either title."""

from __future__ import annotations

from pathlib import Path

import pytest

from jitlab.records.outputs import REPORT, refusal


def _page(tmp_path: Path, head: str) -> Path:
    path = tmp_path / "page.html"
    path.write_text(f"<!DOCTYPE html>\n{head}\n<body>…</body></html>\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "head",
    [
        '<html lang="zh-CN"><head><meta charset="utf-8">\n'
        '<meta name="generator" content="jitlab report">\n<title>任意标题</title>',
        # written before the mark, in English and in Chinese
        '<html lang="en"><head><meta charset="utf-8">\n<title>jitlab report · python a.py</title>',
        '<html lang="zh-CN"><head><meta charset="utf-8">\n<title>jitlab 报告 · python a.py</title>',
    ],
)
def test_a_report_page_in_any_language_may_be_rewritten(tmp_path: Path, head: str) -> None:
    assert refusal(_page(tmp_path, head), REPORT) is None


def test_a_users_page_is_still_refused(tmp_path: Path) -> None:
    page = _page(tmp_path, "<html><head><title>my notes on jitlab</title>")
    assert "page.html" in (refusal(page, REPORT, lang="zh") or "")
