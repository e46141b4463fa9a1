"""Pitfall 5: what recompiles cost, and the ways to stop paying for them.

The card holder made visible: stable signatures hit, unstable ones pile up cards. Then the
two ways to pay for compiles before the first request: an AOT warm-up at start-up, and the
persistent compilation cache shared by every process.
"""

from __future__ import annotations

import functools
import json
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
import weakref
from functools import cache
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jitlab.lab.scenario import (
    AutoplayStep,
    CardRef,
    Comparison,
    Lab,
    Lesson,
    Measure,
    Param,
    Pitfall,
    QuestionRun,
    Scenario,
    ScriptLesson,
    Text,
    Variant,
)

if __package__:  # discovered: the exercises live in a sibling module (this file is long)
    from ._recompile_cost_exercises import EXERCISES
else:  # run by path in the spawned child of the persistent-cache variant: no quiz there
    EXERCISES = ()


FEATURES = 64
LR = 0.01  # from a config file: a Python float
EXPECTED_SIZES = (1, 8, 32)  # the batch sizes the service expects
MISTAKES = (
    "weak-type",
    "dtype-drift",
    "new-lambda",
    "new-partial",
    "jit-in-loop",
    "dict-keys",
    "clear-caches",
)
CHILD = "__jitlab_persistent_cache_child__"


# --- the model: a training step and a forward pass -----------------------------------------
def mlp(layers, x):
    h = x
    for w, b in layers:
        h = jnp.tanh(h @ w + b)
    return h


def train_step(params, batch, lr):
    def loss_fn(params):
        prediction = (mlp(params["layers"], batch["x"]) @ params["head"])[:, 0]
        weight = batch.get("weight", 1.0)  # an optional key changes the pytree
        return jnp.mean(weight * (prediction - batch["y"]) ** 2)

    loss, grads = jax.value_and_grad(loss_fn)(params)
    params = jax.tree.map(lambda p, g: p - lr * g, params, grads)
    return params, loss


def predict(params, x):
    return (mlp(params["layers"], x) @ params["head"])[:, 0]


# --- what a real loop receives: the quirks that change signatures --------------------------
def schedule(step):
    return jnp.float32(LR * 0.99**step)  # a strong float32 array, not a Python float


def incoming(mistake, step, rows):
    batch = make_batch(rows, step)
    lr = LR
    if mistake == "weak-type" and step % 2:
        lr = schedule(step)  # Python float on even steps, jnp.float32 on odd ones
    if mistake == "dtype-drift" and step % 2:
        batch["x"] = batch["x"].astype(np.float16)  # every other batch from a float16 cache
    if mistake == "dict-keys":
        if step % 3 == 2:
            batch["weight"] = np.ones_like(batch["y"])  # some batches carry sample weights
        if step % 2:
            batch = dict(reversed(batch.items()))  # key order: jit sorts keys, no effect
    return batch, lr


# --- the pitfall: habits that make JAX compile again -----------------------------------
def pitfall_step(train, jit, mistake, params, batch, lr):
    """One loop step. ``train`` is jax.jit(train_step) built once; ``jit`` is jax.jit."""
    if mistake == "new-lambda":
        train = jit(lambda p, b, lr: train_step(p, b, lr))  # a new function object each step
    elif mistake == "new-partial":
        return jit(functools.partial(train_step, lr=lr))(params, batch)  # a new partial too
    elif mistake == "jit-in-loop":
        train = jit(train_step)  # a new jit wrapper, but the same function: JAX reuses it
    elif mistake == "clear-caches":
        jax.clear_caches()  # "to free memory": every compiled program is thrown away
    return train(params, batch, lr)


# --- the fix: one function object, one signature --------------------------------------
def fix_step(train, mistake, params, batch, lr):
    batch = {
        "x": np.asarray(batch["x"], np.float32),  # one dtype at the door
        "y": np.asarray(batch["y"], np.float32),
        "weight": batch.get("weight", np.ones_like(batch["y"])),  # always the same keys
    }
    return train(params, batch, np.float32(lr))  # always a strong float32; train jitted once


# --- AOT warm-up: compile the expected shapes at start-up ----------------------------------
def warm_up(serve, params, sizes=EXPECTED_SIZES):
    """jit(f).lower(...).compile() for each expected shape; jit reuses these on real calls."""
    timings = {}
    for size in sizes:
        start = time.perf_counter()
        serve.lower(params, jax.ShapeDtypeStruct((size, FEATURES), jnp.float32)).compile()
        timings[size] = (time.perf_counter() - start) * 1e3
    return timings


def handle_request(serve, params, requests):
    return serve(params, requests)  # cold: the first request of each size pays the compile


# --- the persistent cache: a fresh process finds yesterday's compile on disk -----------------
def enable_persistent_cache(cache_dir):
    jax.config.update("jax_compilation_cache_dir", cache_dir)
    # By default only compiles longer than 1 s are written to disk: this demo model compiles
    # in a fraction of that, so the thresholds are lowered for the lesson.
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)


def fresh_process_request(job):
    """Runs in a new spawned Python process: a cold start, except for the disk cache."""
    enable_persistent_cache(job["cache_dir"])
    from jitlab.lab.scenario import Probe

    serve = Probe(predict)
    serve(make_params(job["depth"]), make_requests(job["batch_size"], 0))
    return serve.last


# --- data and weights (numpy, so making them compiles nothing) ------------------------------
@cache
def make_params(depth, seed=0):
    rng = np.random.default_rng(seed)

    def dense(n_in, n_out):
        w = rng.normal(0, 1 / np.sqrt(n_in), (n_in, n_out))
        return jnp.asarray(w, jnp.float32), jnp.zeros((n_out,), jnp.float32)

    return {
        "layers": [dense(FEATURES, FEATURES) for _ in range(depth)],
        "head": dense(FEATURES, 1)[0],
    }


def make_batch(rows, step):
    rng = np.random.default_rng(step)
    x = rng.normal(size=(rows, FEATURES)).astype(np.float32)
    return {"x": x, "y": np.sin(x[:, 0]).astype(np.float32)}


def make_requests(size, seed):
    return np.random.default_rng(seed).normal(size=(size, FEATURES)).astype(np.float32)


def _child(job):
    """Entry point of the spawned process (this file is run with runpy, not imported)."""
    sys.stdout = sys.stderr  # keep the parent's --json stream clean
    # JAX warns (and goes on uncached) when the cache cannot be read or written: keep it.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        record = fresh_process_request(job)
    if record.error is not None:  # exceptions may not pickle: keep type and message
        record = _without_exception(record)
    try:
        entries = sorted(os.listdir(job["cache_dir"]))
    except OSError:  # never made: the disk refused it
        entries = []
    cache_warnings = [
        str(w.message) for w in caught if "persistent compilation cache" in str(w.message)
    ]
    with open(job["result"], "wb") as out:
        pickle.dump({"record": record, "entries": entries, "warnings": cache_warnings}, out)


def _without_exception(record):
    from jitlab.lab.scenario import ErrorInfo

    info = ErrorInfo(record.error.type, record.error.message)
    if hasattr(record, "_replace"):  # CallRecord is a NamedTuple
        return record._replace(error=info)
    import dataclasses

    return dataclasses.replace(record, error=info)


class RecompileCost(Scenario):
    id = "recompile-cost"
    pitfall = Pitfall.RECOMPILE_COST
    icon = "cards"
    exercises = EXERCISES
    title = Text("The card holder", "脚本卡夹")
    question = Text(
        "A training loop passes the learning rate as 0.01 on even steps and as "
        "jnp.float32(0.01) on odd ones. Same value, same shape. How many programs does jit "
        "keep for it after ten steps?",
        "训练循环在偶数步把学习率写成 0.01，奇数步写成 jnp.float32(0.01)。数值一样，形状"
        "一样。跑完十步后，jit 为它留了几份编译好的程序？",
    )
    lesson = Lesson(
        what=Text(
            "Every jitted function keeps a card holder: one compiled program per signature it "
            "has seen (the function object, the pytree structure, each leaf's shape, dtype, "
            "weak type and sharding, the static values). A call whose signature matches a "
            "card costs microseconds; any difference compiles a new card. Habits that quietly "
            "change the signature: a learning rate that is sometimes a Python float (weak "
            "type) and sometimes a jnp.float32; batches whose dtype drifts; a new lambda or "
            "functools.partial built inside the loop; a dict argument whose keys come and go; "
            "calling jax.clear_caches() to “free memory”. Two that look guilty but are not: "
            "jax.jit(f) inside a loop for the same module-level f (JAX caches by the "
            "function), and a dict whose key order changes (keys are sorted).",
            "每个 jit 函数都有一个卡夹：见过的每种签名对应一份编译好的程序（签名包括函数对象、"
            "pytree 结构、每个叶子的形状、dtype、弱类型和分片，以及静态参数的值）。签名对上"
            "某张卡，调用只需几微秒；任何差别都会编出一张新卡。悄悄改变签名的习惯：学习率有时"
            "是 Python float（弱类型）、有时是 jnp.float32；批次的 dtype 来回漂移；在循环里"
            "新建 lambda 或 functools.partial；字典参数的键时有时无；为了“省内存”调用 "
            "jax.clear_caches()。两个看着可疑其实无害的：在循环里对同一个模块级函数 f 写 "
            "jax.jit(f)（JAX 按函数缓存）；字典键的顺序变化（键会被排序）。",
        ),
        why=Text(
            "jit looks up its caches with a key built from the signature, never from the "
            "values of traced arguments. A Python float is weakly typed so it can adapt to "
            "the other operand; a jnp.float32 is strongly typed: two different types, two "
            "programs. A new lambda or partial is a function JAX has never seen, so even an "
            "identical body is traced, lowered and compiled again. On a big model each card "
            "costs seconds to minutes, paid while requests wait. Two remedies move that cost "
            "out of the way: an AOT warm-up (jit(f).lower(shapes).compile() at start-up fills "
            "the same caches the real calls use) and the persistent compilation cache, which "
            "writes compiled programs to disk so a new process loads them instead of "
            "compiling. By default it only stores compiles that took over one second "
            "(jax_persistent_cache_min_compile_time_secs = 1.0); tracing and lowering still "
            "run on a disk hit, only the XLA compile is skipped. Neither holder is endless, "
            "and the one in memory evicts: jit keeps at most 8,192 compiled programs and drops "
            "the least recently used beyond that (measured on JAX 0.10: after 2,100 shapes "
            "through one function its first shape was still a hit; after 8,300, the card "
            "holder held 8,192 and the first shape compiled again). Below that limit every "
            "card stays in memory until the function is deleted or jax.clear_caches() runs. "
            "The cache on disk grows without limit unless jax_compilation_cache_max_size is "
            "set; then it deletes the least recently used files.",
            "jit 用签名而不是追踪参数的值来构造缓存键。Python float 是弱类型，可以迁就另一个"
            "操作数；jnp.float32 是强类型：类型不同，程序就是两份。新的 lambda 或 partial 对 "
            "JAX 来说是从没见过的函数，哪怕函数体一模一样，也要重新追踪、降级、编译。大模型上"
            "每张卡要花几秒到几分钟，而且是在请求等待时付出。两种办法把这笔开销挪开：AOT 预热"
            "（启动时 jit(f).lower(形状).compile()，填的正是真实调用要查的那些缓存），以及持久化"
            "编译缓存：把编译产物写到磁盘，新进程直接加载而不必再编译。默认只保存耗时超过 1 秒的"
            "编译（jax_persistent_cache_min_compile_time_secs = 1.0）；命中磁盘缓存时追踪和"
            "降级照样要跑，省掉的只是 XLA 编译。两个卡夹都不是无底的，内存里的那个会淘汰："
            "jit 最多留 8192 份编译好的程序，超出就丢掉最久没用的（在 JAX 0.10 上实测：一个"
            "函数喂了 2100 种形状，第一种形状仍然命中；喂到 8300 种时，卡夹里只剩 8192 张，"
            "第一种形状又编译了一次）。没到上限时，每张卡都留在内存里，直到函数被删掉或调用 "
            "jax.clear_caches()。磁盘缓存默认无限增长，除非设置 "
            "jax_compilation_cache_max_size，那时它会删掉最久没用的文件。",
        ),
        fix=Text(
            "Keep signatures boring: build the jitted function once, outside the loop; cast "
            "scalars and batches at the door (np.float32(lr), one dtype); give dict arguments "
            "a fixed set of keys (fill missing ones with defaults); never clear caches in a "
            "hot loop. Then pay the unavoidable compiles early: warm up the expected shapes "
            "at start-up, and turn on the persistent cache (jax_compilation_cache_dir) so "
            "restarts and other machines reuse them.",
            "让签名保持“无聊”：jit 函数在循环外只建一次；标量和批次在门口统一类型"
            "（np.float32(lr)、统一 dtype）；字典参数用固定的键集合（缺的用默认值补上）；"
            "热循环里绝不清缓存。对于躲不掉的编译，提前付账：启动时预热预期的形状，再打开"
            "持久化缓存（jax_compilation_cache_dir），让重启和其他机器直接复用。",
        ),
        kitchen=Text(
            "Chef Wang keeps a card holder in the drawer: one card per dish and portion he "
            "has rehearsed. A regular order is a card pulled out in a second. But if the "
            "waiter writes “0.01” one day and “0.01 (typed)” the next, or brings the order "
            "on a new slip every time, Chef Wang does not recognise it and writes a new card. "
            "Smart kitchens rehearse the usual portions before opening (warm-up), and keep "
            "the cards in a filing cabinet that survives the night (the persistent cache).",
            "王师傅在抽屉里放了个卡夹：排练过的每道菜、每种份量各一张卡。熟客的单子，一秒"
            "就能抽出卡来照做。可如果服务员今天写“0.01”、明天写“0.01（强类型）”，或者每次都"
            "换一张新单子，王师傅就认不出来，只好再写一张新卡。聪明的后厨会在开门前把常见"
            "份量先排练好（预热），再把卡片存进过夜也不会丢的档案柜（持久化缓存）。",
        ),
    )
    params = (
        Param(
            "mistake",
            "weak-type",
            Text("Signature habit", "签名习惯"),
            Text(
                "How each step calls the jitted function: weak type (0.01, then "
                "jnp.float32(0.01)) · dtype drift (some batches in float16) · a new lambda or "
                "partial (a new function each step) · jax.jit inside the loop · an optional "
                "dict key · clear_caches each step (jax.clear_caches()).",
                "每一步怎样调用 jit 函数：弱类型（先 0.01，再 jnp.float32(0.01)）· dtype 漂移"
                "（部分批次是 float16）· 每步新建 lambda 或 partial（每步一个新函数）· 在循环里"
                "调用 jax.jit · 可有可无的字典键 · 每步 clear_caches（jax.clear_caches()）。",
            ),
            choices=MISTAKES,
            choice_labels=(
                Text("weak type: 0.01 vs float32", "弱类型：0.01 与 float32"),
                Text("dtype drift: float16 batches", "dtype 漂移：混入 float16"),
                Text("a new lambda each step", "每步新建 lambda"),
                Text("a new partial each step", "每步新建 partial"),
                Text("jax.jit inside the loop", "在循环里调用 jax.jit"),
                Text("an optional dict key", "可有可无的字典键"),
                Text("clear_caches each step", "每步 clear_caches"),
            ),
            variants=("pitfall", "fix"),
        ),
        Param(
            "batch_size",
            8,
            Text("Batch / request size", "批次 / 请求大小"),
            Text(
                "Rows per training batch or per request. The service expects 1, 8 and 32.",
                "每个训练批次或每个请求的行数。服务预期的大小是 1、8、32。",
            ),
            minimum=1,
            maximum=512,
            log_scale=True,
        ),
        Param(
            "depth",
            3,
            Text("Model depth", "模型层数"),
            Text(
                "Hidden layers: deeper models compile for longer, so every card costs more.",
                "隐藏层数：层数越多编译越久，每张卡也越贵。",
            ),
            minimum=1,
            maximum=48,
        ),
    )
    variants = (
        Variant(
            "pitfall",
            Text("Unstable signatures", "不稳定的签名"),
            Text(
                "The loop passes whatever it receives: cards pile up.",
                "循环收到什么就传什么：卡片越堆越多。",
            ),
        ),
        Variant(
            "fix",
            Text("Stable signatures", "稳定的签名"),
            Text(
                "One jitted function built once; dtypes, scalar types and keys fixed at the "
                "door: one card, then hits.",
                "jit 函数只建一次；dtype、标量类型和键在门口统一：一张卡，之后全部命中。",
            ),
        ),
        Variant(
            "cold-start",
            Text("Service, cold start", "服务冷启动"),
            Text(
                "No warm-up: the first request of each size waits for its compile.",
                "不预热：每种大小的第一个请求都要等它的编译。",
            ),
        ),
        Variant(
            "aot-warmup",
            Text("Service, AOT warm-up", "服务 AOT 预热"),
            Text(
                "jit(f).lower(...).compile() for sizes 1, 8, 32 at start-up: the first real "
                "request of those sizes is a cache hit.",
                "启动时对 1、8、32 执行 jit(f).lower(...).compile()：这些大小的第一个真实请求"
                "就命中缓存。",
            ),
        ),
        Variant(
            "persistent-cache",
            Text("Persistent cache, new processes", "持久化缓存，新进程"),
            Text(
                "Each call runs in a fresh spawned process with the disk cache on: the first "
                "compiles and writes it, the next ones load it (persistent_hit).",
                "每次调用都在新启动的进程里进行，并打开磁盘缓存：第一次编译并写入，之后的进程"
                "直接加载（persistent_hit）。",
            ),
        ),
    )
    autoplay = (
        *(
            AutoplayStep({"mistake": mistake}, variant=variant)
            for variant in ("pitfall", "fix")
            for mistake in MISTAKES
            for _ in range(3)
        ),
        *(
            AutoplayStep({"batch_size": n}, variant=variant)
            for variant in ("cold-start", "aot-warmup")
            for n in (8, 8, 1, 32, 8, 1)
        ),
        *(AutoplayStep({"batch_size": 8}, variant="persistent-cache") for _ in range(3)),
    )

    scripts = ScriptLesson(
        Text(
            "Compare the first two cards of the weak-type habit. Their jaxprs differ only in "
            "a few convert_element_type equations (a Python float is a weakly typed scalar, "
            "an f32 array is not); the optimized HLO has the same number of instructions. "
            "Yet each card paid a whole trace, lower and compile: read the time rows at the "
            "bottom of the figures. Every extra card of the same program is that cost again.",
            "对比 weak-type 习惯留下的前两张卡。它们的 jaxpr 只差几条 convert_element_type"
            "等式（Python float 是弱类型标量，f32 数组不是）；优化后的 HLO 指令数一模一样。"
            "可每张卡都付出了完整的追踪、降级和编译：看图表底部的时间几行。同一个程序每多"
            "一张卡，就再付一次这份代价。",
        ),
        compare=(
            CardRef("pitfall", {"mistake": "weak-type"}, number=1),
            CardRef("pitfall", {"mistake": "weak-type"}, number=2),
        ),
    )

    # The comments of the shown code (code_objects), in Chinese for the code view.
    code_comments = (
        Text("an optional key changes the pytree", "可选的键会改变 pytree 结构"),
        Text(
            "Python float on even steps, jnp.float32 on odd ones",
            "偶数步是 Python float，奇数步是 jnp.float32",
        ),
        Text("every other batch from a float16 cache", "每隔一个批次来自 float16 缓存"),
        Text("some batches carry sample weights", "有些批次带样本权重"),
        Text("key order: jit sorts keys, no effect", "键的顺序：jit 会排序，没有影响"),
        Text(
            "One loop step. ``train`` is jax.jit(train_step) built once; ``jit`` is jax.jit.",
            "循环的一步。``train`` 是只构建一次的 jax.jit(train_step)；``jit`` 就是 jax.jit。",
        ),
        Text("a new function object each step", "每一步都是新的函数对象"),
        Text("a new partial too", "partial 也是新的"),
        Text(
            "a new jit wrapper, but the same function: JAX reuses it",
            "新的 jit 包装，但函数相同：JAX 会复用",
        ),
        Text(
            '"to free memory": every compiled program is thrown away',
            "“为了释放内存”：所有编译好的程序都被扔掉",
        ),
        Text("one dtype at the door", "入口处统一 dtype"),
        Text("always the same keys", "键始终相同"),
        Text(
            "always a strong float32; train jitted once", "始终是强类型 float32；train 只 jit 一次"
        ),
        Text(
            "cold: the first request of each size pays the compile",
            "冷启动：每种尺寸的第一个请求承担编译",
        ),
        Text(
            "jit(f).lower(...).compile() for each expected shape; jit reuses these on real calls.",
            "对每个预期形状执行 jit(f).lower(...).compile()；真实调用时 jit 会复用它们。",
        ),
        Text(
            "By default only compiles longer than 1 s are written to disk:"
            " this demo model compiles",
            "默认只有耗时超过 1 秒的编译才写入磁盘：这个演示模型的编译",
        ),
        Text(
            "in a fraction of that, so the thresholds are lowered for the lesson.",
            "只需其中一小部分时间，所以为了演示把阈值调低了。",
        ),
        Text(
            "Runs in a new spawned Python process: a cold start, except for the disk cache.",
            "在新启动的 Python 进程中运行：除了磁盘缓存，一切都是冷启动。",
        ),
    )

    # The verdicts: stable signatures compile once; a warm-up leaves no request waiting.
    # The question, settled on its own calls: ten steps of the weak-type loop.
    question_run = QuestionRun("pitfall", tuple({"mistake": "weak-type"} for _ in range(10)))
    comparisons = (
        Comparison(
            Measure.COMPILES,
            tuple(
                {"mistake": m}
                for m in ("weak-type", "dtype-drift", "new-lambda", "dict-keys")
                for _ in range(3)
            ),
        ),
        Comparison(
            Measure.COMPILES,
            tuple({"batch_size": n} for n in (8, 8, 1, 32, 8, 1)),
            "cold-start",
            "aot-warmup",
            note=Text(
                "The warm-up compiled sizes 1, 8 and 32 at start-up, before the first "
                "request: no request waited for a compile.",
                "预热在启动时、第一个请求到来之前就编译好了 1、8、32 三种大小：没有哪个请求"
                "需要等编译。",
            ),
        ),
    )

    def setup(self, lab: Lab, variant: str):
        self._facts: dict[str, Any] = {}
        if variant in ("pitfall", "fix"):
            return self._setup_loop(lab, variant)
        if variant == "persistent-cache":
            return self._setup_persistent(lab)
        return self._setup_service(lab, variant)

    def facts(self) -> dict[str, Any]:
        """Beyond the record: warm-up times, the disk cache, time saved, cards per habit."""
        return dict(getattr(self, "_facts", {}))

    # -- pitfall / fix: a training loop --------------------------------------------------
    def _setup_loop(self, lab: Lab, variant: str):
        train = lab.probe(train_step)  # jitted once
        loop_probes: dict = {}  # one card holder per habit that makes new function objects
        steps = iter(range(10**9))
        current = {"mistake": None}

        def probing_jit(fn):
            # jax.jit, with each new function object probed in its habit's card holder.
            jitted = jax.jit(fn)
            probe = loop_probes.get(current["mistake"])
            if probe is None:
                probe = loop_probes[current["mistake"]] = lab.probe(jitted)
            else:
                probe.swap(jitted)
            return probe

        def run(values):
            step = next(steps)
            mistake = current["mistake"] = values["mistake"]
            params = make_params(values["depth"])
            batch, lr = incoming(mistake, step, values["batch_size"])
            if variant == "fix":
                result = fix_step(train, mistake, params, batch, lr)
            else:
                result = pitfall_step(train, probing_jit, mistake, params, batch, lr)
            self._facts = {
                "step": step,
                # as the code wrote it (a Python float, or a jnp.float32), not JAX's class name
                "lr_type": "float" if isinstance(lr, float) else f"jnp.{np.dtype(lr.dtype).name}",
                "x_dtype": str(batch["x"].dtype),
                "batch_keys": list(batch),
                "cards": len(train.ledger.cards),
                "cards_new_functions": {
                    name: len(probe.ledger.cards) for name, probe in loop_probes.items()
                },
            }
            return result

        return run

    # -- cold start vs AOT warm-up: a small inference service --------------------------
    def _setup_service(self, lab: Lab, variant: str):
        serve = jax.jit(predict)
        probe = lab.probe(serve)
        warmed: dict = {}
        requests = iter(range(10**9))

        def run(values):
            params = make_params(values["depth"])
            if variant == "aot-warmup" and values["depth"] not in warmed:
                warmed[values["depth"]] = warm_up(serve, params)  # at start-up, before traffic
            size = values["batch_size"]
            handle_request(probe, params, make_requests(size, next(requests)))
            timings = warmed.get(values["depth"], {})
            self._facts = {
                "warmup_ms": {str(k): round(v, 3) for k, v in timings.items()},
                "warmup_total_ms": round(sum(timings.values()), 3),
                "expected_sizes": list(EXPECTED_SIZES),
                "request_size_expected": size in EXPECTED_SIZES,
            }
            return None

        return run

    # -- the persistent cache: one fresh process per call ---------------------------------
    def _setup_persistent(self, lab: Lab):
        from ._recompile_cost_disk import cache_dir_for_run, cache_errors, demo_cache_root

        # Empty: the first run is cold. A disk that refuses it is the lesson's problem, not
        # the run's: JAX then compiles every time, and each row says why.
        cache_dir, refused = cache_dir_for_run(demo_cache_root())
        weakref.finalize(self, shutil.rmtree, cache_dir, ignore_errors=True)
        # The child's answer goes elsewhere: a full or read-only cache must not swallow it.
        results = tempfile.mkdtemp(prefix="jitlab-persistent-cache-")
        weakref.finalize(self, shutil.rmtree, results, ignore_errors=True)
        holder = lab.probe(predict)  # records from the child processes are filed here
        history: list = []
        refusals: dict[str, int] = {}  # each cache error seen, with the call that first met it
        default_min = jax.config.jax_persistent_cache_min_compile_time_secs

        def run(values):
            job = {
                "cache_dir": cache_dir,
                "depth": values["depth"],
                "batch_size": values["batch_size"],
                "result": os.path.join(results, f"result-{len(history)}.pickle"),
            }
            start = time.perf_counter()
            outcome = run_in_fresh_process(job)
            process_ms = (time.perf_counter() - start) * 1e3
            record = holder.adopt(outcome["record"])  # the child's call, in our ledger
            made = record.trace_ms + record.lower_ms + record.compile_ms
            shape = (values["depth"], values["batch_size"])  # one disk entry per signature
            history.append((shape, record.kind.value, made))
            colds = [ms for key, kind, ms in history if key == shape and kind == "compile"]
            self._facts = {
                "cache_dir": cache_dir,
                # With the threshold at 0 even tiny helper programs (convert_element_type,
                # broadcast_in_dim) are written: the reason JAX's default keeps only slow ones.
                "cache_entries": outcome["entries"],
                "predict_entries": sum(e.startswith("jit_predict") for e in outcome["entries"]),
                "process_ms": round(process_ms, 3),
                "kind": record.kind.value,
                "trace_lower_ms": round(record.trace_ms + record.lower_ms, 3),
                "compile_or_load_ms": round(record.compile_ms, 3),
                "cold_ms": round(colds[0], 3) if colds else None,
                "time_saved_ms": (
                    round(colds[0] - made, 3)
                    if colds and record.kind.value == "persistent_hit"
                    else None
                ),
                "default_min_compile_time_secs": default_min,
                "demo_min_compile_time_secs": 0.0,
            }
            errors = cache_errors(refused, outcome.get("warnings", []))
            for error in errors:
                refusals.setdefault(error, len(history) - 1)
            # A full disk leaves truncated entries that later calls fail to read: keep the
            # first cause in sight in every row after it.
            before = [f"since call #{n}: {e}" for e, n in refusals.items() if e not in errors]
            if errors or before:  # the OS error, in the row: the cache was not used, and why
                self._facts["cache_error"] = "; ".join(errors + before)
            if outcome.get("warnings"):  # JAX's own words, whole
                self._facts["cache_warnings"] = outcome["warnings"]
            if record.error is not None:
                raise RuntimeError(f"{record.error.type}: {record.error.message}")
            return None

        return run

    def code_objects(self, variant: str):
        if variant == "pitfall":
            return (train_step, incoming, pitfall_step)
        if variant == "fix":
            return (train_step, incoming, fix_step)
        if variant == "aot-warmup":
            return (predict, warm_up, handle_request)
        if variant == "cold-start":
            return (predict, handle_request)
        return (predict, enable_persistent_cache, fresh_process_request)


def run_in_fresh_process(job):
    """Run this file's _child in a new Python interpreter, like multiprocessing's spawn.

    A fresh interpreter (fork + exec) never inherits this process's JAX state, which is not
    fork-safe. Unlike multiprocessing it does not re-run the caller's __main__ either.
    """
    launcher = (
        "import json, runpy, sys; "
        "runpy.run_path(sys.argv[1], init_globals={'_JOB': json.loads(sys.argv[2])}, "
        f"run_name={CHILD!r})"
    )
    done = subprocess.run(
        [sys.executable, "-c", launcher, __file__, json.dumps(job)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        timeout=300,
        check=False,
    )
    if done.returncode != 0 or not os.path.exists(job["result"]):
        tail = "\n".join(done.stderr.strip().splitlines()[-5:])
        raise RuntimeError(f"the fresh process failed (exit code {done.returncode}): {tail}")
    with open(job["result"], "rb") as result:
        return pickle.load(result)


if __name__ == CHILD:
    _child(globals()["_JOB"])
