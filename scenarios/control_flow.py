"""Pitfall 3: Python control flow cannot branch on traced values; write the choice into
the graph instead (lax.cond, jnp.where), and keep loops rolled up (lax.scan)."""

from __future__ import annotations

from functools import cache
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from jitlab.lab.scenario import (
    AutoplayStep,
    CardRef,
    Comparison,
    Lab,
    Lesson,
    Measure,
    Param,
    Pitfall,
    Scenario,
    ScriptLesson,
    Text,
    Variant,
    count_equations,
    first_values,
)

from ._control_flow_exercises import EXERCISES  # the quiz's questions on this lesson

WIDTH = 64  # size of the recurrent state in the loop variants


# --- branches: a Python if on a traced value, and the ways that work ---------------------
def sign_if(x):
    if x > 0:  # x is a tracer: True or False is only known when the program runs
        return 1.0
    return -1.0


def sign_cond(x):
    def positive(x):
        print("positive()")  # printed while tracing: both branches are
        jax.debug.print("positive(): x = {}", x)  # printed when it runs
        return jnp.ones_like(x)

    def negative(x):
        print("negative()")
        jax.debug.print("negative(): x = {}", x)
        return -jnp.ones_like(x)

    # Both branches go into the graph; at run time the predicate picks one to execute.
    return lax.cond(x > 0, positive, negative, x)


def sign_where(xs):
    # Elementwise choice: both sides are computed, each element picks its own.
    return jnp.where(xs > 0, 1.0, -1.0)


def activate(xs, kind):
    if kind == "relu":  # kind is static: a plain Python str while tracing, so if is fine
        return jnp.maximum(xs, 0.0)
    return jnp.tanh(xs)


# --- loops: a recurrent cell applied `steps` times (an RNN, a solver, a sampler) -----------
def rnn_unrolled(h, w, steps):
    for _ in range(steps):  # a Python loop runs while tracing: steps copies of the cell
        h = jnp.tanh(h @ w + 0.1)
    return h


def rnn_scan(h, w, steps):
    def cell(h, _):
        return jnp.tanh(h @ w + 0.1), None

    h, _ = lax.scan(cell, h, None, length=steps)  # one copy of the cell, run steps times
    return h


def rnn_fori(h, w, steps):
    # A traced upper bound makes a while loop: one program for every steps value.
    return lax.fori_loop(0, steps, lambda i, h: jnp.tanh(h @ w + 0.1), h)


# --- one call per step, and how each variant is jitted ------------------------------------
def jit_static_if():
    return jax.jit(activate, static_argnames=("kind",))


def jit_static_steps(loop):
    return jax.jit(loop, static_argnames=("steps",))  # range() and scan's length need an int


def jit_for(variant):
    """How each variant is jitted (the static ones have their own builder, shown with them)."""
    if variant == "static-if":
        return jit_static_if()
    if variant in ("unrolled-loop", "scan"):
        return jit_static_steps(_LOOPS[variant])
    fn = {"fix": sign_cond, "where": sign_where, "fori-loop": rnn_fori}.get(variant, sign_if)
    return jax.jit(fn)  # everything traced


def step_branch(f, x):
    return f(x)  # a Python float: traced as a scalar


def step_elementwise(f, x, kind=None):
    xs = np.float32(x) * np.linspace(-1.0, 1.0, 5, dtype=np.float32)
    return f(xs) if kind is None else f(xs, kind=kind)


def step_loop(f, x, steps):
    h = np.full(WIDTH, x, np.float32)
    return f(h, recurrent_weights(), steps=steps)


@cache
def recurrent_weights(width=WIDTH, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(0.0, 1.0 / np.sqrt(width), (width, width)).astype(np.float32)


_LOOPS = {"unrolled-loop": rnn_unrolled, "scan": rnn_scan, "fori-loop": rnn_fori}


@cache
def loop_graph_size(variant: str, steps: int) -> int:
    fn = _LOOPS[variant]
    h = np.zeros(WIDTH, np.float32)
    if variant == "fori-loop":
        closed = jax.make_jaxpr(fn)(h, recurrent_weights(), steps)
    else:
        closed = jax.make_jaxpr(fn, static_argnums=2)(h, recurrent_weights(), steps)
    return count_equations(closed.jaxpr)


class ControlFlow(Scenario):
    id = "control-flow"
    pitfall = Pitfall.CONTROL_FLOW
    icon = "fire"
    exercises = EXERCISES
    title = Text("No improvising on the line", "不许临场发挥")
    question = Text(
        "sign(x) says `if x > 0: return 1.0`. Under jax.jit, what does sign(3.0) return? "
        "And when a loop runs 8, 16, 32, 64 steps, whose compile time grows: a Python for "
        "loop's, or lax.scan's?",
        "sign(x) 里写着 `if x > 0: return 1.0`。在 jax.jit 下，sign(3.0) 返回什么？循环"
        "跑 8、16、32、64 步时，谁的编译时间会跟着涨：Python 的 for 循环，还是 lax.scan？",
    )
    lesson = Lesson(
        what=Text(
            "A Python if (or while) whose condition depends on a traced value raises "
            "TracerBoolConversionError under jit. A Python for loop over a fixed count does "
            "work, but it is unrolled: every iteration is copied into the graph, so compile "
            "time grows with the number of steps. An if on a static argument, or on a "
            "shape, is fine.",
            "如果 Python 的 if（或 while）的条件依赖追踪值，在 jit 下会抛出 "
            "TracerBoolConversionError。固定次数的 Python for 循环倒是能跑，但会被展开："
            "每一轮都复制进计算图，编译时间随步数增长。基于静态参数或形状的 if 则完全没问题。",
        ),
        why=Text(
            "While tracing, x is a tracer with a shape and a dtype but no value, so x > 0 "
            "has no truth value yet: Python cannot pick a branch. jit records one straight "
            "graph, and Python control flow only decides what goes into it. That is also "
            "why a for loop is unrolled: Python runs the loop body steps times while tracing "
            "and each pass adds its operations. Static values are real Python values while "
            "tracing, so an if on them is decided once and only the chosen branch is "
            "recorded.",
            "追踪时 x 是一个只有形状和 dtype、没有数值的 tracer，x > 0 还没有真假可言，"
            "Python 没法选分支。jit 记录的是一张直线式的计算图，Python 控制流只决定往图里"
            "放什么。for 循环被展开也是这个原因：追踪时 Python 把循环体跑了 steps 遍，每一遍"
            "都往图里加一份运算。静态值在追踪时是真实的 Python 值，基于它的 if 一次就能判定，"
            "图里只记录被选中的分支。",
        ),
        fix=Text(
            "Write the choice into the graph. lax.cond(pred, true_fn, false_fn, x) traces "
            "both branches into the graph and runs only the one the predicate picks. "
            "jnp.where(cond, a, b) chooses per element (both sides are computed). For loops, "
            "lax.scan keeps one copy of the body and carries the state from step to step: "
            "its graph, and its compile time, stay the same size at any length. scan's "
            "length is static, so a new length still compiles once; lax.fori_loop with a "
            "traced bound becomes a while loop and never recompiles for a new count "
            "(but a while loop cannot be reverse-differentiated: use scan for training).",
            "把选择本身写进计算图。lax.cond(pred, true_fn, false_fn, x) 会把两个分支都追踪"
            "进图里，运行时只执行谓词选中的那一个。jnp.where(cond, a, b) 按元素选择（两边"
            "都会计算）。循环用 lax.scan：图里只保留一份循环体，用显式的状态一步步往下传，"
            "步数再多，图的大小和编译时间都不变。scan 的 length 是静态的，换一个长度仍要编译"
            "一次；而上界是追踪值的 lax.fori_loop 会变成 while 循环，换步数也不重编译"
            "（但 while 循环不能反向求导：训练时请用 scan）。",
        ),
        kitchen=Text(
            "Chef Wang's script says “if the pan catches fire, cover it with the lid”. "
            "During rehearsal nothing is burning, so he cannot know which way to go, and "
            "rehearsal stops. The fix is to write both plans into the script, plus a switch "
            "the cook flips during service. And “stir 200 times” should be one line with a "
            "counter, not the same line copied 200 times: the long version takes ages to "
            "write up and says nothing more.",
            "王师傅的脚本里写着“如果锅里起火，就盖上锅盖”。可排练时锅里根本没火，他不知道该"
            "走哪条路，排练只好停下。办法是把两套预案都写进脚本，再加一个出餐时由厨师拨动的"
            "开关。同样，“翻炒 200 下”应该是一行带计数的指令，而不是把同一行抄 200 遍：抄"
            "的那份写起来费时，却一点也没多说什么。",
        ),
    )
    params = (
        Param(
            "x",
            3.0,
            Text("Input x", "输入 x"),
            Text(
                "The value fed to the function. Changing it never recompiles: the branch is "
                "chosen when the program runs.",
                "送进函数的值。改变它不会重编译：分支在程序运行时才选择。",
            ),
            minimum=-5.0,
            maximum=5.0,
            variants=("pitfall", "fix", "where", "static-if"),
        ),
        Param(
            "activation",
            "relu",
            Text("Activation (static)", "激活函数（静态）"),
            Text(
                "static-if only: a static argument the Python if branches on. Each value "
                "compiles once, with only its own branch in the graph.",
                "仅用于 static-if：Python if 所依据的静态参数。每个取值编译一次，图里只有它"
                "自己的分支。",
            ),
            choices=("relu", "tanh"),
            variants=("static-if",),
        ),
        Param(
            "steps",
            16,
            Text("Loop steps", "循环步数"),
            Text(
                "Loop variants only: how many times the recurrent cell runs. Unrolled, the "
                "graph and the compile time grow with it; with scan they stay flat.",
                "仅用于循环变体：循环单元执行的次数。展开时，计算图和编译时间随之增长；"
                "用 scan 则保持不变。",
            ),
            minimum=1,
            maximum=256,
            log_scale=True,
            variants=("unrolled-loop", "scan", "fori-loop"),
        ),
    )
    variants = (
        Variant(
            "pitfall",
            Text("Python if on a tracer", "对 tracer 用 Python if"),
            Text(
                "if x > 0 while x is traced: TracerBoolConversionError.",
                "x 被追踪时写 if x > 0：TracerBoolConversionError。",
            ),
        ),
        Variant(
            "fix",
            Text("lax.cond", "lax.cond"),
            Text(
                "Both branches traced into the graph; only one runs.",
                "两个分支都被追踪进图里；只有一个会执行。",
            ),
        ),
        Variant(
            "where",
            Text("jnp.where", "jnp.where"),
            Text("An elementwise choice over a vector.", "对向量按元素选择。"),
        ),
        Variant(
            "static-if",
            Text("if on a static argument", "基于静态参数的 if"),
            Text(
                "The condition is known while tracing: plain Python if works.",
                "条件在追踪时已知：普通的 Python if 就能用。",
            ),
        ),
        Variant(
            "unrolled-loop",
            Text("Python for loop (unrolled)", "Python for 循环（展开）"),
            Text(
                "Each step is copied into the graph: compile time grows with steps.",
                "每一步都复制进图里：编译时间随步数增长。",
            ),
        ),
        Variant(
            "scan",
            Text("lax.scan", "lax.scan"),
            Text(
                "One copy of the body: compile time stays flat as steps grow.",
                "循环体只有一份：步数增加，编译时间保持平稳。",
            ),
        ),
        Variant(
            "fori-loop",
            Text("lax.fori_loop, traced bound", "lax.fori_loop，上界为追踪值"),
            Text(
                "A while loop in the graph: one compile for every steps value.",
                "图里是一个 while 循环：所有步数共用一次编译。",
            ),
        ),
    )
    autoplay = (
        AutoplayStep(
            {"x": 3.0},
            "pitfall",
            Text(
                "x > 0 has no truth value while tracing: TracerBoolConversionError.",
                "追踪时 x > 0 没有真假：TracerBoolConversionError。",
            ),
        ),
        AutoplayStep(
            {"x": 3.0},
            "fix",
            Text(
                "lax.cond: both branches are traced, the positive one runs.",
                "lax.cond：两个分支都被追踪，执行的是正分支。",
            ),
        ),
        AutoplayStep(
            {"x": -2.0},
            "fix",
            Text(
                "No retrace: the same program now runs the negative branch.",
                "没有重新追踪：同一个程序这次执行了负分支。",
            ),
        ),
        AutoplayStep({"x": 0.5}, "fix"),
        AutoplayStep({"x": 3.0}, "where"),
        AutoplayStep({"x": -1.0}, "where"),
        AutoplayStep({"x": 3.0, "activation": "relu"}, "static-if"),
        AutoplayStep({"x": -1.0, "activation": "relu"}, "static-if"),
        AutoplayStep(
            {"x": 3.0, "activation": "tanh"},
            "static-if",
            Text(
                "A new static value: one more compile, with only the tanh branch inside.",
                "新的静态值：多编译一次，图里只有 tanh 分支。",
            ),
        ),
        AutoplayStep({"x": 3.0, "activation": "relu"}, "static-if"),
        *(AutoplayStep({"steps": s}, "unrolled-loop") for s in (4, 8, 16, 32, 64)),
        AutoplayStep(
            {"steps": 128},
            "unrolled-loop",
            Text(
                "Unrolled: each doubling of steps doubles the graph, and the compile time follows.",
                "展开：步数每翻一倍，计算图就翻一倍，编译时间也随之上涨。",
            ),
        ),
        *(AutoplayStep({"steps": s}, "scan") for s in (4, 8, 16, 32, 64)),
        AutoplayStep(
            {"steps": 128},
            "scan",
            Text(
                "scan: each new length compiles (length is static), but every compile is "
                "as cheap as the first.",
                "scan：每个新长度都会编译（length 是静态的），但每次都和第一次一样便宜。",
            ),
        ),
        *(AutoplayStep({"steps": s}, "fori-loop") for s in (4, 8, 16, 32, 64)),
        AutoplayStep(
            {"steps": 128},
            "fori-loop",
            Text(
                "fori_loop with a traced bound: one compile, then cache hits for any count.",
                "上界为追踪值的 fori_loop：编译一次，之后任何步数都命中缓存。",
            ),
        ),
    )

    def __init__(self) -> None:
        self.state: dict[str, Any] = {}

    scripts = ScriptLesson(
        Text(
            "Read the two loops' scripts at 16 steps. The Python for loop left 16 copies of "
            "the cell in the jaxpr: 48 equations (dot_general, add, tanh, 16 times), and XLA "
            "compiles every one. lax.scan left one scan equation holding the cell once: 4 "
            "equations. Double the steps and the unrolled script doubles; scan's stays the "
            "same size.",
            "对比两个循环在 16 步时的脚本。Python for 循环在 jaxpr 里留下了 16 份单元："
            "48 条等式（dot_general、add、tanh 各 16 次），XLA 要把每一条都编译一遍。"
            "lax.scan 只留下一条 scan 等式，里面装着一份单元：共 4 条等式。步数翻倍，"
            "展开的脚本也翻倍；scan 的脚本大小不变。",
        ),
        compare=(
            CardRef("unrolled-loop", {"steps": 16}),
            CardRef("scan", {"steps": 16}),
        ),
    )

    # The comments of the shown code (code_objects), in Chinese for the code view.
    code_comments = (
        Text(
            "x is a tracer: True or False is only known when the program runs",
            "x 是 tracer：是真是假，要到程序运行时才知道",
        ),
        Text("a Python float: traced as a scalar", "一个 Python float：作为标量被追踪"),
        Text("printed while tracing: both branches are", "追踪时打印：两个分支都会打印"),
        Text("printed when it runs", "运行时打印"),
        Text(
            "Both branches go into the graph; at run time the predicate picks one to execute.",
            "两个分支都进入计算图；运行时由条件选出其中一个执行。",
        ),
        Text(
            "Elementwise choice: both sides are computed, each element picks its own.",
            "逐元素选择：两边都会计算，每个元素各取所需。",
        ),
        Text(
            "kind is static: a plain Python str while tracing, so if is fine",
            "kind 是静态参数：追踪时是普通的 Python str，所以可以用 if",
        ),
        Text(
            "a Python loop runs while tracing: steps copies of the cell",
            "Python 循环在追踪时展开：单元被复制 steps 份",
        ),
        Text("range() and scan's length need an int", "range() 和 scan 的 length 都需要 int"),
        Text("one copy of the cell, run steps times", "只有一份单元，运行 steps 次"),
        Text(
            "A traced upper bound makes a while loop: one program for every steps value.",
            "上界是追踪值时会生成 while 循环：所有 steps 取值共用一个程序。",
        ),
    )

    # The verdicts: lax.cond fails no call; scan's program stays small (issue 21).
    comparisons = (
        Comparison(Measure.ERRORS, tuple({"x": x} for x in (3.0, -2.0, 0.5))),
        Comparison(
            Measure.PROGRAM_SIZE,
            tuple({"steps": s} for s in (8, 16, 32, 64)),
            "unrolled-loop",
            "scan",
            facts=("graph_equations", "graph_equations"),
        ),
    )
    # The question's second half (the loop: unrolled or scan) gets its own verdict on Complete.
    also_judged = (comparisons[1],)

    def setup(self, lab: Lab, variant: str):
        self.variant = variant
        self.state = {"result": None, "steps": None}
        f = lab.probe(jit_for(variant))

        def run(values):
            self.state["result"] = None
            x = float(values["x"])  # an int would be traced as int32: another signature
            if variant in ("pitfall", "fix"):
                y = step_branch(f, x)
            elif variant == "where":
                y = step_elementwise(f, x)
            elif variant == "static-if":
                y = step_elementwise(f, x, values["activation"])
            else:
                self.state["steps"] = steps = int(values["steps"])
                y = step_loop(f, x, steps)
            self.state["result"] = first_values(y)
            return self.facts()

        return run

    def facts(self) -> dict[str, Any]:
        """The last result; for loops also the size of the traced graph (jaxpr equations)."""
        facts: dict[str, Any] = {"result": self.state.get("result")}
        variant = getattr(self, "variant", None)
        steps = self.state.get("steps")
        if variant in _LOOPS and steps is not None:
            facts["graph_equations"] = loop_graph_size(variant, steps)
        return facts

    def code_objects(self, variant: str):
        if variant == "fix":
            return (sign_cond, step_branch)
        if variant == "where":
            return (sign_where, step_elementwise)
        if variant == "static-if":
            return (activate, jit_static_if, step_elementwise)
        if variant in ("unrolled-loop", "scan"):
            return (_LOOPS[variant], jit_static_steps, step_loop)
        if variant == "fori-loop":
            return (rnn_fori, step_loop)
        return (sign_if, step_branch)
