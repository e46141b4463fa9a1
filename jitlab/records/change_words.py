"""The words of a change and of a reason, in English and Chinese, and the JSON that carries them.

A :class:`~jitlab.records.calls.Change` is data; the words a user reads are rendered here, one
function per language, so the CLI, the GUI and the reports never parse English back into data.
This module sits above the data (:mod:`jitlab.records.calls`, :mod:`jitlab.records.changes`),
which know no words. No Qt: the GUI calls :func:`reason_text` with its interface language.
"""

from __future__ import annotations

import dataclasses
import os
import re
from typing import Any

from jitlab.records.calls import CallRecord, Change, Reason
from jitlab.records.changes import NO_LEAVES, ChangeKind
from jitlab.records.diagnoses import identity_parts


def _weakness(type_text: str | None, lang: str) -> str:
    weak = (type_text or "").startswith("~")
    if lang == "zh":
        return "弱" if weak else "强"
    return "weak" if weak else "strong"


# -- rendering -------------------------------------------------------------------------------
def render(change: Change, lang: str = "en", *, full: bool = False) -> str:
    """One change in ``lang`` (``en`` or ``zh``; anything else falls back to English).

    A pytree structure change keeps both sub-trees in full (data); it is shown shortened
    unless ``full`` (``--verbose``, a click on the row)."""
    if change.kind is ChangeKind.TREE_STRUCTURE and not full:
        change = dataclasses.replace(
            change, before=_shortened(change.before), after=_shortened(change.after)
        )
    if change.kind in _SITED and change.path and not full:
        change = dataclasses.replace(change, path=site_text(change.path))
    return _zh(change) if lang == "zh" else _en(change)


def reason_words(reason: Reason, lang: str = "en", *, full: bool = False) -> tuple[str, ...]:
    """Each change of ``reason`` in ``lang`` (what the CLI and the JSON ``changes`` list show)."""
    return tuple(render(change, lang, full=full) for change in reason.items)


def reason_text(reason: Reason | None, lang: str = "en", *, full: bool = False) -> str:
    """The changes of ``reason`` in ``lang`` on one line; "" for no reason."""
    if reason is None:
        return ""
    separator = "；" if lang == "zh" else "; "  # full-width in Chinese
    return separator.join(reason_words(reason, lang, full=full))


# -- the JSON that carries the words ----------------------------------------------------------
def reason_json(reason: Reason) -> dict[str, Any]:
    """A reason as ``jitlab run --json`` and the app's exports write it: the changes as data
    (``items``) and JAX's words (``jax``), as a recording keeps it (:meth:`Reason.to_json`),
    plus the English words twice (``changes``, ``text``) for people and scripts that read them."""
    words = reason_words(reason)
    return {
        "changes": list(words),
        "items": [change.to_json() for change in reason.items],
        "text": "; ".join(words),
        "jax": reason.jax_explanation,
    }


def call_json(record: CallRecord) -> dict[str, Any]:
    """The public JSON form of a call (``jitlab run --json``, the app's exports):
    :meth:`CallRecord.to_json` with its reason's English words (:func:`reason_json`)."""
    line = record.to_json()
    if record.reason is not None:  # the same key, in the same place
        line["reason"] = reason_json(record.reason)
    return line


# Kinds whose path is where a function is defined (``/abs/dir/file.py:12``).
_SITED = (ChangeKind.NEW_FUNCTION_OBJECT, ChangeKind.SHARED_EXECUTABLE)
_SITE = re.compile(r"^(?P<file>.+?):(?P<line>[0-9]+)(?::[0-9]+)?$")


def site_text(site: str) -> str:
    """A definition site as a learner reads it: ``file.py:12``, or the path relative to the
    working folder when the file is under it (``scenarios/recompile_cost.py:113``); never a
    machine's absolute path. The record keeps the site whole (``--verbose`` shows it)."""
    m = _SITE.match(site)
    if m is None or not os.path.isabs(m["file"]):
        return site
    file = m["file"]
    try:
        relative = os.path.relpath(file)
    except ValueError:  # another drive (Windows)
        relative = ""
    if not relative or relative == os.pardir or relative.startswith(os.pardir + os.sep):
        relative = os.path.basename(file) or file
    return f"{relative}:{m['line']}"


_SHORT_TREE = 80  # characters of a sub-tree's text shown when not in full


def _shortened(text: str | None) -> str | None:
    if text is None or len(text) <= _SHORT_TREE:
        return text
    return text[: _SHORT_TREE - 1] + "…"


_NO_LEAVES_ZH = "没有叶子"  # NO_LEAVES (data, recorded by the probe) in Chinese


def _tree_counts(c: Change) -> tuple[int, int] | None:
    """(leaves added, leaves removed) of a structure change that counted them."""
    if not c.detail.startswith("removed="):
        return None
    try:
        return c.count, int(c.detail.removeprefix("removed="))
    except ValueError:
        return None


def _leaves_en(added: int, removed: int) -> str:
    def n(k: int, what: str) -> str:
        return f"{k} {'leaf' if k == 1 else 'leaves'} {what}"

    if added and removed:
        return f"{n(added, 'added')}, {removed} removed"
    if added:
        return n(added, "added")
    if removed:
        return n(removed, "removed")
    return "the same leaves, another structure"


def _leaves_zh(added: int, removed: int) -> str:
    if added and removed:
        return f"增加 {added} 个叶子，减少 {removed} 个"
    if added:
        return f"增加 {added} 个叶子"
    if removed:
        return f"减少 {removed} 个叶子"
    return "叶子相同，结构不同"


def _en(c: Change) -> str:
    k, path, before, after = c.kind, c.path, c.before, c.after
    if k in (ChangeKind.SHAPE, ChangeKind.DTYPE):
        return f"{path}: {after} ← {before}"
    if k is ChangeKind.WEAK_TYPE:
        return (
            f"weak type of {path} changed: {_weakness(after, 'en')} ← {_weakness(before, 'en')}"
            f" ({after} ← {before})"
        )
    if k is ChangeKind.SHARDING and c.detail == "device":  # a single device for another
        return f"device of {path}: {after or 'uncommitted'} ← {before or 'uncommitted'}"
    if k is ChangeKind.SHARDING:
        return (
            f"sharding of {path} changed: {after or 'single device'} ← {before or 'single device'}"
        )
    if k is ChangeKind.STATIC_VALUE:
        if before is None:
            return f"static {path}: {after} (new)"
        if after is None:
            return f"static {path} gone"
        same = " (same text, unequal values)" if before == after else ""
        identity = identity_parts(c.detail)  # decided on the two objects (identity-static)
        if identity:
            same = _identity_en(identity)
        return f"static {path}: {after} ← {before}{same}"
    if k is ChangeKind.TREE_STRUCTURE and identity_parts(c.detail):
        identity = identity_parts(c.detail) or {}
        what = "Flax NNX graph attribute" if identity.get("graph") else "pytree static data"
        # Both print the same but for an address: the new one is enough.
        return f"{what} {path} built anew: {after}{_identity_en(identity)}"
    if k is ChangeKind.TREE_STRUCTURE and c.detail == "static":
        return f"static data of the pytree node {path} changed (compared by ==): {after} ← {before}"
    if k is ChangeKind.TREE_STRUCTURE and c.detail == "class":
        return f"{path or 'an argument'} is of another class: {after} ← {before}"
    if k is ChangeKind.TREE_STRUCTURE:
        where = f" at {path}" if path else ""
        counts = _tree_counts(c)
        if counts is not None:
            return f"pytree structure changed{where}: {_leaves_en(*counts)} ({after} ← {before})"
        return f"pytree structure changed{where}: {after} ← {before}"
    if k is ChangeKind.KEYWORD_VS_POSITIONAL:
        now, was = ("keyword", "position") if after == "keyword" else ("position", "keyword")
        return f"{path} passed by {now}, before by {was}"
    if k is ChangeKind.NEW_ARGUMENT:
        return f"new argument {path}: {after}"
    if k is ChangeKind.ARGUMENT_GONE:
        return f"argument {path} gone (was {before})"
    if k is ChangeKind.TRACING_CONTEXT and c.detail == "axis":  # a named axis (vmap, pmap)
        if not path:  # JAX's words only: which axis and its sizes are not in them
            return "the named axes in context changed (vmap/pmap axis_name)"
        if before is None:
            return f"called inside named axis {path} (size {after}), before outside it"
        if after is None:
            return f"called outside named axis {path}, before inside it (size {before})"
        return f"size of named axis {path} (vmap/pmap axis_name): {after} ← {before}"
    if k is ChangeKind.TRACING_CONTEXT:
        if not path:
            return f"tracing context changed (config or context manager){_says(c.detail)}"
        return f"tracing context {path}: {after} ← {before}"
    if k is ChangeKind.NEW_FUNCTION_OBJECT and (before is not None or after is not None):
        return (
            f"another function of the code at {path}: {_transformed(after, 'en')} ← "
            f"{_transformed(before, 'en')} (each JAX transformation of a function is a "
            "function of its own, compiled apart)"
        )
    if k is ChangeKind.NEW_FUNCTION_OBJECT:
        hint = _redefined_en(c.detail)
        if not path:
            return f"new function object{hint}"
        times = f" ({c.count} function objects so far)" if c.count > 1 else ""
        return f"new function object: the same code at {path} was jitted again{times}{hint}"
    if k is ChangeKind.JIT_OPTIONS:
        return f"the same function jitted again with another {path}: {after} ← {before}"
    if k is ChangeKind.SHARED_EXECUTABLE:
        at = f" (defined at {path})" if path else ""
        return (
            f"served by an executable compiled for another jax.jit of the same function{at}: "
            "JAX keeps one cache per function and jit options"
        )
    if k is ChangeKind.MESH_CONTEXT:
        if after and not before:
            return (
                f"called inside jax.set_mesh({after}), before outside any mesh: the mesh in "
                "context is part of JAX's cache key"
            )
        if before and not after:
            return (
                f"called outside jax.set_mesh, before inside it ({before}): the mesh in "
                "context is part of JAX's cache key"
            )
        return f"another mesh in context (jax.set_mesh): {after} ← {before}"
    if k is ChangeKind.TRANSFORMED and path == "linear":
        return (
            "the function jax.linearize returned was applied: its linear part is another "
            f"program, so JAX compiled a new executable for it ({after})"
        )
    if k is ChangeKind.TRANSFORMED and path == "remat":
        return (
            "jax.checkpoint ran the computation it traced this function into: JAX compiled "
            f"the function's program from that trace ({after})"
        )
    if k is ChangeKind.TRANSFORMED:
        under = " inside ".join(_TRANSFORMS_EN.get(t, t) for t in path.split(",") if t)
        if after is None:
            return (
                f"traced under {under}: staged into the enclosing computation, which JAX "
                "compiles as a whole; no executable of this function ran"
            )
        if c.count:
            return (
                f"traced under {under}: a transformed function is another program, so JAX "
                f"compiled a new executable for it ({after})"
            )
        return f"ran under {under}: JAX reused the executable it compiled for it ({after})"
    if k is ChangeKind.CACHE_CLEARED and c.detail == "jax.clear_caches()":
        return "jax.clear_caches() emptied JAX's caches, so this signature compiled again"
    if k is ChangeKind.CACHE_CLEARED and c.detail == "clear_cache()":
        return (
            f"{path or 'the function'}.clear_cache() emptied this function's cache, so this "
            "signature compiled again"
        )
    if k is ChangeKind.CACHE_CLEARED and c.detail == "evicted":
        return "JAX's cache no longer had this signature: JAX evicted it (no cache was cleared)"
    if k is ChangeKind.CACHE_CLEARED:
        return "JAX's cache no longer had this signature (jax.clear_caches() or eviction)"
    if k is ChangeKind.FIRST_CALL and c.detail:  # after programs of it under transformations
        under = ", ".join(_TRANSFORMS_EN.get(t, t) for t in c.detail.split(",") if t)
        return (
            "first call outside a transformation: nothing compiled for it yet (its earlier "
            f"executables were its programs under {under})"
        )
    if k is ChangeKind.FIRST_CALL:
        return "first call: nothing compiled yet"
    if k is ChangeKind.FIRST_SEEN:
        return (
            "first compile jitlab saw: earlier calls used executables compiled before it "
            "watched (e.g. an AOT warm-up)"
        )
    if k is ChangeKind.FIRST_PERSISTENT_LOAD:
        return "first call in this process: executable loaded from the persistent cache"
    if k is ChangeKind.JAX_EXPLAINED:
        return f"JAX says: {c.detail}"
    if k is ChangeKind.RECORDED:
        return c.detail
    if c.detail:
        return f"jitlab cannot tell why; JAX says: {c.detail}"
    return "jitlab cannot tell why, and JAX gave no explanation"


def _zh(c: Change) -> str:
    k, path, before, after = c.kind, c.path, c.before, c.after
    if k is ChangeKind.SHAPE:
        return f"{path} 的形状变了：{after} ← {before}"
    if k is ChangeKind.DTYPE:
        return f"{path} 的数据类型变了：{after} ← {before}"
    if k is ChangeKind.WEAK_TYPE:
        return (
            f"{path} 的弱类型变了：{_weakness(after, 'zh')} ← {_weakness(before, 'zh')}"
            f"（{after} ← {before}）"
        )
    if k is ChangeKind.SHARDING and c.detail == "device":
        return f"{path} 的设备变了：{after or '未提交'} ← {before or '未提交'}"
    if k is ChangeKind.SHARDING:
        return f"{path} 的分片变了：{after or '单设备'} ← {before or '单设备'}"
    if k is ChangeKind.STATIC_VALUE:
        if before is None:
            return f"静态参数 {path}：{after}（新值）"
        if after is None:
            return f"静态参数 {path} 不见了"
        same = "（文本相同，值不相等）" if before == after else ""
        identity = identity_parts(c.detail)  # 由两个对象本身判定（identity-static）
        if identity:
            same = _identity_zh(identity)
        return f"静态参数 {path}：{after} ← {before}{same}"
    if k is ChangeKind.TREE_STRUCTURE and identity_parts(c.detail):
        identity = identity_parts(c.detail) or {}
        what = "Flax NNX 图的属性" if identity.get("graph") else "pytree 的静态数据"
        return f"{what} {path} 被重新创建：{after}{_identity_zh(identity)}"
    if k is ChangeKind.TREE_STRUCTURE and c.detail == "static":
        return f"pytree 节点 {path} 的静态数据变了（按 == 比较）：{after} ← {before}"
    if k is ChangeKind.TREE_STRUCTURE and c.detail == "class":
        return f"{path or '一个参数'} 换成了另一个类：{after} ← {before}"
    if k is ChangeKind.TREE_STRUCTURE:
        # A sub-tree with no leaves is recorded as the words "no leaves" (data): said in zh.
        before, after = (_NO_LEAVES_ZH if t == NO_LEAVES else t for t in (before, after))
        where = f"（位置 {path}）" if path else ""
        counts = _tree_counts(c)
        if counts is not None:
            return f"pytree 结构变了{where}：{_leaves_zh(*counts)}（{after} ← {before}）"
        return f"pytree 结构变了{where}：{after} ← {before}"
    if k is ChangeKind.KEYWORD_VS_POSITIONAL:
        now, was = ("关键字", "位置") if after == "keyword" else ("位置", "关键字")
        return f"{path} 这次按{now}传入，之前按{was}传入"
    if k is ChangeKind.NEW_ARGUMENT:
        return f"新参数 {path}：{after}"
    if k is ChangeKind.ARGUMENT_GONE:
        return f"参数 {path} 不见了（原为 {before}）"
    if k is ChangeKind.TRACING_CONTEXT and c.detail == "axis":
        if not path:
            return "上下文中的命名轴变了（vmap/pmap 的 axis_name）"
        if before is None:
            return f"这次在命名轴 {path}（大小 {after}）之内调用，之前不在其中"
        if after is None:
            return f"这次在命名轴 {path} 之外调用，之前在其中（大小 {before}）"
        return f"命名轴 {path}（vmap/pmap 的 axis_name）的大小变了：{after} ← {before}"
    if k is ChangeKind.TRACING_CONTEXT:
        if not path:
            return f"追踪上下文变了（配置或上下文管理器）{_says_zh(c.detail)}"
        return f"追踪上下文 {path}：{after} ← {before}"
    if k is ChangeKind.NEW_FUNCTION_OBJECT and (before is not None or after is not None):
        return (
            f"{path} 处代码的另一个函数：{_transformed(after, 'zh')} ← "
            f"{_transformed(before, 'zh')}（函数的每种 JAX 变换都是另一个函数，分开编译）"
        )
    if k is ChangeKind.NEW_FUNCTION_OBJECT:
        hint = _redefined_zh(c.detail)
        if not path:
            return f"新的函数对象{hint}"
        times = f"（迄今 {c.count} 个函数对象）" if c.count > 1 else ""
        return f"新的函数对象：{path} 处的同一段代码又被 jit 了一次{times}{hint}"
    if k is ChangeKind.JIT_OPTIONS:
        return f"同一个函数换了 jit 选项 {path} 又被 jit 了一次：{after} ← {before}"
    if k is ChangeKind.SHARED_EXECUTABLE:
        at = f"（定义于 {path}）" if path else ""
        return (
            f"用的是同一函数的另一个 jax.jit 已编译好的可执行程序{at}："
            "JAX 按函数和 jit 选项共用一份缓存"
        )
    if k is ChangeKind.MESH_CONTEXT:
        if after and not before:
            return (
                f"这次在 jax.set_mesh({after}) 之内调用，之前不在任何网格之内："
                "上下文中的网格是 JAX 缓存键的一部分"
            )
        if before and not after:
            return (
                f"这次在 jax.set_mesh 之外调用，之前在其中（{before}）："
                "上下文中的网格是 JAX 缓存键的一部分"
            )
        return f"上下文中换了一个网格（jax.set_mesh）：{after} ← {before}"
    if k is ChangeKind.TRANSFORMED and path == "linear":
        return (
            f"调用了 jax.linearize 返回的函数：它的线性部分是另一个程序，"
            f"JAX 为它编译了新的可执行程序（{after}）"
        )
    if k is ChangeKind.TRANSFORMED and path == "remat":
        return (
            "jax.checkpoint 立即执行了它追踪进来的计算："
            f"JAX 从那次追踪编译了这个函数的程序（{after}）"
        )
    if k is ChangeKind.TRANSFORMED:
        under = "，外面是 ".join(_TRANSFORMS_ZH.get(t, t) for t in path.split(",") if t)
        if after is None:
            return (
                f"在 {under} 之下追踪：被并入外层计算，由 JAX 整体编译；"
                "这个函数自己的可执行程序没有运行"
            )
        if c.count:
            return (
                f"在 {under} 之下追踪：变换后的函数是另一个程序，"
                f"JAX 为它编译了新的可执行程序（{after}）"
            )
        return f"在 {under} 之下运行：JAX 复用了为它编译过的可执行程序（{after}）"
    if k is ChangeKind.CACHE_CLEARED and c.detail == "jax.clear_caches()":
        return "jax.clear_caches() 清空了 JAX 的缓存，所以这个签名又编译了一次"
    if k is ChangeKind.CACHE_CLEARED and c.detail == "clear_cache()":
        return f"{path or '这个函数'}.clear_cache() 清空了这个函数的缓存，所以这个签名又编译了一次"
    if k is ChangeKind.CACHE_CLEARED and c.detail == "evicted":
        return "JAX 的缓存里已经没有这个签名了：被 JAX 淘汰（没有清空过缓存）"
    if k is ChangeKind.CACHE_CLEARED:
        return "JAX 的缓存里已经没有这个签名了（jax.clear_caches() 或被淘汰）"
    if k is ChangeKind.FIRST_CALL and c.detail:
        under = "、".join(_TRANSFORMS_ZH.get(t, t) for t in c.detail.split(",") if t)
        return (
            f"首次在变换之外调用：还没有为它编译过（之前的可执行程序都是它在 {under} 之下的程序）"
        )
    if k is ChangeKind.FIRST_CALL:
        return "首次调用：还没有编译过"
    if k is ChangeKind.FIRST_SEEN:
        return (
            "jitlab 看到的第一次编译：之前的调用用的是它开始观察前"
            "编译好的可执行程序（例如 AOT 预热）"
        )
    if k is ChangeKind.FIRST_PERSISTENT_LOAD:
        return "本进程首次调用：可执行程序从持久缓存载入"
    if k is ChangeKind.JAX_EXPLAINED:
        return f"JAX 的说法：{c.detail}"
    if k is ChangeKind.RECORDED:
        return c.detail
    if c.detail:
        return f"jitlab 无法判断原因；JAX 的说法：{c.detail}"
    return "jitlab 无法判断原因，JAX 也没有给出解释"


# The transformations named in a TRANSFORMED change's path (see jitlab.probe._jax).
_TRANSFORMS_EN = {
    "linearize": "grad (linearize)",
    "trace": "an enclosing trace (jit, lax.scan, …)",
    "transpose": "grad's backward pass (transpose)",
    "linear": "the function jax.linearize returned",
    "remat": "jax.checkpoint's eager run",
}
_TRANSFORMS_ZH = {
    "linearize": "grad（linearize）",
    "trace": "外层追踪（jit、lax.scan 等）",
    "transpose": "grad 的反向传播（转置）",
    "linear": "jax.linearize 返回的函数",
    "remat": "jax.checkpoint 的立即执行",
}


def _identity_en(identity: dict[str, str]) -> str:
    if identity.get("function") == identity["class"]:  # the value is the function
        return " (equal content, but a function made anew compares by identity: identity-static)"
    if identity.get("function"):
        return (
            f" (equal content, but {identity['function']} in it is a function made anew,"
            " and functions compare by identity: identity-static)"
        )
    return f" (equal content, but {identity['class']} compares by identity: identity-static)"


def _identity_zh(identity: dict[str, str]) -> str:
    if identity.get("function") == identity["class"]:
        return "（内容相同，但新创建的函数按对象身份比较：identity-static）"
    if identity.get("function"):
        return (
            f"（内容相同，但其中的 {identity['function']} 是新创建的函数，"
            "而函数按对象身份比较：identity-static）"
        )
    return f"（内容相同，但 {identity['class']} 按对象身份比较：identity-static）"


def _transformed(layers: str | None, lang: str) -> str:
    """A jitted function's JAX transformations (``vmap,grad``) as code: ``jax.vmap(jax.grad(·))``;
    none: the function itself."""
    names = [t for t in (layers or "").split(",") if t]
    if not names:
        return "the function itself" if lang == "en" else "函数本身"
    return "".join(f"jax.{t}(" for t in names) + "·" + ")" * len(names)


def _says(detail: str) -> str:
    return f"; JAX says: {detail}" if detail else ""


def _redefined(detail: str) -> bool:
    return "re-defined" in detail or "same line" in detail


def _redefined_en(detail: str) -> str:
    """JAX's "re-defined repeatedly" hint in our words (its raw words stay in the reason)."""
    if not detail:
        return ""
    if _redefined(detail):
        return (
            "; JAX saw another function defined on the same line: it is probably defined "
            "again on every call (a lambda, partial or def inside a loop), so what was "
            "compiled for it is never reused"
        )
    return _says(detail)


def _redefined_zh(detail: str) -> str:
    """JAX's "re-defined repeatedly" hint in Chinese (its raw words stay in the reason)."""
    if not detail:
        return ""
    if _redefined(detail):
        return "；JAX 提示：同一行上见过另一个函数，这个函数可能在被反复重新定义，导致缓存用不上"
    return _says_zh(detail)


def _says_zh(detail: str) -> str:
    return f"；JAX 的说法：{detail}" if detail else ""
