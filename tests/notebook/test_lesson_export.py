"""`jitlab notebook SCENARIO`: every built-in scenario's lesson as a notebook, in English and
Chinese, whose code cells are the scenario's own code (what the app shows and runs)."""

from __future__ import annotations

import inspect
import itertools
import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from environment_lines import program_lines

pytestmark = pytest.mark.slow

nbformat = pytest.importorskip("nbformat")

from jitlab.lab.discovery import scenarios  # noqa: E402
from jitlab.notebook.lesson import RAISES, _md, build, comparisons, is_lesson_notebook  # noqa: E402

BUILT_IN = (
    "side-effects",
    "static-args",
    "control-flow",
    "dynamic-shapes",
    "recompile-cost",
    "error-debugging",
    "sharding",
)
RUN_LINE = re.compile(r'^(\w+) = lesson\.run\("([\w-]+)", globals\(\)(?:, face="([\w-]+)")?\)$')
EXERCISE_LINE = re.compile(r'^answer = lesson\.exercise\("([\w-]+)", (\w+), prediction=None\)')


def test_the_built_ins_are_the_seven() -> None:
    assert set(BUILT_IN) <= set(scenarios())


def _code(nb: object) -> list[str]:
    return [c.source for c in nb.cells if c.cell_type == "code"]  # type: ignore[attr-defined]


def _python(source: str) -> str:
    """A cell without its IPython lines (%%jitlab, %load_ext): plain Python to compile."""
    return "\n".join(line for line in source.splitlines() if not line.startswith("%"))


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("scenario_id", BUILT_IN)
def test_every_built_in_exports_a_valid_notebook_of_its_own_code(
    scenario_id: str, lang: str
) -> None:
    scenario = scenarios()[scenario_id]
    nb = build(scenario, lang)
    nbformat.validate(nb)
    assert nb.nbformat == 4
    assert nb.metadata["jitlab"]["lesson"] == scenario_id
    assert nb.metadata["jitlab"]["lang"] == lang
    assert is_lesson_notebook(json.loads(nbformat.writes(nb)))
    for source in _code(nb):
        compile(_python(source), scenario_id, "exec")  # every cell is Python once IPython's

    # Each variant cell: %%jitlab, then the variant's code exactly as the app's code view
    # shows it (Scenario.source, the GUI's CodeView reads it), then the run of that variant.
    instance = scenario()
    ran = []
    for source in _code(nb):
        lines = source.splitlines()
        if not lines[0].startswith("%%jitlab"):
            continue
        magic = "%%jitlab --lang zh" if lang == "zh" else "%%jitlab"
        assert lines[0] in (magic, magic + " --fold")  # folded: another face (reference)
        found = RUN_LINE.match(lines[-1])
        assert found, source
        variant = found[2]
        comparison = scenario.comparison(found[3] or variant)  # what lesson.run will run
        ran.append((variant, comparison.pitfall))
        body = "\n".join(lines[1:-1]).strip("\n")
        assert body == instance.source(variant, lang).rstrip("\n")
        if lang == "en":  # the functions' own source, as inspect reads it from the file
            own = "\n\n".join(
                textwrap.dedent(inspect.getsource(obj)) for obj in instance.code_objects(variant)
            )
            assert body == own.rstrip("\n")
    wanted = [(v, c.pitfall) for c in comparisons(scenario) for v in c.variants]
    assert ran == wanted  # each comparison's two variants, in order, on its own calls
    main = scenario.comparison()
    assert [v for v, _ in ran[:2]] == list(main.variants)  # the pitfall and its fix first

    # The lesson's errors: a cell tagged to raise after each pitfall that fails.
    raising = [c.source for c in nb.cells if RAISES in c.metadata.get("tags", [])]
    erring = [c.pitfall for c in comparisons(scenario) if c.measure.value == "errors"]
    assert raising == [f"lesson.reraise({v.replace('-', '_')})" for v in erring]

    # Each exercise: its snippet exactly as the quiz shows it, then the run that settles it.
    code = _code(nb)
    asked = []
    for before, source in itertools.pairwise(code):
        found = EXERCISE_LINE.match(source)
        if not found:
            continue
        exercise = next(e for e in scenario.exercises if e.id == found[1])
        asked.append(exercise.id)
        assert before == exercise.source_in(lang).rstrip("\n")
        assert found[2] == exercise.snippet.__name__
    assert asked == [e.id for e in scenario.exercises]


@pytest.mark.parametrize("scenario_id", BUILT_IN)
def test_the_chinese_notebook_speaks_chinese(scenario_id: str) -> None:
    scenario = scenarios()[scenario_id]
    en, zh = build(scenario, "en"), build(scenario, "zh")
    en_text = "\n".join(c.source for c in en.cells)
    zh_text = "\n".join(c.source for c in zh.cells)
    assert scenario.title.zh in zh_text and scenario.title.zh not in en_text
    assert scenario.title.en in en_text
    assert "王师傅" in zh_text and "Chef Wang" in en_text
    assert 'lang="zh"' in zh_text and 'lang="en"' in en_text
    # The code's comments, translated where the scenario translates them.
    en_code, zh_code = "\n".join(_code(en)), "\n".join(_code(zh))
    translated = [c for c in scenario.code_comments if f"# {c.en}" in en_code]
    assert translated, "the lesson's code has comments its spec translates"
    for comment in translated:
        assert f"# {comment.zh}" in zh_code
        assert f"# {comment.en}" not in zh_code


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("scenario_id", BUILT_IN)
def test_the_scripts_section_follows_the_lesson(scenario_id: str, lang: str) -> None:
    """The scenario's ScriptLesson, as the app's answer shows it: its text, the cards it
    names, and the cell that makes them and shows their scripts."""

    scenario = scenarios()[scenario_id]
    lesson = scenario.scripts
    assert lesson is not None and lesson.compare  # every built-in teaches with its scripts
    nb = build(scenario, lang)
    heading = "## " + ("脚本里看得出什么" if lang == "zh" else "What the scripts show")
    (at,) = [i for i, c in enumerate(nb.cells) if c.source.startswith(heading)]
    section = nb.cells[at].source
    assert _md(lesson.text.get(lang)) in section
    for ref in lesson.compare:
        title = next(v.title.get(lang) for v in scenario.variants if v.id == ref.variant)
        assert _md(f"“{title}”") in section
        for name, value in dict(ref.params).items():  # by their labels, as the app's controls
            param = next(p for p in scenario.params if p.name == name)
            assert param.label.get(lang) in section
            assert _md(param.choice_label(str(value), lang)) in section
            assert f"{name}=" not in section
    assert nb.cells[at + 1].source == "lesson_scripts = lesson.scripts()"
    # after the lesson (its verdict, then the exercises), under "Going further"
    verdict = next(i for i, c in enumerate(nb.cells) if c.source.startswith("verdict = lesson."))
    further = "# " + ("延伸阅读" if lang == "zh" else "Going further")
    assert verdict < at and nb.cells[at - 1].source.startswith(further)
    if lang == "zh":
        assert "What the scripts" not in section and "call" not in section


def test_a_prediction_s_number_is_read_as_the_app_reads_it() -> None:
    from jitlab.records.text import prediction_number

    cases = {"2 compiles": 2, "两次": 2, "三": 3, "I think 12, maybe 13": 12, "十次": 10}
    for text, number in cases.items():
        assert prediction_number(text) == number, text
    assert prediction_number("none at all") is None and prediction_number("") is None


def test_lesson_words_are_text_not_markup() -> None:

    assert _md("a <b>x</b> & *y* `if x < 0: *z*`") == (
        r"a \<b\>x\</b\> &amp; \*y\* `if x < 0: *z*`"
    )


# -- the command -----------------------------------------------------------------------------
def jitlab(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "jitlab.cli", *args],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=cwd,
    )


def test_cli_writes_the_lesson_in_either_language(tmp_path: Path) -> None:
    out = tmp_path / "lesson.ipynb"
    done = jitlab("notebook", "dynamic-shapes", "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.splitlines()) == 1 and str(out) in done.stdout
    nb = nbformat.read(out, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata["jitlab"] == {**nb.metadata["jitlab"], "lesson": "dynamic-shapes"}
    assert nb.metadata["jitlab"]["lang"] == "en"
    # Again, in Chinese, over the notebook it wrote (its own kind of file: allowed).
    for args in (("--lang", "zh", "notebook"), ("notebook", "--lang", "zh")):
        done = jitlab(*args, "dynamic-shapes", "-o", str(out))
        assert done.returncode == 0, done.stderr
        assert "已写入" in done.stdout
        assert nbformat.read(out, as_version=4).metadata["jitlab"]["lang"] == "zh"
    # No -o: SCENARIO.ipynb in the current folder.
    done = jitlab("notebook", "sharding", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert nbformat.read(tmp_path / "sharding.ipynb", as_version=4).cells


def test_cli_unknown_scenario_is_one_line_and_exit_2(tmp_path: Path) -> None:
    out = tmp_path / "x.ipynb"
    done = jitlab("notebook", "dynamic-shape", "-o", str(out))
    assert done.returncode == 2
    assert len(program_lines(done.stderr)) == 1 and "dynamic-shapes" in done.stderr
    done = jitlab("notebook", "no-such-lesson", "-o", str(out))
    assert done.returncode == 2 and len(program_lines(done.stderr)) == 1
    assert "side-effects" in done.stderr  # the valid ids
    assert not out.exists()


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("lesson.py", "print('my work')\n"),  # a script: wrong suffix, and not ours
        ("notes.txt", None),  # new, but not a notebook's name
        ("mine.ipynb", "nb"),  # the user's own notebook
        ("data.ipynb", "{not json"),  # a file named like a notebook
    ],
)
def test_cli_never_writes_over_what_is_not_its_notebook(
    tmp_path: Path, name: str, content: str | None
) -> None:
    path = tmp_path / name
    if content == "nb":
        own = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")])
        content = nbformat.writes(own)
    if content is not None:
        path.write_text(content, encoding="utf-8")
    done = jitlab("notebook", "dynamic-shapes", "-o", str(path))
    assert done.returncode == 2, done.stdout
    assert len(program_lines(done.stderr)) == 1 and name in done.stderr
    if content is None:
        assert not path.exists()
    else:
        assert path.read_text(encoding="utf-8") == content


def test_cli_refuses_a_folder(tmp_path: Path) -> None:
    folder = tmp_path / "lesson.ipynb"
    folder.mkdir()
    done = jitlab("notebook", "dynamic-shapes", "-o", str(folder))
    assert done.returncode == 2 and len(program_lines(done.stderr)) == 1
    assert list(folder.iterdir()) == []


def test_cli_without_nbformat_says_what_to_install(tmp_path: Path) -> None:
    out = tmp_path / "x.ipynb"
    code = (
        "import sys; sys.modules['nbformat'] = None\n"  # as if jitlab[notebook] were not installed
        "from jitlab.cli import main\n"
        f"raise SystemExit(main(['notebook', 'dynamic-shapes', '-o', {str(out)!r}]))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert done.returncode == 1
    assert len(program_lines(done.stderr)) == 1 and "jitlab[notebook]" in done.stderr
    assert not out.exists()


def test_cli_writes_to_stdout(tmp_path: Path) -> None:
    done = jitlab("notebook", "control-flow", "-o", "-")
    assert done.returncode == 0, done.stderr
    nb = nbformat.reads(done.stdout, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata["jitlab"]["lesson"] == "control-flow"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_lesson_reads_top_to_bottom_reference_after_it(lang: str) -> None:
    """Narrative first (predict, pitfall, fix, verdict), then the exercises; what the scripts
    show and the other faces come after a 'Going further' heading, the faces' reports folded."""
    from jitlab.notebook.lesson import _WORDS

    scenario = scenarios()["dynamic-shapes"]
    nb = build(scenario, lang)
    sources = [c.source for c in nb.cells]

    def at(text: str) -> int:
        return next(i for i, s in enumerate(sources) if text in s)

    further = at("# " + _WORDS["further"].get(lang))
    verdict = at("lesson.verdict(pitfall, fix, prediction)")
    assert verdict < at("## " + _WORDS["exercises"].get(lang)) < further
    assert further < at("## " + _WORDS["scripts"].get(lang))
    assert further < at("## " + _WORDS["face"].get(lang))
    runs = [(i, s.splitlines()[0]) for i, s in enumerate(sources) if s.startswith("%%jitlab")]
    assert all(line.endswith("--fold") == (i > further) for i, line in runs), runs
    assert sum(i > further for i, _ in runs) >= 2  # the faces' runs, folded
