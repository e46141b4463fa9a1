"""What a compile's executable holds, and how many of its function's executables are alive
(JAX-free; ``executables-growing``, jax#16778, flax#5548).

Read on the compile path only, from the executable that compile made (never compiled
again): its ``memory_analysis()`` figures, and, right after it, the function's executables
JAX still held (``Client.live_executables()``; jitlab holds none of them). Kept on the
compile's :class:`~jitlab.records.calls.CallRecord` (``executables``), so a recording, a
Probe's records and the app see it over time.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

_MAX = 10**18


def _whole(value: Any) -> int | None:
    if type(value) is int and 0 <= value < _MAX:
        return value
    return None


@dataclass(frozen=True, slots=True)
class Executables:
    """One compile's executable and its function's live ones. ``None``: not said or not
    measured (a backend without memory analysis, a jaxlib that cannot list executables)."""

    # This executable, as JAX's memory_analysis() gives it.
    code_bytes: int | None = None  # generated code
    temp_bytes: int | None = None
    argument_bytes: int | None = None
    output_bytes: int | None = None
    alias_bytes: int | None = None
    # The function's executables alive right after this compile (this one included), and
    # the sums of their figures (those JAX gave).
    live: int | None = None
    live_code_bytes: int | None = None
    live_temp_bytes: int | None = None
    live_argument_bytes: int | None = None
    live_output_bytes: int | None = None
    # Of those, compiled for this call's signature again (the same arrays, static values
    # that print the same but for an object's address) into the same program (the same
    # executable fingerprint, where the backend gives one): None where jitlab did not see
    # the arguments.
    same_signature: int | None = None
    # Of those, held by other function objects of the same code, alive beside this one (a
    # factory's closures, each jitted apart and all in use); None where not measured (an
    # older recording).
    others: int | None = None

    def to_json(self) -> dict[str, int | None]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_json(cls, data: Any) -> Executables | None:
        """Read back :meth:`to_json`; None for anything that is not such a dict (a figure of
        the wrong type reads None)."""
        if not isinstance(data, dict):
            return None
        return cls(**{f.name: _whole(data.get(f.name)) for f in fields(cls)})
