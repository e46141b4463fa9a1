"""JAX's error headlines explained in our words, in English and Chinese (JAX-free).

JAX's own message stays the source of truth and is always shown too; this only says, in
the reader's language, what the headline means. Keyed by the exception's class name, with
the error's category (:class:`jitlab.probe.anatomy.Category`, by value) as a fallback. An
error we have no words for gets none: we never guess (the original text is shown alone).
"""

from __future__ import annotations

from jitlab.records.text import Text

_BY_TYPE = {
    "TracerBoolConversionError": Text(
        "While tracing, the code asked for a traced value as a Python True/False (an if, "
        "while, and/or or bool() on it); a traced value has a shape and a dtype, no value.",
        "追踪时，代码要把一个追踪值当作 Python 的 True/False 来用（对它写了 if、while、"
        "and/or 或 bool()）；而追踪值只有形状和 dtype，还没有具体数值。",
    ),
    "ConcretizationTypeError": Text(
        "An operation needed a concrete number while tracing (often to fix an output's "
        "shape), but the value was still abstract: a tracer.",
        "某个操作在追踪时就需要一个具体的数（常常是为了确定输出的形状），但那时这个值"
        "还只是抽象的追踪值（tracer）。",
    ),
    "TracerIntegerConversionError": Text(
        "While tracing, the code asked for a traced value as a Python int (int(), an index "
        "or a range bound); it has no value yet.",
        "追踪时，代码要把一个追踪值当作 Python 的 int 来用（int()、下标或 range 的上界）；"
        "而它这时还没有具体数值。",
    ),
    "TracerArrayConversionError": Text(
        "While tracing, the code asked for a traced value as a NumPy array (np.asarray, a "
        "NumPy function); inside jit, use jax.numpy instead.",
        "追踪时，代码要把一个追踪值转成 NumPy 数组（np.asarray 或某个 NumPy 函数）；"
        "在 jit 里请改用 jax.numpy。",
    ),
    "UnexpectedTracerError": Text(
        "A traced value escaped the function it was traced in (kept in a global, a list "
        "or self) and was used after that trace had ended.",
        "某个追踪值逃出了追踪它的函数（被存进全局变量、列表或 self），并在那次追踪结束后又被使用。",
    ),
    "NonConcreteBooleanIndexError": Text(
        "Indexing with a boolean mask makes the result's shape depend on the data, which "
        "jit cannot allow; use jnp.where or a fixed size.",
        "用布尔掩码做下标，结果的形状取决于数据，jit 不允许这样；请改用 jnp.where 或固定大小。",
    ),
}

_BY_CATEGORY = {
    "shape": Text(
        "Two shapes that do not fit together met in one operation; JAX's text below names them.",
        "一个运算里碰上了两个对不上的形状；下面 JAX 的原文写明了是哪两个形状。",
    ),
    "static-argument": Text(
        "A static argument must be hashable, because jit keys its cache on its value; an "
        "array is not hashable.",
        "静态参数必须可哈希，因为 jit 用它的值做缓存键；而数组不可哈希。",
    ),
    "leaked-tracer": _BY_TYPE["UnexpectedTracerError"],
    "control-flow": _BY_TYPE["TracerBoolConversionError"],
    "concrete-value": _BY_TYPE["ConcretizationTypeError"],
}


def explain_headline(error_type: str, category: str | None = None) -> Text | None:
    """What JAX's headline means, in both languages; None when we have no words for it."""
    return _BY_TYPE.get(error_type) or _BY_CATEGORY.get(category or "")


# The operations the anatomy names in our own words (jitlab.probe.anatomy._OPERATIONS, by
# their label: a fixed vocabulary of ours, not JAX's text); a jnp function keeps its name.
_OPERATIONS = {
    "bool() of a traced value (if / while / and)": Text(
        "bool() of a traced value (if / while / and)", "把追踪值当作真假来用（if / while / and）"
    ),
    "hashing a static argument": Text("hashing a static argument", "对静态参数求哈希"),
}


def operation_words(label: str, lang: str) -> str:
    """An anatomy's operation label in ``lang`` (a name such as ``jnp.repeat`` as it is)."""
    words = _OPERATIONS.get(label)
    return words.get(lang) if words is not None else label
