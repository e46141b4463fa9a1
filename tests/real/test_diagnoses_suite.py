"""The diagnoses' precision suite and their recall (issue 52): :mod:`diagnoses_suite`'s
programs watched in real processes, one test each, with JAX's own compile log in the same
run. No problem is stated on a well-written program; every reproduction is found by the ids
it holds, and nothing else is said of it; what is found recompiled as JAX logged."""

from __future__ import annotations

from pathlib import Path

import pytest

from .diagnoses_suite import CLEAN, RECALL, Case, Ran, run

pytestmark = pytest.mark.slow

_RAN: dict[str, Ran] = {}  # each program run once per session (the notices test reads two)


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("suite")


def _ran(case: Case, folder: Path) -> Ran:
    for module in case.needs:
        pytest.importorskip(module)
    if case.file not in _RAN:
        _RAN[case.file] = run(case, folder / case.name.replace("/", "-"))
    return _RAN[case.file]


def _recorded(r: Ran, name: str) -> int:
    return sum(
        1
        for c in r.recording.calls
        if c.record.function == name and c.record.kind.compiled and not c.internal
    )


def _recompiled_as_jax_logged(r: Ran) -> None:
    for d in r.problems:
        if d.id in ("identity-static", "recompile-limit", "captured-constant"):
            # JAX compiled it more than once, and the recording counts what JAX did (names
            # as JAX logs them: nnx.jit and filter_jit name the user's function).
            assert r.jax[d.function] >= 2, (d.function, r.jax)
            assert _recorded(r, d.function) == r.jax[d.function], d.function


@pytest.mark.parametrize("case", CLEAN, ids=[c.name for c in CLEAN])
def test_no_problem_is_stated_on_a_well_written_program(case: Case, folder: Path) -> None:
    r = _ran(case, folder)
    assert [(d.id, d.function) for d in r.false_alarms] == []


@pytest.mark.parametrize("case", RECALL, ids=[c.name for c in RECALL])
def test_each_reproduction_is_found_and_nothing_else_is_said(case: Case, folder: Path) -> None:
    r = _ran(case, folder)
    assert sorted(r.missed) == []
    assert [(d.id, d.function) for d in r.false_alarms] == []
    _recompiled_as_jax_logged(r)


def test_what_jitlab_could_not_check_or_left_out_is_said(folder: Path) -> None:
    by_file = {c.file: c for c in (*CLEAN, *RECALL)}
    before = _ran(by_file["recall/jitted_before_watch.py"], folder)
    assert before.recording.notice_counts.get("jitted_before") == 2
    assert "step (" in before.recording.notice_details["jitted_before"]
    assert "were jitted before the watch began" in before.stderr
    (d,) = [d for d in before.problems if d.id == "identity-static"]
    assert d.figures["argument"] == "cfg"  # as written, not JAX's input path ([0][1])
    nnx = _ran(by_file["clean/nnx_loop.py"], folder)  # JAX's own functions: counted, said
    left = nnx.recording.notice_counts["internal_left_out"]
    listed = sum(1 for c in nnx.recording.calls if c.record.kind.compiled)
    assert left > 0 and listed + left == sum(nnx.jax.values())  # every compile JAX logged
    assert "--include-internal" in nnx.stderr


def test_the_suite_files_exist() -> None:
    here = Path(__file__).parent / "programs"
    for case in (*CLEAN, *RECALL):
        assert (here / case.file).is_file(), case.file
    assert len(CLEAN) >= 15 and len(RECALL) >= 9
