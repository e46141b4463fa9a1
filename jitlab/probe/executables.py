"""Which of a function's executables are still alive, and what they hold
(``executables-growing``; :class:`~jitlab.records.executables.Executables`).

Runs on the compile path only, with the executable that compile made (found by
:func:`jitlab.probe._jax_programs.compiled_executable`, never compiled again). Holds no executable:
each is known by its id and fingerprint, and looked up among ``live_executables()`` at the
next compile, so what JAX frees is seen freed.
"""

from __future__ import annotations

import inspect
import re
import threading
from collections.abc import Hashable
from typing import Any

from jitlab.probe import _jax_programs
from jitlab.records.calls import Signature
from jitlab.records.executables import Executables

_Memory = tuple[int | None, ...]
_Held = tuple[Hashable, "_Memory | None", "int | None"]


class LiveExecutables:
    """The executables each function (by a key of the caller's) compiled, while they live.
    One for the process (:data:`LIVE`): a function re-jitted each epoch makes a new jit
    object (a new Probe in a watch) each time, and its executables are the same function's.

    Linear in the compiles (issue 40): listing the client's live executables costs one step
    per executable in the process, so it is done only where an answer needs it, at a
    compile of a function that already holds executables; a function's first compile has
    only the one it made. Freed executables of other functions are dropped in a full sweep
    made at such a listing once the entries have doubled since the last sweep."""

    def __init__(self) -> None:
        self._lock = threading.Lock()  # probes on several threads file compiles at once
        # key -> {executable id: (its signature's repeat_key, its memory figures, the
        # generation of the function object that compiled it)}
        self._held: dict[Hashable, dict[tuple[int, Any], _Held]] = {}
        self._entries = 0  # held entries, every function's
        self._swept_at = 0  # entries after the last full sweep
        self._can_list: bool | None = None  # does this jaxlib list live executables?

    def compiled(
        self, key: Hashable, executable: Any, signature: Signature | None = None
    ) -> Executables | None:
        """File the executable one compile of ``key`` made (``signature``: the call's, None
        if unknown); its figures and the function's live ones. None when there is no
        executable to read."""
        if executable is None:
            return None
        memory = _jax_programs.executable_memory(executable)
        live: dict[int, Any] | None
        if self._can_list is not False and self._held.get(key):
            live = _jax_programs.live_executables(executable)  # outside the lock: O(live)
        elif self._can_list is None:  # asked once: can this jaxlib say which are alive?
            live = _jax_programs.live_executables(executable)
            self._can_list = live is not None
        else:
            live = {} if self._can_list else None  # a first compile: nothing else to look up
        generation = signature.function if signature is not None else None
        with self._lock:
            return self._file(key, executable, repeat_key(signature), memory, live, generation)

    def _file(
        self,
        key: Hashable,
        executable: Any,
        repeat: Hashable,
        memory: _Memory | None,
        live: dict[int, Any] | None,
        generation: int | None = None,
    ) -> Executables:
        mine = self._held.setdefault(key, {})
        if live is None:  # cannot tell which are alive: this one's figures only
            self._entries -= len(mine)
            mine.clear()
            return _figures(memory, None, None, None)
        if mine and live:  # a listing was made: drop what JAX freed
            full = self._entries >= 2 * self._swept_at
            for each in list(self._held.values()) if full else [mine]:
                for gone in [i for i in each if not _jax_programs.is_alive(i, live)]:
                    del each[gone]
                    self._entries -= 1
            if full:
                self._swept_at = self._entries
        ident = _jax_programs.executable_id(executable)
        self._entries += ident not in mine
        mine[ident] = (repeat, memory, generation)
        same = None
        if repeat is not None:
            # The same program again: the same signature, and (where the backend gives
            # fingerprints) the same executable. Ten lambdas that print alike, each its own
            # program, are ten programs, not one kept ten times.
            same = sum(
                1 for i, (r, _, _) in mine.items() if r == repeat and _same_program(i[1], ident[1])
            )
        others = None
        if generation is not None:
            others = sum(1 for _, _, g in mine.values() if g is not None and g != generation)
        return _figures(memory, len(mine), [m for _, m, _ in mine.values()], same, others)


def _same_program(a: Any, b: Any) -> bool:
    """Two executables' fingerprints name one program (unknown: as if they did)."""
    return a is None or b is None or a == b


LIVE = LiveExecutables()

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def repeat_key(signature: Signature | None) -> Hashable:
    """What two compiles of one function share when the second was for inputs the first
    already had a program for: the same arrays (shapes, dtypes, shardings, structure) and
    static values — static arguments, a pytree's static data such as a Flax NNX graph's —
    that print the same but for an object's address (``<Adam object at 0x…>``, an Optax
    optimizer's functions); the function object aside. None: unknown."""
    if signature is None:
        return None
    statics = tuple((name, _ADDRESS.sub(" at 0x…", text)) for name, text in signature.statics)
    return signature.leaves, _ADDRESS.sub(" at 0x…", signature.tree), statics


def function_key(fn: Any) -> Hashable:
    """A probed function's key in :data:`LIVE`: its code (every jit object of one ``def``
    shares it), else its type (a callable object)."""
    try:
        return ("code", inspect.unwrap(fn).__code__)
    except (AttributeError, ValueError):
        obj: object = fn  # declared: type() of it is a type, not an unknown one
        return ("type", type(obj))


def _figures(
    memory: _Memory | None,
    live: int | None,
    held: list[_Memory | None] | None,
    same: int | None,
    others: int | None = None,
) -> Executables:
    code, temp, argument, output, alias = memory or (None,) * 5
    sums: list[int | None] = [None] * 4
    if held:
        for i in range(4):
            said = [m[i] for m in held if m is not None and m[i] is not None]
            sums[i] = sum(said) if said else None  # type: ignore[arg-type]
    live_code, live_temp, live_argument, live_output = sums
    return Executables(
        code,
        temp,
        argument,
        output,
        alias,
        live,
        live_code,
        live_temp,
        live_argument,
        live_output,
        same,
        others,
    )
