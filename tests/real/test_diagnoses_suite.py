"""The diagnoses' precision suite and their recall (issue 52): :mod:`diagnoses_suite`'s
programs watched in real processes, with JAX's own compile log in the same run. No problem
is stated on a well-written program; every reproduction is found by the ids it holds; the
recording's compiles of each program's functions are JAX's."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from .diagnoses_suite import CLEAN, RECALL, Case, Ran, figures, run_all

pytestmark = pytest.mark.slow


def _runnable(cases: tuple[Case, ...]) -> list[Case]:
    return [c for c in cases if all(importlib.util.find_spec(m) for m in c.needs)]


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> list[Ran]:
    return run_all([*_runnable(CLEAN), *_runnable(RECALL)], tmp_path_factory.mktemp("suite"))


def _recorded(r: Ran, name: str) -> int:
    return sum(
        1
        for c in r.recording.calls
        if c.record.function == name and c.record.kind.compiled and not c.internal
    )


def test_no_problem_is_stated_on_a_well_written_program(ran: list[Ran]) -> None:
    clean = [r for r in ran if not r.case.true]
    assert len(clean) >= 15
    alarms = {r.case.file: [(d.id, d.function) for d in r.false_alarms] for r in clean}
    assert {f: a for f, a in alarms.items() if a} == {}


def test_each_reproduction_is_found_and_nothing_else_is_said(ran: list[Ran]) -> None:
    reproductions = [r for r in ran if r.case.true]
    assert len(reproductions) >= 9
    assert {r.case.file: sorted(r.missed) for r in reproductions if r.missed} == {}
    alarms = {r.case.file: [d.id for d in r.false_alarms] for r in reproductions}
    assert {f: a for f, a in alarms.items() if a} == {}
    table = figures(ran)
    for ident in ("identity-static", "recompile-limit", "slow-dispatch", "captured-constant"):
        assert table[ident].required and table[ident].found == table[ident].required


def test_a_found_function_really_recompiled_as_jax_logged(ran: list[Ran]) -> None:
    for r in ran:
        for d in r.problems:
            if d.id in ("identity-static", "recompile-limit", "captured-constant"):
                # JAX compiled it more than once, and the recording counts what JAX did
                # (names as JAX logs them: nnx.jit and filter_jit name the user's function).
                assert r.jax[d.function] >= 2, (r.case.file, d.function, r.jax)
                assert _recorded(r, d.function) == r.jax[d.function], (r.case.file, d.function)


def test_what_jitlab_could_not_check_or_left_out_is_said(ran: list[Ran]) -> None:
    by_file = {r.case.file: r for r in ran}
    before = by_file["recall/jitted_before_watch.py"]
    assert before.recording.notice_counts.get("jitted_before") == 2
    assert "step (" in before.recording.notice_details["jitted_before"]
    assert "were jitted before the watch began" in before.stderr
    # Its argument named as written (cfg), not JAX's input path ([0][1]).
    (d,) = [d for d in before.problems if d.id == "identity-static"]
    assert d.figures["argument"] == "cfg"
    nnx = by_file.get("clean/nnx_loop.py")
    if nnx is not None:  # JAX's own functions: counted, and the listing says so
        left = nnx.recording.notice_counts["internal_left_out"]
        listed = sum(1 for c in nnx.recording.calls if c.record.kind.compiled)
        assert listed + left == sum(nnx.jax.values())  # every compile JAX logged, accounted
        assert "--include-internal" in nnx.stderr


def test_the_suite_files_exist() -> None:
    here = Path(__file__).parent / "programs"
    for case in (*CLEAN, *RECALL):
        assert (here / case.file).is_file(), case.file
