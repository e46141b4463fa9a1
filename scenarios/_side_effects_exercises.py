"""The exercises of the side-effects lesson, which ``scenarios/side_effects.py`` declares.

Predict what jax.jit does, then a real run settles it (`jitlab quiz`). Each snippet is
what the learner reads; the answer is read off the run, and ``expected`` is what its
author expects from this JAX (the tests and `jitlab check` compare the two)."""

from __future__ import annotations

import jax
import numpy as np

from jitlab.lab.scenario import (
    Answer,
    AnswerKind,
    Evidence,
    Exercise,
    Option,
    Text,
    calls_text,
    error_answer,
    error_options,
    kind_text,
    printed_answer,
)


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


EXERCISES = (
    Exercise(
        id="print-in-jit",
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
        expected=2,
        snippet=print_in_jit,
        settle=printed_answer,
    ),
    Exercise(
        id="counter-in-jit",
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
        expected=1,
        snippet=counter_in_jit,
        code_comments=(Text("meant to count every call", "本想数清每一次调用"),),
        settle=_settle_counter,
    ),
    Exercise(
        id="debug-print",
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
        expected=3,
        snippet=debug_print_every_call,
        settle=printed_answer,
        variant="fix",
    ),
    Exercise(
        id="stale-setting",
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
        expected=2,
        snippet=setting_read_while_tracing,
        code_comments=(Text("a Python value, read while tracing", "一个 Python 值，追踪时读取"),),
        settle=_settle_third_result,
        variant="global-read",
    ),
    Exercise(
        id="third-call-output",
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
        expected="program",
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
        expected="UnexpectedTracerError",
        snippet=keep_tracer_in_list,
        code_comments=(
            Text("stores what x is while tracing", "把追踪时的 x 存起来"),
            Text("use the stored value after the call", "调用结束后再用存下的值"),
        ),
        settle=error_answer,
        options=error_options("UnexpectedTracerError", "IndexError", "TracerBoolConversionError"),
    ),
)
