"""A pytree that grew leaves where it had none: the reason's "no leaves" is recorded as data
(English, as the probe writes it) and said in Chinese under ``--lang zh`` (issue 42)."""

from __future__ import annotations

import jax.numpy as jnp

from jitlab import Probe
from jitlab.records import change_words


def test_no_leaves_is_said_in_chinese() -> None:
    probe = Probe(lambda s: s["a"].sum())
    x = jnp.ones(2)
    probe({"a": x, "opt": ()})
    probe({"a": x, "opt": {"mu": x, "nu": x}})  # an optimizer state that gained its moments
    reason = probe.records[-1].reason
    assert reason is not None and probe.records[-1].kind.compiled
    en = change_words.reason_text(reason, "en")
    zh = change_words.reason_text(reason, "zh")
    assert "no leaves" in en  # the record's own words, unchanged
    assert "pytree 结构变了" in zh and "没有叶子" in zh
    assert "leaves" not in zh
