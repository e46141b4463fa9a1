"""The exercises of the control-flow lesson, which ``scenarios/control_flow.py`` declares.

Predict what jax.jit does, then a real run settles it (`jitlab quiz`). Each snippet is
what the learner reads; the answer is read off the run, and ``expected`` is what its
author expects from this JAX (the tests and `jitlab check` compare the two)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jitlab.lab.scenario import (
    Answer,
    AnswerKind,
    Evidence,
    Exercise,
    Option,
    Text,
    compile_answer,
    error_answer,
    error_options,
)


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
    def programs():
        def unrolled(x):
            for _ in range(300):
                x = jnp.sin(x) * 1.01
            return x

        def rolled(x):
            return jax.lax.fori_loop(0, 300, lambda i, x: jnp.sin(x) * 1.01, x)

        return unrolled, rolled

    x = np.ones(16, np.float32)
    # Each program is compiled twice, from fresh function objects (a real compile each
    # time), so one stall on a busy machine cannot decide the answer: the faster counts.
    for _ in range(2):
        unrolled, rolled = programs()
        lab.jit(unrolled)(x)
        lab.jit(rolled)(x)
    lab.note("unrolled_equations", len(jax.make_jaxpr(unrolled)(x).eqns))
    lab.note("rolled_equations", len(jax.make_jaxpr(rolled)(x).eqns))


def _settle_unrolled(ev: Evidence) -> Answer:
    def spent(record):
        return record.trace_ms + record.lower_ms + record.compile_ms

    # records alternate unrolled, rolled; the faster of each program's compiles counts
    cost = [min(map(spent, ev.records[0::2])), min(map(spent, ev.records[1::2]))]
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


EXERCISES = (
    Exercise(
        id="if-on-tracer",
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
        expected="TracerBoolConversionError",
        snippet=python_if_on_traced,
        settle=error_answer,
        options=error_options("TracerBoolConversionError", "ValueError", "UnexpectedTracerError"),
    ),
    Exercise(
        id="cond-both-branches",
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
        expected="both-traced",
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
        expected=2,
        snippet=static_flag_branches,
        code_comments=(
            Text("a Python bool, known while tracing", "一个 Python 布尔值，追踪时就已知道"),
        ),
        settle=compile_answer,
        variant="static-if",
    ),
    Exercise(
        id="range-of-tracer",
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
        expected="TracerIntegerConversionError",
        snippet=loop_over_traced_count,
        settle=error_answer,
        options=error_options(
            "TracerIntegerConversionError", "TracerBoolConversionError", "IndexError"
        ),
        variant="fori-loop",
    ),
    Exercise(
        id="unrolled-vs-fori",
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
        expected="fori_loop",
        options=(
            Option("unrolled", Text("The Python for loop", "Python for 循环")),
            Option("fori_loop", Text("jax.lax.fori_loop", "jax.lax.fori_loop")),
            Option("same", Text("About the same", "差不多")),
        ),
        snippet=unrolled_against_fori,
        code_comments=(
            Text(
                "Each program is compiled twice, from fresh function objects (a real compile each",
                "每个程序都从新的函数对象编译两次（每次都真的编译），",
            ),
            Text(
                "time), so one stall on a busy machine cannot decide the answer: "
                "the faster counts.",
                "繁忙机器上的一次卡顿就决定不了答案：算较快的那次。",
            ),
        ),
        settle=_settle_unrolled,
        variant="unrolled-loop",
    ),
)
