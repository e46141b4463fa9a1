"""The bucket search: numpy's quick one gives the pure-Python dynamic programme's answer."""

from __future__ import annotations

import random

from jitlab.recordings.ledger import bucket_sizes, default_compiles
from jitlab.recordings.reader import suggest_buckets


def test_bucket_sizes_is_suggest_buckets() -> None:
    rng = random.Random(11)
    for _ in range(1500):
        sizes = [
            rng.randint(0, rng.choice([3, 40, 1000, 10**6])) for _ in range(rng.randint(0, 70))
        ]
        k = rng.randint(0, 25)
        assert bucket_sizes(sizes, k) == suggest_buckets(sizes, k), (sizes, k)
    for m, k in ((500, 167), (300, 10), (300, 297)):
        sizes = sorted(rng.sample(range(1, 50_000), m))
        assert bucket_sizes(sizes, k) == suggest_buckets(sizes, k)
    big = [2**40, 2**40 + 1, 2**41]  # past float64's exact range: suggest_buckets itself
    assert bucket_sizes(big, 2) == suggest_buckets(big, 2)


def test_the_first_suggestion_is_a_third_and_at_most_eight() -> None:
    assert [default_compiles(m) for m in (0, 1, 2, 3, 9, 12, 24, 25, 3000)] == [
        1,
        1,
        1,
        1,
        3,
        4,
        8,
        8,
        8,
    ]
