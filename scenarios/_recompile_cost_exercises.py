"""The exercises of the recompile-cost scenario (scenarios/recompile_cost.py declares
them): kept apart only because the scenario file alone is over 600 lines."""

from __future__ import annotations

import time

import jax
import jax.numpy as jnp
import numpy as np

from jitlab.lab.scenario import (
    CLAIM,
    Answer,
    AnswerKind,
    Evidence,
    Exercise,
    Text,
    claim_verdict,
    compile_answer,
)


def first_call_against_eager(lab):
    def tiny(x):
        return x * 2.0 + 1.0

    x = jnp.ones(8)
    tiny(x).block_until_ready()  # eager operations compile their own kernels once: warm up
    eager = []
    for _ in range(5):
        start = time.perf_counter()
        tiny(x).block_until_ready()
        eager.append((time.perf_counter() - start) * 1e3)
    lab.note("eager_ms", min(eager))
    fast = lab.jit(tiny)
    fast(x)  # first call: trace, compile, run (timed by the probe, up to block_until_ready)
    fast(x)  # second call: from the cache


def _settle_jit_faster(ev: Evidence) -> Answer:
    eager = ev.facts["eager_ms"]
    first, second = ev.records[:2]
    return Answer(
        claim_verdict(first.latency_ms <= eager),
        Text(
            f"Eager: {eager:.3f} ms. First jitted call: {first.latency_ms:.2f} ms, of which "
            f"{first.trace_ms + first.lower_ms + first.compile_ms:.2f} ms tracing and "
            f"compiling. Second jitted call: {second.latency_ms:.3f} ms.",
            f"直接执行：{eager:.3f} ms。jit 第一次调用：{first.latency_ms:.2f} ms，其中追踪和"
            f"编译占 {first.trace_ms + first.lower_ms + first.compile_ms:.2f} ms。"
            f"jit 第二次调用：{second.latency_ms:.3f} ms。",
        ),
    )


def timing_without_waiting(lab):
    def work(a):
        return jax.lax.fori_loop(0, 100, lambda i, a: jnp.tanh(a @ a), a)

    work = jax.jit(work)
    a = jnp.full((256, 256), 1 / 256, jnp.float32)
    lab.jit(work)(a)  # compile first, so that only running is timed
    # Up to three tries: on a busy machine this thread can be paused for longer than the
    # work takes, so that one try finds it done. One try that finds it still running
    # settles it.
    for _ in range(3):
        start = time.perf_counter()
        y = work(a)  # returns once the work is queued
        timer_ms = (time.perf_counter() - start) * 1e3
        ready = y.is_ready()
        y.block_until_ready()
        real_ms = (time.perf_counter() - start) * 1e3
        if not ready:
            break
    lab.note("timer_ms", timer_ms)
    lab.note("ready_when_timer_stopped", ready)
    lab.note("real_ms", real_ms)


def _settle_block(ev: Evidence) -> Answer:
    ready = ev.facts["ready_when_timer_stopped"]
    timer, real = ev.facts["timer_ms"], ev.facts["real_ms"]
    return Answer(
        claim_verdict(bool(ready)),
        Text(
            f"Without waiting the timer read {timer:.3f} ms; the result was "
            f"{'ready' if ready else 'not ready yet'} then; waiting for it took "
            f"{real:.2f} ms in all.",
            f"不等待时计时器读数 {timer:.3f} ms；此时结果{'已经算好' if ready else '还没算完'}；"
            f"等它算完总共用了 {real:.2f} ms。",
        ),
    )


def python_float_against_float32(lab):
    @lab.jit
    def half(x):
        return x / 2

    half(1.0)  # a Python float
    half(jnp.float32(1.0))
    half(2.0)
    half(np.float32(3.0))


def jit_inside_the_loop(lab):
    x = np.ones(4, np.float32)
    for _ in range(3):
        step = lab.jit(lambda x: x + 1)  # a new function object each time round
        step(x)


def warm_up_before_serving(lab):
    def serve(x):
        return jnp.tanh(x).sum()

    serve = jax.jit(serve)
    for size in (8, 16):  # at start-up, before the first request arrives
        serve.lower(jax.ShapeDtypeStruct((size,), jnp.float32)).compile()
    probed = lab.jit(serve)
    for size in (8, 16, 8, 32):  # the requests
        probed(np.ones(size, np.float32))


EXERCISES = (
    Exercise(
        id="jit-always-faster",
        title=Text("Misconception: jit always makes code faster", "误区：jit 总能让代码更快"),
        claim=Text(
            "Wrapping a function in jax.jit always makes its calls faster.",
            "给函数套上 jax.jit，调用总会变快。",
        ),
        question=Text(
            "A tiny function (x * 2 + 1 on 8 numbers) is timed eagerly, then jitted and "
            "called twice. Is the first jitted call faster than eager?",
            "一个很小的函数（对 8 个数算 x * 2 + 1），先直接执行计时，再 jit 后调用两次。jit "
            "的第一次调用比直接执行快吗？",
        ),
        explanation=Text(
            "The first call pays for tracing and compiling, which dwarfs the work of a tiny "
            "function. jit pays off when a compiled program is reused many times and the "
            "work is large enough for fusion to matter; a function called once, or a new "
            "shape every call, can end up slower than eager.",
            "第一次调用要付追踪和编译的钱，远远超过小函数本身的计算量。只有编译好的程序被反复"
            "使用、计算量又大到融合能起作用时，jit 才划算；只调用一次的函数，或者每次都换新"
            "形状，反而可能比直接执行还慢。",
        ),
        kind=AnswerKind.CHOICE,
        expected="false",
        options=CLAIM,
        snippet=first_call_against_eager,
        code_comments=(
            Text(
                "eager operations compile their own kernels once: warm up",
                "直接执行的运算也要各编译一次自己的内核：先预热",
            ),
            Text(
                "first call: trace, compile, run (timed by the probe, up to block_until_ready)",
                "第一次调用：追踪、编译、运行（探针计时，直到 block_until_ready）",
            ),
            Text("second call: from the cache", "第二次调用：取自缓存"),
        ),
        settle=_settle_jit_faster,
        variant="cold-start",
    ),
    Exercise(
        id="block-until-ready",
        title=Text(
            "Misconception: block_until_ready is optional when timing",
            "误区：计时可以不用 block_until_ready",
        ),
        claim=Text(
            "Timing a jitted call without block_until_ready still measures the work.",
            "不调用 block_until_ready 给 jit 函数计时，量到的仍是计算时间。",
        ),
        question=Text(
            "After a warm-up, a call doing 100 matrix products is timed without waiting for "
            "the result. Is the claim true?",
            "预热之后，给一次做 100 次矩阵乘法的调用计时，但不等待结果。这个说法对吗？",
        ),
        explanation=Text(
            "JAX dispatch is asynchronous: the call returns once the work is queued, and the "
            "result is still being computed when the timer stops. Call "
            "result.block_until_ready() before reading the clock (jitlab's probe always "
            "does).",
            "JAX 的派发是异步的：工作一排进队列，调用就返回了，计时器停下时结果还在计算中。"
            "读时钟之前先调用 result.block_until_ready()（jitlab 的探针每次都这么做）。",
        ),
        kind=AnswerKind.CHOICE,
        expected="false",
        options=CLAIM,
        snippet=timing_without_waiting,
        code_comments=(
            Text("compile first, so that only running is timed", "先编译，只给运行计时"),
            Text(
                "Up to three tries: on a busy machine this thread can be paused "
                "for longer than the",
                "最多试三次：繁忙的机器上，这个线程被暂停的时间可能比",
            ),
            Text(
                "work takes, so that one try finds it done. One try that finds it still running",
                "计算本身还长，于是那一次会看到它已算完。只要有一次看到它还在运行，",
            ),
            Text("settles it.", "答案就定了。"),
            Text("returns once the work is queued", "工作一排进队列就返回"),
        ),
        settle=_settle_block,
    ),
    Exercise(
        id="weak-float",
        title=Text("1.0 or float32(1.0)?", "1.0 还是 float32(1.0)？"),
        question=Text(
            "half(x) is called with 1.0, jnp.float32(1.0), 2.0 and np.float32(3.0). How many "
            "compiles?",
            "half(x) 依次用 1.0、jnp.float32(1.0)、2.0、np.float32(3.0) 调用。编译几次？",
        ),
        explanation=Text(
            "A Python float is a weakly typed float32 and a float32 scalar is a strongly "
            "typed one: two signatures, two programs. The values do not matter, the kinds of "
            "number do. Pick one habit and keep it.",
            "Python 浮点数是弱类型的 float32，float32 标量是强类型的：两种签名、两个程序。"
            "数值无关紧要，数的种类才要紧。选定一种写法，一直用下去。",
        ),
        kind=AnswerKind.NUMBER,
        expected=2,
        snippet=python_float_against_float32,
        code_comments=(Text("a Python float", "一个 Python 浮点数"),),
        settle=compile_answer,
    ),
    Exercise(
        id="jit-in-loop",
        title=Text("jax.jit inside the loop", "循环里的 jax.jit"),
        question=Text(
            "Each time round the loop, a new lambda is jitted and called with the same x. "
            "Three rounds: how many compiles?",
            "每轮循环都 jit 一个新的 lambda，并用同一个 x 调用。三轮下来编译几次？",
        ),
        explanation=Text(
            "jit's cache belongs to the function object. A lambda written inside the loop is "
            "a new object each time, so its cache starts empty and every round traces and "
            "compiles again. Jit once, outside the loop, and reuse the result.",
            "jit 的缓存挂在函数对象上。写在循环里的 lambda 每次都是新对象，缓存从空开始，于是"
            "每一轮都要重新追踪和编译。在循环外 jit 一次，然后反复使用。",
        ),
        kind=AnswerKind.NUMBER,
        expected=3,
        snippet=jit_inside_the_loop,
        code_comments=(Text("a new function object each time round", "每一轮都是新的函数对象"),),
        settle=compile_answer,
    ),
    Exercise(
        id="aot-warmup",
        title=Text("Warm up before serving", "开门前先预热"),
        question=Text(
            "At start-up, serve is compiled ahead of time for sizes 8 and 16 with "
            "lower(...).compile(). Then requests of size 8, 16, 8, 32 arrive. How many "
            "compiles happen during the requests?",
            "启动时用 lower(...).compile() 为长度 8 和 16 提前编译 serve。随后来了长度为 8、"
            "16、8、32 的请求。请求期间编译几次？",
        ),
        explanation=Text(
            "Ahead-of-time compiling a jitted function fills the same cache that its calls "
            "use, so sizes 8 and 16 are served at once. Only the size nobody warmed up, 32, "
            "compiles while a request waits.",
            "对 jit 函数做提前编译，填的正是它调用时用的那个缓存，所以长度 8 和 16 立即就能"
            "出餐。只有没人预热过的长度 32，要让请求等着编译。",
        ),
        kind=AnswerKind.NUMBER,
        expected=1,
        snippet=warm_up_before_serving,
        code_comments=(
            Text("at start-up, before the first request arrives", "启动时，在第一个请求到来之前"),
            Text("the requests", "请求来了"),
        ),
        settle=compile_answer,
        variant="aot-warmup",
    ),
)
