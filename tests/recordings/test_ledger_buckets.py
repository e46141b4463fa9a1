"""The bucket search: the least padding there is (checked against every choice of buckets
on small inputs), exact past float64's range, and the first suggestion's size."""

from __future__ import annotations

import random
from itertools import combinations

from jitlab.recordings.buckets import (
    default_compiles,
    last_partial_batch,
    padding,
    suggest_buckets,
)


def _least_padding(sizes: list[int], k: int) -> int:
    """Every choice of at most k buckets among the sizes, the largest always one."""
    values = sorted(set(sizes))
    others = values[:-1]
    return min(
        padding(sizes, [*chosen, values[-1]])
        for n in range(min(k, len(values)))
        for chosen in combinations(others, n)
    )


def test_the_buckets_pad_least() -> None:
    rng = random.Random(11)
    for _ in range(600):
        top = rng.choice([3, 40, 1000, 10**6, 2**60])  # 2**60: past float64's exact range
        sizes = [rng.randint(0, top) for _ in range(rng.randint(1, 11))]
        k = rng.randint(1, 6)
        buckets = suggest_buckets(sizes, k)
        assert buckets == sorted(set(buckets)) and set(buckets) <= set(sizes)
        assert max(sizes) in buckets and len(buckets) == min(k, len(set(sizes)))
        assert padding(sizes, buckets) == _least_padding(sizes, k), (sizes, k)
    assert suggest_buckets([], 3) == [] and suggest_buckets([4, 8], 0) == []


def test_equal_answers_keep_the_leftmost_and_long_inputs_stay_exact() -> None:
    assert suggest_buckets([1, 3, 5], 2) == [1, 5]  # [1, 5] and [3, 5] both pad 2
    rng = random.Random(3)
    sizes = sorted(rng.sample(range(1, 50_000), 500))
    buckets = suggest_buckets(sizes, 167)
    assert len(buckets) == 167 and suggest_buckets(sizes, 167) == buckets  # the app's name
    # The same sizes far past 2**53: the same choice (padding scales with the offset-free sizes).
    big = [2**60 + n for n in sizes[:60]]
    assert suggest_buckets(big, 7) == [2**60 + n for n in suggest_buckets(sizes[:60], 7)]


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


def test_a_last_partial_batch_is_a_full_size_then_one_smaller() -> None:
    assert last_partial_batch([32, 4]) == (32, 4)  # batches of 32, then 4 (100 rows)
    assert last_partial_batch([32, 4, 4]) == (32, 4)
    assert last_partial_batch([8, 16, 32]) is None  # growing sizes: buckets, not a remainder
    assert last_partial_batch([4, 32]) is None  # the small one came first
    assert last_partial_batch([32, 4, 12]) is None  # more than one other size: buckets
    assert last_partial_batch([32]) is None and last_partial_batch([]) is None
