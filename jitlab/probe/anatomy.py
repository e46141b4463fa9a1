"""Take a JAX error apart in three layers: where in your code, what was being traced, which values.

A JAX error read top to bottom mixes the Python stack, the tracing context and abstract
values. :func:`analyze` separates them so the CLI and the GUI can show each layer on its
own, with the error's category and the usual fix. :func:`rerun_eagerly` replays the same
call under ``jax.disable_jit()`` and :func:`jaxpr_text` shows what a (fixed) function
traces to. Headless: pure Python + JAX.
"""

from __future__ import annotations

import enum
import functools
import os
import re
import sysconfig
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jax

from jitlab.records.calls import Signature
from jitlab.records.error_words import explain_headline
from jitlab.records.paths import engine_dirs
from jitlab.records.text import Text


class Category(enum.StrEnum):
    CONTROL_FLOW = "control-flow"  # Python if/while/bool() on a traced value
    CONCRETE_VALUE = "concrete-value"  # a concrete number needed while tracing
    SHAPE = "shape"  # shapes or dtypes that do not fit together
    STATIC_ARGUMENT = "static-argument"  # a static argument jit cannot hash
    LEAKED_TRACER = "leaked-tracer"  # a tracer escaped its trace (a side effect)
    OTHER = "other"

    def __str__(self) -> str:
        return self.value

    @property
    def heading(self) -> Text:
        """The category's name in words (not ``title``: that is ``str.title`` on a StrEnum)."""
        return _TITLES[self]

    @property
    def fix(self) -> Text:
        return _FIXES[self]


_TITLES = {
    Category.CONTROL_FLOW: Text(
        "Python control flow on a traced value", "在追踪值上用 Python 控制流"
    ),
    Category.CONCRETE_VALUE: Text("A concrete value needed while tracing", "追踪时需要具体数值"),
    Category.SHAPE: Text("Shapes that do not fit", "形状对不上"),
    Category.STATIC_ARGUMENT: Text("A static argument jit cannot hash", "jit 无法哈希的静态参数"),
    Category.LEAKED_TRACER: Text("A tracer leaked out of its trace", "追踪值泄漏到了追踪之外"),
    Category.OTHER: Text("Another error", "其他错误"),
}

_FIXES = {
    Category.CONTROL_FLOW: Text(
        "While tracing, a value is only a shape and a dtype, so Python cannot decide an if "
        "on it. Put the choice in the graph: jax.lax.cond for two branches, jnp.where for an "
        "elementwise choice, lax.while_loop/lax.fori_loop for loops. If the condition really "
        "is a setting, make that argument static.",
        "追踪时一个值只有形状和 dtype，Python 的 if 无从判断真假。把选择写进计算图："
        "两个分支用 jax.lax.cond，逐元素选择用 jnp.where，循环用 lax.while_loop/"
        "lax.fori_loop。如果条件其实是个配置项，就把那个参数声明为静态。",
    ),
    Category.CONCRETE_VALUE: Text(
        "The operation needs a real number while tracing, usually because it decides an "
        "output shape (jnp.repeat, jnp.zeros(n), jnp.nonzero, a slice length). Pass that "
        "argument as static (static_argnames), or give the operation a fixed size (size=, "
        "total_repeat_length=) so the shape no longer depends on the data.",
        "这个操作在追踪时就需要真实的数值，通常是因为它决定了输出形状（jnp.repeat、"
        "jnp.zeros(n)、jnp.nonzero、切片长度）。把该参数声明为静态（static_argnames），"
        "或给操作一个固定大小（size=、total_repeat_length=），让形状不再依赖数据。",
    ),
    Category.SHAPE: Text(
        "Two abstract values do not fit together (a contraction over different lengths, "
        "shapes that do not broadcast). The error names the shapes: check which argument has "
        "the wrong layout (a missing transpose, a wrong axis, a wrong weight) and fix it at "
        "the source rather than reshaping blindly.",
        "两个抽象值对不上（收缩维长度不同、形状无法广播）。错误信息里写着具体形状："
        "找出哪个参数的布局错了（少了转置、轴不对、权重拿错），从源头改，而不是盲目 reshape。",
    ),
    Category.STATIC_ARGUMENT: Text(
        "jit keys its cache on the values of static arguments, so they must be hashable. A "
        "JAX or numpy array is not: pass it as a normal (traced) argument. If you need a "
        "constant table, use a tuple, and expect one compile per distinct value.",
        "jit 用静态参数的值做缓存键，所以它们必须可哈希。JAX 或 numpy 数组不可哈希："
        "把它当普通（追踪）参数传入。如果确实需要常量表，用元组，并接受每个不同取值"
        "都会编译一次。",
    ),
    Category.LEAKED_TRACER: Text(
        "A traced value was stored outside the function (a global, a list, self) and used "
        "after its trace ended. Return it as an output instead.",
        "某个追踪值被存到了函数外面（全局变量、列表、self），并在追踪结束后被使用。"
        "改为把它作为返回值带出来。",
    ),
    Category.OTHER: Text(
        "Read the innermost frame of your own code first, then the abstract values; re-run "
        "under jax.disable_jit() to see whether the error is about tracing at all.",
        "先看你自己代码里最内层的那一帧，再看抽象值；用 jax.disable_jit() 重跑一次，"
        "判断错误到底是否与追踪有关。",
    ),
}


@dataclass(frozen=True, slots=True)
class Frame:
    """One frame of the user's own code."""

    filename: str
    lineno: int
    function: str
    line: str

    def __str__(self) -> str:
        return f"{Path(self.filename).name}:{self.lineno} in {self.function}: {self.line}"


@dataclass(frozen=True, slots=True)
class TracingContext:
    """Layer 2: what JAX was doing when it failed."""

    phase: str  # "tracing", "before tracing", or "running"
    function: str | None = None  # the function being traced
    location: str | None = None  # where that function is defined ("file.py:12")
    transform: str | None = None  # "jit", "vmap", …
    arguments: tuple[str, ...] = ()  # arguments whose concrete value was needed
    operation: str | None = None  # the operation that asked for it, when JAX names it
    inferred: bool = False  # True when JAX did not say and jitlab read it from the stack


@dataclass(frozen=True, slots=True)
class AbstractValue:
    """Layer 3: an abstract value (shape and dtype, no numbers) involved in the error."""

    text: str  # e.g. "float32[8,32]" or "(32,)"
    shape: tuple[int, ...]
    dtype: str | None = None
    source: str = "message"  # "message", or the argument path it belongs to

    def __str__(self) -> str:
        return self.text if self.source == "message" else f"{self.source}: {self.text}"


@dataclass(frozen=True, slots=True)
class ErrorAnatomy:
    error_type: str  # e.g. "TracerBoolConversionError"
    headline: str  # the first line of JAX's message
    category: Category
    stack: tuple[Frame, ...]  # layer 1: the user's frames, outermost first
    context: TracingContext  # layer 2
    abstract_values: tuple[AbstractValue, ...]  # layer 3
    docs_url: str | None = None

    @property
    def failing_frame(self) -> Frame | None:
        """The innermost frame of the user's code: the line to look at."""
        return self.stack[-1] if self.stack else None

    @property
    def fix(self) -> Text:
        return self.category.fix

    def to_json(self) -> dict[str, Any]:
        return {
            "error_type": self.error_type,
            "headline": self.headline,
            "category": self.category.value,
            "stack": [
                {"file": f.filename, "line": f.lineno, "function": f.function, "code": f.line}
                for f in self.stack
            ],
            "context": {
                "phase": self.context.phase,
                "function": self.context.function,
                "location": self.context.location,
                "transform": self.context.transform,
                "arguments": list(self.context.arguments),
                "operation": self.context.operation,
                "inferred": self.context.inferred,
            },
            "abstract_values": [
                {"text": v.text, "shape": list(v.shape), "dtype": v.dtype, "source": v.source}
                for v in self.abstract_values
            ],
            "category_title": {"en": self.category.heading.en, "zh": self.category.heading.zh},
            # The headline in our words (None where we have none): JAX's own text stays.
            "headline_explained": (
                {"en": explained.en, "zh": explained.zh}
                if (explained := explain_headline(self.error_type, self.category.value))
                else None
            ),
            "fix": {"en": self.fix.en, "zh": self.fix.zh},
            "docs_url": self.docs_url,
        }


# -- which frames are the user's ------------------------------------------------------------
def _internal_roots() -> tuple[str, ...]:
    roots = [os.path.dirname(jax.__file__), *engine_dirs()]
    try:
        import jaxlib

        roots.append(os.path.dirname(jaxlib.__file__))
    except ImportError:  # pragma: no cover - jaxlib always ships with jax
        pass
    for key in ("stdlib", "platstdlib"):
        path = sysconfig.get_paths().get(key)
        if path:
            roots.append(path)
    return tuple(os.path.realpath(r) + os.sep for r in roots)


_INTERNAL = _internal_roots()


def is_user_frame(filename: str) -> bool:
    """Not JAX, jaxlib, the standard library, jitlab's engine or a third-party package."""
    if filename.startswith("<"):
        return False
    path = os.path.realpath(filename)
    if path.startswith(_INTERNAL):
        return False
    # Third-party packages (pytest, …) are not the user's; built-in scenarios in a wheel are.
    return not ("site-packages" in path and "_builtin" not in path)


def user_frames(tb: Any, keep: Callable[[str], bool] = is_user_frame) -> tuple[Frame, ...]:
    return tuple(
        Frame(entry.filename, entry.lineno or 0, entry.name, (entry.line or "").strip())
        for entry in traceback.extract_tb(tb)
        if keep(entry.filename)
    )


# -- reading JAX's message ------------------------------------------------------------------
_DTYPES = (
    r"bool|bfloat16|float8_\w+|float16|float32|float64|u?int(?:4|8|16|32|64)|complex64|complex128"
    r"|f16|f32|f64|bf16|i8|i16|i32|i64|u8|u32|c64"
)
_TYPED = re.compile(rf"\b({_DTYPES})\[([0-9, ]*)\]")
_TUPLE = re.compile(r"\((\d+(?:, ?\d+)*,?)\)")
_TRACING = re.compile(
    r"while tracing the function (?P<fn>.+?) at (?P<loc>\S+?) for (?P<how>[\w.]+)\.", re.S
)
_ARGUMENTS = re.compile(r"depends on the values? of the arguments? (?P<args>.+?)\.(?:\s|$)")
_DOCS = re.compile(r"(https://\S*docs\.jax\.dev\S*|https://jax\.readthedocs\.io\S*)")
_OPERATIONS = (
    (re.compile(r"jit-compiling (jnp\.\w+)"), None),
    (re.compile(r"argument of (jnp\.\w+)"), None),
    (re.compile(r"^(\w+) requires", re.M), None),
    (re.compile(r"Attempted boolean conversion"), "bool() of a traced value (if / while / and)"),
    (re.compile(r"hash an object"), "hashing a static argument"),
)


def _operation(message: str) -> str | None:
    for pattern, label in _OPERATIONS:
        match = pattern.search(message)
        if match:
            return label or match.group(1)
    return None


def _split_names(text: str) -> tuple[str, ...]:
    parts = re.split(r",\s*|\s+and\s+", text.strip())
    return tuple(p.strip() for p in parts if p.strip())


def _category(exc: BaseException, message: str) -> Category:
    errors = jax.errors
    if isinstance(exc, errors.TracerBoolConversionError):
        return Category.CONTROL_FLOW
    if isinstance(exc, errors.UnexpectedTracerError):
        return Category.LEAKED_TRACER
    if isinstance(
        exc,
        (
            errors.ConcretizationTypeError,
            errors.TracerIntegerConversionError,
            errors.TracerArrayConversionError,
        ),
    ):
        return Category.CONCRETE_VALUE
    if "Non-hashable static arguments" in message or "unhashable type" in message:
        return Category.STATIC_ARGUMENT
    if isinstance(exc, (TypeError, ValueError)) and re.search(
        r"shape|broadcast|dimension|incompatible", message, re.I
    ):
        return Category.SHAPE
    return Category.OTHER


def _abstract_values(message: str, signature: Signature | None) -> tuple[AbstractValue, ...]:
    values: list[AbstractValue] = []
    seen: set[str] = set()
    for match in _TYPED.finditer(message):
        text = match.group(0).replace(" ", "")
        if text in seen:
            continue
        seen.add(text)
        dims = tuple(int(d) for d in match.group(2).replace(" ", "").split(",") if d)
        values.append(AbstractValue(text, dims, match.group(1)))
    if not values:  # messages such as "got (32,) and (16,)" quote bare shapes
        for match in _TUPLE.finditer(message):
            text = match.group(0).replace(" ", "")
            if text in seen:
                continue
            seen.add(text)
            dims = tuple(int(d) for d in match.group(1).replace(" ", "").split(",") if d)
            values.append(AbstractValue(text, dims))
    for leaf in signature.leaves if signature else ():
        shown = ",".join(str(d) for d in leaf.shape)
        text = f"{'weak ' if leaf.weak_type else ''}{leaf.dtype}[{shown}]"
        values.append(AbstractValue(text, leaf.shape, leaf.dtype, leaf.path))
    return tuple(values)


def analyze(
    exc: BaseException,
    *,
    signature: Signature | None = None,
    keep: Callable[[str], bool] = is_user_frame,
) -> ErrorAnatomy:
    """The three layers of ``exc``; pass the call's signature to name the arguments' types."""
    message = str(exc)
    lines = [line for line in message.strip().splitlines() if line.strip()]
    headline = lines[0] if lines else type(exc).__name__
    category = _category(exc, message)
    stack = user_frames(exc.__traceback__, keep)

    tracing = _TRACING.search(message)
    arguments = _ARGUMENTS.search(message)
    operation = _operation(message)
    if tracing:
        location = tracing.group("loc")
        file, _, line = location.rpartition(":")
        context = TracingContext(
            phase="tracing",
            function=tracing.group("fn"),
            location=f"{Path(file).name}:{line}" if file else location,
            transform=tracing.group("how"),
            arguments=_split_names(arguments.group("args")) if arguments else (),
            operation=operation,
        )
    elif category is Category.STATIC_ARGUMENT:
        statics = tuple(name for name, _ in signature.statics) if signature else ()
        context = TracingContext(
            phase="before tracing", arguments=statics, operation=operation, inferred=True
        )
    elif stack and category is not Category.OTHER:
        # JAX did not say; the innermost user frame is the body that was being traced.
        context = TracingContext(
            phase="tracing", function=stack[-1].function, operation=operation, inferred=True
        )
    else:
        context = TracingContext(phase="running", operation=operation, inferred=True)

    docs = _DOCS.search(message)
    return ErrorAnatomy(
        error_type=type(exc).__name__,
        headline=headline,
        category=category,
        stack=stack,
        context=context,
        abstract_values=_abstract_values(message, signature),
        docs_url=docs.group(1).rstrip(".") if docs else None,
    )


# -- the same call without jit, and the jaxpr of a function ----------------------------------
@dataclass(frozen=True, slots=True)
class EagerRun:
    """What the call does under ``jax.disable_jit()``: plain Python with concrete values."""

    ok: bool
    result: str | None = None  # short text of the result when it ran
    error_type: str | None = None
    message: str | None = None
    frame: Frame | None = None  # the plain Python line that failed

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "result": self.result,
            "error_type": self.error_type,
            "message": self.message,
            "frame": str(self.frame) if self.frame else None,
        }


def rerun_eagerly(
    fn: Callable[..., Any],
    *args: Any,
    keep: Callable[[str], bool] = is_user_frame,
    **kwargs: Any,
) -> EagerRun:
    """Call ``fn`` with jit turned off: errors now point at the plain Python line."""
    try:
        with jax.disable_jit():
            result = fn(*args, **kwargs)
            # JAX leaves block_until_ready's argument unannotated (it returns its pytree).
            result = jax.block_until_ready(result)  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    except KeyboardInterrupt:  # Ctrl-C belongs to the user
        raise
    except BaseException as exc:  # the replayed code's sys.exit() is its error, not our end
        frames = user_frames(exc.__traceback__, keep)
        if isinstance(exc, Exception):
            message = str(exc).strip().splitlines()
        else:  # SystemExit's own str() is a bare code such as "3"
            message = [f"{exc!r} raised by the scenario"]
        return EagerRun(
            ok=False,
            error_type=type(exc).__name__,
            message=message[0] if message else "",
            frame=frames[-1] if frames else None,
        )
    return EagerRun(ok=True, result=_short(result))


def jaxpr_text(fn: Callable[..., Any], *args: Any, **static: Any) -> str:
    """``jax.make_jaxpr`` of ``fn`` as text; keyword arguments are bound as static values."""
    target = functools.partial(fn, **static) if static else fn
    # JAX leaves make_jaxpr's keyword arguments partly unannotated.
    return str(jax.make_jaxpr(target)(*args))  # pyright: ignore[reportUnknownMemberType]


def _short(value: Any, limit: int = 120) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def format_anatomy(anatomy: ErrorAnatomy, language: str = "en") -> str:
    """A plain-text rendering (the CLI's; the GUI lays the same fields out itself)."""
    zh = language.startswith("zh")
    out: list[str] = [f"{anatomy.error_type}: {anatomy.headline}"]
    out.append(("① 调用栈（只留你的代码）" if zh else "1. Python stack (your frames)") + ":")
    out += [f"   {frame}" for frame in anatomy.stack] or ["   -"]
    ctx = anatomy.context
    out.append(("② 追踪上下文" if zh else "2. Tracing context") + ":")
    if ctx.function:
        where = f" ({ctx.location})" if ctx.location else ""
        out.append(
            f"   {ctx.phase} {ctx.function}{where}"
            + (f" for {ctx.transform}" if ctx.transform else "")
        )
    else:
        out.append(f"   {ctx.phase}")
    if ctx.arguments:
        out.append(
            "   " + ("需要具体值的参数: " if zh else "argument(s): ") + ", ".join(ctx.arguments)
        )
    if ctx.operation:
        out.append("   " + ("操作: " if zh else "operation: ") + ctx.operation)
    out.append(("③ 抽象值" if zh else "3. Abstract values") + ":")
    out += [f"   {value}" for value in anatomy.abstract_values] or ["   -"]
    out.append(("类别: " if zh else "Category: ") + anatomy.category.heading.get(language))
    out.append(("修复: " if zh else "Fix: ") + anatomy.fix.get(language))
    return "\n".join(out)


__all__ = [
    "AbstractValue",
    "Category",
    "EagerRun",
    "ErrorAnatomy",
    "Frame",
    "TracingContext",
    "analyze",
    "format_anatomy",
    "is_user_frame",
    "jaxpr_text",
    "rerun_eagerly",
    "user_frames",
]
