"""``jitlab notebook SCENARIO -o lesson.ipynb``: a scenario's lesson as a Jupyter notebook."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from jitlab.cli._usage import fail, language, say
from jitlab.records.text import Text

# This command's own words (the shared catalogue words the refusals: output.*).
_WORDS = {
    "needs": Text(
        "jitlab notebook needs nbformat: install jitlab[notebook] (pip install 'jitlab[notebook]')",
        "jitlab notebook 需要 nbformat：请安装 jitlab[notebook]（pip install 'jitlab[notebook]'）",
    ),
    "suffix": Text(
        "{path} does not end in .ipynb: a notebook is written to a .ipynb file (or - for stdout)",
        "{path} 的扩展名不是 .ipynb：笔记本只写入 .ipynb 文件（或用 - 写到标准输出）",
    ),
    "changed": Text(
        "{path}: its cells changed since jitlab wrote it (the learner's own work?); "
        "not overwritten: name a new file with -o, or --force to replace it",
        "{path}：自 jitlab 写出后它的单元格已被改过（也许是学习者自己的内容）；"
        "没有覆盖：请用 -o 换一个新文件名，或用 --force 替换它",
    ),
    "not_ours": Text(
        "{path} exists and is not a notebook of `jitlab notebook`; not overwritten: name a "
        "new file with -o, or --force to replace it",
        "{path} 已存在，且不是 `jitlab notebook` 生成的笔记本；没有覆盖：请用 -o 换一个新文件名，"
        "或用 --force 替换它",
    ),
    "wrote": Text(
        "wrote {out}: {title} ({id}), {cells} cells; open it in Jupyter, VS Code or Colab",
        "已写入 {out}：{title}（{id}），共 {cells} 个单元格；可在 Jupyter、VS Code 或 Colab 中打开",
    ),
}
# A lesson notebook is a few hundred kilobytes; a file far larger is not one of ours.
_MAX_SNIFF = 64 * 1024 * 1024


def _word(key: str, **fields: Any) -> str:
    return _WORDS[key].get(language()).format(**fields)


def add_parser(commands: Any) -> argparse.ArgumentParser:
    parser = commands.add_parser(
        "notebook",
        help="write a scenario's lesson as a Jupyter notebook: "
        "jitlab notebook dynamic-shapes -o lesson.ipynb",
        description="Write SCENARIO's lesson as a notebook: the kitchen story, the "
        "predict-then-run question, the pitfall and the fix as %%jitlab cells (the code the "
        "lab shows and runs), the lesson's verdict and the exercises, in English or Chinese "
        "(--lang zh). Needs jitlab[notebook]. Exits 0, or 2 for bad input.",
    )
    parser.add_argument("scenario", metavar="SCENARIO", help="a scenario id (`jitlab list`)")
    parser.add_argument(
        "-o",
        "--out",
        metavar="FILE.ipynb",
        help="where to write the notebook (default: SCENARIO.ipynb; `-` for stdout); never "
        "over a file that is not a notebook of `jitlab notebook`, nor over one whose cells "
        "changed since it wrote it (the learner's work)",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace FILE.ipynb even when its cells changed since jitlab wrote it, or "
        "jitlab did not write it (never a folder or a file that is no .ipynb)",
    )
    return parser


def run(args: argparse.Namespace) -> int:
    try:
        import nbformat
    except ImportError:
        print(_word("needs"), file=sys.stderr)
        return 1
    scenario = _scenario_or_fail(args.scenario)
    text = args.out if args.out is not None else f"{scenario.id}.ipynb"
    out = None if text == "-" else _checked_out(text, force=getattr(args, "force", False))
    from jitlab.notebook.lesson import METADATA_KEY, build

    lang = language()
    nb = build(scenario, lang)
    # What jitlab wrote, as a fingerprint: a later run replaces the file only while its cells
    # are still these (the learner's predictions and notes are never written over).
    nb.metadata[METADATA_KEY][FINGERPRINT_KEY] = cells_fingerprint(nb.cells)
    nbformat.validate(nb)
    data = (nbformat.writes(nb) + "\n").encode("utf-8")
    from jitlab.cli._output import write_output

    if not write_output("notebook", out, text, data):  # stdout or a stream: nothing more
        return 0
    title = scenario.title.get(lang)
    print(_word("wrote", out=text, title=title, id=scenario.id, cells=len(nb.cells)))
    return 0


def _scenario_or_fail(name: str) -> Any:
    from jitlab.lab.discovery import discover, scenarios

    entries = discover()
    available = scenarios(entries)
    scenario = available.get(name)
    if scenario is not None:
        return scenario
    broken = {e.name: e.error for e in entries if not e.ok}
    if name in broken:
        fail(say("usage.scenario_broken", scenario=repr(name), error=broken[name]))
    import difflib

    near = difflib.get_close_matches(name, list(available), n=3, cutoff=0.5)
    if near:
        fail(say("usage.scenario_near", scenario=repr(name), near=", ".join(near)))
    fail(say("usage.scenario_unknown", scenario=repr(name), valid=", ".join(available)))


FINGERPRINT_KEY = "cells_sha256"


def cells_fingerprint(cells: Any) -> str:
    """The SHA-256 of a notebook's cells as the learner edits them: each cell's type and
    source, in order (not their outputs: running the notebook changes no one's work)."""
    import hashlib

    parts = []
    for cell in cells if isinstance(cells, list) else []:
        cell = cell if isinstance(cell, dict) else {}
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        parts.append([str(cell.get("cell_type", "")), source])
    data = json.dumps(parts, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(data.encode("utf-8", "surrogatepass")).hexdigest()


def _checked_out(text: str, *, force: bool = False) -> Path:
    """Where the notebook may go: a ``.ipynb`` path that is new, empty, or a notebook this
    command wrote whose cells are still as it wrote them (then it is written over); a device
    or a pipe as a stream. Anything else (a folder, a script, the user's own notebook, a
    lesson the learner wrote in) is refused in one line, exit 2, the refusals worded as every
    command words them (:mod:`jitlab.cli._output`); ``force`` replaces a ``.ipynb`` file
    whatever it holds."""
    from jitlab.cli._output import checked_output
    from jitlab.records.outputs import REPORT, is_stream

    path = Path(os.path.abspath(text))
    if is_stream(path):
        return path
    if path.is_dir():  # the shared guard's words for a folder
        return checked_output("notebook", text, REPORT)
    if path.suffix.lower() != ".ipynb":
        fail(say("output.refused", command="notebook", why=_word("suffix", path=text)))
    if path.is_file() and path.stat().st_size > 0:
        if not force:
            state = _written_by_us(path)
            if state != "unchanged":
                why = _word("changed" if state == "changed" else "not_ours", path=text)
                fail(say("output.refused", command="notebook", why=why))
        if not os.access(path, os.W_OK):
            error = os.strerror(13)
            fail(say("output.cannot_write", command="notebook", path=text, error=error))
        return path
    # New (or empty): the shared guard's checks of a folder, a place that cannot be written.
    # (REPORT only names the kind an existing file would have to be; none exists here.)
    return checked_output("notebook", text, REPORT)


def _written_by_us(path: Path) -> str:
    """``unchanged``: a notebook of this command whose cells are as it wrote them;
    ``changed``: one whose cells changed since (or that carries no fingerprint: a jitlab
    before fingerprints could not tell); ``not_ours``: anything else."""
    from jitlab.notebook.lesson import METADATA_KEY, is_lesson_notebook

    try:
        if path.stat().st_size > _MAX_SNIFF:
            return "not_ours"
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "not_ours"
    if not is_lesson_notebook(data):
        return "not_ours"
    written = data["metadata"][METADATA_KEY].get(FINGERPRINT_KEY)
    if isinstance(written, str) and written == cells_fingerprint(data["cells"]):
        return "unchanged"
    return "changed"
