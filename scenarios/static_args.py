"""Pitfall 2: static arguments are written into the program; traced ones flow through it."""

from __future__ import annotations

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
    cache_size,
    first_values,
)

from ._static_args_exercises import EXERCISES  # the quiz's questions on this lesson


# --- the function: its output length depends on the value of n -----------------------------
def repeat_scaled(x, n, scale):
    # Output shape is len(x) * n: jit must know n while tracing. scale only feeds arithmetic.
    return jnp.repeat(x * jnp.asarray(scale), n)


X = np.array([1.0, 2.0], np.float32)


# --- how each variant jits it --------------------------------------------------------------
def jit_plain():
    return jax.jit(repeat_scaled)  # every argument traced, n included


def jit_n_static():
    return jax.jit(repeat_scaled, static_argnames=("n",))  # n is a Python int while tracing


def jit_n_and_scale_static():
    return jax.jit(repeat_scaled, static_argnames=("n", "scale"))  # scale too: a mistake


# --- one call per step ---------------------------------------------------------------------
def step_pitfall(f, n, scale):
    return f(X, n, scale)  # n arrives as a tracer: its value is unknown


def step_fix(f, n, scale):
    return f(X, n=n, scale=scale)  # one program per distinct n; any scale reuses it


def step_static_array(f, n, scale):
    factors = jnp.asarray(np.full(X.shape, scale, np.float32))  # one factor per element
    return f(X, n=n, scale=factors)  # an array cannot be hashed: jit refuses it


def step_static_explosion(f, n, scale):
    # Made hashable: a Python float (a tuple of factors behaves the same way).
    return f(X, n=n, scale=float(scale))  # every distinct value compiles a new program


class StaticArgs(Scenario):
    id = "static-args"
    pitfall = Pitfall.STATIC_ARGS
    icon = "plate"
    exercises = EXERCISES
    title = Text("Constants on the title page", "写在扉页上的常量")
    question = Text(
        "repeat_scaled([1, 2], n=3) repeats each element n times. Under plain jax.jit, "
        "does it return [1, 1, 1, 2, 2, 2]? And once n is static, how many compiles does "
        "dragging n through 3, 4, 3, 2, 4 cost?",
        "repeat_scaled([1, 2], n=3) 把每个元素重复 n 次。直接用 jax.jit，它会返回 "
        "[1, 1, 1, 2, 2, 2] 吗？把 n 设成静态参数后，让 n 依次取 3、4、3、2、4，要编译几次？",
    )
    lesson = Lesson(
        what=Text(
            "jnp.repeat(x, n) under jax.jit fails with ConcretizationTypeError: n arrives "
            "as a tracer, and the output length, len(x) × n, cannot be known while tracing. "
            "Declaring n static fixes it. The opposite mistake costs too: make a value "
            "static that only feeds arithmetic, and every distinct value compiles a new "
            "program. And an array cannot be static at all: JAX refuses it.",
            "在 jax.jit 下调用 jnp.repeat(x, n) 会抛出 ConcretizationTypeError：n 以 tracer "
            "的身份进来，输出长度 len(x) × n 在追踪时无从得知。把 n 声明为静态参数就解决了。"
            "反方向的错误同样有代价：把只参与数值计算的值设成静态，它每换一个取值就要编译一个"
            "新程序。而数组根本不能当静态参数：JAX 会直接拒绝。",
        ),
        why=Text(
            "By default jit traces every argument: it sees only its shape and dtype, and the "
            "compiled program works for any value. A static argument (static_argnums or "
            "static_argnames) is passed to your Python code as the real value and becomes "
            "part of the cache key, so each distinct value has its own compiled program. "
            "That key must be hashable: a jax or numpy array is not, so jit raises a "
            "ValueError instead of compiling. Turning the array into a tuple makes it "
            "hashable, and then every distinct content compiles anew.",
            "jit 默认追踪所有参数：只看形状和 dtype，编译出的程序对任何取值都适用。静态参数"
            "（static_argnums 或 static_argnames）则以真实的值交给你的 Python 代码，并成为"
            "缓存键的一部分，每个不同的取值都对应一份自己的编译程序。这个键必须可哈希：jax "
            "或 numpy 数组不可哈希，所以 jit 直接抛出 ValueError，而不会去编译。把数组转成"
            "元组倒是能哈希了，可内容每变一次就要重新编译一次。",
        ),
        fix=Text(
            "Ask one question per argument: does the output shape or the Python control "
            "flow depend on its value? If yes, make it static (n here) and keep its values "
            "few. If it only feeds arithmetic (scale here), leave it traced: one program "
            "serves every value. Never mark arrays static; if a shape must follow data, "
            "pass the size (an int) as the static argument.",
            "对每个参数只问一个问题：输出形状或 Python 控制流是否依赖它的值？是，就设为静态"
            "（这里的 n），并让它的取值种类尽量少；如果它只参与数值计算（这里的 scale），就"
            "保持追踪：一个程序适用于所有取值。永远不要把数组设成静态；如果形状必须跟随数据，"
            "就把尺寸（一个整数）作为静态参数传入。",
        ),
        kitchen=Text(
            "Chef Wang's script has two kinds of facts. The pan and the plate size are fixed "
            "before rehearsal and written on the title page; the rice of the day flows "
            "through the script at every service. He cannot rehearse “fill the plate” "
            "without knowing the plate. Once the plate size is on the title page, each new "
            "plate needs its own script, which is fine for three plates. But writing the "
            "day's salt on the title page means a new rehearsal for every pinch, and a whole "
            "sack of rice cannot go on the title page at all.",
            "王师傅的脚本里有两类信息。锅和盘子的尺寸在排练前就定死，写在扉页上；当天的米量"
            "则在每次出餐时流进脚本。不知道盘子多大，“装满一盘”就没法排练。盘子尺寸写上扉页"
            "后，每换一种盘子就要一份新脚本，三种盘子倒也无妨。可要是把当天的盐量也写上扉页，"
            "每多撒一撮就得重新排练一次；至于整袋米，根本写不上扉页。",
        ),
    )
    params = (
        Param(
            "n",
            3,
            Text("Repeats n", "重复次数 n"),
            Text(
                "How many times each element is repeated. The output length depends on it, "
                "so it must be static: each new value compiles once.",
                "每个元素重复几次。输出长度取决于它，所以它必须是静态参数：每个新取值编译一次。",
            ),
            minimum=1,
            maximum=12,
        ),
        Param(
            "scale",
            1.0,
            Text("Scale", "倍数"),
            Text(
                "A factor applied to x. It only feeds arithmetic: traced, it never "
                "recompiles; static, every new value does.",
                "乘到 x 上的系数，只参与数值计算：作为追踪参数永不重编译；作为静态参数，每个"
                "新值都要重编译。",
            ),
            minimum=0.0,
            maximum=10.0,
        ),
    )
    variants = (
        Variant(
            "pitfall",
            Text("n traced", "n 被追踪"),
            Text(
                "Plain jax.jit: n is a tracer, jnp.repeat needs its value.",
                "直接用 jax.jit：n 是 tracer，而 jnp.repeat 需要它的具体值。",
            ),
        ),
        Variant(
            "fix",
            Text('static_argnames=("n",)', 'static_argnames=("n",)'),
            Text(
                "n is static, scale stays traced: one program per distinct n.",
                "n 是静态参数，scale 保持追踪：每个不同的 n 一份程序。",
            ),
        ),
        Variant(
            "static-array",
            Text("An array marked static", "把数组设成静态"),
            Text(
                "JAX refuses: arrays are not hashable.",
                "JAX 直接拒绝：数组不可哈希。",
            ),
        ),
        Variant(
            "static-explosion",
            Text("A float marked static", "把浮点数设成静态"),
            Text(
                "Hashable, so JAX accepts it, and compiles again for every distinct value.",
                "可以哈希，JAX 接受了，于是每个不同的取值都再编译一次。",
            ),
        ),
    )
    autoplay = (
        AutoplayStep(
            {"n": 3, "scale": 1.0},
            "pitfall",
            Text(
                "n is traced: jnp.repeat cannot know the output length. ConcretizationTypeError.",
                "n 被追踪：jnp.repeat 无法知道输出长度，抛出 ConcretizationTypeError。",
            ),
        ),
        AutoplayStep(
            {"n": 3, "scale": 1.0},
            "fix",
            Text(
                "n static: [1, 1, 1, 2, 2, 2]. The first card goes into the holder.",
                "n 为静态：[1, 1, 1, 2, 2, 2]。第一张卡片放进卡夹。",
            ),
        ),
        AutoplayStep({"n": 4, "scale": 1.0}, "fix"),
        AutoplayStep(
            {"n": 3, "scale": 1.0},
            "fix",
            Text("n = 3 again: its card is already there.", "n 又是 3：卡片已经在了。"),
        ),
        AutoplayStep({"n": 2, "scale": 1.0}, "fix"),
        AutoplayStep(
            {"n": 4, "scale": 2.5},
            "fix",
            Text(
                "A new scale, a known n: a cache hit. scale is traced.",
                "新的 scale，见过的 n：缓存命中。scale 是追踪参数。",
            ),
        ),
        AutoplayStep(
            {"n": 3, "scale": 2.0},
            "static-array",
            Text(
                "One factor per element, as an array, marked static: JAX refuses to hash it.",
                "每个元素一个系数，做成数组并设为静态：JAX 拒绝对它求哈希。",
            ),
        ),
        AutoplayStep({"n": 3, "scale": 1.0}, "static-explosion"),
        AutoplayStep({"n": 3, "scale": 1.5}, "static-explosion"),
        AutoplayStep({"n": 3, "scale": 2.0}, "static-explosion"),
        AutoplayStep({"n": 3, "scale": 2.5}, "static-explosion"),
        AutoplayStep(
            {"n": 3, "scale": 3.0},
            "static-explosion",
            Text(
                "Five values of scale, five compiles: the card holder fills with scripts "
                "that differ in one number.",
                "scale 取了五个值，就编译了五次：卡夹里塞满了只差一个数字的脚本。",
            ),
        ),
    )

    def __init__(self) -> None:
        self.state: dict[str, Any] = {}

    scripts = ScriptLesson(
        Text(
            "With n static, each value of n has its own script. Compare n = 2 with n = 4: "
            "the equations are the same, but n is written into the program as shapes "
            "(f32[2,2] → f32[4] against f32[2,4] → f32[8]), so neither program can serve the "
            "other. scale stays an input (b:f32[]) in both: a new scale reuses the script.",
            "n 是静态参数时，每个 n 值都有自己的脚本。对比 n = 2 和 n = 4：等式完全相同，"
            "但 n 以形状的方式写进了程序（f32[2,2] → f32[4] 对 f32[2,4] → f32[8]），所以"
            "谁也替代不了谁。scale 在两份脚本里都是输入（b:f32[]）：换一个 scale 仍用同一份"
            "脚本。",
        ),
        compare=(CardRef("fix", {"n": 2}), CardRef("fix", {"n": 4})),
    )

    # The comments of the shown code (code_objects), in Chinese for the code view.
    code_comments = (
        Text(
            "Output shape is len(x) * n: jit must know n while tracing."
            " scale only feeds arithmetic.",
            "输出形状是 len(x) * n：jit 在追踪时必须知道 n。scale 只参与算术运算。",
        ),
        Text("every argument traced, n included", "所有参数都被追踪，n 也不例外"),
        Text("n arrives as a tracer: its value is unknown", "n 以 tracer 的形式传入：它的值未知"),
        Text("n is a Python int while tracing", "追踪时 n 是普通的 Python int"),
        Text(
            "one program per distinct n; any scale reuses it",
            "每个不同的 n 一个程序；scale 取什么值都复用它",
        ),
        Text("scale too: a mistake", "把 scale 也设为静态：这是个错误"),
        Text("one factor per element", "每个元素一个系数"),
        Text("an array cannot be hashed: jit refuses it", "数组无法哈希：jit 拒绝接受"),
        Text(
            "Made hashable: a Python float (a tuple of factors behaves the same way).",
            "改成可哈希的：一个 Python float（系数元组也是一样）。",
        ),
        Text("every distinct value compiles a new program", "每个不同的值都会编译一个新程序"),
    )

    # The verdicts: the fix fails no call; a float kept traced compiles once (issue 21).
    # The question's count, settled on its own calls: n static, dragged through 3, 4, 3, 2, 4.
    question_run = QuestionRun("fix", tuple({"n": n, "scale": 1.0} for n in (3, 4, 3, 2, 4)))
    comparisons = (
        Comparison(
            Measure.ERRORS,
            tuple({"n": n, "scale": 1.0} for n in (3, 4, 3, 2, 4)),
            note=Text(
                "With n static the fix compiles once per distinct n: 3, 4 and 2.",
                "n 设为静态后，修正版每个不同的 n 编译一次：3、4、2。",
            ),
        ),
        Comparison(
            Measure.COMPILES,
            tuple({"n": 3, "scale": s} for s in (1.0, 1.5, 2.0, 2.5, 3.0)),
            "static-explosion",
            "fix",
        ),
        Comparison(
            Measure.ERRORS, tuple({"n": 3, "scale": s} for s in (2.0, 3.0)), "static-array", "fix"
        ),
    )

    def setup(self, lab: Lab, variant: str):
        self.state = {"result": None}
        build, step = self._parts(variant)
        f = self.probe = lab.probe(build())

        def run(values):
            self.state["result"] = None
            y = step(f, int(values["n"]), float(values["scale"]))
            self.state["result"] = first_values(y, 24)
            return self.facts()

        return run

    @staticmethod
    def _parts(variant: str):
        return {
            "fix": (jit_n_static, step_fix),
            "static-array": (jit_n_and_scale_static, step_static_array),
            "static-explosion": (jit_n_and_scale_static, step_static_explosion),
        }.get(variant, (jit_plain, step_pitfall))

    def facts(self) -> dict[str, Any]:
        """The last result, and how many programs JAX's own cache holds for the function."""
        facts: dict[str, Any] = {"result": self.state.get("result")}
        probe = getattr(self, "probe", None)
        # A call that raised compiled nothing: JAX's count then says nothing true about it.
        if probe is not None and self.state.get("result") is not None:
            # JAX shares this cache among every jax.jit of the same function; the engine
            # clears caches when a run starts. Private API: -1 (left out) when unreadable.
            size = cache_size(probe.function)
            if size >= 0:
                facts["jax_cache_size"] = size
        return facts

    def code_objects(self, variant: str):
        return (repeat_scaled, *self._parts(variant))
