"""Pitfall 6: reading a JAX error — the stack, the tracing context, the abstract values.

Four broken functions, each failing the way real code does. For every failure jitlab takes
the error apart (analyze_error), replays the same call under jax.disable_jit(), and
shows the jaxpr of the fixed function.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jitlab.lab.scenario import (
    AutoplayStep,
    CardRef,
    Comparison,
    Counted,
    Lab,
    Lesson,
    Measure,
    Param,
    Pitfall,
    QuestionRun,
    Scenario,
    ScriptLesson,
    Shown,
    Text,
    Variant,
    analyze_error,
    jaxpr_text,
    rerun_eagerly,
)

from ._error_debugging_exercises import EXERCISES  # the quiz's questions on this lesson

FEATURES = 32
OUTPUTS = 4
ERRORS = ("control-flow", "concrete-value", "shape", "static-argument")


# --- four broken functions ------------------------------------------------------------------
def center(x):
    if jnp.mean(x) > 0:  # a Python if on a traced value: True or False is unknown
        return x - jnp.mean(x)
    return x


def tile_rows(x, n):
    return jnp.repeat(x, n, axis=0)  # the output has rows * n rows: n must be known


def project(x, w):
    # w is stored (outputs, features), as torch.nn.Linear does: the contraction misses.
    return jnp.tanh(x @ w)


def apply_gains(x, gains):
    return x * gains[None, :]  # gains is marked static below, but it is an array


def call_broken(fn, error, x, w, gains):
    if error == "control-flow":
        return fn(x)
    if error == "concrete-value":
        return fn(x, 3)
    if error == "shape":
        return fn(x, w)
    return fn(x, gains=gains)  # gains is static (see jit_broken): jit must hash the array


def jit_broken(error):
    if error == "static-argument":
        return jax.jit(apply_gains, static_argnames=("gains",))  # jit hashes static values
    return jax.jit({"control-flow": center, "concrete-value": tile_rows, "shape": project}[error])


# --- the same four, fixed ---------------------------------------------------------------
def center_fixed(x):
    mean = jnp.mean(x)
    return jnp.where(mean > 0, x - mean, x)  # the choice is part of the graph


def tile_rows_fixed(x, n):
    return jnp.repeat(x, n, axis=0)  # unchanged: n is declared static below


def project_fixed(x, w):
    return jnp.tanh(x @ w.T)  # (rows, features) @ (features, outputs)


def apply_gains_fixed(x, gains):
    return x * gains[None, :]  # unchanged: gains is now an ordinary traced argument


def call_fixed(fn, error, x, w, gains):
    if error == "control-flow":
        return fn(x)
    if error == "concrete-value":
        return fn(x, n=3)  # static: one compile per distinct n
    if error == "shape":
        return fn(x, w)
    return fn(x, gains)


def jit_fixed(error):
    if error == "concrete-value":
        return jax.jit(tile_rows_fixed, static_argnames=("n",))  # n is known while tracing
    fixed = {
        "control-flow": center_fixed,
        "shape": project_fixed,
        "static-argument": apply_gains_fixed,
    }
    return jax.jit(fixed[error])


@cache
def make_inputs(rows, seed=0):
    rng = np.random.default_rng(seed)
    x = jnp.asarray(rng.normal(size=(rows, FEATURES)), jnp.float32)
    w = jnp.asarray(rng.normal(size=(OUTPUTS, FEATURES)), jnp.float32)
    gains = jnp.asarray(rng.uniform(0.5, 2.0, FEATURES), jnp.float32)
    return x, w, gains


def _fixed_jaxpr(error, x, w, gains) -> str:
    if error == "control-flow":
        return jaxpr_text(center_fixed, x)
    if error == "concrete-value":
        return jaxpr_text(tile_rows_fixed, x, n=3)
    if error == "shape":
        return jaxpr_text(project_fixed, x, w)
    return jaxpr_text(apply_gains_fixed, x, gains)


class ErrorDebugging(Scenario):
    id = "error-debugging"
    pitfall = Pitfall.ERROR_DEBUGGING
    icon = "monitor"
    exercises = EXERCISES
    title = Text("Reading a JAX error", "读懂 JAX 报错")
    question = Text(
        "center(x) does `if jnp.mean(x) > 0:`. It fails under jit. Will it also fail under "
        "jax.disable_jit()? And which line will the error point at?",
        "center(x) 里写了 `if jnp.mean(x) > 0:`，在 jit 下会报错。换成 jax.disable_jit() "
        "还会报错吗？报错会指向哪一行？",
    )
    lesson = Lesson(
        what=Text(
            "A JAX error looks long because it stacks three kinds of information: the Python "
            "call stack (where in your code), the tracing context (which function JAX was "
            "tracing, for which transform, and which argument's value it needed) and the "
            "abstract values involved (float32[8,32]: a shape and a dtype, no numbers). Four "
            "classic failures: an if on a traced value (TracerBoolConversionError), an "
            "operation that needs a concrete number while tracing (ConcretizationTypeError), "
            "shapes that do not fit, and an array passed as a static argument, which jit "
            "cannot hash.",
            "JAX 的报错看着长，是因为它叠了三层信息：Python 调用栈（出错在你代码的哪里）、"
            "追踪上下文（JAX 正在为哪种变换追踪哪个函数、需要哪个参数的具体值），以及卷入的"
            "抽象值（float32[8,32]：只有形状和 dtype，没有数值）。四种经典失败：在追踪值上写 "
            "if（TracerBoolConversionError）；追踪时就需要具体数字的操作"
            "（ConcretizationTypeError）；形状对不上；把数组当静态参数传入——jit 无法对它哈希。",
        ),
        why=Text(
            "While tracing, every traced argument is an abstract value: jit knows its shape "
            "and dtype so that one compiled program serves every call with that signature. "
            "Anything that needs the numbers — deciding an if, choosing an output length — "
            "cannot be answered then. Under jax.disable_jit() the same code runs as plain "
            "Python with concrete arrays: the tracing errors disappear (the code was right "
            "for concrete values; it just asked too early), while a genuine bug such as a "
            "shape mismatch fails again at the very line that is wrong. jax.make_jaxpr shows "
            "the graph tracing produced, so you can check the fix is what you meant.",
            "追踪时，每个追踪参数都是抽象值：jit 只知道它的形状和 dtype，这样一份编译好的程序"
            "才能服务所有同签名的调用。凡是需要具体数值的事情——判断 if 的真假、决定输出长度——"
            "那时都无从回答。在 jax.disable_jit() 下，同一段代码以普通 Python 和具体数组运行："
            "追踪类错误会消失（代码对具体值是对的，只是问得太早），而形状不匹配这类真 bug 会在"
            "出错的那一行再次失败。jax.make_jaxpr 展示追踪生成的计算图，用来确认修复确实是你"
            "想要的样子。",
        ),
        fix=Text(
            "Read the error in three passes: your innermost frame (the line), the tracing "
            "context (the function and the argument whose value was needed), the abstract "
            "values (which shapes met). Then apply the fix of its category: lax.cond or "
            "jnp.where for control flow; static_argnames or a fixed size for concrete values; "
            "the right layout for shapes; a traced argument (or a tuple) instead of a static "
            "array. Re-run under jax.disable_jit() to tell tracing errors from real bugs, and "
            "check jax.make_jaxpr of the fixed function.",
            "分三遍读报错：你自己代码最内层的那一帧（哪一行）、追踪上下文（哪个函数、需要哪个"
            "参数的值）、抽象值（哪些形状碰到了一起）。再按类别修：控制流用 lax.cond 或 "
            "jnp.where；需要具体值就用 static_argnames 或固定大小；形状问题就改对布局；静态数组"
            "改成追踪参数（或元组）。用 jax.disable_jit() 重跑，区分追踪错误和真 bug，最后用 "
            "jax.make_jaxpr 检查修好的函数。",
        ),
        kitchen=Text(
            "When a rehearsal goes wrong, Chef Wang does not guess from the diners' faces: he "
            "plays back the kitchen camera. The tape shows three things: which step of the "
            "script he was on, which ingredient he reached for, and what was in the bowl — "
            "only its size and kind, since rehearsals use empty bowls. Then he cooks the same "
            "step once for real, without a script, to see whether the recipe itself is wrong "
            "or only the rehearsal asked a question it could not answer.",
            "排练出了岔子，王师傅不看客人脸色瞎猜，而是调后厨监控回放。录像里有三样东西："
            "脚本进行到第几步、他伸手去拿哪样食材、碗里装的是什么——只有大小和种类，因为排练"
            "用的是空碗。然后他不照脚本、真刀真枪把这一步做一遍，看是菜谱本身错了，还是排练时"
            "问了一个排练回答不了的问题。",
        ),
    )
    params = (
        Param(
            "error",
            "control-flow",
            Text("Broken function", "出错的函数"),
            Text(
                "Which broken function the call runs: an if on a traced value · a traced "
                "repeat count (jnp.repeat) · weights stored the wrong way round · an array "
                "marked static.",
                "这次调用运行哪个出错的函数：在追踪值上写 if · 重复次数是追踪值（jnp.repeat）"
                "· 权重存反了方向 · 数组被标成静态参数。",
            ),
            choices=ERRORS,
            choice_labels=(
                Text("if on a traced value", "在追踪值上写 if"),
                Text("a traced repeat count", "重复次数是追踪值"),
                Text("weights the wrong way round", "权重存反了方向"),
                Text("an array marked static", "数组被标成静态参数"),
            ),
        ),
        Param(
            "rows",
            8,
            Text("Rows", "行数"),
            Text(
                "Rows of x (x is float32[rows, 32]).",
                "x 的行数（x 为 float32[rows, 32]）。",
            ),
            minimum=1,
            maximum=1024,
            log_scale=True,
        ),
    )
    variants = (
        Variant(
            "pitfall",
            Text("Broken under jit", "jit 下出错"),
            Text(
                "The broken function fails; jitlab shows the error in three layers, replays "
                "it under jax.disable_jit() and prints the jaxpr of the fixed version.",
                "出错的函数失败；jitlab 把报错拆成三层，在 jax.disable_jit() 下重放，并打印"
                "修好版本的 jaxpr。",
            ),
        ),
        Variant(
            "fix",
            Text("Fixed", "修好之后"),
            Text(
                "Each function fixed by its category's remedy: compiles once, then hits.",
                "每个函数按其类别的办法修好：编译一次，之后命中缓存。",
            ),
        ),
    )
    autoplay = tuple(AutoplayStep({"error": error}) for error in ERRORS for _ in range(2))

    scripts = ScriptLesson(
        Text(
            "A call that fails while tracing leaves no card, so the broken functions have no "
            "script to read: JAX stopped before a jaxpr existed, and the error and its "
            "traceback are all there is. The fixed function has one. Read center's: the "
            "Python if became a select_n equation, with both results computed and the "
            "choice made inside the program.",
            "在追踪时就失败的调用不会留下卡片，所以出错的函数没有脚本可读：JAX 在 jaxpr "
            "生成之前就停下了，能看的只有错误和它的回溯。修好的函数才有脚本。读一读 center "
            "的脚本：Python 的 if 变成了一条 select_n 等式，两个结果都会计算，选择在程序"
            "里完成。",
        ),
        compare=(CardRef("fix", {"error": "control-flow"}),),
    )

    # The comments of the shown code (code_objects), in Chinese for the code view.
    code_comments = (
        Text(
            "a Python if on a traced value: True or False is unknown",
            "对追踪值用 Python if：真假未知",
        ),
        Text("the output has rows * n rows: n must be known", "输出有 rows * n 行：必须知道 n"),
        Text(
            "w is stored (outputs, features), as torch.nn.Linear does: the contraction misses.",
            "w 按 (outputs, features) 存放，和 torch.nn.Linear 一样：收缩维对不上。",
        ),
        Text(
            "gains is marked static below, but it is an array", "gains 在下面被标为静态，但它是数组"
        ),
        Text("jit hashes static values", "jit 会对静态值求哈希"),
        Text(
            "gains is static (see jit_broken): jit must hash the array",
            "gains 是静态的（见 jit_broken）：jit 必须对数组求哈希",
        ),
        Text("the choice is part of the graph", "选择成为计算图的一部分"),
        Text("unchanged: n is declared static below", "不变：n 在下面声明为静态"),
        Text("(rows, features) @ (features, outputs)", "(行, 特征) @ (特征, 输出)"),
        Text(
            "unchanged: gains is now an ordinary traced argument",
            "不变：gains 现在是普通的追踪参数",
        ),
        Text("n is known while tracing", "追踪时已知 n"),
        Text("static: one compile per distinct n", "静态：每个不同的 n 编译一次"),
    )

    # The question (center's if on a traced value): no number asked. The run answers both of
    # its parts: the same call under jax.disable_jit(), and the line the error points at.
    question_run = QuestionRun(
        "pitfall",
        ({"error": "control-flow"},),
        Counted.NOTHING,
        shows=(Shown.DISABLE_JIT, Shown.ERROR_LINE),
    )
    # The verdict: every broken function fails, every fixed one runs (issue 21).
    comparisons = (
        Comparison(Measure.ERRORS, tuple({"error": e} for e in ERRORS for _ in range(2))),
    )

    def setup(self, lab: Lab, variant: str):
        make_jitted = jit_fixed if variant == "fix" else jit_broken
        call = call_fixed if variant == "fix" else call_broken
        probes: dict = {}
        self.anatomy = self.eager = None
        self.fixed_jaxpr = ""
        self._error = None

        def run(values):
            error = values["error"]
            if error not in probes:
                probes[error] = lab.probe(make_jitted(error))
            probe = probes[error]
            x, w, gains = make_inputs(values["rows"])
            try:
                result = call(probe, error, x, w, gains)
            except Exception:
                # The probe recorded the error; caught here, its traceback keeps the call site.
                result = None
            self._error = error
            self.fixed_jaxpr = _fixed_jaxpr(error, x, w, gains)
            record = probe.last
            if record is not None and record.error is not None and record.error.exception:
                self.anatomy = analyze_error(record.error.exception, signature=record.signature)
                # The same jitted function, the same arguments, with jit switched off.
                self.eager = rerun_eagerly(
                    lambda f: call_broken(f, error, x, w, gains), probe.function
                )
            else:
                self.anatomy = self.eager = None
            return result

        return run

    def facts(self) -> dict[str, Any]:
        """The anatomy of the last error, its eager replay, and the fixed function's jaxpr."""
        found = getattr(self, "anatomy", None)
        eager = getattr(self, "eager", None)
        return {
            "error": getattr(self, "_error", None),
            "anatomy": found.to_json() if found else None,
            "eager": eager.to_json() if eager else None,
            "fixed_jaxpr": getattr(self, "fixed_jaxpr", ""),
        }

    def code_objects(self, variant: str):
        if variant == "fix":
            return (
                center_fixed,
                tile_rows_fixed,
                project_fixed,
                apply_gains_fixed,
                jit_fixed,
                call_fixed,
            )
        return (center, tile_rows, project, apply_gains, jit_broken, call_broken)
