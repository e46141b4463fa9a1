"""JAX's "re-defined repeatedly" hint, read from its explanation in linear time."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from jitlab.probe.explain import redefined_hint

PIECES = ["abc", ".", ";", "?", " ", "\n", "re-defined repeatedly", "function", "maybe"]


def _by_regex(text: str) -> str:
    """What the hint was read with before: the same answer, in quadratic time on a text
    without "." or ";" (JAX's explanation of a miss on thousands of changed leaves)."""
    flat = " ".join(text.split())
    m = re.search(r"(?:but )?seen another function defined on the same line.*?(?:\?|$)", flat)
    if m:
        return m[0]
    m = re.search(r"[^.;]*re-defined repeatedly[^?]*\??", flat)
    return m[0].strip() if m else ""


@given(st.lists(st.sampled_from(PIECES), max_size=16).map("".join))
def test_the_hint_is_what_the_pattern_finds(text: str) -> None:
    assert redefined_hint(text) == _by_regex(text)


def test_jax_words_and_a_long_explanation() -> None:
    words = (
        "TRACING CACHE MISS at a.py:3:8 (_):\n  never seen function:\n    <lambda> id=0\n"
        "  but seen another function defined on the same line; maybe the function is\n"
        "  being re-defined repeatedly, preventing caching?\n"
    )
    assert redefined_hint(words).startswith("but seen another function defined on the same")
    assert redefined_hint(words).endswith("re-defined repeatedly, preventing caching?")
    # 20,000 changed arguments and the hint after them: read in one pass.
    long = " ".join(f"* at args[{i}], now f32[3] and before f32[2];" for i in range(20_000))
    assert redefined_hint(long + " maybe re-defined repeatedly?") == "maybe re-defined repeatedly?"
    assert redefined_hint(long.replace(";", "")) == ""


HINT = (
    "  but seen another function defined on the same line; maybe the function is\n"
    "  being re-defined repeatedly, preventing caching?"
)
NEVER = "  never seen function:\n    f id=1 defined at /a.py:5\n"


@given(
    st.lists(
        st.tuples(st.sampled_from(["", "/a.py:7:8 (g)", "/b.py:3 (<module>)"]), st.booleans()),
        min_size=1,
        max_size=4,
    ),
    st.sampled_from([":", " costing 1.2 ms because:"]),
)
def test_the_hint_counts_only_where_jax_placed_the_miss(blocks, tail) -> None:
    # Round 5 (checkify_guide.md): JAX's misses with no source info all read "TRACING
    # CACHE MISS at :" (0.9+) or "at  costing …" (0.6-0.8): its same-line hint there is no
    # sign of re-definition. A hint in a placed block is kept.
    text = "\n".join(
        f"TRACING CACHE MISS at {site}{tail}\n{NEVER}{HINT if hinted else ''}".rstrip()
        for site, hinted in blocks
    )
    placed = any(site and hinted for site, hinted in blocks)
    assert bool(redefined_hint(text)) == placed
