"""The full diff of a pytree structure change, one flag away (issue 41 item 8).

A reason names the sub-tree that changed and counts its leaves, shortened; the record keeps
both sub-trees whole. ``jitlab watch -v`` prints them whole in its end table. The case: an
optax-like optimizer state inside a Flax-like ``TrainState`` (flax/training/train_state.py
holds ``step``, ``params`` and ``opt_state``) going from a chain of stateless transforms to
one with Adam's moments (optax's ``ScaleByAdamState``), as tests/real/test_truth_round3.py
has it with Flax and Optax themselves.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.slow

JITLAB = [sys.executable, "-m", "jitlab.cli"]

PROGRAM = textwrap.dedent(
    """
    import typing
    import jax
    import jax.numpy as jnp


    class EmptyState(typing.NamedTuple):  # optax's clip and scale keep no state
        pass


    class ScaleByAdamState(typing.NamedTuple):  # optax's Adam moments
        count: jax.Array
        mu: dict
        nu: dict


    class TrainState(typing.NamedTuple):  # what flax's TrainState carries as leaves
        step: jax.Array
        params: dict
        opt_state: tuple


    @jax.jit
    def loss(state, x):
        return (state.params["w"] * x).sum() + state.params["b"].sum()


    params = {"w": jnp.ones((2, 2)), "b": jnp.zeros(2)}
    zeros = jax.tree.map(jnp.zeros_like, params)
    sgd = TrainState(jnp.int32(0), params, (EmptyState(), EmptyState()))
    moments = ScaleByAdamState(jnp.int32(0), zeros, zeros)
    adam = TrainState(jnp.int32(0), params, (EmptyState(), moments))
    print(loss(sgd, 1.0), loss(adam, 1.0))
    """
)

# The leaves Adam added, as the full diff writes them (whitespace left out: a table folds).
LEAVES = (".count:i32[]", ".mu['b']:f32[2]", ".mu['w']:f32[2,2]", ".nu['b']:f32[2]")
LAST = ".nu['w']:f32[2,2]"


def _watch(tmp_path, *options: str) -> str:
    done = subprocess.run(
        [
            *JITLAB,
            *options[:2],
            "watch",
            *options[2:],
            "--out",
            "rec.jsonl",
            "--",
            "python",
            "prog.py",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        env={k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")},
    )
    assert done.returncode == 0, done.stderr
    # The table's last column ("what differed"), its folded lines joined, whitespace out.
    cells = [line.split("│")[-2] for line in done.stderr.splitlines() if line.startswith("│")]
    return "".join("".join(cells).split())


def test_watch_verbose_prints_the_pytree_diff_whole(tmp_path):
    (tmp_path / "prog.py").write_text(PROGRAM)
    short = _watch(tmp_path, "--lang", "en")
    assert "pytreestructurechangedatstate.opt_state[1]:5leavesadded" in short
    assert "…" in short and LAST not in short  # shortened
    recorded = [json.loads(line) for line in (tmp_path / "rec.jsonl").read_text().splitlines()]
    (change,) = [
        item
        for line in recorded
        if line["type"] == "call" and line["kind"] == "recompile"
        for item in line["reason"]["items"]
    ]
    assert change["kind"] == "tree_structure"
    assert LAST in "".join(change["after"].split())  # the record keeps it whole

    for flag in ("-v", "--verbose"):
        full = _watch(tmp_path, "--lang", "en", flag)
        assert "pytreestructurechangedatstate.opt_state[1]:5leavesadded" in full
        for leaf in (*LEAVES, LAST):
            assert leaf in full
        assert "…" not in full


def test_watch_verbose_in_chinese(tmp_path):
    (tmp_path / "prog.py").write_text(PROGRAM)
    full = _watch(tmp_path, "--lang", "zh", "-v")
    assert "pytree结构变了（位置state.opt_state[1]）：增加5个叶子" in full
    assert LAST in full
    assert "…" not in full


# -- jitlab run -v: the run table's "why" column ---------------------------------------------
def _optimizer_scenario():
    from jitlab.lab.scenario import Lesson, Param, Pitfall, Scenario, Text, Variant

    t = Text("x", "x")
    namespace: dict = {}
    exec(PROGRAM.split("@jax.jit")[0], namespace)  # the program's state classes

    class Optimizers(Scenario):
        """The train state's optimizer changes from stateless transforms to Adam."""

        id = "verbose-optimizers"
        pitfall = Pitfall.DYNAMIC_SHAPES
        title = Text("Optimizers", "优化器")
        question = t
        lesson = Lesson(t, t, t, t)
        params = (Param("opt", "sgd", Text("opt", "opt"), t, choices=("sgd", "adam")),)
        variants = (Variant("pitfall", t, t), Variant("fix", t, t))

        def setup(self, lab, variant):
            import jax
            import jax.numpy as jnp

            def loss(state, x):
                return (state.params["w"] * x).sum() + state.params["b"].sum()

            f = lab.probe(loss)
            params = {"w": jnp.ones((2, 2)), "b": jnp.zeros(2)}
            zeros = jax.tree.map(jnp.zeros_like, params)
            empty = namespace["EmptyState"]()
            moments = namespace["ScaleByAdamState"](jnp.int32(0), zeros, zeros)
            states = {
                "sgd": namespace["TrainState"](jnp.int32(0), params, (empty, empty)),
                "adam": namespace["TrainState"](jnp.int32(0), params, (empty, moments)),
            }
            return lambda values: f(states[values["opt"]], 1.0)

    return Optimizers


def _run_table(capsys, lang: str, full: bool) -> str:
    from jitlab.cli.run import _print_table
    from jitlab.lab.engine import Run

    run = Run(_optimizer_scenario())
    _print_table(run, [{"opt": "sgd"}, {"opt": "adam"}], lang, full=full)
    (record,) = [r for r in run.records if r.kind.value == "recompile"]
    assert LAST in "".join(record.reason.items[0].after.split())  # kept whole
    cells = [line.split("│")[-2] for line in capsys.readouterr().out.splitlines() if "│" in line]
    return "".join("".join(cells).split())


def test_run_verbose_prints_the_pytree_diff_whole(capsys):
    short = _run_table(capsys, "en", full=False)
    assert "pytreestructurechangedatstate.opt_state[1]:5leavesadded" in short
    assert "…" in short and LAST not in short
    full = _run_table(capsys, "en", full=True)
    for leaf in (*LEAVES, LAST):
        assert leaf in full
    assert "…" not in full
    zh = _run_table(capsys, "zh", full=True)
    assert "增加5个叶子" in zh and LAST in zh and "…" not in zh


def test_run_and_watch_take_the_flag():
    from jitlab.cli import build_parser

    parser = build_parser()
    assert parser.parse_args(["run", "static-args", "-v"]).verbose
    assert parser.parse_args(["watch", "--verbose", "--", "python", "x.py"]).verbose
    assert not parser.parse_args(["run", "static-args"]).verbose
