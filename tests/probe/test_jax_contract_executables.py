"""The contract of executables-growing's private reads (:mod:`jitlab.probe._jax`): the
executable a backend compile made, reached from inside its event without compiling again;
its memory figures as ``Compiled.memory_analysis()`` gives them; and which executables the
backend still holds, by what JAX frees (a dead jit object's) and what it keeps (a live jit
object's, one per static value)."""

from __future__ import annotations

import gc
import sys
from typing import Any

import jax
import jax.numpy as jnp

from jitlab.probe import _jax, _jax_programs

_COMPILE = "/jax/core/compile/backend_compile_duration"


def _made_by(run: Any) -> list[tuple[str | None, Any]]:
    """(fun_name, executable) of each backend compile while ``run()`` runs."""
    made: list[tuple[str | None, Any]] = []

    def listener(event: str, duration: float, **kwargs: Any) -> None:
        if event == _COMPILE:
            made.append(
                (kwargs.get("fun_name"), _jax_programs.compiled_executable(sys._getframe(1)))
            )

    jax.monitoring.register_event_duration_secs_listener(listener)
    try:
        run()
    finally:
        _jax.unregister_duration_listener(listener)
    return made


def test_a_compile_event_reaches_the_executable_it_made_and_its_memory_analysis() -> None:
    def contract_exe(x):
        return jnp.sin(x) @ x.T

    f = jax.jit(contract_exe)
    x = jnp.ones((16, 8))
    ((_, made),) = [m for m in _made_by(lambda: f(x)) if m[0] == "jit(contract_exe)"]
    assert made is not None
    # The figures memory_analysis() gives for the same program (compiled here once more).
    memory = f.lower(x).compile().memory_analysis()
    figures = _jax_programs.executable_memory(made)
    assert figures is not None
    expected = tuple(getattr(memory, figure) for figure in _jax_programs.MEMORY_FIGURES)
    assert figures == expected
    assert figures[2] == x.size * 4 and figures[3] == 16 * 16 * 4  # arguments, outputs
    live = _jax_programs.live_executables(made)
    assert live is not None and _jax_programs.is_alive(_jax_programs.executable_id(made), live)


def test_a_dead_closures_executable_is_freed_a_live_jits_are_kept() -> None:
    class Opt:  # compared by identity: a new static value each time
        def __init__(self, lr: float) -> None:
            self.lr = lr

    def contract_kept(x, opt):
        return x * opt.lr

    def make(opt: Opt) -> Any:
        def contract_closure(x):  # a new function each time, closing over opt
            return x * opt.lr

        return jax.jit(contract_closure)

    kept = jax.jit(contract_kept, static_argnums=1)
    x = jnp.ones(4)
    made = [e for n, e in _made_by(lambda: [kept(x, Opt(0.5)) for _ in range(3)]) if e]
    ids = [_jax_programs.executable_id(e) for e in made]
    asker = made[0]  # kept alive by kept anyway: the client is asked through it
    del made
    closure = [make(Opt(0.5))]
    (gone,) = [e for n, e in _made_by(lambda: closure[0](x)) if n == "jit(contract_closure)"]
    gone_id = _jax_programs.executable_id(gone)
    live = _jax_programs.live_executables(asker)
    assert live is not None and _jax_programs.is_alive(gone_id, live)
    assert all(_jax_programs.is_alive(i, live) for i in ids)
    del gone, closure[0], live
    gc.collect()
    live = _jax_programs.live_executables(asker)
    assert live is not None
    assert len(ids) == 3 and all(_jax_programs.is_alive(i, live) for i in ids)  # all three kept
    assert kept._cache_size() == 3
    assert not _jax_programs.is_alive(gone_id, live)  # freed with its function and jit object
