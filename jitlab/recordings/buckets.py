"""The bucket search: which sizes to compile for, so that every call pads up to one of them
with the least padding in all (JAX-free; numpy).

One search for every face: the app's shape histogram (on the GUI thread: 500 sizes, 167
buckets in ~12 ms), ``jitlab report`` and the tests.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence
from typing import Any


def suggest_buckets(sizes: Sequence[int], max_compiles: int) -> list[int]:
    """Bucket sizes covering every observed size with the least total padding.

    Each observed size ``n`` is padded up to the smallest bucket ``≥ n``; with at most
    ``max_compiles`` buckets (chosen among the observed sizes; the largest is always one),
    the total padding over all calls is minimal. Of equal answers, the one whose buckets
    lie leftmost, bucket by bucket from the largest down.

    An exact dynamic programme: ``best[b][j]``, the least padding covering the sizes up to
    ``values[j]`` with ``b`` buckets, the last at ``values[j]``; its previous bucket the
    leftmost ``i < j`` that minimises ``best[b-1][i] + cost(i+1, j)``. Only the band of ``j``
    that can still lead to ``k`` buckets ending at the largest size is computed
    (``w = m - k + 1`` per layer), and for each ``j`` only the ``i`` from the previous layer's
    choice at ``j`` on (the padding cost is Monge, so with one more bucket the previous bucket
    moves no further left, and it moves right as ``j`` does): a layer is one array operation.
    Exact: float64 while every value is an integer below 2**53, Python's integers beyond.
    """
    if not sizes or max_compiles < 1:
        return []
    counts = Counter(sizes)
    values = sorted(counts)
    m = len(values)
    k = min(max_compiles, m)
    if k == m:  # a bucket at every size (more buckets always pad less)
        return values
    import numpy as np  # here: ``jitlab report`` and the other headless users start without it

    total = sum(counts.values())
    exact = 4 * total * max(abs(values[0]), abs(values[-1])) < 2**53
    dtype: Any = np.float64 if exact else object
    v = np.array(values, dtype=dtype)
    count = np.array([counts[x] for x in values], dtype=dtype)
    n = np.cumsum(count)  # n[j]: how many sizes are ≤ values[j]
    s = np.cumsum(count * v)  # s[j]: their sum
    # cost(i+1, j) = (n[j] - n[i]) * v[j] - (s[j] - s[i]): a part of i, a product, a part of j.
    # Band: layer b's column c is j = b - 1 + c, its row r is i = b - 2 + r (r ≤ c: i < j).
    own = n * v - s
    w = m - k + 1
    best = own[:w].copy()  # one bucket: everything up to values[j] padded to values[j]
    column = np.arange(w)
    first = np.zeros(w, dtype=np.intp)  # the first row worth trying for each column
    back = np.empty((k + 1, w), dtype=np.intp)
    for b in range(2, k + 1):
        rows = best + s[b - 2 : b - 2 + w]
        layer = np.empty(w, dtype=dtype)
        at = np.empty(w, dtype=np.intp)
        span = int((column - first).max()) + 1
        chunk = max(1, (1 << 20) // span)  # bounded memory however wide the rows
        for c0 in range(0, w, chunk):
            c = column[c0 : c0 + chunk]
            low = first[c0 : c0 + chunk]
            tried = low[:, None] + np.arange(int((c - low).max()) + 1)  # leftmost first
            beyond = tried > c[:, None]
            np.minimum(tried, c[:, None], out=tried)
            block = rows[tried] - n[b - 2 + tried] * v[b - 1 + c][:, None]
            block[beyond] = math.inf
            pick = block.argmin(axis=1)  # the first of equal ones
            layer[c0 : c0 + chunk] = block[np.arange(c.size), pick]
            at[c0 : c0 + chunk] = low + pick
        back[b] = at
        best = layer + own[b - 1 : b - 1 + w]
        # Layer b + 1's column c is j = b + c, layer b's column c + 1: its choice, a row later.
        first[:-1] = np.maximum(at[1:] - 1, 0)
        first[-1] = first[-2] if w > 1 else 0
    buckets, at_c = [values[-1]], w - 1
    for b in range(k, 1, -1):
        at_c = int(back[b, at_c])
        buckets.append(values[b - 2 + at_c])
    return sorted(buckets)


def padding(sizes: Sequence[int], buckets: Sequence[int]) -> int:
    """Total padding when every size is padded up to the smallest bucket that holds it."""
    ordered = sorted(buckets)
    total = 0
    for n in sizes:
        i = bisect_left(ordered, n)
        total += ordered[i] - n if i < len(ordered) else 0
    return total


def last_partial_batch(sizes: Sequence[int]) -> tuple[int, int] | None:
    """``(full, partial)`` when a dimension's sizes, in the order they compiled, are a full
    size first and then one smaller one: batches of ``full`` and a last partial batch (a
    dataset ``full`` does not divide: 32, 32, 32, then 4). Powers of two or not, padding
    that last batch up to ``full`` (or dropping it) saves its compile. None otherwise."""
    distinct = set(sizes)
    if len(distinct) != 2 or not sizes or sizes[0] != max(distinct):
        return None
    return sizes[0], min(distinct)


SUGGESTED_AT_MOST = 8  # a first suggestion of buckets never asks for more compiles


def default_compiles(distinct: int) -> int:
    """A first suggestion: about a third of the compiles, always fewer than now, and at most
    :data:`SUGGESTED_AT_MOST` (a few buckets is the fix; 1,000 buckets for 3,000 sequence
    lengths is not, and would take the bucket search ~350 ms)."""
    if distinct <= 1:
        return 1
    return max(1, min(distinct - 1, math.ceil(distinct / 3), SUGGESTED_AT_MOST))
