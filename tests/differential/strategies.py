"""Hypothesis strategies of small programs and their calls, over the dimensions of issue 50.

A program's first call draws every argument; each later call either repeats an earlier one
(so JAX serves it from its cache, or the closest earlier program is not the last one) or
changes the one before in one to three places at once: a shape, a dtype, a weak type, a
sharding, a static value, a pytree's structure or static data, keyword vs position.
Between calls the program may switch x64, call under a matmul precision, or clear a cache.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from hypothesis import strategies as st

from .specs import (
    Arr,
    Call,
    Clear,
    Config,
    Ident,
    Node,
    Param,
    Program,
    Py,
    SetX64,
    Spec,
    Step,
)

Draw = Callable[[st.SearchStrategy[Any]], Any]

SHAPES: list[tuple[int, ...]] = [(3,), (2,), (4,), (2, 3), ()]
DTYPES = ["float32", "float16", "int32", "bfloat16"]
FLOATS = ["float32", "float16", "bfloat16"]
AUX: list[Any] = ["a", "b", 1, 2, True, None]
STATICS: list[Any] = [
    1,
    2,
    "a",
    "b",
    (1, 2),
    (1, 3),
    Config(0.1, 1),
    Config(0.2, 1),
    Config(0.1, 2),
    Ident("A"),
    Ident("A", 1),
    Ident("B"),
]
FIELDS = ["a", "b", "c"]
# Node kinds of JAX's own; the libraries' (struct, eqx, nnx) need flax or equinox.
PLAIN_NODES = ("tuple", "list", "dict", "dataclass", "decorated", "keyed", "flat", "partial")
CONTAINERS = ("tuple", "list", "dict", "dataclass", "decorated")
# Transformations around a call, and the shapes its first argument takes there (a float
# array with a leading axis: vmap and scan map over it).
VIA = ("vmap", "grad", "jvp", "linearize", "scan", "remat")
VIA_SHAPES: list[tuple[int, ...]] = [(2,), (3,), (2, 3), (4,)]


@dataclass(frozen=True)
class Dims:
    """The dimensions a test draws from."""

    wrappers: tuple[str, ...] = ("jit",)
    kinds: tuple[str, ...] = ()  # node kinds arguments may hold (none: leaves only)
    statics: bool = True  # a static parameter (by value, by identity)
    via: tuple[str | None, ...] = (None,)  # transformations around calls
    bodies: tuple[str, ...] = ("sum",)  # transformations inside
    handings: tuple[str, ...] = ("once",)
    context: bool = True  # x64, matmul precision, clears between calls
    sharded: bool = False  # shardings on the simulated devices (the sharded run only)
    max_calls: int = 5
    # Where a sharded program's arrays may lie: on the mesh (replicated, split along x) or
    # on the second device; never both in one call (JAX refuses arrays on other devices).
    placement: str = "mesh"


# -- arguments -------------------------------------------------------------------------------


def _shardings(shape: tuple[int, ...], dims: Dims) -> list[str | None]:
    """Where an array of ``shape`` may lie: the default device, or on the sharded run's
    two-device mesh, or its second device."""
    if dims.placement == "device":
        return [None, "dev1"]
    options: list[str | None] = [None, "rep"]
    if shape:
        options.append("rep2")  # P(None): P() to JAX
        if shape[0] % 2 == 0:
            options.append("x")
    return options


def _fit(spec: Arr, dims: Dims) -> Arr:
    """``spec`` with a sharding its shape allows (a changed shape may not split any more)."""
    if not dims.sharded or spec.sharding in _shardings(spec.shape, dims):
        return spec
    return replace(spec, sharding="rep")


@st.composite
def arrays(draw: Draw, dims: Dims, dtypes: list[str] = DTYPES) -> Arr:
    shape = draw(st.sampled_from(SHAPES))
    sharding = draw(st.sampled_from(_shardings(shape, dims))) if dims.sharded else None
    return Arr(shape, draw(st.sampled_from(dtypes)), sharding)


def scalars() -> st.SearchStrategy[Py]:
    return st.builds(Py, st.sampled_from(["float", "int"]), st.integers(0, 2))


def leaves(dims: Dims, scalar: bool = True) -> st.SearchStrategy[Spec]:
    return st.one_of(arrays(dims), scalars()) if scalar else arrays(dims)


@st.composite
def nodes(draw: Draw, dims: Dims, kinds: tuple[str, ...], depth: int = 1) -> Node:
    kind = draw(st.sampled_from(kinds))
    count = draw(st.integers(0 if kind in ("dict", "tuple") else 1, 2))
    names = FIELDS[:count]
    if kind == "nnx":  # an NNX module's children are its Params: arrays
        children: list[Spec] = [draw(arrays(dims, FLOATS)) for _ in names]
    else:
        inner = tuple(k for k in kinds if k in CONTAINERS)
        child = leaves(dims)
        if depth > 0 and inner:
            child = st.one_of(leaves(dims), nodes(dims, inner, depth - 1))
        children = [draw(child) for _ in names]
    aux: tuple[tuple[str, Any], ...] = ()
    if kind == "partial":
        aux = (("func", draw(st.sampled_from(["plus", "times"]))),)
    elif kind not in ("tuple", "list", "dict"):
        aux = tuple((f"s{i}", draw(st.sampled_from(AUX))) for i in range(draw(st.integers(0, 2))))
    return Node(kind, tuple(zip(names, children, strict=True)), aux)


# -- changes ---------------------------------------------------------------------------------


@st.composite
def changed_array(draw: Draw, spec: Arr, dims: Dims, scalar: bool = True) -> Spec:
    moves = (
        ["shape", "dtype"] + (["weak"] if scalar else []) + (["sharding"] if dims.sharded else [])
    )
    move = draw(st.sampled_from(moves))
    if move == "shape":
        shape = draw(st.sampled_from([s for s in SHAPES if s != spec.shape]))
        return _fit(replace(spec, shape=shape), dims)
    if move == "dtype":
        dtypes = FLOATS if not scalar else DTYPES
        return replace(spec, dtype=draw(st.sampled_from([d for d in dtypes if d != spec.dtype])))
    if move == "sharding":
        options = [s for s in _shardings(spec.shape, dims) if s != spec.sharding]
        return replace(spec, sharding=draw(st.sampled_from(options)))
    return Py("float" if spec.dtype != "int32" else "int")


@st.composite
def changed_spec(draw: Draw, spec: Spec, dims: Dims, eqx: bool) -> Spec:
    """``spec`` changed in one place (a leaf's type, a node's structure or static data)."""
    if isinstance(spec, Arr):
        return draw(changed_array(spec, dims))
    if isinstance(spec, Py):
        move = draw(st.sampled_from(["kind", "array", *(["value"] if eqx else [])]))
        if move == "kind":
            return replace(spec, kind="int" if spec.kind == "float" else "float")
        if move == "value":
            return replace(spec, value=(spec.value + 1) % 3)
        return _fit(Arr((), "float32" if spec.kind == "float" else "int32"), dims)
    assert isinstance(spec, Node)
    moves = ["child"] if spec.fields else []
    if spec.aux:
        moves.append("aux")
    if spec.kind not in ("partial", "nnx"):
        moves.append("grow")
    if spec.kind in ("tuple", "list"):
        moves.append("kind")
    move = draw(st.sampled_from(moves))
    if move == "child":
        i = draw(st.integers(0, len(spec.fields) - 1))
        name, child = spec.fields[i]
        fields = list(spec.fields)
        if spec.kind == "nnx":
            assert isinstance(child, Arr)
            fields[i] = (name, draw(changed_array(child, dims, scalar=False)))
        else:
            fields[i] = (name, draw(changed_spec(child, dims, eqx)))
        return replace(spec, fields=tuple(fields))
    if move == "aux":
        if spec.kind == "partial":
            func = "times" if dict(spec.aux)["func"] == "plus" else "plus"
            return replace(spec, aux=(("func", func),))
        i = draw(st.integers(0, len(spec.aux) - 1))
        aux = list(spec.aux)
        aux[i] = (aux[i][0], draw(st.sampled_from([v for v in AUX if v != aux[i][1]])))
        return replace(spec, aux=tuple(aux))
    if move == "kind":
        return replace(spec, kind="list" if spec.kind == "tuple" else "tuple")
    if len(spec.fields) < len(FIELDS) and (not spec.fields or draw(st.booleans())):
        return replace(spec, fields=(*spec.fields, (FIELDS[len(spec.fields)], draw(leaves(dims)))))
    return replace(spec, fields=spec.fields[:-1])


@st.composite
def changed_static(draw: Draw, value: Any) -> Any:
    return draw(
        st.sampled_from([v for v in STATICS if not (type(v) is type(value) and v == value)])
    )


@st.composite
def changed_first(draw: Draw, spec: Arr) -> Arr:
    """The first argument of a program called under transformations: a float array with a
    leading axis, changed in shape or float dtype."""
    if draw(st.booleans()):
        return replace(
            spec, shape=draw(st.sampled_from([s for s in VIA_SHAPES if s != spec.shape]))
        )
    return replace(spec, dtype=draw(st.sampled_from([d for d in FLOATS if d != spec.dtype])))


@st.composite
def next_call(
    draw: Draw, params: tuple[Param, ...], before: Call, dims: Dims, wrapper: str
) -> Call:
    """``before`` changed in one to three places at once."""
    args = list(before.args)
    keywords = set(before.keywords)
    transformed = dims.via != (None,)
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(params) - 1))
        if draw(st.integers(0, 3)) == 0:
            # Keyword arguments come last: from parameter i on, or none.
            keywords = set() if keywords else {p.name for p in params[i:]}
        elif params[i].static:
            args[i] = draw(changed_static(args[i]))
        elif transformed and i == 0:
            args[i] = draw(changed_first(args[i]))
        else:
            args[i] = draw(changed_spec(args[i], dims, wrapper == "eqx.filter_jit"))
    via = draw(st.sampled_from(dims.via))
    if via is not None:  # a transformed call passes the first argument by position
        keywords.discard(params[0].name)
    precision = before.precision
    if dims.context:
        precision = draw(st.sampled_from([precision, precision, None, "float32", "highest"]))
    return Call(tuple(args), frozenset(keywords), via, precision)


@st.composite
def programs(draw: Draw, dims: Dims) -> Program:
    """A program over ``dims``: its parameters and first call, then calls that repeat or
    change earlier ones, with context steps between."""
    wrapper = draw(st.sampled_from(dims.wrappers))
    names = ["x", "y", "z"][: draw(st.integers(1, 3))]
    params = [Param(n) for n in names]
    if dims.statics and draw(st.booleans()):
        params.append(Param("s", static=True))
    transformed = dims.via != (None,)
    body = draw(st.sampled_from(dims.bodies))
    via = ("vmap-named",) if body == "named" else dims.via
    # nnx.jit_partial takes NNX modules only among its pre-bound arguments.
    kinds = tuple(k for k in dims.kinds if k != "nnx" or wrapper != "nnx.jit_partial")
    placement = draw(st.sampled_from(["mesh", "device"])) if dims.sharded else dims.placement
    dims = replace(dims, via=via, kinds=kinds, placement=placement)
    args: list[Any] = []
    for i, param in enumerate(params):
        if param.static:
            args.append(draw(st.sampled_from(STATICS)))
        elif transformed and i == 0:
            shape, dtype = draw(st.sampled_from(VIA_SHAPES)), draw(st.sampled_from(FLOATS))
            args.append(Arr(shape, dtype))
        elif dims.kinds and draw(st.booleans()):
            args.append(draw(nodes(dims, dims.kinds)))
        else:
            args.append(draw(leaves(dims, scalar=True)))
    handing = draw(st.sampled_from(dims.handings))
    first = Call(tuple(args), frozenset(), draw(st.sampled_from(via)))
    calls = [first]
    steps: list[Step] = [first]
    for _ in range(draw(st.integers(1, dims.max_calls - 1))):
        if dims.context and handing == "once" and draw(st.integers(0, 5)) == 0:
            steps.append(draw(st.sampled_from(_context_steps(wrapper))))
        if draw(st.integers(0, 3)) == 0:
            call = draw(st.sampled_from(calls))
        else:
            call = draw(next_call(tuple(params), calls[-1], dims, wrapper))
        calls.append(call)
        steps.append(call)
    return Program(tuple(params), tuple(steps), wrapper, body, handing)


def _context_steps(wrapper: str) -> list[Step]:
    steps: list[Step] = [SetX64(True), SetX64(False), Clear("all")]
    if wrapper in ("jit", "method", "partial", "callable"):
        steps.append(Clear("function"))
    return steps
