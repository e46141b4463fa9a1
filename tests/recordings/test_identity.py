"""One way to name a function across recordings: the processes of a job pair by name, file
name and line; two runs pair by place, then file, then a name only one function has."""

from __future__ import annotations

from dataclasses import dataclass

from jitlab.recordings.identity import file_of, job_key, pair


@dataclass(frozen=True)
class Row:
    function: str
    defined_at: str | None


def test_the_processes_of_a_job_pair_wherever_their_checkout_is() -> None:
    assert job_key("step", "/a/job/train.py:12") == job_key("step", "/b/train.py:12")
    assert job_key("step", "/a/train.py:12") == ("step", "train.py:12")
    assert job_key("step", "/a/train.py:12") != job_key("step", "/a/train.py:13")
    assert job_key("add", None) == ("add", None)  # JAX's own kernels: one per primitive


def test_the_file_of_a_place() -> None:
    assert file_of("/a/b/train.py:12") == "/a/b/train.py"
    assert file_of("C:/x/train.py:3") == "C:/x/train.py"
    assert file_of("<stdin>") == "<stdin>" and file_of(None) is None


def test_two_runs_pair_by_place_then_file_then_a_unique_name() -> None:
    base = [
        Row("step", "/w/train.py:10"),
        Row("loss", "/w/train.py:20"),  # moved to line 25 by an edit
        Row("init", "/w/old.py:1"),  # moved to another file, the only init
        Row("f", "/w/a.py:1"),
        Row("f", "/w/b.py:1"),  # two f: no guess for the third
        Row("gone", "/w/train.py:90"),
    ]
    new = [
        Row("step", "/w/train.py:10"),
        Row("loss", "/w/train.py:25"),
        Row("init", "/w/new.py:1"),
        Row("f", "/w/c.py:1"),
        Row("added", None),
    ]
    pairs = {(b.defined_at if b else None, n.defined_at if n else None) for b, n in pair(base, new)}
    assert pairs == {
        ("/w/train.py:10", "/w/train.py:10"),
        ("/w/train.py:20", "/w/train.py:25"),
        ("/w/old.py:1", "/w/new.py:1"),
        (None, "/w/c.py:1"),
        (None, None),
        ("/w/a.py:1", None),
        ("/w/b.py:1", None),
        ("/w/train.py:90", None),
    }
