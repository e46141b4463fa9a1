"""The lesson's own tests, with jitlab's `jitlab_lesson` fixture (jitlab's pytest plugin
loads with jitlab): each run is real JAX, from cold caches."""

from jitlab_weak_types.lesson import WeakTypes


def test_the_fix_compiles_once_where_the_pitfall_compiles_twice(jitlab_lesson):
    verdict = jitlab_lesson(WeakTypes).verdict()
    assert verdict.better == "fix"
    assert (verdict.pitfall.compiles, verdict.fix.compiles) == (2, 1)


def test_the_question_counts_two_compiles(jitlab_lesson):
    assert jitlab_lesson(WeakTypes).question() == 2


def test_the_recompile_is_the_weak_type_changing(jitlab_lesson):
    records = jitlab_lesson(WeakTypes).run("pitfall", [{"step": 2}, {"step": 3}])
    assert [r.kind.value for r in records] == ["compile", "recompile"]
    (change,) = records[1].reason.items
    assert change.kind.value == "weak_type" and change.path == "lr"


def test_the_exercise_answers_as_its_author_expects(jitlab_lesson):
    lesson = jitlab_lesson("weak-types")  # by id: the installed entry point
    assert lesson.answer("python-float-then-array") == 2
