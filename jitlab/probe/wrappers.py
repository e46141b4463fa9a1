"""Recognise the jit wrappers users have, and see each call in the user's own terms.

What the probe needs from any wrapper: the object to call unchanged, the user's Python
function (parameter names, ``def`` line), the function name JAX reports in its compile
events, and how arguments split into traced leaves and static values.

=====================  ==========================  =============================================
wrapper                name in JAX's events        arguments
=====================  ==========================  =============================================
``jax.jit``            the function's name         ``static_argnums`` / ``static_argnames``
``flax.nnx.jit``       the function's name         graph nodes flatten to ``model.linear.kernel``
``equinox.filter_jit`` the function's name         arrays traced; every other leaf static,
                                                   named by its path (``model.activation``)
``jax.pmap``           ``_fun`` (JAX's inner one)  all traced (``static_broadcasted_argnums``
                                                   is not visible to jitlab)
=====================  ==========================  =============================================

Not probeable (:func:`recognise` raises ``TypeError`` saying so): an AOT ``Compiled`` executable
(it never compiles when called) and objects that look like a jit wrapper jitlab does not know
(``equinox.filter_pmap``, ``flax.nnx.pmap``, …): re-jitting them would change the program;
and a ``jax.pmap`` below JAX 0.8 (a C++ ``PmapFunction`` whose events name the function, not
the call).
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import inspect
import weakref
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from types import FrameType
from typing import Any

import jax
import numpy as np

from jitlab.probe import _jax, frames
from jitlab.probe.signature import StaticSpec, parameter_layout, path_text, static_arguments
from jitlab.records.calls import Change
from jitlab.records.changes import ChangeKind

JAX_JIT = "jax.jit"
NNX_JIT = "flax.nnx.jit"
FILTER_JIT = "equinox.filter_jit"
FILTER_JIT_INNER = "equinox.filter_jit (inner jax.jit)"
NNX_JIT_INNER = "flax.nnx.jit (inner jax.jit)"
PMAP = "jax.pmap"
# Wrappers whose every call that is not a cache hit goes through jax.jit's Python dispatch.
JIT_KINDS = frozenset((JAX_JIT, NNX_JIT, FILTER_JIT, FILTER_JIT_INNER, NNX_JIT_INNER))


@dataclass(frozen=True)
class Jitted:
    """A jitted callable as the probe sees it."""

    kind: str  # one of the constants above
    call: Callable[..., Any]  # what to call: the user's object, unchanged
    function: Any  # the user's Python function (None when not known)
    trace_name: str  # ``fun_name`` of JAX's trace event (``jit(<name>)`` for lower/compile)
    spec: StaticSpec

    @property
    def name(self) -> str:
        """The function's name as the user wrote it (pmap's events say JAX's ``_fun``; a
        callable object is named by its class, where JAX says ``<unnamed function>``)."""
        if self.function is not None and (self.kind == PMAP or self.trace_name == _jax.UNNAMED):
            return function_name(self.function)
        return self.trace_name


fun_name = _jax.fun_name  # the name JAX puts in its compile events for ``jax.jit(fun)``


def function_name(fun: Any) -> str:
    """The name a jitted function is shown by, on every face: JAX's (a partial's function's
    name), or for a callable object JAX cannot name (``<unnamed function>``) its class's."""
    name = fun_name(fun)
    return type(fun).__name__ if name == _jax.UNNAMED else name


def _module_of(obj: Any) -> str:
    return type(obj).__module__ or ""


def _is_pjit(fn: Any) -> bool:
    # jax.jit's PjitFunction, or anything that quacks like it (a watch's stand-in).
    return callable(fn) and hasattr(fn, "lower") and hasattr(fn, "eval_shape")


def _is_eqx_inner(fun: Any) -> bool:
    """Is this the function ``equinox.filter_jit`` hands to ``jax.jit``?"""
    code = getattr(fun, "__code__", None)
    return (
        code is not None
        and code.co_name == "fun_wrapped"
        and code.co_filename.replace("\\", "/").endswith("equinox/_jit.py")
    )


def user_function(obj: Any) -> Any | None:
    """The user's function behind a jit wrapper object, or None if ``obj`` is none we know."""
    module = _module_of(obj)
    if module.startswith("equinox") and type(obj).__name__ == "_JitWrapper":
        return getattr(obj, "__wrapped__", None)
    if _jax.is_nnx_jit(obj):
        return getattr(obj, "fun", None) or getattr(obj, "__wrapped__", None)
    if module.startswith("flax.nnx") and type(obj).__name__ == "JitFn":
        return getattr(obj, "f", None)
    if _is_pjit(obj) or _is_pmap(obj):
        inner = getattr(obj, "__wrapped__", None)
        return None if inner is None or _is_eqx_inner(inner) else inner
    return None


def user_function_in_stack(frame: Any) -> Any | None:
    """While a library creates its inner jit: the user function it is wrapping.

    Looked for only in frames that are known to hold it (equinox's compile cache keeps it as
    ``user_fn``), so a library's other locals are never mistaken for the user's function.
    """
    while frame is not None and frames.is_library(frame.f_code.co_filename):
        code = frame.f_code
        if code.co_filename.replace("\\", "/").endswith("equinox/_compile_utils.py"):
            fun = frame.f_locals.get("user_fn")
            if fun is not None:
                return fun
        frame = frame.f_back
    return None


def _is_pmap(fn: Any) -> bool:
    code = getattr(fn, "__code__", None)
    return (
        code is not None
        and hasattr(fn, "lower")
        and _jax.is_pmap_code(code.co_filename)
        and "pmap" in (getattr(fn, "__qualname__", "") + code.co_filename)
    )


def recognise(fn: Any) -> Jitted | None:
    """What kind of jitted callable ``fn`` is; None for a plain function (jit it yourself).

    Raises ``TypeError`` for callables that cannot be probed without changing the program.
    """
    module = _module_of(fn)
    if module.startswith("equinox") and type(fn).__name__ == "_JitWrapper":
        user = fn.__wrapped__
        inner = _jax.equinox_inner_jit(fn)
        name = fun_name(getattr(inner, "__wrapped__", None) or user)
        return Jitted(FILTER_JIT, fn, user, name, FilterSpec(user))
    if _jax.is_nnx_jit(fn):
        user = getattr(fn, "fun", None) or inspect.unwrap(fn)
        jitted = _jax.nnx_inner_jit(fn)
        inner = getattr(jitted, "__wrapped__", user)
        bound = _jax.nnx_partial_tree(fn)
        if bound is not None:  # nnx.jit_partial: called with the arguments after those bound
            spec = PreboundSpec(user, bound, jitted).rest
        else:  # called as the user calls it: its statics are the inner jax.jit's
            argnums, argnames = static_arguments(jitted)
            spec = StaticSpec.for_function(argnums, argnames, user)
        return Jitted(NNX_JIT, fn, user, fun_name(inner), spec)
    if _jax.is_legacy_pmap(fn):
        raise TypeError(
            "jitlab cannot probe a jax.pmap on this JAX (below 0.8 its compile events are not"
            " tied to the call); probe the function it maps with jax.jit, or use JAX >= 0.8"
        )
    if _is_pmap(fn):
        # pmap runs as jit(shard_map(_fun)): JAX's events are named after its inner _fun.
        user = getattr(fn, "__wrapped__", None)
        spec = StaticSpec.for_function((), (), user)
        return Jitted(PMAP, fn, user, _jax.PMAP_TRACE_NAME, spec)
    bound = _bound_call(fn)
    if bound is not None:
        # A jitted method bound to an instance (``m.fwd`` of a jax.jit, filter_jit or
        # nnx.jit method): the wrapper sees ``self`` first, its static_argnums counted from
        # it. Named and split as the wrapper sees the call.
        inner = recognise(bound[0])
        if inner is not None and inner.kind in (JAX_JIT, FILTER_JIT, NNX_JIT):
            spec = BoundSpec(inner.spec, *bound[1])
            return Jitted(inner.kind, fn, inner.function, inner.trace_name, spec)
    if _is_pjit(fn):
        fun = getattr(fn, "__wrapped__", fn)
        if _is_eqx_inner(fun):
            # equinox's own jax.jit, wrapped by jitlab.watch when filter_jit ran inside it.
            return Jitted(FILTER_JIT_INNER, fn, None, fun_name(fun), EqxInnerSpec())
        bound = _jax.nnx_partial_tree(fun)
        if bound is not None:
            # nnx.jit_partial's own jax.jit, called (flat bound arguments, *args): named as
            # the user's function binds them.
            user = inspect.unwrap(fun)
            spec = PreboundSpec(user, bound, fn)
            return Jitted(NNX_JIT_INNER, fn, user, fun_name(fun), spec)
        if _module_of(fun).startswith("flax.nnx") and type(fun).__name__ == "JitFn":
            # nnx.jit's own jax.jit (of a JitFn), wrapped by jitlab.watch likewise.
            user = getattr(fun, "f", None)
            return Jitted(NNX_JIT_INNER, fn, user, fun_name(fun), NnxInnerSpec(user))
        return Jitted(JAX_JIT, fn, fun, fun_name(fun), StaticSpec.of(fn, fun))
    if type(fn).__name__ == "Compiled" and _module_of(fn).startswith("jax"):
        raise TypeError(
            "this is an ahead-of-time compiled executable (jax.jit(f).lower(...).compile()): "
            "calling it never traces or compiles, so there is nothing to probe; "
            "probe jax.jit(f) instead"
        )
    if callable(fn) and hasattr(fn, "lower") and not inspect.isfunction(fn):
        raise TypeError(
            f"jitlab cannot probe {type(fn).__module__}.{type(fn).__qualname__}: a jit "
            "wrapper it does not know (it probes jax.jit, flax.nnx.jit, equinox.filter_jit "
            "and jax.pmap). Jitting it again would change the program; probe the plain "
            "function instead"
        )
    return None


# -- equinox.filter_jit: arrays traced, everything else static ------------------------------
def is_array(leaf: Any) -> bool:
    """``equinox.is_array``: JAX and NumPy arrays are traced, all other leaves are static."""
    return isinstance(leaf, (jax.Array, np.ndarray, np.generic))


class FilterSpec(StaticSpec):
    """Argument split of ``equinox.filter_jit``, named with the user's parameters and paths.

    A Python ``float`` hyperparameter, an ``int`` size or an activation function inside a
    module are static for filter_jit: each is listed as a static value under its path
    (``lr``, ``model.layers[0].activation``), so a changed value is named, not just "changed".
    """

    def __init__(self, fun: Any) -> None:
        try:
            self._signature: inspect.Signature | None = inspect.signature(fun)
        except (TypeError, ValueError):
            self._signature = None
        params = tuple(self._signature.parameters) if self._signature else ()
        super().__init__((), (), params)

    @property
    def empty(self) -> bool:
        return False

    def _bound(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[tuple[str, Any]]:
        if self._signature is not None:
            try:  # equinox binds the same way (no defaults applied)
                return list(self._signature.bind(*args, **kwargs).arguments.items())
            except TypeError:
                pass
        named = [(f"args[{i}]", value) for i, value in enumerate(args)]
        return named + list(kwargs.items())

    def keywords(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[str, ...]:
        """equinox binds the call to the signature before its ``jax.jit`` sees it: only
        what stays a keyword there (a keyword-only parameter, ``**kwargs``) is one."""
        if self._signature is not None:
            try:
                return tuple(self._signature.bind(*args, **kwargs).kwargs)
            except TypeError:
                pass
        return tuple(kwargs)

    def split(
        self, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> tuple[list[tuple[str, Any]], list[tuple[str, Any]]]:
        traced: list[tuple[str, Any]] = []
        static: list[tuple[str, Any]] = []
        for name, value in self._bound(args, kwargs):
            leaves, _ = jax.tree_util.tree_flatten_with_path(value)
            if all(is_array(leaf) for _, leaf in leaves):
                traced.append((name, value))
                continue
            for path, leaf in leaves:
                if not is_array(leaf):
                    static.append((f"{name}{path_text(path)}", leaf))
            # Static leaves become None (an empty subtree), as equinox partitions them.
            traced.append(
                (name, jax.tree_util.tree_map(lambda x: x if is_array(x) else None, value))
            )
        return traced, static


class EqxInnerSpec(StaticSpec):
    """equinox's inner ``jax.jit(fun_wrapped)`` seen by a watch: back to the user's arguments.

    It is called as ``(dynamic_donate, dynamic_nodonate, static)`` — JAX would name a leaf
    ``dynamic_nodonate['rest'][6]``. The user's function and arguments are rebuilt from these
    three (as equinox does inside ``fun_wrapped``) and split like :class:`FilterSpec`.
    """

    def __init__(self) -> None:
        super().__init__((), (), ())
        self._specs: dict[int, tuple[Any, FilterSpec]] = {}

    @property
    def empty(self) -> bool:
        return False

    def _spec(self, fun: Any) -> FilterSpec:
        held = self._specs.get(id(fun))
        if held is None or held[0] is not fun:
            held = (fun, FilterSpec(fun))
            self._specs = {id(fun): held}  # one user function per inner jit: keep the last
        return held[1]

    def split(
        self, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> tuple[list[tuple[str, Any]], list[tuple[str, Any]]]:
        fun, user_args, user_kwargs = unpack_filter_jit_call(args, kwargs)
        return self._spec(fun).split(user_args, user_kwargs)


def _bound_call(fn: Any) -> tuple[Any, tuple[Any, ...]] | None:
    """(the jit wrapper, the arguments bound before the call's) of a bound method of a jit
    wrapper: a method object (``jax.jit`` on a method), a ``functools.partial`` (what
    ``nnx.jit``'s ``__get__`` returns) or an equinox ``Partial`` (``filter_jit``'s)."""
    if inspect.ismethod(fn):
        return fn.__func__, (fn.__self__,)
    if isinstance(fn, functools.partial) or (
        _module_of(fn).startswith("equinox") and type(fn).__name__ == "Partial"
    ):
        func, args = getattr(fn, "func", None), getattr(fn, "args", None)
        if func is None or not isinstance(args, tuple) or getattr(fn, "keywords", None):
            return None
        if _is_pjit(func) or _jax.is_nnx_jit(func) or type(func).__name__ == "_JitWrapper":
            return func, args
    return None


class BoundSpec(StaticSpec):
    """The argument split of a jitted method bound to an instance: the instance (and any
    other bound argument) comes first, static or traced as the wrapper's options say."""

    def __init__(self, spec: StaticSpec, *bound: Any) -> None:
        self.__dict__.update(spec.__dict__)
        self._spec = spec
        self._bound = bound

    @property
    def empty(self) -> bool:
        return False

    def keywords(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[str, ...]:
        return self._spec.keywords((*self._bound, *args), kwargs)

    def split(
        self, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> tuple[list[tuple[str, Any]], list[tuple[str, Any]]]:
        return self._spec.split((*self._bound, *args), kwargs)


class NnxInnerSpec(StaticSpec):
    """nnx.jit's inner ``jax.jit(JitFn)`` seen by a watch: back to the user's arguments.

    It is called with nnx's "pure" arguments (``model.states[0][1]``); the user's own call
    is the ``JitWrapped.__call__(*args, **kwargs)`` frame just outside, found on the stack.
    Without it the pure arguments are described as they are.
    """

    def __init__(self, fun: Any) -> None:
        self._fun = fun
        super().__init__((), (), **parameter_layout(fun))
        self._user: StaticSpec | None = None

    @property
    def empty(self) -> bool:
        return False

    def split(
        self, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> tuple[list[tuple[str, Any]], list[tuple[str, Any]]]:
        frame: FrameType | None = frames.getframe(1)
        while frame is not None:
            owner = frame.f_locals.get("self") if "self" in frame.f_code.co_varnames else None
            if owner is not None and getattr(owner, "fun", None) is self._fun:
                call_args, call_kwargs = frame.f_locals.get("args"), frame.f_locals.get("kwargs")
                if isinstance(call_args, tuple) and isinstance(call_kwargs, dict):
                    if self._user is None:
                        info = recognise(owner)
                        self._user = (
                            info.spec if info else StaticSpec.for_function((), (), self._fun)
                        )
                    return self._user.split(call_args, call_kwargs)
            frame = frame.f_back
        return super().split(args, kwargs)


def _after_bound(layout: dict[str, Any], bound: int) -> dict[str, Any]:
    """A :func:`parameter_layout` past its first ``bound`` positional parameters (those a
    wrapper binds before the call's arguments)."""
    bound = min(bound, layout.get("positional", 0))
    return {
        **layout,
        "parameters": tuple(layout["parameters"][bound:]),
        "positional": layout.get("positional", 0) - bound,
    }


class PreboundSpec(StaticSpec):
    """The call of a jit whose function pre-binds leading arguments, as JAX traces it:
    ``flax.nnx.jit_partial(f, model, optimizer)`` jits a function called ``(flat, *args)``,
    ``flat`` the bound arguments flattened by ``tree`` (a tuple of them). Each is named by
    the parameter it binds (``model``, ``optimizer``), and the call's arguments by those
    after them (``x``, not ``optimizer``). ``jitted``: that ``jax.jit``, whose static
    arguments count positions of its own call, ``flat`` first (:attr:`rest` counts them
    in the user's call, after the bound ones)."""

    def __init__(self, fun: Any, tree: Any, jitted: Any = None) -> None:
        layout = parameter_layout(fun)
        self._tree = tree
        self._bound = len(tree.children())
        argnums, argnames = static_arguments(jitted)
        super().__init__(argnums, argnames, **layout)
        self.rest = StaticSpec(
            [i - 1 for i in argnums if i >= 1], argnames, **_after_bound(layout, self._bound)
        )

    @property
    def empty(self) -> bool:
        return False

    def split(
        self, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> tuple[list[tuple[str, Any]], list[tuple[str, Any]]]:
        if not args or self._bound > self.positional:
            return super().split(args, kwargs)
        try:
            bound = jax.tree_util.tree_unflatten(self._tree, args[0])
        except Exception:  # not flattened by this tree: named as called
            return super().split(args, kwargs)
        traced = [(self.parameters[i], value) for i, value in enumerate(bound)]
        rest, static = self.rest.split(args[1:], kwargs)
        return traced + rest, static


def _combine(dynamic: Any, static: Any) -> Any:
    # equinox's hashable_combine: static is (leaves, treedef); None marks a dynamic leaf.
    static_leaves, treedef = static
    leaves = [d if s is None else s for d, s in zip(dynamic, static_leaves, strict=False)]
    return jax.tree_util.tree_unflatten(treedef, leaves)


def unpack_filter_jit_call(
    args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[Any, tuple[Any, ...], dict[str, Any]]:
    """(user function, args, kwargs) from the arguments of equinox's inner jit call."""
    dynamic_donate, dynamic_nodonate, static = (*args, *kwargs.values())[:3]
    dynamic = {**dynamic_donate, **dynamic_nodonate}
    static_fun, static_first, static_rest = static
    fun = _combine(dynamic["fun"], static_fun)
    first = _combine(dynamic["first"], static_first)
    rest, user_kwargs = _combine(dynamic["rest"], static_rest)
    user_args = ((first, *rest))[:-1]  # equinox appends a dummy None argument
    return fun, tuple(user_args), dict(user_kwargs)


# -- JAX's cache size, through the wrapper ---------------------------------------------------
def _unbound(fn: Any) -> Any:
    """The jit wrapper behind a bound method of one (see :func:`_bound_call`)."""
    bound = _bound_call(fn)
    return fn if bound is None else bound[0]


def _unknown_cache_size() -> int:
    return -1


def cache_owner(info: Jitted) -> Any | None:
    """The ``jax.jit`` object whose cache holds ``info.call``'s executables (the inner one
    of ``equinox.filter_jit`` or ``flax.nnx.jit``); None for ``jax.pmap``, which builds one
    per argument structure."""
    fn = _unbound(info.call)
    if info.kind == FILTER_JIT:
        return _jax.equinox_inner_jit(fn)
    if info.kind == NNX_JIT:
        return _jax.nnx_inner_jit(fn)
    if info.kind == PMAP:
        return None
    return fn


def cache_size(info: Jitted) -> Callable[[], int]:
    """A bound ``_cache_size`` of the ``jax.jit`` that really caches ``info.call``'s
    executables (``-1`` when none is reachable, e.g. ``jax.pmap``).

    Looked up once, when a probe binds: the probe calls it on every call, so it must be the
    very method (one attribute call), not a search through the wrapper.
    """
    size = _jax.cache_size_method(cache_owner(info))
    if size is None:
        return _unknown_cache_size
    try:
        size()
    except Exception:  # a private method that changed: better unknown than wrong
        return _unknown_cache_size
    return size


def cache_identity(info: Jitted) -> Any | None:
    """Equal for two jitted objects that share one JAX cache; None when not known.

    ``jax.jit(f)`` twice (same options) share JAX's caches: JAX keys them on the Python
    function and the jit options, not on the jit object. Wrappers are compared by the inner
    ``jax.jit`` they call and the user's function.
    """
    fn = _unbound(info.call)
    options: Hashable | None
    if info.kind == JAX_JIT:
        fun = getattr(fn, "__wrapped__", None)
        options = _options_text(_jax.jit_info(fn))
    elif info.kind in (FILTER_JIT, NNX_JIT):
        inner = _jax.equinox_inner_jit(fn) or _jax.nnx_inner_jit(fn)
        fun, options = info.function, id(inner) if inner is not None else None
    else:
        return None
    if fun is None or options is None:
        return None
    try:
        hash(options)
    except TypeError:
        return None
    return (info.kind, FunctionKey(fun), _one_copy(options))


def transformations(info: Jitted) -> tuple[str, ...]:
    """The JAX transformations of the function a ``jax.jit`` was given, outermost first:
    ``jax.jit(jax.vmap(jax.grad(f)))`` → ``("vmap", "grad")``, ``jax.jit(f)`` → ``()``. Two
    jits of one function's code with other transformations are two functions to JAX."""
    if info.kind != JAX_JIT:
        return ()
    return _jax.transformations_of(getattr(_unbound(info.call), "__wrapped__", None))


class FunctionKey:
    """A function as JAX's caches key it (``weakref_lru_cache``: a weak reference, equal to
    another while both functions live and are equal by ``==`` and hash). Two bound methods
    of one object, or two equal callable objects, share JAX's cache while the first lives;
    once it is gone its key equals no other. Holds no function alive; one that cannot be
    weakly referenced is keyed by identity."""

    __slots__ = ("_hash", "_id", "_ref")

    def __init__(self, fun: Any) -> None:
        self._id = id(fun)
        self._ref: weakref.ref[Any] | None
        try:
            self._ref = weakref.ref(fun)
        except TypeError:
            self._ref = None
        try:
            self._hash = hash(fun) if self._ref is not None else self._id
        except Exception:  # unhashable: JAX could not key it either; by identity
            self._ref, self._hash = None, self._id

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FunctionKey):
            return NotImplemented
        if other is self:
            return True
        if self._ref is None or other._ref is None:
            return self._ref is other._ref and self._id == other._id
        a, b = self._ref(), other._ref()
        if a is None or b is None or self._hash != other._hash:
            return False
        if a is b:
            return True
        try:
            return bool(a == b)
        except Exception:  # an __eq__ that raises: JAX's lookup would raise; not one
            return False

    def __repr__(self) -> str:
        return f"FunctionKey({self._ref() if self._ref is not None else self._id!r})"


# Each distinct set of jit options, once: a program jitting thousands of functions with the
# same options holds one copy (about 4 KB each otherwise). Bounded: forgotten past 4,096.
_OPTIONS_SEEN: dict[Hashable, Hashable] = {}


def _one_copy(options: Hashable) -> Hashable:
    if len(_OPTIONS_SEEN) > 4096:
        _OPTIONS_SEEN.clear()
    return _OPTIONS_SEEN.setdefault(options, options)


def option_changes(new: Any, old: Any) -> list[Change]:
    """The jit options that differ between two ``cache_identity`` values of ``jax.jit``
    objects of one Python function; empty when they are not that (or nothing differs).

    ``static_argnums``/``static_argnames`` (and the donate pair) are normalised into each
    other by JAX: when both differ, only the ``…_argnums`` one is named.
    """
    if not (new and old) or new[0] != JAX_JIT or old[0] != JAX_JIT or new[1] != old[1]:
        return []
    before = dict(old[2])
    changes = [
        Change(ChangeKind.JIT_OPTIONS, name, before.get(name), text)
        for name, text in new[2]
        if before.get(name) != text
    ]
    named = {c.path for c in changes}
    return [c for c in changes if c.path.removesuffix("names") + "nums" not in named - {c.path}]


def _options_text(jit_info: Any) -> tuple[tuple[str, str], ...] | None:
    """jit's options by value (two PjitInfo of equal options do not compare equal)."""
    names = getattr(jit_info, "_fields", None)
    if names is None:
        try:
            names = [f.name for f in dataclasses.fields(jit_info)]
        except TypeError:
            return None
    skip = ("fun_sourceinfo", "fun_signature")
    return tuple(
        (_OPTION_NAMES.get(name, name), _option_value(name, getattr(jit_info, name)))
        for name in names
        if name not in skip
    )


def _option_value(name: str, value: Any) -> str:
    if name == "compiler_options_kvs" and not value:
        return "None"  # jit's default (JAX keeps no pairs)
    return option_text(value)


# jit's options under the names the user passed them by (PjitInfo keeps a few otherwise).
_OPTION_NAMES = {"compiler_options_kvs": "compiler_options"}


def option_text(value: Any) -> str:
    """A jit option's value as the user would write it: an enum by its name
    (``Inline.XLA_EARLY``, ``CompilerEffortLevel.O1``, JAX 0.11+), compiler options as the
    dict they were passed as (JAX keeps them as key-value pairs), anything else its repr."""
    if isinstance(value, enum.Enum):
        return f"{type(value).__name__}.{value.name}"
    pairs = isinstance(value, tuple) and all(
        isinstance(p, tuple) and len(p) == 2 and isinstance(p[0], str) for p in value
    )
    if pairs and value:
        return "{" + ", ".join(f"{k!r}: {option_text(v)}" for k, v in value) + "}"
    return repr(value)
