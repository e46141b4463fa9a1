"""The chef's scripts: each card opens the program JAX compiled (real JAX, never mocked)."""

from __future__ import annotations

import dataclasses
import gc
import inspect
import json
import os
import subprocess
import sys
import textwrap
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jitlab
from jitlab.lab.discovery import scenarios
from jitlab.lab.engine import Run
from jitlab.probe import _jax, monitor, scripts
from jitlab.probe.probe import Probe
from jitlab.records.calls import CallKind

pytestmark = pytest.mark.slow


@pytest.fixture(autouse=True)
def _cold() -> None:
    """Each test starts cold: probes of one function share JAX's cache across tests."""
    jax.clear_caches()


def _snapshot(probe: Probe) -> tuple[Any, ...]:
    return (
        list(probe.records),
        list(probe.notable),
        probe.summary(),
        dict(probe.ledger.counts),
        [(c.index, c.hits, c.created_by, c.compile_ms) for c in probe.ledger.cards],
        probe.calls,
        probe._jax_entries(),
        probe.ledger.trace_ms + probe.ledger.lower_ms + probe.ledger.compile_ms,
    )


def mlp(x, w):
    h = jnp.tanh(x @ w)
    return jnp.sin(h).sum()


MLP_LINES = {
    "tanh": inspect.getsourcelines(mlp)[1] + 1,
    "sin": inspect.getsourcelines(mlp)[1] + 2,
}


# -- what a script holds -----------------------------------------------------------------------
def test_a_script_holds_source_jaxpr_stablehlo_hlo_and_figures() -> None:
    probe = Probe(mlp)
    probe(np.ones((13, 8), np.float32), np.ones((8, 8), np.float32))
    script = probe.script(0)
    assert script.complete, script.unavailable
    assert script.source is not None and script.source.startswith("def mlp(x, w):")
    assert script.source_file == __file__ and script.source_line == MLP_LINES["tanh"] - 1
    assert "f32[13,8]" in script.jaxpr and "tanh" in script.jaxpr
    assert script.stablehlo.startswith("module @jit_mlp")
    assert "stablehlo.tanh" in script.stablehlo
    assert script.hlo.startswith("HloModule jit_mlp")
    figures = script.figures
    assert figures.equations == figures.top_level_equations == len(script.jaxpr_lines) >= 4
    assert figures.hlo_instructions and figures.hlo_instructions > 0
    assert figures.flops and figures.flops >= 2 * 13 * 8 * 8
    assert figures.argument_bytes == (13 * 8 + 8 * 8) * 4
    assert figures.output_bytes == 4
    record = probe.records[0]
    assert (figures.trace_ms, figures.lower_ms, figures.compile_ms) == (
        record.trace_ms,
        record.lower_ms,
        record.compile_ms,
    )
    assert script.figures.trace_ms > 0
    # Every part reads as text, and as JSON that survives a round trip.
    for part in scripts.PARTS:
        assert not script.text(part).startswith("unavailable")
    assert json.loads(json.dumps(script.to_json()))["figures"]["equations"] == figures.equations


def test_each_equation_names_the_users_line() -> None:
    probe = Probe(mlp)
    probe(np.ones((4, 8), np.float32), np.ones((8, 8), np.float32))
    script = probe.script(0)
    by_primitive = {line.primitive: line for line in script.jaxpr_lines}
    for primitive, line in MLP_LINES.items():
        eqn = by_primitive[primitive]
        assert (eqn.file, eqn.line, eqn.function) == (__file__, line, "mlp"), eqn
    assert f"{os.path.basename(__file__)}:{MLP_LINES['sin']}" in script.jaxpr_annotated
    # Never jitlab's own frames: the probe's code is excluded from attribution.
    package = os.path.dirname(jitlab.__file__)  # not "jitlab" in the path: a checkout's name
    assert all(not (line.file or "").startswith(package) for line in script.jaxpr_lines)


def test_the_script_is_the_program_the_call_compiled() -> None:
    """Abstract arguments lower exactly as the real ones did: committed or not, weak types,
    numpy arrays, statics passed by position and by keyword."""

    def f(x, scale, y, n, *, mode):
        for _ in range(n):
            x = x * scale + y
        return x if mode == "plain" else jnp.tanh(x)

    jitted = jax.jit(f, static_argnums=(3,), static_argnames=("mode",))
    probe = Probe(jitted)
    calls = [
        ((jnp.ones(4), 2.0, np.ones(4, np.float32), 2), {"mode": "plain"}),
        ((jax.device_put(jnp.ones(4), jax.devices()[0]), 2.0, jnp.ones(4), 3), {"mode": "tanh"}),
        ((jnp.ones(4), jnp.float32(2.0), jnp.ones(4), 2), {"mode": "plain"}),
    ]
    for args, kwargs in calls:
        probe(*args, **kwargs)
    assert len(probe.ledger.cards) == 3
    for card, (args, kwargs) in zip(probe.ledger.cards, calls, strict=True):
        script = probe.script(card.index)
        assert script.complete, script.unavailable
        traced = jitted.trace(*args, **kwargs)
        assert script.jaxpr == str(traced.jaxpr)
        assert script.stablehlo == traced.lower().as_text()
    # The weak Python float and the strong float32 are two programs, as JAX compiled them.
    first, third = probe.script(0), probe.script(2)
    assert first.jaxpr != third.jaxpr


# -- asking changes nothing --------------------------------------------------------------------
def test_asking_for_a_script_changes_nothing_the_probe_records() -> None:
    probe = Probe(mlp)
    x13, x16, w = np.ones((13, 8), np.float32), np.ones((16, 8), np.float32), np.ones((8, 8))
    w = w.astype(np.float32)
    for x in (x13, x13, x16, x16):
        probe(x, w)
    before = _snapshot(probe)

    with jitlab.budget(0) as budget:
        made = [probe.script(0), probe.script(1)]
    assert budget.compiles == []
    assert all(s.complete and not s.notes for s in made)
    assert _snapshot(probe) == before
    # Cached per card: the same object, nothing made again.
    assert probe.script(0) is made[0]
    # The next calls are still plain hits on the probe's fast path.
    probe(x16, w)
    probe(x13, w)
    assert [r.kind for r in probe.records[-2:]] == [CallKind.CACHE_HIT] * 2
    assert [r.card for r in probe.records[-2:]] == [1, 0]


def test_no_script_once_jax_dropped_the_program_and_the_next_call_still_recompiles() -> None:
    def noisy(x):
        print("tracing noisy")
        return x + 1

    probe = Probe(noisy)
    probe(jnp.ones(3))
    held = probe.script(0)  # made while JAX held it: kept with the card
    jax.clear_caches()
    assert probe.script(0) is held
    probe.card(0).script_cache = None  # as if never asked before the clear
    before = _snapshot(probe)
    script = probe.script(0)
    assert not script.complete and script.jaxpr is None
    assert "JAX no longer holds this program" in script.unavailable["jaxpr"]
    assert script.stdout == ()  # the user's Python did not run again
    assert _snapshot(probe) == before
    probe(jnp.ones(3))
    record = probe.last
    assert record.kind is CallKind.RECOMPILE
    assert record.trace_ms > 0 and record.lower_ms > 0 and record.compile_ms > 0
    assert [line.text for line in record.stdout] == ["tracing noisy"]
    # The card was rewritten by that compile: its script is made afresh, and complete.
    assert probe.script(0).complete


def test_jax_events_while_a_script_is_made_reach_no_probe_and_no_watcher() -> None:
    """What the script's own trace, lowering and compile fire is filed nowhere."""
    heard: list[str] = []
    fired: list[str] = []

    class Watcher:  # what jitlab.watch and jitlab.budget hear: threads with no probed call
        def duration(self, event: str, ms: float, fun_name: str | None) -> None:
            heard.append(event)

        def event(self, event: str) -> None:
            heard.append(event)

        def explanation(self, text: str) -> None:
            heard.append(text)

        def listeners_lost(self) -> None:
            heard.append("listeners lost")

    def listener(event: str, duration: float, **kwargs: Any) -> None:
        fired.append(event)

    def fresh(x):
        print("traced")
        return x * 3

    jax.monitoring.register_event_duration_secs_listener(listener)
    monitor.add_watcher(Watcher())
    watcher = monitor._watchers[-1]
    try:
        with jitlab.budget(0) as budget, scripts._unfiled("fresh") as collector:
            jax.jit(fresh).trace(jax.ShapeDtypeStruct((3,), jnp.float32)).lower().compile()
        assert budget.compiles == []
    finally:
        monitor.remove_watcher(watcher)
        _jax.unregister_duration_listener(listener)
    assert {_jax.TRACE_EVENT, _jax.LOWER_EVENT, _jax.COMPILE_EVENT} <= set(fired)
    assert heard == []
    assert collector.traced and collector.output_lines() == [("trace", "traced")]
    assert monitor.current() is None


def test_a_card_adopted_from_another_process_says_why_it_has_no_script() -> None:
    donor = Probe(mlp)
    donor(np.ones((2, 8), np.float32), np.ones((8, 8), np.float32))
    probe = Probe(mlp)
    probe.adopt(donor.records[0])
    script = probe.script(0)
    assert not script.complete and script.source is not None
    assert script.jaxpr is None and script.figures is None
    assert "abstract signature" in script.unavailable["jaxpr"]
    assert script.text("hlo").startswith("unavailable: ")
    with pytest.raises(KeyError, match="no card 7"):
        probe.script(7)


# -- comparing two cards -----------------------------------------------------------------------
def test_an_unrolled_loop_has_many_equations_and_scan_few() -> None:
    control_flow = scenarios()["control-flow"]
    made = {}
    for variant in ("unrolled-loop", "scan"):
        run = Run(control_flow, variant)
        record = run.step({"steps": 12})
        assert record.kind is CallKind.COMPILE
        made[variant] = run.last_probe.script(record.card)
    unrolled, scan = made["unrolled-loop"], made["scan"]
    assert unrolled.figures.equations == unrolled.figures.top_level_equations == 3 * 12
    assert scan.figures.top_level_equations == 1
    assert scan.figures.equations == 1 + 3  # the scan, and its body of three once
    assert [line.depth for line in scan.jaxpr_lines] == [0, 1, 1, 1]
    assert scan.jaxpr_lines[0].primitive == "scan"
    diff = scripts.compare(unrolled, scan)
    assert not diff.same_jaxpr and diff.jaxpr_diff.startswith("--- rnn_unrolled card 0")
    changed = {c.name: c for c in diff.changed_figures}
    assert changed["equations"].delta == 4 - 36
    assert changed["hlo_instructions"].after < changed["hlo_instructions"].before


def test_batch_13_against_padded_16() -> None:
    probe = Probe(mlp)
    w = np.ones((8, 8), np.float32)
    probe(np.ones((13, 8), np.float32), w)
    probe(np.ones((16, 8), np.float32), w)
    diff = scripts.compare(probe.script(0), probe.script(1))
    assert "-{ lambda ; a:f32[13,8]" in diff.jaxpr_diff
    assert "+{ lambda ; a:f32[16,8]" in diff.jaxpr_diff
    figures = {c.name: c for c in diff.figures}
    assert figures["argument_bytes"].delta == 3 * 8 * 4
    assert figures["equations"].delta == 0
    assert figures["flops"].after > figures["flops"].before
    assert json.loads(json.dumps(diff.to_json()))["same_jaxpr"] is False


SHARDING_CHILD = textwrap.dedent(
    """
    import json
    import jax, jax.numpy as jnp, numpy as np
    from jax.sharding import NamedSharding, PartitionSpec as P, AxisType
    from jitlab.probe.probe import Probe
    from jitlab.probe import scripts

    mesh = jax.make_mesh((8,), ("data",), axis_types=(AxisType.Auto,))
    def predict(x):
        return jnp.tanh(x * 2.0).sum(axis=1)
    probe = Probe(predict)
    x = np.arange(16 * 8, dtype=np.float32).reshape(16, 8)
    probe(jax.device_put(x, NamedSharding(mesh, P("data", None))))
    probe(jax.device_put(x, NamedSharding(mesh, P(None, "data"))))
    diff = scripts.compare(probe.script(0), probe.script(1))
    print(json.dumps({
        "kinds": [r.kind.value for r in probe.records],
        "devices": jax.device_count(),
        "same_jaxpr": diff.same_jaxpr,
        "same_hlo": diff.same_hlo,
        "hlo_diff_lines": len(diff.hlo_diff.splitlines()),
        "unavailable": [probe.script(i).unavailable for i in (0, 1)],
    }))
    """
)


def test_a_sharding_change_leaves_the_jaxpr_and_changes_the_hlo() -> None:
    env = dict(
        os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=8", JAX_PLATFORMS="cpu"
    )
    done = subprocess.run(
        [sys.executable, "-c", SHARDING_CHILD],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["devices"] == 8
    assert found["kinds"] == ["compile", "recompile"]
    # Only the source may be missing: ``python -c`` has no file to read it from (Python 3.13
    # keeps the text of ``-c`` code for inspect, so there nothing is missing at all).
    source = set() if sys.version_info >= (3, 13) else {"source"}
    assert [set(missing) for missing in found["unavailable"]] == [source, source]
    assert found["same_jaxpr"] is True
    assert found["same_hlo"] is False and found["hlo_diff_lines"] > 0


# -- the wrappers jitlab probes ----------------------------------------------------------------
def test_flax_nnx_jit_and_equinox_filter_jit_have_scripts() -> None:
    eqx = pytest.importorskip("equinox")
    nnx = pytest.importorskip("flax.nnx")

    class Model(nnx.Module):
        def __init__(self, rngs: Any) -> None:
            self.linear = nnx.Linear(3, 4, rngs=rngs)

        def __call__(self, x: Any) -> Any:
            return self.linear(x)

    @nnx.jit
    def forward(model, x):
        return model(x)

    model = Model(nnx.Rngs(0))
    nnx_probe = Probe(forward)
    nnx_probe(model, jnp.ones((2, 3)))
    before = _snapshot(nnx_probe)
    script = nnx_probe.script(0)
    assert script.complete, script.unavailable
    assert "f32[2,3]" in script.jaxpr and "dot_general" in script.jaxpr
    assert script.figures.argument_bytes == (4 + 3 * 4 + 2 * 3) * 4
    assert _snapshot(nnx_probe) == before

    @eqx.filter_jit
    def scaled(x, scale, activation):
        return activation(x) * scale

    eqx_probe = Probe(scaled)
    eqx_probe(jnp.ones((2, 5)), 3.0, jnp.tanh)
    before = _snapshot(eqx_probe)
    script = eqx_probe.script(0)
    assert script.complete, script.unavailable
    assert "tanh" in script.jaxpr and "3.0" in script.jaxpr  # the static scale, baked in
    assert any("zero-filled stand-ins" in note for note in script.notes)
    assert _snapshot(eqx_probe) == before
    eqx_probe(jnp.ones((2, 5)), 3.0, jnp.tanh)
    assert eqx_probe.last.kind is CallKind.CACHE_HIT


def test_pmap_says_why_it_has_no_script() -> None:
    if _jax.VERSION < (0, 8):  # a C++ PmapFunction there: refused, not probed
        with pytest.raises(TypeError, match=r"jax\.pmap"):
            Probe(jax.pmap(lambda x: x * 2))
        return
    probe = Probe(jax.pmap(lambda x: x * 2))
    probe(jnp.ones((jax.local_device_count(), 3)))
    script = probe.script(0)
    assert not script.complete
    assert "jax.pmap" in script.unavailable["jaxpr"]
    assert script.text("figures") == f"unavailable: {script.unavailable['figures']}"


# -- the private JAX behaviour scripts rely on (see jitlab/probe/_jax.py) -------------------------
def test_contract_user_source_names_the_users_frame_of_an_equation() -> None:
    closed = jax.make_jaxpr(mlp)(jnp.ones((2, 8)), jnp.ones((8, 8)))
    found = {str(e.primitive): _jax.user_source(e.source_info) for e in closed.eqns}
    assert found["sin"] == (__file__, MLP_LINES["sin"], "mlp")


def test_a_script_without_stablehlo_is_made_in_full_when_stablehlo_is_asked() -> None:
    probe = Probe(mlp)
    probe(jnp.ones((4, 3)), jnp.ones((3, 2)))
    lean = probe.script(0, stablehlo=False)
    assert lean.stablehlo is None and lean.stablehlo_deferred
    assert lean.unavailable == {"stablehlo": scripts.STABLEHLO_ON_REQUEST}
    assert lean.jaxpr and lean.hlo and lean.figures.stablehlo_ops is None
    assert probe.script(0, stablehlo=False) is lean  # kept with the card
    full = probe.script(0)
    assert full.stablehlo and "stablehlo." in full.stablehlo and not full.unavailable
    assert full.figures.stablehlo_ops and full.jaxpr == lean.jaxpr and full.hlo == lean.hlo
    assert probe.script(0, stablehlo=False) is full  # a full one serves both
    assert probe.script(0) is full


# -- a script window's script: what holds the GIL longest is printed when asked for ------------
def looped(x):
    def body(i, c):
        return jnp.sin(c) * 2 + i

    return jax.lax.fori_loop(0, 3, body, jnp.tanh(x)).sum()


@pytest.mark.parametrize("fun", [mlp, looped])
def test_a_window_script_prints_its_long_texts_when_asked_and_changes_nothing(
    fun: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(scripts, "HLO_AT_ONCE", 0)  # every HLO is "big": printed when asked
    probe = Probe(fun)
    args = (jnp.ones((4, 8)), jnp.ones((8, 8))) if fun is mlp else (jnp.ones(8),)
    probe(*args)
    card = probe.card(0)
    before = _snapshot(probe)
    view = scripts.make_script(probe, card, view=True)
    assert view.deferred == ("jaxpr", "stablehlo", "hlo")
    assert (view.jaxpr, view.stablehlo, view.hlo) == (None, None, None)
    assert set(view.unavailable) == {"jaxpr", "stablehlo", "hlo"}
    assert card.script_cache is None  # a window keeps it, not the card
    full = scripts.make_script(probe, card)
    assert full.complete and full.deferred == ()
    # What a window shows at once is the full script's: the annotated jaxpr, the figures
    # (the HLO's instructions counted without printing it), the notes (a loop's).
    assert view.jaxpr_annotated == full.jaxpr_annotated and view.jaxpr_lines == full.jaxpr_lines
    assert view.figures.hlo_instructions == full.figures.hlo_instructions > 0
    assert dataclasses.replace(view.figures, stablehlo_ops=None) == dataclasses.replace(
        full.figures, stablehlo_ops=None
    )
    assert view.notes == full.notes
    assert (scripts.LOOP_NOTE in view.notes) == (fun is looped)
    # Each text printed on its own is the full script's, with its figure.
    printed = view
    for part in ("hlo", "stablehlo", "jaxpr"):
        printed = scripts.print_part(probe, card, printed, part)
        assert part not in printed.deferred and getattr(printed, part) == getattr(full, part)
    assert printed.complete and printed.figures == full.figures
    assert scripts.print_part(probe, card, printed, "hlo") is printed  # nothing left to print
    assert _snapshot(probe) == before


def test_a_small_programs_hlo_is_in_a_window_script_at_once() -> None:
    probe = Probe(mlp)
    probe(jnp.ones((4, 8)), jnp.ones((8, 8)))
    view = scripts.make_script(probe, probe.card(0), view=True)
    assert view.figures.hlo_instructions <= scripts.HLO_AT_ONCE
    assert view.deferred == ("jaxpr", "stablehlo") and view.hlo == probe.script(0).hlo


def test_a_big_programs_hlo_waits_for_its_tab_and_its_count_is_the_texts() -> None:
    def unrolled(x):
        for i in range(400):
            x = jnp.sin(x * (i + 1)) + jnp.cos(x)
        return x.sum()

    probe = Probe(unrolled)
    probe(jnp.ones(16))
    view = scripts.make_script(probe, probe.card(0), view=True)
    assert "hlo" in view.deferred
    assert view.figures.hlo_instructions == probe.script(0).figures.hlo_instructions
    assert view.figures.hlo_instructions > scripts.HLO_AT_ONCE


def test_a_part_that_cannot_be_printed_says_why() -> None:
    probe = Probe(mlp)
    probe(jnp.ones((4, 8)), jnp.ones((8, 8)))
    card = probe.card(0)
    view = scripts.make_script(probe, card, view=True)
    jax.clear_caches()  # JAX dropped the program: printing it would compile it back
    printed = scripts.print_part(probe, card, view, "stablehlo")
    assert printed.stablehlo is None and "stablehlo" not in printed.deferred
    assert "JAX no longer holds this program" in printed.unavailable["stablehlo"]
    assert printed.jaxpr_annotated == view.jaxpr_annotated


def test_no_garbage_collection_runs_while_a_script_is_made(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Printing a big program makes many short-lived objects: collections on the way would
    hold the GIL for tens of ms (freezing the GUI thread); refcounting frees them."""
    probe = Probe(mlp)
    probe(jnp.ones((4, 8)), jnp.ones((8, 8)))
    collecting: list[bool] = []
    trace = scripts._trace

    def watched(*args: Any) -> Any:
        collecting.append(gc.isenabled())
        return trace(*args)

    monkeypatch.setattr(scripts, "_trace", watched)
    script = probe.script(0)
    assert script.complete
    scripts.print_part(
        probe, probe.card(0), scripts.make_script(probe, probe.card(0), view=True), "stablehlo"
    )
    assert collecting == [False, False, False] and gc.isenabled()
    gc.disable()  # paused by someone else: left paused
    try:
        scripts.make_script(probe, probe.card(0))
        assert not gc.isenabled()
    finally:
        gc.enable()
