"""A scenario declares its chapter (a built-in Pitfall or a Chapter of its own) and its
exercises; discovery orders by chapter and reports a malformed declaration as broken."""

from __future__ import annotations

from pathlib import Path

from jitlab.lab.discovery import discover
from jitlab.lab.scenario import Chapter, Pitfall, Text, icon_file
from jitlab.records.paths import resource

HEAD = """
from jitlab.lab.scenario import Chapter, Lesson, Pitfall, Scenario, Text, Variant
from jitlab.quiz import AnswerKind, Exercise, compile_answer

T = Text("t", "t")


def snippet(lab):
    lab.jit(lambda x: x)(1.0)


def exercise(exercise_id, **kwargs):
    return Exercise(
        id=exercise_id, title=T, question=T, explanation=T, kind=AnswerKind.NUMBER,
        snippet=snippet, settle=compile_answer, **kwargs,
    )


class Base(Scenario):
    title = T
    question = T
    lesson = Lesson(T, T, T, T)
    variants = (Variant("pitfall", T, T), Variant("fix", T, T))

    def setup(self, lab, variant):
        return lambda values: None
"""


def _write(folder: Path, name: str, *lines: str) -> None:
    """A plugin file ``name.py`` with one scenario of id ``name``: Base plus ``lines``."""
    body = f'class Plugin(Base):\n    id = "{name}"\n' + "".join(f"    {x}\n" for x in lines)
    (folder / f"{name}.py").write_text(HEAD + body)


def test_chapters_order_the_list_new_ones_after_the_builtins(tmp_path: Path):
    _write(tmp_path, "late", 'chapter = Chapter(12, Text("12 · L", "12 · 后"))')
    _write(tmp_path, "new", 'chapter = Chapter(8, Text("8 · N", "8 · 新"))')
    _write(tmp_path, "old", "pitfall = Pitfall.SHARDING")
    _write(tmp_path, "first", "chapter = Pitfall.SIDE_EFFECTS")
    entries = discover(tmp_path, entry_points=False)
    assert [e.name for e in entries] == ["first", "old", "new", "late"]
    assert all(e.ok for e in entries)
    by_id = {e.name: e.scenario for e in entries}
    # either name declares it; both read the same value
    assert by_id["old"].chapter is Pitfall.SHARDING and by_id["old"].pitfall is Pitfall.SHARDING
    assert by_id["first"].pitfall is Pitfall.SIDE_EFFECTS
    assert by_id["new"].pitfall == Chapter(8, Text("8 · N", "8 · 新"))
    assert int(by_id["late"].chapter) == 12 and by_id["late"].chapter.title.zh == "12 · 后"


def test_malformed_chapters_and_exercises_are_broken_not_fatal(tmp_path: Path):
    _write(tmp_path, "clash", 'chapter = Chapter(3, Text("3 · Mine", "3 · 我的"))')
    _write(tmp_path, "nochapter")
    _write(tmp_path, "wrongtype", "chapter = 8")
    _write(tmp_path, "both", "chapter = Pitfall.STATIC_ARGS", "pitfall = Pitfall.SHARDING")
    exercises = 'exercises = (exercise("x"), exercise("x"))'
    _write(tmp_path, "twice", "chapter = Pitfall.STATIC_ARGS", exercises)
    exercises = 'exercises = (exercise("y", scenario="static-args"), object())'
    _write(tmp_path, "foreign", "chapter = Pitfall.STATIC_ARGS", exercises)
    _write(tmp_path, "fine", "chapter = Pitfall.CONTROL_FLOW", 'exercises = (exercise("z"),)')
    errors = {e.name: e.error for e in discover(tmp_path, entry_points=False)}
    assert errors["fine"] is None
    assert "chapter 3 is the built-in CONTROL_FLOW" in errors["clash"]
    assert "nochapter.py:" in errors["nochapter"]  # each problem names the file and its line
    assert "Plugin.chapter: is missing: declare chapter = Pitfall." in errors["nochapter"]
    assert "Plugin.chapter: must be a Pitfall (" in errors["wrongtype"]
    assert "not the int 8" in errors["wrongtype"]
    assert "two names of one attribute" in errors["both"]
    assert "Plugin.exercises[1].id: exercise id 'x' is declared twice" in errors["twice"]
    assert (
        "exercise 'y' names scenario 'static-args', but 'foreign' declares it" in errors["foreign"]
    )
    assert "Plugin.exercises[1]: must be Exercise(id, title" in errors["foreign"]


def test_builtin_pitfalls_are_chapters_one_to_seven():
    assert [(p.number, int(p)) for p in Pitfall] == [(n, n) for n in range(1, 8)]
    assert Pitfall.SHARDING.title.en.startswith("7 · ")
    assert int(Chapter(8, Text("8 · x", "8 · x"))) == 8


def test_an_icon_is_a_kitchen_icon_or_a_file_the_plugin_brings(tmp_path: Path):
    (tmp_path / "knife.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg"/>')
    _write(tmp_path, "brings", "chapter = Pitfall.SHARDING", 'icon = "knife.svg"')
    _write(tmp_path, "named", "chapter = Pitfall.SHARDING", 'icon = "dog"')
    _write(tmp_path, "missing", "chapter = Pitfall.SHARDING", 'icon = "nowhere.svg"')
    entries = {e.name: e for e in discover(tmp_path, entry_points=False)}
    assert icon_file(entries["brings"].scenario) == tmp_path / "knife.svg"
    assert icon_file(entries["named"].scenario) == resource("icons", "dog.svg")
    # A misspelt icon is the author's mistake, said by validate (icon_file shows the pot).
    assert "Plugin.icon: 'nowhere.svg' is neither an icon of jitlab" in entries["missing"].error
