"""The code view: long lines wrap as visible continuations, comments follow the language."""

from __future__ import annotations

import io
import re
import tokenize

import pytest
from PySide6.QtGui import QFontMetricsF

from jitlab.gui import i18n
from jitlab.gui.lesson.code_view import CodeText, CodeView
from jitlab.lab.discovery import scenarios
from jitlab.lab.spec import Scenario, Text, translate_comments

CJK = re.compile(r"[\u4e00-\u9fff]")


def _comments(source: str) -> list[str]:
    """The comments and docstrings of some code, as written."""
    found = []
    previous = tokenize.INDENT
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            found.append(token.string[1:].strip())
        elif token.type == tokenize.STRING and previous == tokenize.INDENT:
            found.append(token.string.strip("\"'").strip())
        if token.type not in (tokenize.NL, tokenize.COMMENT):
            previous = token.type
    return found


def _view(qtbot, scenario: str, variant: str, width: int = 520) -> CodeView:
    view = CodeView()
    qtbot.addWidget(view)
    view.resize(width, 330)
    view.show()
    view.show_scenario(scenarios()[scenario], variant)
    qtbot.wait(20)
    return view


def _check_hanging(editor: CodeText) -> int:
    """Each wrapped line starts right of its own line's code indentation (plus a level)."""
    space = QFontMetricsF(editor.font()).horizontalAdvance(" ")
    doc = editor.document()
    width = doc.textWidth()
    wrapped = 0
    block = doc.begin()
    while block.isValid():
        layout = block.layout()
        code = block.text()[editor.prefix :]
        lead = editor.prefix + len(code) - len(code.lstrip(" "))
        for i in range(layout.lineCount()):
            line = layout.lineAt(i)
            assert line.x() + line.naturalTextWidth() <= width + 1, block.text()  # not cut
            if i:
                wrapped += 1
                # Deeper than the code's next indentation level: never mistaken for code.
                assert line.x() >= (lead + 5) * space, (block.text(), line.x(), lead)
        block = block.next()
    assert len(editor.continuations()) == wrapped  # each one gets its ↪ in the margin
    return wrapped


@pytest.mark.parametrize("language", ["en", "zh"])
def test_long_lines_wrap_with_a_hanging_indent(qtbot, qapp, language) -> None:
    i18n.set_language(language)
    try:
        view = _view(qtbot, "static-args", "static-explosion", width=520)
        assert view.code.horizontalScrollBar().maximum() == 0
        assert _check_hanging(view.code) > 0  # the long comments really did wrap
        assert _check_hanging(view.diff) >= 0
        # The text itself is the source, unchanged: no marker characters are inserted.
        assert "↪" not in view.code.toPlainText()
    finally:
        i18n.set_language("en")


def test_code_view_comments_follow_the_language(qtbot, qapp) -> None:
    view = _view(qtbot, "control-flow", "pitfall")
    assert "# x is a tracer: True or False is only known when the program runs" in (
        view.code.toPlainText()
    )
    try:
        i18n.set_language("zh")  # the view hears LanguageChange and shows the code again
        qtbot.waitUntil(lambda: "x 是 tracer" in view.code.toPlainText())
        text = view.code.toPlainText()
        assert "if x > 0:  # x 是 tracer：" in text  # the code is the same, only the comment
        assert "True or False is only known" not in text
        assert "x 是 tracer" in view.diff.toPlainText()
    finally:
        i18n.set_language("en")
    qtbot.waitUntil(lambda: "# x is a tracer" in view.code.toPlainText())


SCENARIOS = sorted(scenarios())


@pytest.mark.parametrize("sid", SCENARIOS)
def test_every_comment_of_the_shown_code_has_chinese(sid) -> None:
    cls = scenarios()[sid]
    scenario = cls()
    english = set()
    for variant in cls.variant_ids():
        en = scenario.source(variant)
        zh = scenario.source(variant, "zh")
        english.update(_comments(en))
        # Only comments change: the code is token for token the same.
        before = list(tokenize.generate_tokens(io.StringIO(en).readline))
        after = list(tokenize.generate_tokens(io.StringIO(zh).readline))
        assert [t.type for t in before] == [t.type for t in after]
        code = {tokenize.COMMENT, tokenize.STRING}
        assert [t.string for t in before if t.type not in code] == [
            t.string for t in after if t.type not in code
        ]
        untranslated = [c for c in _comments(zh) if not CJK.search(c)]
        assert untranslated == [], f"{sid}/{variant}: comments without Chinese"
    # No stale entry: each translated comment is still in the code.
    stale = [c.en for c in cls.code_comments if c.en not in english]
    assert stale == []


def test_translate_comments_touches_comments_and_docstrings_only() -> None:
    source = (
        "def f(x):\n"
        '    """Doc."""\n'
        '    s = "# not a comment"  # real\n'
        "    # real\n"
        "    return x  # other\n"
    )
    out = translate_comments(source, {"real": "真", "Doc.": "文档。", "not a comment": "X"})
    assert out == (
        "def f(x):\n"
        '    """文档。"""\n'
        '    s = "# not a comment"  # 真\n'
        "    # 真\n"
        "    return x  # other\n"
    )


def test_a_plugin_without_translations_shows_its_comments_as_written() -> None:
    def shown(x):
        return x  # as written

    class Plugin(Scenario):
        code_comments = (Text("something else", "别的"),)

        def code_objects(self, variant):
            return (shown,)

    assert "# as written" in Plugin().source("pitfall", "zh")
