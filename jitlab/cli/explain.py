"""``jitlab explain ID``: a diagnosis's page, in the display language, as ``rustc --explain``
prints an error's: what happened, why JAX does it, the fix with a before and after. The
pages ship inside jitlab (``jitlab/_builtin/docs`` in the wheel), so the command every face
names works wherever jitlab is installed. Rendered on a terminal, the Markdown as written
otherwise (for a pipe or a file). No JAX, no Qt."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def add_parser(commands: Any) -> argparse.ArgumentParser:
    parser = commands.add_parser(
        "explain",
        help="print a diagnosis's page (what happened, why, the fix): jitlab explain ID",
    )
    parser.add_argument("id", nargs="?", help="the diagnosis id (none: list them)")
    return parser


def run(args: argparse.Namespace) -> int:
    from rich.markup import escape

    from jitlab.cli._tables import console_for
    from jitlab.cli._usage import fail, language, say
    from jitlab.records.diagnoses import IDS, page_text

    ident = args.id
    if ident is None:
        console = console_for()
        console.print(escape(say("explain.ids")), soft_wrap=True)
        for known in IDS:
            console.print(f"  {escape(known)}", soft_wrap=True)
        return 0
    text = page_text(ident, language())
    if text is None:
        fail(say("explain.unknown", id=ident, ids=", ".join(IDS)))
    out = sys.stdout
    if not out.isatty():
        out.write(text)
        out.flush()
        return 0
    from rich.markdown import Markdown

    console_for().print(Markdown(text))
    return 0
