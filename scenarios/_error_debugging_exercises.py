"""The exercises of the error-debugging lesson, which ``scenarios/error_debugging.py`` declares.

Predict what jax.jit does, then a real run settles it (`jitlab quiz`). Each snippet is
what the learner reads; the answer is read off the run, and ``expected`` is what its
author expects from this JAX (the tests and `jitlab check` compare the two)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jitlab.lab.scenario import (
    NO_ERROR,
    Answer,
    AnswerKind,
    Evidence,
    Exercise,
    Text,
    error_answer,
    error_options,
)


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


EXERCISES = (
    Exercise(
        id="matmul-shapes",
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
        expected="TypeError",
        snippet=matmul_shapes,
        settle=error_answer,
        options=error_options("TypeError", "ValueError", "IndexError"),
    ),
    Exercise(
        id="disable-jit",
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
        expected=NO_ERROR,
        snippet=replay_without_jit,
        code_comments=(
            Text("fails under jit, where x is a tracer", "在 jit 下失败：这里的 x 是追踪值"),
            Text(
                "plain Python, line by line, with real values", "普通 Python，逐行执行，用真实的值"
            ),
        ),
        settle=error_answer,
        options=error_options("TracerBoolConversionError", "ConcretizationTypeError"),
        variant="fix",
    ),
    Exercise(
        id="jaxpr-equations",
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
        expected=4,
        snippet=count_equations,
        settle=_settle_equations,
    ),
)
