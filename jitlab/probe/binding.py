"""The function object a probe calls, and how the probe looks like it.

:class:`Binding` is the first part of :class:`jitlab.probe.probe.Probe` (its base): it owns
the jitted callable called now and what is read off it once at each bind (the wrapper's
kind, JAX's event name, the argument split, JAX's cache size and cache identity), the
generation the ledger counts it as, ``swap`` to a new function object, ``clear_cache``, and
``functools.wraps``-like looks (name, signature) so that JAX names ``jax.jit(Probe(f))`` as
``f``. The attributes it reads that the probe's ``__init__`` sets are declared here.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import jax

from jitlab.probe import filing, monitor, sharing, signature, wrappers
from jitlab.probe.cards import Ledger
from jitlab.probe.held import HeldCards

__all__ = ["Binding", "is_jitted", "jitted"]


def is_jitted(fn: Any) -> bool:
    """jax.jit, flax.nnx.jit, equinox.filter_jit or jax.pmap (raises TypeError for
    wrappers that cannot be probed; see :mod:`jitlab.probe.wrappers`)."""
    return wrappers.recognise(fn) is not None


def jitted(
    fn: Callable[..., Any],
    static_argnums: int | Sequence[int] | None = None,
    static_argnames: str | Sequence[str] | None = None,
    **jit_kwargs: Any,
) -> Callable[..., Any]:
    """What a probe of ``fn`` calls: ``fn`` itself if it is jitted (then with no jit options:
    those are ``fn``'s own), else ``jax.jit(fn, ...)``."""
    if not is_jitted(fn):
        return jax.jit(  # pyright: ignore[reportUnknownMemberType]
            fn, static_argnums=static_argnums, static_argnames=static_argnames, **jit_kwargs
        )
    if static_argnums is not None or static_argnames is not None or jit_kwargs:
        raise TypeError(
            "this function is already jitted: pass static_argnums/static_argnames "
            "to jax.jit, or give Probe the plain function"
        )
    return fn


class Binding:
    """The function object called now (:meth:`_bind`), as a probe's base."""

    # The function object called now (_bind): the callable, what it is, JAX's event name,
    # its argument split, JAX's cache size through the wrapper (the hot path calls it
    # directly), whether its calls are routed at JAX's Python dispatch, which of the
    # ledger's function objects it is, and its cache identity (wrappers.cache_identity).
    _fn: Callable[..., Any]
    wrapper: wrappers.Jitted
    _trace_name: str
    _statics: signature.StaticSpec
    _jax_entries: Callable[[], int]
    _lazy: bool
    _steady: Any  # the probe's steady path (Probe._steady)
    _generation: int
    _cache_id: Hashable | None
    # Set by the probe's __init__: the card holder of the function (shared by its function
    # objects), its lock, this object's cards, and what files the calls that compile.
    ledger: Ledger
    _lock: Any  # the ledger's (an RLock: cards.Ledger.lock)
    _held: HeldCards
    _filing: filing.Filing

    def _bind(self, jitted: Callable[..., Any], generation: int | None) -> None:
        """Call ``jitted`` from now on as function object ``generation`` of the ledger's
        function (None, from swap: the next, unless JAX shares the cache of the one before)."""
        info = wrappers.recognise(jitted)
        assert info is not None  # callers jit plain functions first
        monitor.install()
        # Calls that trace, print or explain all reach JAX's Python dispatch first (not a
        # pmap's before 0.8, nor where this JAX's dispatch is not as checked): route there.
        self._lazy = monitor.DISPATCH_HOOKED[0] and info.kind in wrappers.JIT_KINDS
        self._fn = jitted
        self._steady = None  # it held the function object before
        self.wrapper = info  # kind, the user's function, JAX's event name, argument split
        self._trace_name = info.trace_name
        self._statics = info.spec
        self._jax_entries = wrappers.cache_size(info)
        cache_id = wrappers.cache_identity(info)
        if generation is None:
            # A new function object (same function and options: JAX's cache is shared).
            before = self._cache_id
            new = before is None or cache_id != before
            generation = self._generation + 1 if new else self._generation
        self._cache_id = cache_id
        self._generation = generation
        self._filing.bind(jitted, info.spec, generation, cache_id, self._jax_entries)
        sharing.join(self, cache_id)
        self._look_like(info)

    def _look_like(self, info: wrappers.Jitted) -> None:
        """Look to JAX (and to ``inspect``) exactly like the function probed, as
        ``functools.wraps`` would make it: ``jax.jit(Probe(f))`` is then named ``jit(f)`` in
        JAX's log and events, its arguments named as ``f``'s parameters."""
        user = info.function
        if user is None:
            try:
                user = inspect.unwrap(self._fn)
            except ValueError:  # a cycle of __wrapped__
                user = self._fn
        for attr in ("__module__", "__name__", "__qualname__", "__doc__"):
            value = getattr(user, attr, None)
            if value is not None:
                self.__dict__[attr] = value
        self.__dict__["__wrapped__"] = self._fn
        try:
            self.__dict__["__signature__"] = inspect.signature(user)
        except (TypeError, ValueError):  # a builtin or an object without one
            self.__dict__.pop("__signature__", None)

    @property
    def function(self) -> Callable[..., Any]:
        """The jitted callable being probed."""
        return self._fn

    @property
    def trace_name(self) -> str:
        """The ``fun_name`` of JAX's trace event for this function (``jit(…)`` for the rest)."""
        return self._trace_name

    @property
    def generation(self) -> int:
        """Which function object of the ledger's function this probe calls now (0, 1, …)."""
        return self._generation

    def cache_entries(self) -> int:
        """How many executables JAX's own cache holds for this function (-1 if unknown)."""
        return self._jax_entries()

    @property
    def entries_after_compile(self) -> int:
        """JAX's cache size right after this probe's last compile (-2 before any)."""
        return self._held.entries_after_compile

    def swap(self, fn: Callable[..., Any]) -> None:
        """Probe a new function object from now on, keeping the same ledger.

        Used to show what happens when code builds a new ``lambda``/``partial``/``jax.jit``
        every call: JAX sees a function it has never traced.
        """
        before = self._generation
        self._bind(jitted(fn), None)
        if self._generation != before:
            self._note_instance()
            with self._lock:
                self._held.new_object(self._jax_entries())

    def _note_instance(self) -> None:
        instances, layers = self.ledger.instances, self.ledger.layers
        instances[self._generation] = self._cache_id
        layers[self._generation] = wrappers.transformations(self.wrapper)
        if len(instances) > 128:  # a closure re-jitted every step: the newest are compared
            for old in sorted(instances)[:64]:
                del instances[old]
                layers.pop(old, None)

    def clear_cache(self) -> None:
        """Empty JAX's caches for this function and the card holder (``jax.clear_caches``)."""
        jax.clear_caches()
        with self._lock:
            self.ledger.retired.extend(self.ledger.cards)
            self.ledger.cards = []
            self._held.clear(self._jax_entries())
