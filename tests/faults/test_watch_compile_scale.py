"""The compile path stays linear in the number of functions a program jits (issue 40: 10,000
distinct jitted functions took 91 s watched against 4.6 s plain, growing quadratically).
Counts of the work done, never wall-clock bounds; the times are in
benchmarks/compile_scale.py."""

from __future__ import annotations

import jax

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
