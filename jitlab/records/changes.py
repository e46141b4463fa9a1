"""What differed between a call and the executables JAX already had: the kinds (data, no words).

A :class:`~jitlab.records.calls.Change` holds one of these kinds; the words a user reads are
rendered above the records' data, per language, by :mod:`jitlab.records.change_words`.
"""

from __future__ import annotations

import enum
import re


class ChangeKind(enum.StrEnum):
    SHAPE = "shape"
    DTYPE = "dtype"
    WEAK_TYPE = "weak_type"
    SHARDING = "sharding"
    STATIC_VALUE = "static_value"
    TREE_STRUCTURE = "tree_structure"
    KEYWORD_VS_POSITIONAL = "keyword_vs_positional"
    NEW_ARGUMENT = "new_argument"
    ARGUMENT_GONE = "argument_gone"
    TRACING_CONTEXT = "tracing_context"  # a config in JAX's trace context (path = its name)
    NEW_FUNCTION_OBJECT = "new_function_object"  # path = definition site, count = how many
    # the same function jitted again with other jit options (path = the option's name)
    JIT_OPTIONS = "jit_options"
    # a hit on an executable another jax.jit object of the same function and options compiled
    # (JAX keeps one cache per function and options; path = definition site)
    SHARED_EXECUTABLE = "shared_executable"
    # the mesh in JAX's context changed (jax.set_mesh / with mesh:); before/after: the mesh
    # (``mesh(x=8)``) or None outside any; path: JAX's name of the context entry
    MESH_CONTEXT = "mesh_context"
    # the call ran inside a transformation (path: the transformations from the innermost
    # out, e.g. ``linearize,vmap``; ``transpose`` for grad's backward pass); after: what JAX
    # ran or compiled for it, None when the call was staged into an enclosing trace; count:
    # 1 when JAX compiled a new executable for it
    TRANSFORMED = "transformed"
    CACHE_CLEARED = "cache_cleared"  # only when it happened: clear_caches() or a size drop
    FIRST_CALL = "first_call"
    FIRST_SEEN = "first_seen"  # first compile jitlab saw; earlier calls hit older executables
    FIRST_PERSISTENT_LOAD = "first_persistent_load"
    JAX_EXPLAINED = "jax_explained"  # JAX said something we keep only as its raw words
    RECORDED = "recorded"  # words from an older recording that kept no structure
    UNKNOWN = "unknown"  # jitlab cannot tell; detail holds JAX's raw words, if any

    def __str__(self) -> str:
        return self.value


# -- type texts (jitlab's own notation, e.g. ``~f32[8,32]``) ---------------------------------
_TYPE = re.compile(
    r"^(?P<weak>~?)(?P<dtype>[a-z]+[0-9]*(?:_[a-z0-9]+)?(?:<\w+>)?)\[(?P<dims>[0-9, ]*)\]$"
)
# JAX's short dtype names (``f32``, ``bf16``, ``i4``, ``f8_e4m3fn``) back to NumPy's.
_SHORT = re.compile(r"^(?P<kind>bf|f|u|i|c)(?P<bits>[0-9]+)(?P<rest>_[a-z0-9]+)?$")
_KINDS = {"bf": "bfloat", "f": "float", "u": "uint", "i": "int", "c": "complex"}


def _long_dtype(short: str) -> str:
    m = _SHORT.match(short)
    if m is None or short == "float0":
        return short
    return f"{_KINDS[m['kind']]}{m['bits']}{m['rest'] or ''}"


def parse_type(text: str | None) -> tuple[str, tuple[int, ...], bool] | None:
    """(dtype, shape, weak) of a type text such as ``f32[8,32]``; None if it is not one."""
    m = _TYPE.match(text or "")
    if m is None:
        return None
    shape = tuple(int(d) for d in m["dims"].replace(" ", "").split(",") if d)
    return _long_dtype(m["dtype"]), shape, bool(m["weak"])


# What the probe records for a sub-tree without leaves (jitlab.probe.diff): data, which
# :mod:`jitlab.records.change_words` says in Chinese.
NO_LEAVES = "no leaves"
