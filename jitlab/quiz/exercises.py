"""The exercises: one snippet per question, run for real; the answer is read off the run.

Each snippet is a plain function of ``lab``: ``lab.jit`` is ``jax.jit`` with jitlab's probe
around it, ``lab.note`` keeps a value the answer needs. The snippet's source is what the
user sees, so it stays short and reads like ordinary JAX code.
"""

from __future__ import annotations

import time

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType, Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

from jitlab.core.scenario import Text
from jitlab.quiz.model import (
    Answer,
    AnswerKind,
    Evidence,
    Exercise,
    Option,
    calls_text,
    compile_answer,
    error_answer,
    kind_text,
    printed_answer,
)

CLAIM = (
    Option("true", Text("True — the run will confirm it", "对——运行会证实它")),
    Option("false", Text("False — the run will refute it", "错——运行会推翻它")),
)


def _errors(*names: str) -> tuple[Option, ...]:
    """Options of an ERROR exercise: "none" first, then exception names."""
    return (
        Option("none", Text("No error: it runs", "不报错，正常运行")),
        *(Option(name, Text(name, name)) for name in names),
    )


def _verdict(holds: bool) -> str:
    return "true" if holds else "false"


# =============================================================================================
# 1 · side effects
# =============================================================================================
def print_in_jit(lab):
    @lab.jit
    def triple(x):
        print("tracing triple with", x)
        return x * 3

    for n in (4, 4, 4, 8, 4):
        triple(np.ones(n, np.float32))


def counter_in_jit(lab):
    calls = 0

    @lab.jit
    def double(x):
        nonlocal calls
        calls += 1  # meant to count every call
        return x * 2

    for _ in range(5):
        double(np.arange(4, dtype=np.float32))
    lab.note("calls", calls)


def _settle_counter(ev: Evidence) -> Answer:
    calls = ev.facts["calls"]
    return Answer(
        calls,
        Text(
            f"After {len(ev.records)} calls ({calls_text(ev).en}) the counter is {calls}.",
            f"{len(ev.records)} 次调用（{calls_text(ev).zh}）之后，计数器是 {calls}。",
        ),
    )


def debug_print_every_call(lab):
    @lab.jit
    def double(x):
        jax.debug.print("double got x[0] = {v}", v=x[0])
        return x * 2

    for start in (0.0, 1.0, 2.0):
        double(np.arange(4, dtype=np.float32) + np.float32(start))


def setting_read_while_tracing(lab):
    settings = {"scale": 2}

    @lab.jit
    def apply(x):
        return x * settings["scale"]  # a Python value, read while tracing

    results = []
    for scale in (2, 5, 7):
        settings["scale"] = scale
        results.append(int(apply(np.float32(1.0))))
    lab.note("results", results)


def _settle_third_result(ev: Evidence) -> Answer:
    results = ev.facts["results"]
    return Answer(
        results[2],
        Text(
            f"The three calls returned {results} while the setting was 2, 5, 7 "
            f"({calls_text(ev).en}).",
            f"设置依次为 2、5、7 时，三次调用返回 {results}（{calls_text(ev).zh}）。",
        ),
    )


def printed_on_the_third_call(lab):
    @lab.jit
    def step(x, n):
        print("python sees n =", n)
        jax.debug.print("program sees n = {n}", n=n)
        return x + n

    for n in (1, 2, 3):
        step(np.float32(0.0), n)


def _settle_third_call(ev: Evidence) -> Answer:
    third = [line.text for line in ev.records[2].stdout]
    python = any(text.startswith("python sees") for text in third)
    program = any(text.startswith("program sees") for text in third)
    value = {
        (True, True): "both",
        (False, True): "program",
        (True, False): "python",
        (False, False): "nothing",
    }[python, program]
    return Answer(
        value,
        Text(
            f"Third call ({kind_text(ev.records[2].kind).en}) printed: {third or 'nothing'}.",
            f"第三次调用（{kind_text(ev.records[2].kind).zh}）打印了：{third or '什么也没有'}。",
        ),
    )


def keep_tracer_in_list(lab):
    seen = []

    @lab.jit
    def double(x):
        seen.append(x)  # stores what x is while tracing
        return x * 2

    double(np.arange(3, dtype=np.float32))
    lab.note("stored", repr(seen[0]))
    return seen[0] + 1  # use the stored value after the call


# =============================================================================================
# 2 · static arguments
# =============================================================================================
def static_value_per_compile(lab):
    def power(x, n):
        return x**n

    power = lab.jit(power, static_argnames="n")
    for n in (1, 2, 3, 1, 2, 3):
        power(np.arange(4, dtype=np.float32), n=n)


def _settle_static_free(ev: Evidence) -> Answer:
    n = ev.compiles
    return Answer(
        _verdict(n <= 1),
        Text(
            f"6 calls with 3 distinct values of n: {n} compiles ({calls_text(ev).en}). "
            "Each new static value is a new program.",
            f"6 次调用、n 只有 3 个不同取值：编译 {n} 次（{calls_text(ev).zh}）。"
            "每个新的静态值都是一个新程序。",
        ),
    )


def static_tuple_reps(lab):
    def tile(x, reps):
        return jnp.tile(x, reps)

    tile = lab.jit(tile, static_argnames="reps")
    x = np.ones((2, 2), np.float32)
    for reps in ((2, 3), (2, 3), (3, 2), (2, 3), (3, 2)):
        tile(x, reps=reps)


def repeat_with_traced_count(lab):
    @lab.jit
    def repeat(x, n):
        return jnp.repeat(x, n)  # the output length depends on the value of n

    repeat(np.array([1, 2], np.int32), 3)


def array_as_static(lab):
    def scale(x, factor):
        return x * factor

    scale = lab.jit(scale, static_argnames="factor")
    scale(np.ones(3, np.float32), factor=jnp.array(2.0))


def python_int_traced(lab):
    @lab.jit
    def scale(x, factor):
        return x * factor  # factor is traced: only its type matters

    for factor in (1, 2, 3, 4):
        scale(np.ones(3, np.float32), factor)


# =============================================================================================
# 3 · control flow
# =============================================================================================
def python_if_on_traced(lab):
    @lab.jit
    def relu(x):
        if x > 0:
            return x
        return 0.0

    relu(3.0)


def cond_branches(lab):
    def grow(x):
        print("tracing grow")
        jax.debug.print("grow runs")
        return x + 1

    def shrink(x):
        print("tracing shrink")
        jax.debug.print("shrink runs")
        return x - 1

    @lab.jit
    def step(x):
        return jax.lax.cond(x > 0, grow, shrink, x)

    step(3.0)
    step(-2.0)


def _settle_cond(ev: Evidence) -> Answer:
    traced = [line.text for line in ev.printed if line.when == "trace"]
    ran = [[line.text for line in r.stdout if line.when == "runtime"] for r in ev.records]
    if any(len(lines) >= 2 for lines in ran):
        value = "both-run"
    elif len(traced) >= 2:
        value = "both-traced"
    else:
        value = "one-only"
    return Answer(
        value,
        Text(
            f"While tracing: {traced}. At run time, per call: {ran}.",
            f"追踪时打印：{traced}。运行时，每次调用打印：{ran}。",
        ),
    )


def static_flag_branches(lab):
    def activate(x, smooth):
        if smooth:  # a Python bool, known while tracing
            return jnp.tanh(x)
        return jnp.maximum(x, 0.0)

    activate = lab.jit(activate, static_argnames="smooth")
    for smooth in (True, False, True, True):
        activate(np.ones(4, np.float32), smooth=smooth)


def loop_over_traced_count(lab):
    @lab.jit
    def add_n_times(x, n):
        for _ in range(n):
            x = x + 1
        return x

    add_n_times(np.zeros(3, np.float32), 4)


def unrolled_against_fori(lab):
    def unrolled(x):
        for _ in range(300):
            x = jnp.sin(x) * 1.01
        return x

    def rolled(x):
        return jax.lax.fori_loop(0, 300, lambda i, x: jnp.sin(x) * 1.01, x)

    x = np.ones(16, np.float32)
    lab.jit(unrolled)(x)
    lab.jit(rolled)(x)
    lab.note("unrolled_equations", len(jax.make_jaxpr(unrolled)(x).eqns))
    lab.note("rolled_equations", len(jax.make_jaxpr(rolled)(x).eqns))


def _settle_unrolled(ev: Evidence) -> Answer:
    unrolled, rolled = ev.records[:2]
    cost = [r.trace_ms + r.lower_ms + r.compile_ms for r in (unrolled, rolled)]
    ratio = cost[0] / max(cost[1], 1e-6)
    value = "fori_loop" if ratio > 1.5 else "unrolled" if ratio < 1 / 1.5 else "same"
    eq_u, eq_r = ev.facts["unrolled_equations"], ev.facts["rolled_equations"]
    return Answer(
        value,
        Text(
            f"Unrolled: {eq_u} equations, {cost[0]:.1f} ms to trace and compile. "
            f"fori_loop: {eq_r} equation(s), {cost[1]:.1f} ms.",
            f"展开的循环：{eq_u} 条等式，追踪加编译 {cost[0]:.1f} ms。"
            f"fori_loop：{eq_r} 条等式，{cost[1]:.1f} ms。",
        ),
    )


# =============================================================================================
# 4 · dynamic shapes
# =============================================================================================
def shapes_from_the_guide(lab):
    @lab.jit
    def total(x):
        return jnp.sum(x)

    for n in (8, 8, 16, 8, 32, 8):
        total(np.ones(n, np.float32))


def nonzero_inside_jit(lab):
    @lab.jit
    def positive_positions(x):
        return jnp.nonzero(x > 0)  # how many? only the values can tell

    positive_positions(np.array([1.0, -2.0, 3.0], np.float32))


def pad_to_buckets(lab):
    @lab.jit
    def mean_of_real_rows(batch, mask):
        return jnp.sum(batch * mask) / jnp.sum(mask)

    for rows in (3, 5, 9, 12, 16, 17):
        bucket = 1 << (rows - 1).bit_length()  # the next power of two
        batch = np.zeros(bucket, np.float32)
        batch[:rows] = 1.0
        mask = (np.arange(bucket) < rows).astype(np.float32)
        mean_of_real_rows(batch, mask)


def dtypes_at_the_door(lab):
    @lab.jit
    def double(x):
        return x * 2

    double(jnp.ones(4))  # float32
    double(np.ones(4))  # numpy float64
    double(jnp.ones(4, jnp.int32))
    double(np.ones(4, np.float32))


# =============================================================================================
# 5 · the cost of recompiling
# =============================================================================================
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
        _verdict(first.latency_ms <= eager),
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
    start = time.perf_counter()
    y = work(a)  # returns once the work is queued
    lab.note("timer_ms", (time.perf_counter() - start) * 1e3)
    lab.note("ready_when_timer_stopped", y.is_ready())
    y.block_until_ready()
    lab.note("real_ms", (time.perf_counter() - start) * 1e3)


def _settle_block(ev: Evidence) -> Answer:
    ready = ev.facts["ready_when_timer_stopped"]
    timer, real = ev.facts["timer_ms"], ev.facts["real_ms"]
    return Answer(
        _verdict(bool(ready)),
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


# =============================================================================================
# 6 · debugging errors
# =============================================================================================
def matmul_shapes(lab):
    @lab.jit
    def project(x, w):
        return x @ w

    project(np.ones((8, 32), np.float32), np.ones((8, 32), np.float32))


def replay_without_jit(lab):
    @lab.jit
    def relu(x):
        if x > 0:  # fails under jit, where x is a tracer
            return x
        return 0.0

    with jax.disable_jit():  # plain Python, line by line, with real values
        relu(3.0)


def count_equations(lab):
    def f(x):
        for _ in range(3):
            x = x + 1
        return jnp.sin(x)

    jaxpr = jax.make_jaxpr(f)(np.ones(4, np.float32))
    lab.note("jaxpr", str(jaxpr))
    lab.note("equations", len(jaxpr.eqns))


def _settle_equations(ev: Evidence) -> Answer:
    n = ev.facts["equations"]
    return Answer(
        n,
        Text(
            f"make_jaxpr shows {n} equations:\n{ev.facts['jaxpr']}",
            f"make_jaxpr 显示 {n} 条等式：\n{ev.facts['jaxpr']}",
        ),
    )


# =============================================================================================
# 7 · sharding (needs two devices)
# =============================================================================================
def layouts_over_devices(lab):
    mesh = Mesh(np.array(jax.devices()[:2]), ("data",), axis_types=(AxisType.Auto,))
    by_rows = NamedSharding(mesh, P("data", None))
    by_columns = NamedSharding(mesh, P(None, "data"))
    everywhere = NamedSharding(mesh, P())

    @lab.jit
    def row_norms(x):
        return jnp.sqrt(jnp.sum(x * x, axis=1))

    batch = np.ones((8, 4), np.float32)
    for layout in (by_rows, by_rows, by_columns, by_rows, everywhere):
        row_norms(jax.device_put(batch, layout))


def traces_over_layouts(lab):
    mesh = Mesh(np.array(jax.devices()[:2]), ("data",), axis_types=(AxisType.Auto,))

    @lab.jit
    def row_norms(x):
        print("tracing row_norms")
        return jnp.sqrt(jnp.sum(x * x, axis=1))

    batch = np.ones((8, 4), np.float32)
    for spec in (P("data", None), P(None, "data"), P()):
        row_norms(jax.device_put(batch, NamedSharding(mesh, spec)))


def _settle_traces_over_layouts(ev: Evidence) -> Answer:
    printed = printed_answer(ev)
    return Answer(
        printed.value,
        Text(
            f"{printed.detail.en} Compiles: {ev.compiles} ({calls_text(ev).en}).",
            f"{printed.detail.zh} 编译：{ev.compiles} 次（{calls_text(ev).zh}）。",
        ),
    )


def split_rows_unevenly(lab):
    mesh = Mesh(np.array(jax.devices()[:2]), ("data",), axis_types=(AxisType.Auto,))

    @lab.jit
    def row_norms(x):
        return jnp.sqrt(jnp.sum(x * x, axis=1))

    batch = np.ones((5, 4), np.float32)  # 5 rows over 2 devices
    row_norms(jax.device_put(batch, NamedSharding(mesh, P("data", None))))


# =============================================================================================
# The catalogue
# =============================================================================================
EXERCISES: tuple[Exercise, ...] = (
    # -- side effects ---------------------------------------------------------------------
    Exercise(
        id="print-in-jit",
        scenario="side-effects",
        title=Text("A print inside jit", "jit 里的 print"),
        question=Text(
            "triple() prints a line and is called five times: with 4 elements three times, "
            "then 8, then 4 again. How many lines are printed?",
            "triple() 里有一句 print，调用五次：先三次 4 个元素，再一次 8 个，最后又是 4 个。"
            "一共打印几行？",
        ),
        explanation=Text(
            "print is Python: it runs while jit traces the function, once per new signature, "
            "and is not part of the compiled program. Length 4 is traced once, length 8 once; "
            "the other calls run the cached program silently. A plain print is a handy "
            "'tracing happened' alarm.",
            "print 是 Python 代码：只在 jit 追踪函数时运行，每种新签名一次，不会进入编译出的"
            "程序。长度 4 追踪一次，长度 8 追踪一次；其余调用悄无声息地执行缓存的程序。普通 "
            "print 正好可以当作“发生了追踪”的警报器。",
        ),
        kind=AnswerKind.NUMBER,
        snippet=print_in_jit,
        settle=printed_answer,
    ),
    Exercise(
        id="counter-in-jit",
        scenario="side-effects",
        title=Text("Counting calls from inside", "在函数里数调用次数"),
        question=Text(
            "double() adds 1 to a counter that lives outside it, and is called five times "
            "with the same input shape. What is the counter at the end?",
            "double() 每次都给外面的计数器加 1，用同样形状的输入调用五次。最后计数器是几？",
        ),
        explanation=Text(
            "The counter changes while tracing, and tracing happens once for one signature. "
            "The compiled program only contains the multiplication. To count calls, pass the "
            "count in and return count + 1.",
            "计数器只在追踪时被修改，而同一种签名只追踪一次。编译出的程序里只有那次乘法。想数"
            "调用次数，就把计数作为参数传入，再把 count + 1 返回出来。",
        ),
        kind=AnswerKind.NUMBER,
        snippet=counter_in_jit,
        settle=_settle_counter,
    ),
    Exercise(
        id="debug-print",
        scenario="side-effects",
        title=Text("Printing while the program runs", "在程序运行时打印"),
        question=Text(
            "This time the function uses jax.debug.print, and is called three times with new "
            "values of the same shape. How many lines are printed?",
            "这回函数里用的是 jax.debug.print，用同样形状、不同数值调用三次。打印几行？",
        ),
        explanation=Text(
            "jax.debug.print becomes a callback inside the compiled program, so it prints on "
            "every call, with the real values, even though the function was traced only once.",
            "jax.debug.print 会变成编译程序里的一个回调，所以每次调用都会打印，而且打印的是"
            "真实数值——尽管函数只追踪了一次。",
        ),
        kind=AnswerKind.NUMBER,
        snippet=debug_print_every_call,
        settle=printed_answer,
        variant="fix",
    ),
    Exercise(
        id="stale-setting",
        scenario="side-effects",
        title=Text("A setting read from outside", "从外面读来的设置"),
        question=Text(
            "apply() multiplies by settings['scale']. The setting is 2, then 5, then 7 "
            "before each of three calls with x = 1. What does the third call return?",
            "apply() 乘以 settings['scale']。三次调用（x = 1）之前，设置依次改为 2、5、7。"
            "第三次调用返回什么？",
        ),
        explanation=Text(
            "The setting is a Python value, read once while tracing and baked into the "
            "program as a constant. Same signature, same cached program: it still multiplies "
            "by the value seen at trace time. Pass settings that change as arguments.",
            "这个设置是 Python 值，只在追踪时读一次，作为常量写进了程序。签名不变，用的就是"
            "同一个缓存程序：它仍然乘以追踪时看到的那个值。会变的设置，请作为参数传入。",
        ),
        kind=AnswerKind.NUMBER,
        snippet=setting_read_while_tracing,
        settle=_settle_third_result,
        variant="global-read",
    ),
    Exercise(
        id="third-call-output",
        scenario="side-effects",
        title=Text("What the third call prints", "第三次调用打印什么"),
        question=Text(
            "step(x, n) has a print and a jax.debug.print, and is called with n = 1, 2, 3. "
            "What is printed on the third call?",
            "step(x, n) 里有一句 print 和一句 jax.debug.print，依次用 n = 1、2、3 调用。"
            "第三次调用打印什么？",
        ),
        explanation=Text(
            "n is traced, and 1, 2, 3 share one signature, so only the first call traces: "
            "the plain print appears once, showing a tracer, not a number. jax.debug.print "
            "is part of the program and prints the real n on every call, 3 on the third.",
            "n 是追踪参数，1、2、3 共用一种签名，所以只有第一次调用会追踪：普通 print 只出现"
            "一次，而且打印的是 tracer，不是数字。jax.debug.print 是程序的一部分，每次调用都"
            "打印真实的 n，第三次就是 3。",
        ),
        kind=AnswerKind.CHOICE,
        options=(
            Option(
                "both",
                Text(
                    "python sees n = 3, then program sees n = 3",
                    "python sees n = 3，再加 program sees n = 3",
                ),
            ),
            Option("program", Text("Only: program sees n = 3", "只有 program sees n = 3")),
            Option("python", Text("Only: python sees n = 3", "只有 python sees n = 3")),
            Option("nothing", Text("Nothing at all", "什么也不打印")),
        ),
        snippet=printed_on_the_third_call,
        settle=_settle_third_call,
        variant="fix",
    ),
    Exercise(
        id="leaked-tracer",
        scenario="side-effects",
        title=Text("Keeping x for later", "把 x 存起来以后用"),
        question=Text(
            "double() appends its argument to a list. After the call, the code adds 1 to "
            "what the list holds. Does it raise, and which error?",
            "double() 把参数 append 进一个列表。调用结束后，代码给列表里存的东西加 1。会报错"
            "吗？是哪种错误？",
        ),
        explanation=Text(
            "While tracing, x is a tracer: a stand-in with a shape and a dtype but no "
            "numbers. The list keeps that tracer after its trace has ended, and any use of "
            "it then raises UnexpectedTracerError. Return values instead of storing them.",
            "追踪时 x 是一个 tracer：只有形状和 dtype、没有数值的替身。追踪结束后列表里仍留着"
            "它，之后一用就抛出 UnexpectedTracerError。要的值请通过返回值带出来，不要存起来。",
        ),
        kind=AnswerKind.ERROR,
        snippet=keep_tracer_in_list,
        settle=error_answer,
        options=_errors("UnexpectedTracerError", "IndexError", "TracerBoolConversionError"),
    ),
    # -- static arguments -----------------------------------------------------------------
    Exercise(
        id="static-is-free",
        scenario="static-args",
        title=Text("Misconception: static arguments are free", "误区：静态参数没有代价"),
        claim=Text(
            "Marking an argument static costs nothing: the function compiles once and the "
            "value is simply plugged in.",
            "把参数标成静态没有任何代价：函数只编译一次，值直接代进去就行。",
        ),
        question=Text(
            "power(x, n) with n static is called with n = 1, 2, 3, 1, 2, 3. Is the claim true?",
            "power(x, n) 的 n 是静态参数，依次用 n = 1、2、3、1、2、3 调用。这个说法对吗？",
        ),
        explanation=Text(
            "A static argument is part of the cache key: each distinct value gets its own "
            "trace and compile, and repeated values hit their own card. Static is right for "
            "a few values that decide shapes or control flow, and a trap for values that "
            "keep changing.",
            "静态参数是缓存键的一部分：每个不同的值都要单独追踪、编译一次，重复的值命中各自的"
            "卡片。取值很少、又决定形状或控制流的参数适合静态；取值不断变化的参数设成静态就是"
            "陷阱。",
        ),
        kind=AnswerKind.CHOICE,
        options=CLAIM,
        snippet=static_value_per_compile,
        settle=_settle_static_free,
        variant="static-explosion",
    ),
    Exercise(
        id="static-tuple",
        scenario="static-args",
        title=Text("A tuple as a static argument", "元组作为静态参数"),
        question=Text(
            "tile(x, reps) with reps static is called with (2, 3), (2, 3), (3, 2), (2, 3), "
            "(3, 2). How many compiles?",
            "tile(x, reps) 的 reps 是静态参数，依次传入 (2, 3)、(2, 3)、(3, 2)、(2, 3)、"
            "(3, 2)。编译几次？",
        ),
        explanation=Text(
            "Static values must be hashable; a tuple is. jit compares them by value: equal "
            "tuples share one program, and each distinct tuple compiles once.",
            "静态参数必须可哈希，元组可以。jit 按值比较它们：相等的元组共用一个程序，每个不同"
            "的元组编译一次。",
        ),
        kind=AnswerKind.NUMBER,
        snippet=static_tuple_reps,
        settle=compile_answer,
        variant="fix",
    ),
    Exercise(
        id="repeat-traced",
        scenario="static-args",
        title=Text("jnp.repeat with a traced count", "用追踪值做 jnp.repeat 的次数"),
        question=Text(
            "repeat(x, n) calls jnp.repeat(x, n) with n an ordinary (traced) argument. Does "
            "the call raise, and which error?",
            "repeat(x, n) 调用 jnp.repeat(x, n)，n 是普通的（追踪）参数。调用会报错吗？"
            "是哪种错误？",
        ),
        explanation=Text(
            "The output length is len(x) × n, and jit must know every shape while tracing. "
            "A traced n has no value then, so JAX raises ConcretizationTypeError. Mark n "
            "static (static_argnames='n').",
            "输出长度是 len(x) × n，而 jit 在追踪时必须知道所有形状。追踪参数 n 此时没有值，"
            "于是 JAX 抛出 ConcretizationTypeError。把 n 标成静态参数（static_argnames='n'）。",
        ),
        kind=AnswerKind.ERROR,
        snippet=repeat_with_traced_count,
        settle=error_answer,
        options=_errors("ConcretizationTypeError", "ValueError", "IndexError"),
    ),
    Exercise(
        id="array-static",
        scenario="static-args",
        title=Text("An array as a static argument", "数组作为静态参数"),
        question=Text(
            "scale(x, factor) marks factor static and is given factor = jnp.array(2.0). Does "
            "it raise, and which error?",
            "scale(x, factor) 把 factor 标为静态参数，传入 factor = jnp.array(2.0)。会报错"
            "吗？是哪种错误？",
        ),
        explanation=Text(
            "Static arguments are hashed to find the compiled program, and JAX arrays are not "
            "hashable: jit refuses with a ValueError at the call. An array cannot be static "
            "at all; keep it traced, or pass a hashable value such as a tuple or a float.",
            "jit 要对静态参数求哈希来找编译好的程序，而 JAX 数组不可哈希：调用时直接抛出 "
            "ValueError。数组根本不能作为静态参数；让它保持追踪，或者传一个可哈希的值，比如"
            "元组或浮点数。",
        ),
        kind=AnswerKind.ERROR,
        snippet=array_as_static,
        settle=error_answer,
        options=_errors("ValueError", "ConcretizationTypeError", "UnexpectedTracerError"),
        variant="static-array",
    ),
    Exercise(
        id="traced-int",
        scenario="static-args",
        title=Text("A Python int, traced", "被追踪的 Python 整数"),
        question=Text(
            "scale(x, factor) keeps factor traced and is called with factor = 1, 2, 3, 4. "
            "How many compiles?",
            "scale(x, factor) 的 factor 是追踪参数，依次传入 1、2、3、4。编译几次？",
        ),
        explanation=Text(
            "A traced argument is keyed by its type, not its value: every Python int here is "
            "the same weakly typed int32 scalar, so one program serves all four values. Keep "
            "arguments traced unless a shape or a branch needs the value.",
            "追踪参数按类型而不是按值作缓存键：这里每个 Python 整数都是同一种弱类型 int32 "
            "标量，所以一个程序就能服务全部四个值。除非形状或分支需要具体值，否则让参数保持"
            "追踪。",
        ),
        kind=AnswerKind.NUMBER,
        snippet=python_int_traced,
        settle=compile_answer,
        variant="fix",
    ),
    # -- control flow ---------------------------------------------------------------------
    Exercise(
        id="if-on-tracer",
        scenario="control-flow",
        title=Text("A Python if on a traced value", "追踪值上的 Python if"),
        question=Text(
            "relu(x) uses `if x > 0:` and is jitted, then called with 3.0. Does it raise, and "
            "which error?",
            "relu(x) 里写了 `if x > 0:`，经过 jit 后用 3.0 调用。会报错吗？是哪种错误？",
        ),
        explanation=Text(
            "While tracing, x > 0 is a traced boolean with no value, and `if` needs a real "
            "True or False: JAX raises TracerBoolConversionError. Put the choice in the "
            "program with jnp.where or jax.lax.cond.",
            "追踪时 x > 0 是一个没有具体值的追踪布尔量，而 `if` 需要真正的 True 或 False："
            "JAX 抛出 TracerBoolConversionError。用 jnp.where 或 jax.lax.cond 把选择写进程序。",
        ),
        kind=AnswerKind.ERROR,
        snippet=python_if_on_traced,
        settle=error_answer,
        options=_errors("TracerBoolConversionError", "ValueError", "UnexpectedTracerError"),
    ),
    Exercise(
        id="cond-both-branches",
        scenario="control-flow",
        title=Text("Misconception: lax.cond runs both branches", "误区：lax.cond 两个分支都会执行"),
        claim=Text(
            "jax.lax.cond runs both branches every time and then keeps one result.",
            "jax.lax.cond 每次都把两个分支都执行一遍，再留下其中一个结果。",
        ),
        question=Text(
            "Each branch has a print (runs while tracing) and a jax.debug.print (runs with "
            "the program). step(3.0), then step(-2.0). What really happens?",
            "每个分支里都有一句 print（追踪时运行）和一句 jax.debug.print（随程序运行）。先调用 "
            "step(3.0)，再调用 step(-2.0)。实际发生了什么？",
        ),
        explanation=Text(
            "jit traces both branches, because the program must contain both (the print of "
            "each appears once). When it runs, the predicate picks one, and only that "
            "branch's debug print appears, on each call. (Under vmap, a batched predicate "
            "does turn cond into a select that computes both.)",
            "jit 会追踪两个分支，因为程序里必须包含两者（各自的 print 各出现一次）。运行时由"
            "条件选出一个分支，每次调用只出现那个分支的 debug 打印。（在 vmap 下，批量化的条件"
            "确实会把 cond 变成同时计算两边的 select。）",
        ),
        kind=AnswerKind.CHOICE,
        options=(
            Option(
                "both-run",
                Text("Both branches run on every call", "每次调用两个分支都运行"),
            ),
            Option(
                "both-traced",
                Text(
                    "Both are traced once; each call runs only the chosen one",
                    "两个分支都追踪一次；每次调用只运行选中的那个",
                ),
            ),
            Option(
                "one-only",
                Text(
                    "Only the chosen branch is traced and run",
                    "只有选中的分支被追踪和运行",
                ),
            ),
        ),
        snippet=cond_branches,
        settle=_settle_cond,
        variant="fix",
    ),
    Exercise(
        id="static-if",
        scenario="control-flow",
        title=Text("An if on a static flag", "静态开关上的 if"),
        question=Text(
            "activate(x, smooth) branches with a Python if on the static bool smooth, and is "
            "called with smooth = True, False, True, True. How many compiles?",
            "activate(x, smooth) 用 Python if 判断静态布尔参数 smooth，依次传入 True、False、"
            "True、True。编译几次？",
        ),
        explanation=Text(
            "A static value is a real Python value while tracing, so the if works: each value "
            "gets its own program with only the branch it takes. Two values, two compiles; "
            "the rest are cache hits.",
            "静态值在追踪时就是真正的 Python 值，所以 if 可以正常工作：每个取值各得一个只包含"
            "所走分支的程序。两个取值，编译两次；其余都命中缓存。",
        ),
        kind=AnswerKind.NUMBER,
        snippet=static_flag_branches,
        settle=compile_answer,
        variant="static-if",
    ),
    Exercise(
        id="range-of-tracer",
        scenario="control-flow",
        title=Text("range() over a traced count", "对追踪值调用 range()"),
        question=Text(
            "add_n_times(x, n) loops `for _ in range(n)` with n traced. Does it raise, and "
            "which error?",
            "add_n_times(x, n) 里写着 `for _ in range(n)`，n 是追踪参数。会报错吗？是哪种错误？",
        ),
        explanation=Text(
            "range() needs a Python integer, and asks the tracer for one through __index__: "
            "JAX raises TracerIntegerConversionError. Use jax.lax.fori_loop (a traced bound "
            "is fine there) or make n static.",
            "range() 需要 Python 整数，会通过 __index__ 向 tracer 要一个：JAX 抛出 "
            "TracerIntegerConversionError。改用 jax.lax.fori_loop（它接受追踪的上界），或者"
            "把 n 设成静态参数。",
        ),
        kind=AnswerKind.ERROR,
        snippet=loop_over_traced_count,
        settle=error_answer,
        options=_errors("TracerIntegerConversionError", "TracerBoolConversionError", "IndexError"),
        variant="fori-loop",
    ),
    Exercise(
        id="unrolled-vs-fori",
        scenario="control-flow",
        title=Text("Which compiles faster?", "哪个编译得更快？"),
        question=Text(
            "The same 300 steps, written as a Python for loop and as jax.lax.fori_loop. "
            "Which one is faster to trace and compile?",
            "同样的 300 步，一个写成 Python for 循环，一个写成 jax.lax.fori_loop。哪个追踪"
            "加编译更快？",
        ),
        explanation=Text(
            "A Python loop is unrolled while tracing: 300 copies of the body, two equations "
            "each, all handed to XLA. fori_loop keeps one copy of the body inside a single "
            "loop equation, so the program, and the compile time, stay small whatever the "
            "count.",
            "Python 循环在追踪时被展开：循环体复制 300 份、每份两条等式，全部交给 XLA。"
            "fori_loop 只在一条循环等式里保留一份循环体，所以无论循环多少次，程序和编译时间"
            "都很小。",
        ),
        kind=AnswerKind.CHOICE,
        options=(
            Option("unrolled", Text("The Python for loop", "Python for 循环")),
            Option("fori_loop", Text("jax.lax.fori_loop", "jax.lax.fori_loop")),
            Option("same", Text("About the same", "差不多")),
        ),
        snippet=unrolled_against_fori,
        settle=_settle_unrolled,
        variant="unrolled-loop",
    ),
    # -- dynamic shapes -------------------------------------------------------------------
    Exercise(
        id="shape-sequence",
        scenario="dynamic-shapes",
        title=Text("Sizes 8, 8, 16, 8, 32, 8", "长度 8、8、16、8、32、8"),
        question=Text(
            "total(x) sums x, and is called with arrays of 8, 8, 16, 8, 32 and 8 elements. "
            "How many compiles?",
            "total(x) 对 x 求和，依次用 8、8、16、8、32、8 个元素的数组调用。编译几次？",
        ),
        explanation=Text(
            "One program per shape: 8 compiles first, 16 and 32 compile once each, and every "
            "return to 8 is a cache hit. Fix shapes at the door (padding, buckets) and the "
            "count stays at one.",
            "每种形状一个程序：8 先编译一次，16 和 32 各编译一次，每次回到 8 都命中缓存。"
            "在门口就把形状定下来（填充、分桶），编译次数就能保持为一。",
        ),
        kind=AnswerKind.NUMBER,
        snippet=shapes_from_the_guide,
        settle=compile_answer,
    ),
    Exercise(
        id="nonzero-in-jit",
        scenario="dynamic-shapes",
        title=Text("jnp.nonzero inside jit", "jit 里的 jnp.nonzero"),
        question=Text(
            "positive_positions(x) returns jnp.nonzero(x > 0). Does it raise under jit, and "
            "which error?",
            "positive_positions(x) 返回 jnp.nonzero(x > 0)。在 jit 下会报错吗？是哪种错误？",
        ),
        explanation=Text(
            "How many positions come back depends on the values, but a compiled program "
            "needs its output shapes while tracing: ConcretizationTypeError. Give a fixed "
            "size (jnp.nonzero(..., size=n, fill_value=...)) or use a mask.",
            "返回多少个位置取决于数值，而编译程序在追踪时就必须知道输出形状："
            "ConcretizationTypeError。给一个固定的 size（jnp.nonzero(..., size=n, "
            "fill_value=...)），或者改用掩码。",
        ),
        kind=AnswerKind.ERROR,
        snippet=nonzero_inside_jit,
        settle=error_answer,
        options=_errors("ConcretizationTypeError", "IndexError", "ValueError"),
        variant="nonzero",
    ),
    Exercise(
        id="bucket-count",
        scenario="dynamic-shapes",
        title=Text("Padding to power-of-two buckets", "按 2 的幂分桶填充"),
        question=Text(
            "Batches of 3, 5, 9, 12, 16 and 17 rows are each padded to the next power of two "
            "(with a mask) before the call. How many compiles?",
            "3、5、9、12、16、17 行的批次，调用前各自填充到下一个 2 的幂（配合掩码）。编译几次？",
        ),
        explanation=Text(
            "Padding turns six sizes into four buckets, 4, 8, 16 and 32, and only buckets "
            "reach jit. Fewer distinct shapes means fewer compiles; the mask keeps the "
            "padding out of the result.",
            "填充把六种长度变成四个桶：4、8、16、32，到达 jit 的只有桶的大小。形状种类越少，"
            "编译越少；掩码保证填充的部分不影响结果。",
        ),
        kind=AnswerKind.NUMBER,
        snippet=pad_to_buckets,
        settle=compile_answer,
        variant="sequences-bucket",
    ),
    Exercise(
        id="dtype-door",
        scenario="dynamic-shapes",
        title=Text("Four arrays of four ones", "四个全是 1 的四元素数组"),
        question=Text(
            "double(x) is called with jnp.ones(4), np.ones(4) (float64), jnp.ones(4, int32) "
            "and np.ones(4, float32). How many compiles?",
            "double(x) 依次用 jnp.ones(4)、np.ones(4)（float64）、jnp.ones(4, int32)、"
            "np.ones(4, float32) 调用。编译几次？",
        ),
        explanation=Text(
            "The dtype is part of the signature, but JAX first converts inputs to its own "
            "types: with 64-bit mode off (the default), numpy float64 becomes float32 and "
            "matches the first call. Only the int32 array is new.",
            "dtype 属于签名，但 JAX 会先把输入转换成自己的类型：在默认关闭 64 位模式时，numpy "
            "的 float64 会变成 float32，和第一次调用一样。只有 int32 数组是新的。",
        ),
        kind=AnswerKind.NUMBER,
        snippet=dtypes_at_the_door,
        settle=compile_answer,
    ),
    # -- recompile cost -------------------------------------------------------------------
    Exercise(
        id="jit-always-faster",
        scenario="recompile-cost",
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
        options=CLAIM,
        snippet=first_call_against_eager,
        settle=_settle_jit_faster,
        variant="cold-start",
    ),
    Exercise(
        id="block-until-ready",
        scenario="recompile-cost",
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
        options=CLAIM,
        snippet=timing_without_waiting,
        settle=_settle_block,
    ),
    Exercise(
        id="weak-float",
        scenario="recompile-cost",
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
        snippet=python_float_against_float32,
        settle=compile_answer,
    ),
    Exercise(
        id="jit-in-loop",
        scenario="recompile-cost",
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
        snippet=jit_inside_the_loop,
        settle=compile_answer,
    ),
    Exercise(
        id="aot-warmup",
        scenario="recompile-cost",
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
        snippet=warm_up_before_serving,
        settle=compile_answer,
        variant="aot-warmup",
    ),
    # -- error debugging ------------------------------------------------------------------
    Exercise(
        id="matmul-shapes",
        scenario="error-debugging",
        title=Text("Mismatched matrix shapes", "矩阵形状对不上"),
        question=Text(
            "project(x, w) computes x @ w with x and w both of shape (8, 32). Does it raise, "
            "and which error?",
            "project(x, w) 计算 x @ w，x 和 w 的形状都是 (8, 32)。会报错吗？是哪种错误？",
        ),
        explanation=Text(
            "Shapes are checked while tracing, before anything runs: dot_general finds "
            "contracting dimensions 32 and 8 and raises TypeError, naming both shapes. Read "
            "the last lines of the message first: they say which operation and which shapes.",
            "形状在追踪时、运行之前就会检查：dot_general 发现收缩维度是 32 和 8，抛出 "
            "TypeError，并写明两个形状。先读报错的最后几行：它们说明了是哪个运算、哪些形状。",
        ),
        kind=AnswerKind.ERROR,
        snippet=matmul_shapes,
        settle=error_answer,
        options=_errors("TypeError", "ValueError", "IndexError"),
    ),
    Exercise(
        id="disable-jit",
        scenario="error-debugging",
        title=Text("Replaying without jit", "关掉 jit 重放"),
        question=Text(
            "relu(x) with `if x > 0:` fails under jit. Called with 3.0 inside "
            "`with jax.disable_jit():`, does it raise, and which error?",
            "带 `if x > 0:` 的 relu(x) 在 jit 下会失败。在 `with jax.disable_jit():` 里用 "
            "3.0 调用，会报错吗？是哪种错误？",
        ),
        explanation=Text(
            "disable_jit runs the function as plain Python with real values, so the if sees "
            "True and nothing raises. That is its use in debugging: step through with a "
            "debugger or prints, find the line, then make it jit-friendly.",
            "disable_jit 让函数以普通 Python 方式、带着真实数值运行，if 看到的是 True，什么也"
            "不会报错。这正是它在调试中的用处：用调试器或 print 逐行查看，找到出问题的那一行，"
            "再把它改成适合 jit 的写法。",
        ),
        kind=AnswerKind.ERROR,
        snippet=replay_without_jit,
        settle=error_answer,
        options=_errors("TracerBoolConversionError", "ConcretizationTypeError"),
        variant="fix",
    ),
    Exercise(
        id="jaxpr-equations",
        scenario="error-debugging",
        title=Text("Reading a jaxpr", "读懂 jaxpr"),
        question=Text(
            "f adds 1 three times in a Python loop, then takes jnp.sin. How many equations "
            "does jax.make_jaxpr(f) show?",
            "f 在 Python 循环里加三次 1，再求 jnp.sin。jax.make_jaxpr(f) 显示几条等式？",
        ),
        explanation=Text(
            "make_jaxpr shows what tracing recorded: the Python loop is gone, unrolled into "
            "three add equations, followed by one sin. Reading the jaxpr tells you what "
            "jit will compile, and whether something is missing or repeated.",
            "make_jaxpr 展示追踪记录下的内容：Python 循环消失了，被展开成三条 add 等式，后面"
            "跟一条 sin。读 jaxpr 就知道 jit 要编译什么，也能看出有没有缺失或重复的节点。",
        ),
        kind=AnswerKind.NUMBER,
        snippet=count_equations,
        settle=_settle_equations,
    ),
    # -- sharding -------------------------------------------------------------------------
    Exercise(
        id="layout-compiles",
        scenario="sharding",
        title=Text("Same batch, new layout", "同一批次，不同布局"),
        question=Text(
            "An (8, 4) batch is placed on 2 devices by rows, rows, columns, rows, then "
            "copied to both. How many compiles?",
            "一个 (8, 4) 的批次放到 2 台设备上：按行、按行、按列、按行，最后每台一份完整拷贝。"
            "编译几次？",
        ),
        explanation=Text(
            "jit compiles one program per input sharding: where the data lives decides what "
            "each device computes and which transfers are needed. Three layouts, three "
            "compiles, though shape and dtype never changed. device_put every batch to one "
            "fixed sharding.",
            "jit 为每种输入分片编译一个程序：数据放在哪里，决定了每台设备算什么、要做哪些搬运。"
            "三种布局，编译三次——尽管形状和 dtype 从没变过。把每个批次都 device_put 到同一个"
            "固定的分片上。",
        ),
        kind=AnswerKind.NUMBER,
        snippet=layouts_over_devices,
        settle=compile_answer,
        min_devices=2,
    ),
    Exercise(
        id="layout-traces",
        scenario="sharding",
        title=Text("A silent recompile", "无声的重编译"),
        question=Text(
            "row_norms prints while tracing, and gets the same batch split by rows, by "
            "columns, then copied to both devices. How many lines are printed?",
            "row_norms 在追踪时打印一行，先后收到按行切、按列切、每台一份的同一批次。打印几行？",
        ),
        explanation=Text(
            "With the classic (Auto) mesh, sharding is not part of the traced type: JAX "
            "reuses the trace and only lowers and compiles again. One print for three "
            "compiles, and no cache-miss explanation either; only a signature diff, like "
            "jitlab's, names the cause.",
            "使用经典（Auto）网格时，分片不属于追踪类型：JAX 复用已有的追踪结果，只重新降级和"
            "编译。编译三次却只打印一行，也没有任何缓存未命中的解释；只有像 jitlab 这样比较"
            "签名，才能说出原因。",
        ),
        kind=AnswerKind.NUMBER,
        snippet=traces_over_layouts,
        settle=_settle_traces_over_layouts,
        min_devices=2,
    ),
    Exercise(
        id="uneven-split",
        scenario="sharding",
        title=Text("5 rows over 2 devices", "5 行分给 2 台设备"),
        question=Text(
            "A batch of 5 rows is put on 2 devices split by rows. Does it raise, and which error?",
            "把 5 行的批次按行分到 2 台设备上。会报错吗？是哪种错误？",
        ),
        explanation=Text(
            "A NamedSharding splits a dimension into equal pieces, and 5 rows do not divide "
            "by 2: device_put raises IndivisibleError, a kind of ValueError. Pad the batch "
            "to a multiple of the device count (and mask the padding).",
            "NamedSharding 把一个维度切成相等的份，5 行无法平分给 2 台设备：device_put 抛出 "
            "IndivisibleError（ValueError 的一种）。把批次填充到设备数的整数倍（再用掩码屏蔽"
            "填充部分）。",
        ),
        kind=AnswerKind.ERROR,
        snippet=split_rows_unevenly,
        settle=error_answer,
        options=_errors("ValueError", "TypeError", "IndexError"),
        min_devices=2,
    ),
)

BY_ID = {exercise.id: exercise for exercise in EXERCISES}


def get(exercise_id: str) -> Exercise:
    """The exercise with this id (KeyError if there is none)."""
    return BY_ID[exercise_id]


def available(devices: int | None = None) -> tuple[Exercise, ...]:
    """The exercises that can run with this many devices (default: what JAX sees)."""
    if devices is None:
        devices = jax.device_count()
    return tuple(e for e in EXERCISES if e.min_devices <= devices)
