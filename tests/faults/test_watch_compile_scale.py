"""The compile path stays linear in the number of functions a program jits (issue 40: 10,000
distinct jitted functions took 91 s watched against 4.6 s plain, growing quadratically).
Counts of the work done, never wall-clock bounds; the times are in
benchmarks/compile_scale.py."""

from __future__ import annotations

import gc
import tracemalloc
import weakref
from pathlib import Path

import jax
import jax.numpy as jnp

import jitlab
from jitlab.probe import sharing
from jitlab.probe.probe import Probe


class _CountingDict(dict):
    """The sharing table, counting its full scans."""

    scans = 0

    def items(self):
        type(self).scans += 1
        return super().items()


def _distinct(i: int):
    def f(x):
        return x + i

    f.__name__ = f"f{i}"
    return f


def test_joining_the_sharing_table_does_not_scan_it_per_probe(monkeypatch):
    table = _CountingDict()
    monkeypatch.setattr(sharing, "_sharing", table)
    n = 1_500
    probes = [Probe(jax.jit(_distinct(i)), keep_records=False) for i in range(n)]
    assert len(table) >= n  # every probe alive: nothing to sweep
    # Swept when the table doubled, not at every join past 256 (that was n - 256 scans).
    assert _CountingDict.scans <= 4, _CountingDict.scans
    del probes


def test_a_watched_program_keeps_no_jitted_object_and_a_few_kb_per_function():
    """A program that jits thousands of functions, calls each once and drops it: under a
    watch, as under plain python, each jitted object dies with the program's last reference
    (the executables then live only in JAX's own caches, bounded by JAX). What jitlab keeps
    of each function is its records (site, card, counts, the compile's line): a few KB,
    measured by tracemalloc on allocations made in jitlab's own code."""
    own = str(Path(jitlab.__file__).parent / "*")
    n = 120
    funcs = [_distinct(i) for i in range(n + 1)]
    with jitlab.watch() as recorder:
        jax.jit(funcs[0])(1.0)  # the first compile's one-off allocations stay out
        gc.collect()
        tracemalloc.start(1)
        try:
            before = tracemalloc.take_snapshot()
            jitted = []
            for f in funcs[1:]:
                fn = jax.jit(f)
                fn(1.0)
                jitted.append((weakref.ref(fn), weakref.ref(fn._jitted)))
                del fn
            gc.collect()
            after = tracemalloc.take_snapshot()
        finally:
            tracemalloc.stop()
    assert len(recorder.compiles) == n + 1  # every function compiled, and filed
    alive = [k for k, (ours, jaxs) in enumerate(jitted) if ours() is not None or jaxs() is not None]
    assert not alive, f"{len(alive)} of {n} dropped jitted functions still alive"
    only_ours = [tracemalloc.Filter(True, own)]
    grown = after.filter_traces(only_ours).compare_to(before.filter_traces(only_ours), "lineno")
    kept = sum(s.size_diff for s in grown)
    print(f"jitlab keeps {kept / n:.0f} bytes per function")
    # A few KB: its records (site, ledger, card, signature, the compile's line with its
    # executable figures and call stack); 6.2 KB measured in CI, 10 KB leaves room.
    assert kept / n < 10 * 1024


def test_live_executables_are_listed_only_where_a_function_compiles_again(monkeypatch):
    """Listing the client's live executables costs a step per executable in the process
    (the quadratic the executables-growing diagnosis had added to issue 40's curve): a
    function's first compile lists nothing, a recompile lists once, and the freed entries
    of other functions are swept only when the entries have doubled since the last sweep.
    The answers stay exact: the function that recompiles sees its own live executables."""
    from jitlab.probe import _jax_programs
    from jitlab.probe.executables import LIVE

    counts = {"listings": 0, "checks": 0}
    listing, checking = _jax_programs.live_executables, _jax_programs.is_alive

    def counted_listing(executable):
        counts["listings"] += 1
        return listing(executable)

    def counted_check(ident, live):
        counts["checks"] += 1
        return checking(ident, live)

    entries = LIVE._entries  # the process's one table: earlier tests' functions are in it
    monkeypatch.setattr(_jax_programs, "live_executables", counted_listing)
    monkeypatch.setattr(_jax_programs, "is_alive", counted_check)
    n = 200
    namespace: dict = {}  # each its own def, as in a code base (closures of one def share code)
    exec("".join(f"def f{i}(x):\n    return x + {i}\n" for i in range(n)), namespace)
    funcs = [namespace[f"f{i}"] for i in range(n)]
    with jitlab.watch() as recorder:
        kept = [jax.jit(f) for f in funcs]
        for fn in kept:
            fn(1.0)
        first = dict(counts)
        again = kept[0]
        for size in range(1, 6):  # one function recompiled: its own executables looked up
            again(jax.numpy.ones(size))
    assert len(recorder.compiles) == n + 5
    assert first["listings"] <= 1 and first["checks"] == 0, first  # at most the one probe
    assert counts["listings"] - first["listings"] == 5
    # One full sweep of every entry (these 200, and any an earlier test of this process
    # left) at the first listing, then only its own (≤ 6 each).
    assert counts["checks"] - first["checks"] <= entries + n + 5 * 6, (counts, entries)
    held = [c.record.executables for c in recorder.compiles[-5:]]
    live = [h.live if h else None for h in held]
    assert live == [2, 3, 4, 5, 6], live  # every executable of `again` is held by its jit
    assert LIVE._entries >= n


def test_a_first_compile_is_explained_without_listing_every_functions_keys(explainer_handed):
    """From 0.10 JAX answers a miss it explains (a watch turns explanations on) by listing
    every key of every function first: O(keys) per compile, quadratic over a program of
    thousands of functions, and thousands of tuples a compile for Python's collector. A
    function no miss named before can only be "never seen": jitlab's gate has JAX's own
    explainer say so, handed no keys. A function compiled again is explained as JAX does,
    from the whole list (jitlab hands JAX that function's own keys)."""
    n = 150
    namespace: dict = {}
    exec("".join(f"def f{i}(x):\n    return x + {i}\n" for i in range(n)), namespace)
    funcs = [namespace[f"f{i}"] for i in range(n)]
    with jitlab.watch() as recorder:
        for fn in funcs:
            jax.jit(fn)(1.0)
        jax.jit(funcs[0])(jnp.ones(3))  # compiled again
    handed = explainer_handed
    assert len(recorder.compiles) == n + 1
    assert handed[:n] == [(f"f{i}", 0) for i in range(n)], handed[:5]
    (name, listed), *rest = handed[n:]
    assert name == "f0" and listed > n and not rest  # every key JAX holds, as JAX does
    # JAX's own words, its bookkeeping of call sites kept: every call is from one place (here
    # the counting wrapper's line, the first frame outside JAX and jitlab, which an earlier
    # test may have met already; tests/probe/test_jax_contract.py compares the words whole).
    words = [c.record.reason.jax_explanation or "" for c in recorder.compiles[:n]]
    assert all(f"never seen function:\n    f{i} id=" in w for i, w in enumerate(words))
    assert all("re-defined repeatedly" in w for w in words[1:])
