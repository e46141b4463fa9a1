"""Weak types: a Python float and a float32 array are two different signatures to jax.jit.

A training step takes its learning rate from a schedule that returns a Python float during
warm-up and a float32 array after it. The step compiles again the moment the type changes,
for a program that computes the same thing.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from jitlab.lab.scenario import (
    AnswerKind,
    AutoplayStep,
    CardRef,
    Chapter,
    Comparison,
    Exercise,
    Lab,
    Lesson,
    Measure,
    Param,
    QuestionRun,
    Scenario,
    ScriptLesson,
    Text,
    Variant,
    compile_answer,
)

W = jnp.ones(4, jnp.float32)
GRAD = jnp.full(4, 0.5, jnp.float32)


# --- the code the lesson runs ----------------------------------------------------------------
def sgd_step(w, grad, lr):
    return w - lr * grad


def lr_as_it_comes(step, warmup):
    if step < warmup:
        return 0.01  # a Python float: weakly typed
    return jnp.float32(0.1) * 0.9 ** (step - warmup)  # a float32 array: strongly typed


def lr_one_type(step, warmup):
    return jnp.float32(lr_as_it_comes(step, warmup))  # always a float32 array


# --- an exercise: predict, then the run settles it -------------------------------------------
def python_float_then_array(lab):
    @lab.jit
    def scale(x, factor):
        return x * factor

    x = jnp.ones(3)
    scale(x, 2.0)  # a Python float
    scale(x, 3.0)  # another Python float
    scale(x, jnp.float32(2.0))  # a float32 array


EXERCISE = Exercise(
    id="python-float-then-array",
    title=Text("A float, then an array", "先是浮点数，后是数组"),
    question=Text(
        "scale(x, factor) is called with 2.0, 3.0, then jnp.float32(2.0). How many compiles?",
        "scale(x, factor) 依次传入 2.0、3.0，然后是 jnp.float32(2.0)。编译几次？",
    ),
    explanation=Text(
        "Python floats are weakly typed: 2.0 and 3.0 share one program. jnp.float32(2.0) is "
        "a strongly typed float32: a new signature, so jit compiles again.",
        "Python 浮点数是弱类型：2.0 和 3.0 共用一个程序。jnp.float32(2.0) 是强类型的 float32："
        "签名变了，jit 于是再编译一次。",
    ),
    kind=AnswerKind.NUMBER,
    expected=2,  # what this JAX does; jitlab check and the tests compare the run with it
    snippet=python_float_then_array,
    settle=compile_answer,
    code_comments=(
        Text("a Python float", "一个 Python 浮点数"),
        Text("another Python float", "另一个 Python 浮点数"),
        Text("a float32 array", "一个 float32 数组"),
    ),
)


# --- the lesson --------------------------------------------------------------------------------
class WeakTypes(Scenario):
    id = "weak-types"
    chapter = Chapter(8, Text("8 · Weak types", "8 · 弱类型"))
    icon = "scale"
    title = Text("A learning rate that changes its type", "换了类型的学习率")
    question = Text(
        "The learning rate is a Python float for the first 3 steps, then a float32 array. "
        "Over steps 0 to 7, how many times does sgd_step compile?",
        "前 3 步学习率是 Python 浮点数，之后是 float32 数组。从第 0 步到第 7 步，sgd_step "
        "要编译几次？",
    )
    lesson = Lesson(
        what=Text(
            "When the schedule switches from a Python float to a float32 array, the training "
            "step compiles again, though nothing it computes has changed.",
            "调度从 Python 浮点数换成 float32 数组时，训练步骤又编译了一次，尽管它算的东西"
            "一点没变。",
        ),
        why=Text(
            "jit keys its cache on each argument's type. A Python float is a weakly typed f32: "
            "it takes the type of what it meets. A float32 array is a strong f32. Same shape, "
            "same dtype, different weak type: a different signature, a new trace and compile.",
            "jit 按每个参数的类型来查缓存。Python 浮点数是弱类型的 f32：它随遇到的类型而定。"
            "float32 数组是强类型的 f32。形状相同、dtype 相同，弱类型不同：签名不同，于是重新"
            "追踪、重新编译。",
        ),
        fix=Text(
            "Give the argument one type for good: convert the learning rate with "
            "jnp.float32(...) wherever it comes from, so every step sees a float32 array.",
            "让这个参数始终只有一种类型：不管学习率从哪里来，都用 jnp.float32(...) 转换，"
            "让每一步看到的都是 float32 数组。",
        ),
        kitchen=Text(
            "The chef rehearsed with “a pinch of salt” and then was handed exactly 0.5 g. "
            "Same salt, but the order reads differently, so he rehearses the whole dish again.",
            "厨师排练时用的是“一撮盐”，后来递给他的是精确的 0.5 克。盐还是那些盐，可单子上的"
            "写法不一样了，他只好把整道菜重新排练一遍。",
        ),
    )
    params = (
        Param(
            "step",
            0,
            Text("Training step", "训练步数"),
            Text("Which step of training this call is.", "这次调用是第几步训练。"),
            minimum=0,
            maximum=20,
        ),
        Param(
            "warmup",
            3,
            Text("Warm-up steps", "预热步数"),
            Text(
                "Steps whose learning rate is a Python float.",
                "学习率为 Python 浮点数的步数。",
            ),
            minimum=1,
            maximum=10,
        ),
    )
    variants = (
        Variant(
            "pitfall",
            Text("The rate as it comes", "学习率来什么用什么"),
            Text(
                "A Python float in warm-up, a float32 array after.",
                "预热时是 Python 浮点数，之后是 float32 数组。",
            ),
        ),
        Variant(
            "fix",
            Text("jnp.float32 every time", "每次都用 jnp.float32"),
            Text("One type for every step.", "每一步都是同一种类型。"),
        ),
    )
    autoplay = (  # the lesson's calls, on the pitfall and then the fix: like with like
        *(AutoplayStep({"step": s}, "pitfall") for s in range(3)),
        AutoplayStep(
            {"step": 3},
            "pitfall",
            Text(
                "Warm-up is over: the rate is now a float32 array. A recompile.",
                "预热结束：学习率变成了 float32 数组。重编译。",
            ),
        ),
        *(AutoplayStep({"step": s}, "pitfall") for s in range(4, 8)),
        *(AutoplayStep({"step": s}, "fix") for s in range(8)),
    )
    comparisons = (
        Comparison(
            Measure.COMPILES,
            tuple({"step": s} for s in range(8)),
            note=Text(
                "One float32 type from the first step: the rate's values change, its "
                "signature never does.",
                "从第一步起就是 float32：学习率的取值在变，签名从不变。",
            ),
        ),
    )
    question_run = QuestionRun("pitfall", tuple({"step": s} for s in range(8)))
    exercises = (EXERCISE,)
    scripts = ScriptLesson(
        Text(
            "The two programs of the pitfall compute the same update; the weakly typed rate "
            "only adds a convert_element_type. The recompile bought nothing.",
            "陷阱版的两个程序算的是同一个更新；弱类型的学习率只是多了一个 "
            "convert_element_type。这次重编译什么也没换来。",
        ),
        (CardRef("pitfall", {"step": 0}), CardRef("pitfall", {"step": 3})),
    )
    code_comments = (
        Text("a Python float: weakly typed", "Python 浮点数：弱类型"),
        Text("a float32 array: strongly typed", "float32 数组：强类型"),
        Text("always a float32 array", "始终是 float32 数组"),
    )

    def setup(self, lab: Lab, variant: str):
        probe = lab.probe(jax.jit(sgd_step))
        schedule = lr_one_type if variant == "fix" else lr_as_it_comes
        self.seen: dict[str, Any] = {}

        def step(values):
            lr = schedule(values["step"], values["warmup"])
            self.seen = {"lr": type(lr).__name__}
            return probe(W, GRAD, lr)

        return step

    def facts(self) -> dict[str, Any]:
        """The learning rate's type in the last call: float, or ArrayImpl."""
        return dict(getattr(self, "seen", {}))

    def code_objects(self, variant: str):
        if variant == "fix":
            return (sgd_step, lr_as_it_comes, lr_one_type)
        return (sgd_step, lr_as_it_comes)
