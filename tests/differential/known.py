"""What the differential test finds wrong on today's code, one entry per rule: delete an entry
once the rule holds (issue 50 lists rules 1–7; other entries name a bug found here).

While an entry stands, the generated tests tolerate findings of that rule (they still fail
on any other disagreement) and its regression cases are expected to fail —
``xfail(strict=True)``: once the rule holds they pass, which fails the run until the entry
goes. With no entry left, every finding fails.
"""

from __future__ import annotations

import pytest

KNOWN: dict[int | str, str] = {
    1: "a pytree's static data or structure changed together with a leaf (dataclass, "
    "flax.struct, Equinox, Partial, custom nodes); the closest program JAX held, every "
    "difference counted",
    2: "several static attributes of one node changed at once",
    3: "a wrapper pre-binds leading arguments (functools.partial, nnx.jit_partial)",
    4: "an equal callable handed to jax.jit again (bound method, callable object) or a "
    "partial: one row per function as JAX counts it, never 'new function object' where JAX "
    "shared its cache",
    5: "a jitted function under linearize / jvp / grad / checkpoint: not its first program, "
    "and every program JAX compiles for it counted",
    6: "paths and trees of custom nodes (flat index) and modules (the field that changed)",
    7: "a program a clear dropped: which clear (f.clear_cache() or jax.clear_caches())",
    "nnx-static": "nnx.jit(f, static_argnames=...): the static arguments are not seen",
    "probe-after-call": "a Probe counts no program JAX compiles for its function after the "
    "probe's call returned (applying what linearize gave, checkpoint's eager run)",
    "no-leaves": "an argument without leaves (an empty tuple, list or dict) changed: its "
    "structure named at another argument's path or JAX's (args, kwargs) path, or left out "
    "where it is passed by keyword instead of by position",
    "eqx-keyword": "a Probe of eqx.filter_jit names an argument passed by keyword instead "
    "of by position a change, though equinox binds it to its parameter (JAX's key is the "
    "same)",
    "device-beside": "an array moved to another device beside another change (x64, a "
    "shape): the move is left out",
}


def known(*rules: int | str) -> pytest.MarkDecorator:
    """A regression case of ``rules``: expected to fail while any of them has an entry."""
    standing = [rule for rule in rules if rule in KNOWN]
    if standing:
        reason = "; ".join(f"issue 50 rule {rule}: {KNOWN[rule]}" for rule in standing)
        return pytest.mark.xfail(strict=True, reason=reason)
    return pytest.mark.usefixtures()


def tolerated_but(*rules: int | str) -> frozenset[int | str]:
    """The known rules a regression case of ``rules`` tolerates: every other one."""
    return frozenset(KNOWN) - set(rules)
