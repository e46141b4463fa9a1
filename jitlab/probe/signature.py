"""Abstract signatures of jitted calls, and what differs between two of them (as data)."""

from __future__ import annotations

import hashlib
import inspect
import re
from collections.abc import Hashable, Sequence
from itertools import compress
from operator import ne
from typing import Any, TypeGuard, cast

import jax
from jax.sharding import SingleDeviceSharding

from jitlab.probe import _jax
from jitlab.probe import diff as diff_module
from jitlab.probe.diff import diff as diff
from jitlab.probe.diff import distance as distance
from jitlab.probe.diff import key_keywords as key_keywords
from jitlab.probe.diff import key_statics as key_statics
from jitlab.probe.diff import mesh_text as mesh_text
from jitlab.probe.diff import short_repr
from jitlab.probe.diff import static_value_changes as static_value_changes
from jitlab.records.calls import Change, LeafSpec, Signature


class StaticSpec:
    """Which arguments of a jitted function are static, and the names of its parameters.

    Arguments are named as Python binds them (and as JAX's own explanations name them):
    ``rest[0]`` for the first value caught by ``*rest``, ``kwargs['y']`` for a keyword
    caught by ``**kwargs``, ``args[3]`` past the end of a signature without ``*args``.
    """

    def __init__(
        self,
        static_argnums: Sequence[int] = (),
        static_argnames: Sequence[str] = (),
        parameters: Sequence[str] = (),
        *,
        positional: int | None = None,
        var_positional: str | None = None,
        var_keyword: str | None = None,
    ) -> None:
        self.parameters = tuple(parameters)
        # The parameters a positional argument can fill (all of them when not told).
        self.positional = len(self.parameters) if positional is None else positional
        self.var_positional = var_positional
        self.var_keyword = var_keyword
        self._named = frozenset(self.parameters) - {var_positional, var_keyword}
        nums = {i for i in static_argnums}
        names = set(static_argnames)
        # jit treats a static position and its parameter name as the same argument.
        for i, name in enumerate(self.parameters[: self.positional]):
            if name in names:
                nums.add(i)
            if i in nums:
                names.add(name)
        self.argnums = frozenset(nums)
        self.argnames = frozenset(names)

    @classmethod
    def of(cls, jitted: Any, fun: Any) -> StaticSpec:
        return cls.for_function(*static_arguments(jitted), fun)

    @classmethod
    def for_function(
        cls, static_argnums: Sequence[int], static_argnames: Sequence[str], fun: Any
    ) -> StaticSpec:
        """The split of ``fun``'s arguments, its parameters read from its signature."""
        return cls(static_argnums, static_argnames, **parameter_layout(fun))

    @property
    def empty(self) -> bool:
        return not self.argnums and not self.argnames

    def positional_name(self, i: int) -> str:
        if i < self.positional:
            return self.parameters[i]
        if self.var_positional is not None:
            return f"{self.var_positional}[{i - self.positional}]"
        return f"args[{i}]"

    def keyword_name(self, name: str) -> str:
        if self.var_keyword is not None and name not in self._named:
            return f"{self.var_keyword}[{name!r}]"
        return name

    def keywords(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[str, ...]:
        """The names passed by keyword as the wrapper hands the call to ``jax.jit``, which
        caches ``f(x, y)`` and ``f(x, y=y)`` apart: those called so, here."""
        return tuple(kwargs)

    def split(
        self, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> tuple[list[tuple[str, Any]], list[tuple[str, Any]]]:
        """(traced, static) arguments as (name, value) pairs, in call order."""
        traced: list[tuple[str, Any]] = []
        static: list[tuple[str, Any]] = []
        for i, value in enumerate(args):
            (static if i in self.argnums else traced).append((self.positional_name(i), value))
        for name, value in kwargs.items():
            side = static if name in self.argnames else traced
            side.append((self.keyword_name(name), value))
        return traced, static


def static_arguments(jitted: Any) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """A ``jax.jit`` object's static argument positions and names as JAX resolved them
    against its function's signature (those of the ``jax.jit`` a library's wrapper calls:
    ``nnx.jit`` keeps no ``static_argnames`` of its own); none for anything else."""
    info = _jax.jit_info(jitted)  # private, so read defensively
    argnums = getattr(info, "static_argnums", ()) or ()
    argnames = getattr(info, "static_argnames", ()) or ()
    return tuple(argnums), tuple(argnames)


def parameter_layout(fun: Any) -> dict[str, Any]:
    """``fun``'s parameter names, how many a positional argument can fill, and the names
    of its ``*args`` and ``**kwargs`` parameters (StaticSpec's keyword arguments)."""
    try:
        parameters = inspect.signature(fun).parameters.values()
    except (TypeError, ValueError):
        return {"parameters": ()}
    kind = inspect.Parameter
    var_positional = var_keyword = None
    positional = 0
    for p in parameters:
        if p.kind in (kind.POSITIONAL_ONLY, kind.POSITIONAL_OR_KEYWORD):
            positional += 1
        elif p.kind is kind.VAR_POSITIONAL:
            var_positional = p.name
        elif p.kind is kind.VAR_KEYWORD:
            var_keyword = p.name
    return {
        "parameters": tuple(p.name for p in parameters),
        "positional": positional,
        "var_positional": var_positional,
        "var_keyword": var_keyword,
    }


def leaf_key(leaf: Any) -> Hashable:
    """A cheap hashable stand-in for what jit keys a leaf's executable on (used on every
    call): ``(aval, sharding)`` for an array committed to its device(s); the abstract value
    alone for one JAX places where the call runs: an uncommitted array (``jnp.ones``, a jit
    result of uncommitted inputs), a NumPy array, a Python scalar. jit compiles a committed
    array and an uncommitted one apart, and serves uncommitted arrays on any device, NumPy
    arrays and scalars of one abstract value with one executable."""
    try:
        if leaf.committed:
            return leaf.aval, leaf.sharding
        return leaf.aval
    except Exception:  # not a jax.Array: a tracer (its flag raises), a scalar, NumPy's
        return jax.typeof(leaf)


def leaf_aval(key: Any) -> Any:
    """The abstract value in a :func:`leaf_key`."""
    return key[0] if type(key) is tuple else key


# What fast_key makes: (generation, tree, leaf keys, statics, keyword names).
FastKey = tuple[int, Any, tuple[Hashable, ...], tuple[tuple[str, Hashable], ...], tuple[str, ...]]


def is_fast_key(key: Hashable | None) -> TypeGuard[FastKey]:
    """A card's key made by :func:`fast_key` (not an adopted card's, nor None)."""
    return isinstance(key, tuple) and len(cast("tuple[object, ...]", key)) == 5  # a length only


def fast_key(
    spec: StaticSpec, generation: int, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Hashable:
    """A key that is equal exactly when two calls share a jit cache entry (as far as we see).

    Layout: (generation, tree, leaf keys, statics, keyword names). The statics are the real
    objects (hashable, as jit requires), so keys compare them as jit does: by ``==``/hash.
    The keyword names are there because jit caches ``f(x, y)`` and ``f(x, y=y)`` apart.
    """
    if spec.empty:
        leaves, tree = jax.tree_util.tree_flatten((args, kwargs))
        return generation, tree, tuple([leaf_key(leaf) for leaf in leaves]), (), tuple(kwargs)
    traced, static = spec.split(args, kwargs)
    leaves, tree = jax.tree_util.tree_flatten([value for _, value in traced])
    return (
        generation,
        tree,
        tuple([leaf_key(leaf) for leaf in leaves]),
        statics_key(static),
        spec.keywords(args, kwargs) if kwargs else (),
    )


class HashedKey(tuple):
    """A compile's :func:`fast_key`, hashed once: a 1,000-leaf key costs ~0.07 ms to hash
    (JAX's avals and shardings hash in Python), and a compile looks it up and files it.
    Equal to, and hashed as, the plain key a hit makes."""

    _hash: int

    def __hash__(self) -> int:
        return self._hash


def hashed_once(key: Hashable | None) -> Hashable | None:
    """``key`` as a :class:`HashedKey` (None, or a key that does not hash, as it is)."""
    if type(key) is not tuple:
        return key
    try:
        value = hash(key)
    except TypeError:
        return key
    made = HashedKey(key)
    made._hash = value
    return made


def statics_key(static: list[tuple[str, Any]]) -> tuple[tuple[str, Hashable], ...]:
    """The statics part of :func:`fast_key`, from :meth:`StaticSpec.split`'s static side."""
    return tuple((name, _hashable(value)) for name, value in static)


def _hashable(value: Any) -> Hashable:
    try:
        hash(value)
    except TypeError:
        return ("<unhashable>", id(value))
    return value


def _sharding_text(sharding: Any) -> str | None:
    """A sharding over devices as a signature writes it (``P('x',) on mesh(x=2)``); None
    for one device (:func:`_device_text` names it where JAX compiles for it)."""
    if sharding is None or isinstance(sharding, SingleDeviceSharding):
        return None
    spec = getattr(sharding, "spec", None)
    mesh = getattr(sharding, "mesh", None)
    if spec is not None and mesh is not None:
        text = f"{_jax.spec_text(normal_spec(spec))} on {_mesh_text(mesh)}"
    else:
        text = f"{type(sharding).__name__} over {len(sharding.device_set)} devices"
    return text + _memory_text(sharding)


def _device_text(sharding: Any) -> str | None:
    """The device of an array committed to one, as reasons name it (``cpu:1``), and its
    memory where it is not the device's own (``cpu:0 pinned_host``); None for a sharding
    over devices (:func:`_sharding_text`)."""
    if not isinstance(sharding, SingleDeviceSharding):
        return None
    device: Any = next(iter(sharding.device_set))  # (JAX's Device type is not typed here)
    return f"{device.platform}:{device.id}{_memory_text(sharding)}"


def _memory_text(sharding: Any) -> str:
    """`` pinned_host`` for a sharding in a memory other than its devices' own: JAX compiles
    for it apart. "" for the default memory (nearly every array)."""
    kind = getattr(sharding, "memory_kind", None)
    if kind is None:
        return ""
    try:
        device = next(iter(sharding.device_set))
        default = device.default_memory().kind
    except Exception:  # a backend that names no memories: the kind is all there is to say
        return f" {kind}"
    return "" if kind == default else f" {kind}"


def _mesh_text(mesh: Any) -> str:
    """``mesh(x=2)``; an axis of a type other than Auto names it (``mesh(x=2 explicit)``),
    and a mesh whose devices are not the default ones in the default order names them
    (``mesh(x=2 on cpu:1,cpu:0)``): JAX compiles for each of these apart."""
    try:
        types = [getattr(t, "name", str(t)) for t in getattr(mesh, "axis_types", ())]
        sizes = list(mesh.shape.items())
        if len(types) != len(sizes):
            types = ["Auto"] * len(sizes)
        axes = ",".join(
            f"{name}={size}" + ("" if kind == "Auto" else f" {kind.lower()}")
            for (name, size), kind in zip(sizes, types, strict=True)
        )
        devices = list(mesh.devices.flat)
    except Exception:  # a mesh of another kind: its axes as JAX writes them
        return f"mesh({','.join(f'{n}={s}' for n, s in getattr(mesh, 'shape', {}).items())})"
    order = "" if _default_order(devices, tuple(mesh.shape.values())) else _order_text(devices)
    return f"mesh({axes}{order})"


_default_orders: dict[tuple[str, tuple[int, ...]], tuple[int, ...]] = {}


def _default_order(devices: list[Any], sizes: tuple[int, ...]) -> bool:
    """Are a mesh's devices the ones a program gets without choosing: those of
    ``jax.make_mesh`` of its shape over all its platform's devices (a physical order on a
    TPU), or the first ones of ``jax.devices()`` in their order for a mesh of fewer?"""
    platform = devices[0].platform if devices else ""
    memo = (platform, sizes)
    order = _default_orders.get(memo)
    if order is None:
        everyone = jax.devices(platform) if platform else jax.devices()
        order = tuple(d.id for d in everyone[: len(devices)])
        if len(devices) == len(everyone) and len(sizes) > 0:
            try:
                names = tuple(f"a{i}" for i in range(len(sizes)))
                made = jax.make_mesh(sizes, names, devices=everyone)
                order = tuple(d.id for d in made.devices.flat)
            except Exception:  # make_mesh cannot lay them out so: the plain order
                pass
        if len(_default_orders) >= 256:
            _default_orders.clear()
        _default_orders[memo] = order
    return tuple(d.id for d in devices) == order


def _order_text(devices: list[Any]) -> str:
    """`` on cpu:1,cpu:0``: the devices in the mesh's order; past eight, the first three,
    the last and a digest of the whole order (two orders never read alike)."""
    names = [f"{d.platform}:{d.id}" for d in devices]
    if len(names) <= 8:
        return " on " + ",".join(names)
    digest = hashlib.blake2s(",".join(names).encode(), digest_size=3).hexdigest()
    return f" on {','.join(names[:3])},…,{names[-1]} #{digest}"


def normal_spec(spec: Any) -> Any:
    """A PartitionSpec as JAX's cache compares it: trailing ``None`` entries (unsharded
    dimensions) dropped, so ``P(None, None)`` is ``P()`` — the same executable."""
    entries = list(spec)
    if not entries or entries[-1] is not None:
        return spec
    while entries and entries[-1] is None:
        entries.pop()
    try:
        return type(spec)(*entries)
    except Exception:  # a spec type that cannot be rebuilt: shown as it is
        return spec


def equivalent_keys(a: Hashable, b: Hashable) -> bool:
    """Two :func:`fast_key` values of calls JAX serves with one executable, though their
    shardings are not ``==`` (``NamedSharding(mesh, P())`` and ``P(None, None)``): compared
    with ``Sharding.is_equivalent_to``, as JAX's cache does. Off the hot path: asked only
    when a hit matches no card exactly."""
    if not (isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b) == 5):
        return False
    if a[0] != b[0] or a[1] != b[1] or a[3] != b[3] or a[4] != b[4] or len(a[2]) != len(b[2]):
        return False
    for x, y in zip(a[2], b[2], strict=True):
        if x == y:
            continue
        if not (isinstance(x, tuple) and isinstance(y, tuple)) or x[0] != y[0]:
            return False
        try:
            if not x[1].is_equivalent_to(y[1], len(x[0].shape)):
                return False
        except Exception:
            return False
    return True


def describe(
    spec: StaticSpec,
    generation: int,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    key: Hashable | None = None,
) -> Signature:
    """The full, readable signature (computed only when something was compiled).

    Flat in the work it repeats: a 1,000-leaf model's compiles differ in a leaf or two, so
    the path texts are made once per structure and each leaf's spec once per path and type
    (:func:`_leaf_spec`); the rest is a flatten and a dictionary lookup per leaf. ``key``,
    the call's :func:`fast_key`, lends its leaves' (aval, sharding) pairs where they are in
    this order (:func:`key_in_leaf_order`), so that no leaf is read twice."""
    return describe_keyed(spec, generation, args, kwargs, key)[0]


def describe_keyed(
    spec: StaticSpec,
    generation: int,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    key: Hashable | None,
) -> tuple[Signature, Hashable | None, list[Any] | None]:
    """:func:`describe`, and ``key`` with each leaf's (aval, sharding) pair the very object
    of the last call of this structure where they are equal: a card keeps its compile's key,
    and a 1,000-leaf call's pairs are 56 KB that every card would otherwise hold again.
    Also the traced leaves where they are in ``key``'s order (else None): a compile reads
    its committed flags off them instead of flattening the arguments again."""
    traced, static = spec.split(args, kwargs)
    values = [value for _, value in traced]
    flat, tree = jax.tree_util.tree_flatten(values)
    texts = _traced_path_texts(traced, values, tree)
    pairs = key[2] if key_in_leaf_order(spec, key) else None  # type: ignore[index]
    in_key_order = False
    if pairs is not None and len(pairs) == len(flat):
        in_key_order = True
        leaves, shared = _specs_like_last(texts, pairs, flat)
        key = _with_pairs(key, shared)
    else:
        leaves = tuple(_leaf_spec(text, leaf) for text, leaf in zip(texts, flat, strict=True))
    statics = tuple((name, short_repr(value)) for name, value in static)
    names = _argument_names(spec, traced, kwargs)
    return (
        Signature(leaves, statics, _tree_text(tree), generation, names),
        key,
        flat if in_key_order else None,
    )


def _argument_names(
    spec: StaticSpec, traced: list[tuple[str, Any]], kwargs: dict[str, Any]
) -> tuple[str, ...]:
    """The traced arguments' names in the order of the tree :func:`fast_key` keys on: as
    split, or with no statics positional then keywords sorted (``(args, kwargs)``)."""
    if not spec.empty:
        return tuple(name for name, _ in traced)
    keywords = len(kwargs)
    positional = tuple(name for name, _ in traced[: len(traced) - keywords])
    return positional + tuple(spec.keyword_name(name) for name in sorted(kwargs))


def _with_pairs(key: Any, pairs: tuple[Any, ...]) -> Any:
    """``key`` (a :func:`fast_key`) with ``pairs``, equal to its own, as its leaves."""
    if pairs is key[2] or not isinstance(key, HashedKey):
        return key  # a key hashed afresh each time is not kept in a card's form
    made = HashedKey((key[0], key[1], pairs, key[3], key[4]))
    made._hash = key._hash  # equal pairs: the same hash
    return made


def key_in_leaf_order(spec: StaticSpec, key: Hashable | None) -> bool:
    """Are a :func:`fast_key`'s leaves in the order :func:`describe` lists them?

    Yes unless keywords were passed out of name order to a function with no statics:
    fast_key then flattens ``(args, kwargs)``, whose dict JAX sorts by name, while the
    signature lists arguments as called."""
    if not (isinstance(key, tuple) and len(key) == 5):
        return False
    names = key[4]
    return not spec.empty or len(names) < 2 or list(names) == sorted(names)


# Memos of what a compile describes again and again: bounded (cleared when full), shared by
# every probe (their entries are immutable texts and specs, keyed by what makes them).
_MEMO_LIMIT = 1 << 15
_path_memo: dict[Hashable, tuple[str, ...]] = {}
# Keyed by the sharding's id (its Python __hash__ would cost more than the rest of the leaf),
# the entry holding the sharding itself so that the id stays its own while the entry lives.
_spec_memo: dict[tuple[str, Any, int], tuple[Any, LeafSpec]] = {}
_spec_by_id: dict[tuple[str, int, int], tuple[Any, Any, LeafSpec]] = {}  # see _leaf_spec_of
# Per structure (its path texts' id): the last call's leaf pairs and specs (_specs_like_last).
_last_specs: dict[int, tuple[tuple[str, ...], tuple[Any, ...], tuple[LeafSpec, ...]]] = {}
_dtype_names: dict[Any, str] = {}  # str(dtype) is ~4 µs of numpy Python per leaf


def _traced_path_texts(
    traced: list[tuple[str, Any]], values: list[Any], tree: Any
) -> tuple[str, ...]:
    """The path texts of the traced arguments' leaves (``values``, of treedef ``tree``),
    each under its argument's name: ``path[0]`` indexes the argument list."""
    names = tuple(name for name, _ in traced)
    return _path_texts(("traced", tree, names), values, lambda path: names[path[0].idx], 1)


def _path_texts(memo_key: Hashable, pytree: Any, root: Any, skip: int) -> tuple[str, ...]:
    """Each leaf's path in ``pytree`` as text (``params['w']``): its argument's name
    (``root(path)``) and ``keystr`` of the path past its first ``skip`` entries. Made once
    per structure (``memo_key`` holds the treedef and the names)."""
    try:
        texts = _path_memo.get(memo_key)
    except Exception:  # a treedef whose aux data does not hash (or compare): made each time
        memo_key, texts = None, None
    if texts is None:
        flat = jax.tree_util.tree_flatten_with_path(pytree)[0]
        texts = tuple(
            root(path) + (path_text(tuple(path[skip:])) if len(path) > skip else "")
            for path, _ in flat
        )
        if memo_key is not None:
            if len(_path_memo) >= _MEMO_LIMIT // 64:
                _path_memo.clear()
            _path_memo[memo_key] = texts
    return texts


# A child of a node registered without keys: ``keystr`` writes ``[<flat index 0>]``, JAX's
# argument names ``[0]`` (``linear_util._clean_keystr_arg_names``, JAX 0.6 to 0.12).
_FLAT_INDEX = re.compile(r"<flat index ([^>]+)>")


def path_text(path: tuple[Any, ...]) -> str:
    """A key path as JAX writes it in its argument names (``m[0]``, ``p.w['k']``)."""
    return _FLAT_INDEX.sub(r"\1", jax.tree_util.keystr(path))


def _leaf_spec(path: str, leaf: Any) -> LeafSpec:
    """A leaf's spec, one object per path and abstract value (so equal leaves of two
    signatures are one object: :func:`diff` passes them by identity)."""
    return _leaf_spec_of(path, leaf_key(leaf), leaf)


def _specs_like_last(
    texts: tuple[str, ...], pairs: Sequence[Any], flat: list[Any]
) -> tuple[tuple[LeafSpec, ...], tuple[Any, ...]]:
    """The leaves' specs, from the last call described with this structure where its
    (aval, sharding) pairs are equal — found at C speed: a model's parameters keep theirs
    from compile to compile, so only the leaves that changed (the batch) are looked up.
    Also the pairs, the last call's very objects where equal (see :func:`describe_keyed`)."""
    last = _last_specs.get(id(texts))
    specs, shared = None, tuple(pairs)
    if last is not None and last[0] is texts and len(last[1]) == len(pairs):
        reused, kept = list(last[2]), list(last[1])
        try:
            for i in compress(range(len(pairs)), map(ne, pairs, last[1])):
                reused[i] = _leaf_spec_of(texts[i], pairs[i], flat[i])
                kept[i] = pairs[i]
            specs, shared = tuple(reused), tuple(kept)
        except Exception:  # a pair that does not compare: looked up one by one
            specs = None
    if specs is None:
        specs = _specs_of(texts, pairs, flat)
    if len(_last_specs) >= _MEMO_LIMIT // 64:
        _last_specs.clear()
    _last_specs[id(texts)] = (texts, shared, specs)  # texts held: the id stays its own
    return specs, shared


def _specs_of(texts: Sequence[str], pairs: Sequence[Any], flat: list[Any]) -> tuple[LeafSpec, ...]:
    """The leaves' specs from their :func:`leaf_key` pairs (a structure's first call)."""
    return tuple(map(_leaf_spec_of, texts, pairs, flat))


def _leaf_spec_of(path: str, pair: Any, leaf: Any) -> LeafSpec:
    """:func:`_leaf_spec` from the leaf's :func:`leaf_key` (``(aval, sharding)`` for an array
    committed to its device(s), else its aval)."""
    committed = type(pair) is tuple
    if committed:
        aval, sharding = pair
    else:  # placed where the call runs: on no device of its own (one spec wherever it lives)
        aval, sharding = pair, getattr(leaf, "sharding", None)
        if isinstance(sharding, SingleDeviceSharding):
            sharding = None
    # First by the very objects (a model's parameters keep theirs from step to step), at C
    # speed: the entry holds them, so their ids stay theirs while it lives.
    by_id = (path, id(aval), id(sharding))
    found = _spec_by_id.get(by_id)
    if found is not None and found[0] is aval and found[1] is sharding:
        return found[2]
    memo_key: tuple[str, Any, int] | None = (path, aval, id(sharding))
    try:
        held = _spec_memo.get(memo_key)  # type: ignore[arg-type]
    except Exception:  # an abstract value that does not hash (or compare)
        memo_key, held = None, None
    if held is not None and held[0] is sharding:
        made = held[1]
    else:
        made = LeafSpec(
            path=path,
            shape=tuple(int(d) for d in aval.shape),
            dtype=_dtype_name(aval.dtype),
            weak_type=bool(getattr(aval, "weak_type", False)),
            sharding=_sharding_text(sharding),
            device=_device_text(sharding) if committed else None,
        )
        if memo_key is not None:
            if len(_spec_memo) >= _MEMO_LIMIT:
                _spec_memo.clear()
            _spec_memo[memo_key] = (sharding, made)
    if memo_key is not None:  # an aval that hashes: its spec is one object (see above)
        if len(_spec_by_id) >= _MEMO_LIMIT:
            _spec_by_id.clear()
        _spec_by_id[by_id] = (aval, sharding, made)
    return made


def _dtype_name(dtype: Any) -> str:
    try:
        name = _dtype_names.get(dtype)
    except Exception:  # a dtype that does not hash: named each time
        return _dtype_text(dtype)
    if name is None:
        name = _dtype_names[dtype] = _dtype_text(dtype)
    return name


dtype_name = _dtype_name


def _dtype_text(dtype: Any) -> str:
    """``str(dtype)``, but ``float0`` for JAX's float0 (a structured NumPy dtype whose text is
    ``[('float0', 'V')]``; JAX writes ``float0[2,2]``)."""
    try:
        if dtype == jax.dtypes.float0:
            return "float0"
    except Exception:  # an extended dtype that does not compare with NumPy's
        pass
    return str(dtype)


def _tree_text(tree: Any) -> str:
    # PyTreeDef([(*, *), ...]) -> the part inside the outer brackets, which is what users wrote.
    text = str(tree)
    return text.removeprefix("PyTreeDef(").removesuffix(")")


# -- tracing context ----------------------------------------------------------------------
def context_snapshot() -> tuple[Any, ...]:
    """JAX's trace context now: the config values (precision, rank promotion, meshes, …)
    that are part of every tracing-cache key. Cheap (~0.2 µs); taken on compiles only."""
    try:
        return tuple(_jax.trace_context())
    except Exception:  # private API: without it jitlab just names no context change
        return ()


def context_changes(new: tuple[Any, ...], old: tuple[Any, ...]) -> list[Change]:
    """The trace-context entries that differ, named as JAX names them."""
    if not new or not old or new == old or len(new) != len(old):
        return []
    try:
        names = tuple(_jax.trace_context_names())
    except Exception:
        names = ()
    return diff_module.context_changes(new, old, names)
