"""The probe's steady path (``Probe.__call__``): a steady hit on the thread that holds it
reads one tuple before the dispatch and only writes its end time after the wait. Every
call that turns out to be something else, and every change to what the path read, must
still be filed as what JAX did: each test first makes the path held (two steady hits),
then changes one thing, and checks the next call against JAX's own cache and log."""

from __future__ import annotations

import logging
import threading

import jax
import jax.numpy as jnp
import pytest

from jitlab import CallKind, Probe


def _steady(**options: object) -> Probe:
    """A probe whose steady path is held: compiled, then two steady hits."""
    probe = Probe(jax.jit(lambda x: x * 2 + 1), **options)
    for _ in range(3):
        probe(jnp.ones(4))
    assert probe._steady is not None  # the path the tests below leave
    return probe


def _kinds(probe: Probe) -> list[CallKind]:
    return [record.kind for record in probe.records]


def test_steady_hits_on_the_steady_path_are_filed_as_hits_of_their_card():
    probe = _steady()
    for _ in range(5):
        assert float(probe(jnp.ones(4))[0]) == 3.0
    assert _kinds(probe) == [CallKind.COMPILE] + [CallKind.CACHE_HIT] * 7
    assert [record.index for record in probe.records] == list(range(8))
    assert probe.ledger.cards[0].hits == 7
    assert all(record.latency_ms > 0 for record in probe.records)


def test_a_new_signature_on_the_steady_path_is_a_recompile_jax_logged(caplog):
    probe = _steady()
    x = jnp.ones(5)
    with caplog.at_level(logging.WARNING, logger="jax"), jax.log_compiles(True):
        probe(x)
    logged = [r for r in caplog.records if "Compiling" in r.getMessage()]
    assert len(logged) == 1  # JAX compiled once
    assert probe.last.kind is CallKind.RECOMPILE
    assert probe.last.signature.leaves[0].shape == (5,)
    probe(x)
    assert probe.last.kind is CallKind.CACHE_HIT and probe.last.card == 1


def test_an_error_jax_raises_on_the_steady_path_is_the_calls_error():
    probe = _steady(keep_going=True)
    assert probe(jnp.ones(4), jnp.ones(4)) is None  # one argument too many
    assert probe.last.kind is CallKind.ERROR and probe.last.error.type == "TypeError"
    probe(jnp.ones(4))
    assert probe.last.kind is CallKind.CACHE_HIT


def test_a_call_after_swap_is_what_jax_did_for_the_new_function_object():
    probe = _steady()
    probe.swap(jax.jit(lambda x: x * 3))
    assert float(probe(jnp.ones(4))[0]) == 3.0  # the new function ran, not the held one
    assert probe.last.kind is CallKind.RECOMPILE


def test_a_call_after_jax_clear_caches_is_a_compile_not_a_hit():
    probe = _steady()
    jax.clear_caches()
    probe(jnp.ones(4))
    assert probe.last.kind.compiled
    probe(jnp.ones(4))
    assert probe.last.kind is CallKind.CACHE_HIT


def test_a_call_under_a_transformation_leaves_the_steady_path():
    """Under an eager grad JAX compiles the function's derivatives, no hit of the held card:
    filed as a probe that never held the path files it."""
    probe = _steady()
    fresh = Probe(jax.jit(lambda x: x * 2 + 1))
    fresh(jnp.ones(4))
    for p in (probe, fresh):
        grads = jax.grad(lambda x, p=p: p(x).sum())(jnp.ones(4))
        assert float(grads[0]) == 2.0
    assert _kinds(probe)[3:] == _kinds(fresh)[1:]
    assert CallKind.CACHE_HIT not in _kinds(fresh)[1:]
    assert probe.ledger.cards[0].hits == 2  # the two steady hits before, no more
    probe(jnp.ones(4))
    assert probe.last.kind is CallKind.CACHE_HIT


def test_a_call_under_disable_jit_runs_eagerly_and_its_print_is_the_calls(capsys):
    def talk(x):
        print("eager")
        return x + 1

    probe = Probe(jax.jit(talk))
    for _ in range(3):
        probe(jnp.ones(2))
    assert probe._steady is not None
    capsys.readouterr()
    with jax.disable_jit():
        probe(jnp.ones(2))
    assert probe.last.kind is CallKind.EAGER
    assert [line.text for line in probe.last.stdout] == ["eager"]


@pytest.mark.parametrize("switch", ["block", "record_hits", "capture_output", "on_record"])
def test_setting_any_switch_drops_the_steady_path(switch):
    probe = _steady()
    value = (lambda record: None) if switch == "on_record" else False
    setattr(probe, switch, value)
    assert probe._steady is None
    assert getattr(probe, switch) is value


def test_a_record_wanted_at_once_reaches_on_record_from_the_next_hit():
    probe = _steady()
    handed: list[int] = []
    probe.on_record = lambda record: handed.append(record.index)
    probe(jnp.ones(4))
    assert handed == [3]  # the very next call, before it returned
    probe(jnp.ones(4))
    probe(jnp.ones(4))
    assert handed == [3, 4, 5]  # on the steady path again


def test_hits_only_counted_after_record_hits_is_turned_off():
    probe = _steady()
    probe.record_hits = False
    for _ in range(4):
        probe(jnp.ones(4))
    assert probe._steady is not None  # held again: a hit only counted
    assert len(probe.records) == 3
    summary = probe.summary()
    assert summary.calls == 7 and summary.cache_hits == 6


def test_the_steady_path_is_one_threads_and_every_threads_hits_are_filed():
    probe = _steady()
    holder = probe._steady
    errors: list[BaseException] = []

    def hammer() -> None:
        try:
            for _ in range(50):
                probe(jnp.ones(4))
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=hammer) for _ in range(3)]
    for thread in threads:
        thread.start()
    for _ in range(50):
        probe(jnp.ones(4))
    for thread in threads:
        thread.join()
    assert not errors
    summary = probe.summary()
    assert summary.calls == 3 + 200 and summary.cache_hits == 2 + 200
    assert probe.ledger.cards[0].hits == 202
    if probe._steady is not None:
        assert probe._steady[0] in {holder[0], *(t.ident for t in threads)}
