"""Calls under JAX's transformations, and what JAX compiles of them after they return.

A probed call inside ``vmap``, ``grad`` or an outer trace gets (or returns) tracers: JAX ran
or compiled the transformed function, or staged the call, never the function's own
executables. Under ``grad`` the backward pass (the transpose) compiles after the call has
returned, and so does the linear part of a ``jax.linearize`` when the function it returned
is applied, outside any probed call: the listener here files each as the function's.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import Any, Protocol

import jax

from jitlab.probe import _jax, frames, monitor, sites
from jitlab.records.calls import Signature

_Tracer = _jax.tracer_class()
_TRACE_STATE, _EVAL_TRACE = _jax.TRACE_STATE, _jax.EVAL_TRACE
_tree_leaves = jax.tree_util.tree_leaves
# this thread's collector of the probed call in flight (the probe package's own
# thread-local, read directly: the hot path's)
_tls = monitor._local  # pyright: ignore[reportPrivateUsage]


def transformation(
    args: tuple[Any, ...], kwargs: dict[str, Any], result: Any
) -> tuple[tuple[str, ...], bool]:
    """(the transformations a call ran under, innermost first; was it staged into an
    enclosing trace, so that nothing ran?) — ``((), False)`` for a plain call."""
    if _TRACE_STATE.value is _EVAL_TRACE:
        # Outside every transformation and trace: no tracer of a live trace can be among
        # the arguments or the result (one config read instead of a walk of every leaf).
        return (), False
    try:
        found = [leaf for leaf in _tree_leaves((args, kwargs)) if isinstance(leaf, _Tracer)]
        if not found and result is not None:
            # Concrete arguments, yet tracers out: a call staged into an outer trace.
            found = [leaf for leaf in _tree_leaves(result) if isinstance(leaf, _Tracer)]
        if not found:
            return (), False
        layers, base = max((_jax.tracer_layers(leaf) for leaf in found), key=lambda lb: len(lb[0]))
    except Exception:  # a private class that changed: a plain call, as before
        return (), False
    return layers, isinstance(base, _Tracer)


def untraced(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any]:
    """The arguments with each tracer replaced by the value under it (a ``vmap``'s batch):
    what JAX compiled the transformed function for."""

    def under(leaf: Any) -> Any:
        return _jax.tracer_layers(leaf)[1] if isinstance(leaf, _Tracer) else leaf

    args, kwargs = jax.tree_util.tree_map(under, (args, kwargs))
    return args, kwargs


class Followed(Protocol):
    """What the backward pass needs of a probe (:class:`jitlab.probe.probe.Probe`)."""

    @property
    def trace_name(self) -> str: ...
    @property
    def function(self) -> Callable[..., Any]: ...
    def backward_signature(self, avals: tuple[Any, ...]) -> Signature: ...
    def file_backward(
        self, lower_ms: float, compile_ms: float, avals: tuple[Any, ...], path: str = ...
    ) -> None: ...


# The probe whose call just ran under grad on this thread: the backward pass that follows
# compiles the transposed function outside any probed call (see _on_backward_compile).
_backward = threading.local()


def follow_backward(probe: Followed, *, staged: bool = False) -> None:
    """Listen for the executables JAX compiles for ``probe``'s function after its call
    returns: grad's backward pass, the linear part ``jax.linearize`` returned; or, for a
    call ``staged`` into an enclosing trace, ``jax.checkpoint``'s eager run of that trace.
    Held weakly, one of each kind per thread (a staged call does not replace the probe
    whose backward pass is still to come)."""
    setattr(_backward, "staged" if staged else "probe", weakref.ref(probe))
    _backward.lower_ms = 0.0
    # Heard through jitlab's own registration with JAX (kept by the probed call, which
    # registers it again if the program cleared JAX's listeners). Slow path only.
    monitor.add_listener(_on_backward_compile)


def _on_backward_compile(event: str, ms: float, fun_name: str | None) -> None:
    """A compile of the function the last grad-traced probed call on this thread ran,
    fired by JAX's backward pass outside any probed call: another executable JAX made
    (a :class:`jitlab.probe.monitor.DurationListener`)."""
    if event != monitor.COMPILE_EVENT and event != monitor.LOWER_EVENT:
        return
    if getattr(_tls, "collector", None) is not None:
        return
    if getattr(_backward, "probe", None) is None and getattr(_backward, "staged", None) is None:
        return
    if monitor.watching():
        # A watch files every compile outside probed calls itself (it may ask
        # backward_compile whose it is): filing it here too would count it twice.
        return
    frame = frames.getframe(1)
    if event == monitor.LOWER_EVENT:
        if backward_compile(fun_name, frame, lowering=True) is not None:
            _backward.lower_ms = ms
        return
    found = backward_compile(fun_name, frame)
    if found is not None:
        probe, avals, path = found
        lower_ms, _backward.lower_ms = getattr(_backward, "lower_ms", 0.0), 0.0
        probe.file_backward(lower_ms, ms, avals, path)


def backward_compile(
    fun_name: Any, frame: Any, *, lowering: bool = False
) -> tuple[Followed, tuple[Any, ...], str] | None:
    """Called from a compile event listener outside any probed call: is this JAX compiling
    a program of the function a probe on this thread last ran under grad or
    ``jax.linearize``, after that call returned: its backward pass (the transpose), or its
    linear part as the function ``jax.linearize`` returned is applied; or the function a
    probe last staged into a trace, as ``jax.checkpoint`` runs that trace eagerly? Then
    (that probe, the compiled function's input avals, ``"transpose"``, ``"linear"`` or
    ``"remat"``); else None. ``probe.file_backward(lower_ms, compile_ms, avals, path)``
    files it as that function's program under the transformation."""
    if _followed("probe", fun_name) is None and _followed("staged", fun_name) is None:
        return None
    path = _jax.compiled_after_call(frame)
    probe = _followed("staged" if path == "remat" else "probe", fun_name)
    if path is None or probe is None:
        return None
    if lowering:
        return probe, (), path
    found = _jax.compiling_avals(frame)
    site = sites.defined_at(probe.function)
    if found is None or not site or not (found[0] or "").endswith(site):
        return None  # another function of the same name: not ours
    return probe, found[1], path


def _followed(slot: str, fun_name: Any) -> Followed | None:
    """The probe followed in ``slot`` on this thread, if still alive and JAX's compile event
    ``fun_name`` is of its function's name."""
    ref = getattr(_backward, slot, None)
    probe: Followed | None = ref() if ref is not None else None
    if probe is None or fun_name != _jax.jit_event_name(probe.trace_name):
        return None
    return probe
