"""The exercises of the static-args lesson, which ``scenarios/static_args.py`` declares.

Predict what jax.jit does, then a real run settles it (`jitlab quiz`). Each snippet is
what the learner reads; the answer is read off the run, and ``expected`` is what its
author expects from this JAX (the tests and `jitlab check` compare the two)."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from jitlab.lab.scenario import (
    CLAIM,
    Answer,
    AnswerKind,
    Evidence,
    Exercise,
    Text,
    calls_text,
    claim_verdict,
    compile_answer,
    error_answer,
    error_options,
)


def static_value_per_compile(lab):
    def power(x, n):
        return x**n

    power = lab.jit(power, static_argnames="n")
    for n in (1, 2, 3, 1, 2, 3):
        power(np.arange(4, dtype=np.float32), n=n)


def _settle_static_free(ev: Evidence) -> Answer:
    n = ev.compiles
    return Answer(
        claim_verdict(n <= 1),
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


EXERCISES = (
    Exercise(
        id="static-is-free",
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
        expected="false",
        options=CLAIM,
        snippet=static_value_per_compile,
        settle=_settle_static_free,
        variant="static-explosion",
    ),
    Exercise(
        id="static-tuple",
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
        expected=2,
        snippet=static_tuple_reps,
        settle=compile_answer,
        variant="fix",
    ),
    Exercise(
        id="repeat-traced",
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
        expected="ConcretizationTypeError",
        snippet=repeat_with_traced_count,
        code_comments=(
            Text("the output length depends on the value of n", "输出的长度取决于 n 的值"),
        ),
        settle=error_answer,
        options=error_options("ConcretizationTypeError", "ValueError", "IndexError"),
    ),
    Exercise(
        id="array-static",
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
        expected="ValueError",
        snippet=array_as_static,
        settle=error_answer,
        options=error_options("ValueError", "ConcretizationTypeError", "UnexpectedTracerError"),
        variant="static-array",
    ),
    Exercise(
        id="traced-int",
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
        expected=1,
        snippet=python_int_traced,
        code_comments=(
            Text("factor is traced: only its type matters", "factor 被追踪：只有它的类型要紧"),
        ),
        settle=compile_answer,
        variant="fix",
    ),
)
