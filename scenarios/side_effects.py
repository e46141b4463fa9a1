"""Pitfall 1: side effects inside a jitted function happen once, while it is traced."""

from __future__ import annotations

from typing import Any

import jax
import numpy as np

from jitlab.lab.scenario import (
    AutoplayStep,
    CardRef,
    Comparison,
    Counted,
    Fact,
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
    first_values,
)

from ._side_effects_exercises import EXERCISES  # the quiz's questions on this lesson

# --- module state the pitfall reaches for (reset by reset_globals when a run starts) --------
counter = 0  # how many times the body of `double` has run
seen = []  # every x the body of `double` was given
SCALE = 1.0  # a module-level setting read by `scale_by_global`


# --- pitfall: print, a global counter and a list, inside jit --------------------------------
def double(x):
    global counter
    counter += 1  # Python code: runs while tracing, not when the program runs
    seen.append(x)  # keeps the tracer (an abstract stand-in), never a value
    print(f"double(): counter = {counter}, len(seen) = {len(seen)}, seen = {seen}")
    return x * 2


# --- fix: jax.debug.print runs with the program; the count travels as data ---------------
def double_and_count(x, count):
    jax.debug.print("double_and_count(): x[0] = {x0}, count = {n}", x0=x[0], n=count + 1)
    return x * 2, count + 1


# --- global read: the value is baked in at trace time ----------------------------------------
def scale_by_global(x):
    # SCALE is a Python float read while tracing: it becomes a constant of the program.
    jax.debug.print("scale_by_global(): SCALE = {s}", s=SCALE)
    return x * SCALE


def scale_by_arg(x, scale):
    # scale is an argument: a traced value, read every time the program runs.
    jax.debug.print("scale_by_arg(): scale = {s}", s=scale)
    return x * scale


# --- one call per step ---------------------------------------------------------------------
def reset_globals():
    global counter, seen, SCALE
    counter, seen, SCALE = 0, [], 1.0


def make_input(length, scale):
    """New data each call, same shape (numpy, so making it compiles nothing)."""
    return np.arange(1, length + 1, dtype=np.float32) * np.float32(scale)


def step_pitfall(f, length, scale):
    return f(make_input(length, scale))


def step_fix(f, length, scale, count):
    y, count = f(make_input(length, scale), count)
    return y, count  # the caller keeps count and passes it back next time


def step_global_read(f, length, scale):
    global SCALE
    SCALE = scale  # change the global between calls…
    return f(make_input(length, 1.0))  # …the cached program still uses the old value


def step_global_arg(f, length, scale):
    return f(make_input(length, 1.0), scale)  # pass the setting in: no stale constant


def _typed(values: Any) -> tuple[int, float]:
    """length and scale as int and float: an int scale would change the signature."""
    return int(values["length"]), float(values["scale"])


class SideEffects(Scenario):
    id = "side-effects"
    pitfall = Pitfall.SIDE_EFFECTS
    icon = "dog"
    exercises = EXERCISES
    title = Text("What the rehearsal leaves behind", "排练时的私活")
    question = Text(
        "The jitted function prints, adds 1 to a global counter and appends x to a list. "
        "After five calls with the same shape, how many lines were printed, what is the "
        "counter, and what is in the list?",
        "jit 函数里有一句 print、一个全局计数器加 1、一次往列表里 append。用同样形状调用"
        "五次之后，打印了几行？计数器是几？列表里装着什么？",
    )
    lesson = Lesson(
        what=Text(
            "Inside a jitted function, print, changing a global and appending to a list all "
            "seem to work on the first call, then stop. Over many calls the message appears "
            "once, the counter stays at 1, and the list holds one tracer instead of the "
            "values. A global that the function reads is frozen too: change it and the "
            "result does not move until something forces a new trace.",
            "在 jit 函数里 print、修改全局变量、往列表里 append，第一次调用好像都正常，之后"
            "就全不见了：调用很多次，消息只出现一次，计数器停在 1，列表里只有一个 tracer 而"
            "不是数值。函数读取的全局变量也会被冻结：改了它，结果纹丝不动，直到某件事逼出一次"
            "新的追踪。",
        ),
        why=Text(
            "jit runs your Python function once per signature, with tracers (abstract values "
            "that have a shape and a dtype but no numbers), to record the computation. Only "
            "array operations on the tracers enter the compiled program. Python side effects "
            "happen during that one tracing run; later calls execute the compiled program "
            "and never run your Python again. Values read from globals enter the program as "
            "constants. A tracer kept in a list outlives its trace: using it later raises "
            "UnexpectedTracerError.",
            "jit 会按每种签名把你的 Python 函数运行一次，参数换成 tracer（只有形状和 dtype、"
            "没有具体数值的抽象值），借此记录计算过程。只有作用在 tracer 上的数组运算才会进入"
            "编译出的程序。Python 的副作用只在这次追踪中发生；之后的调用直接执行编译好的程序，"
            "你的 Python 代码不会再运行。从全局变量读到的值，会作为常量写进程序。存进列表的 "
            "tracer 活得比它的追踪还久，之后再用它会抛出 UnexpectedTracerError。",
        ),
        fix=Text(
            "Keep jitted functions pure: the output depends only on the inputs. To see "
            "values while the program runs, use jax.debug.print, which becomes part of the "
            "program and prints on every call. To keep count, pass the count in and return "
            "the new count. To change a setting, pass it as an argument instead of reading "
            "a global. A plain print is still useful: it tells you when tracing happens.",
            "让 jit 函数保持纯粹：输出只由输入决定。想在运行时看数值，用 jax.debug.print，"
            "它会成为程序的一部分，每次调用都打印。想计数，就把计数作为参数传进去、把新的计数"
            "返回出来。想改设置，就把它当参数传入，而不是读全局变量。普通 print 仍然有用：它"
            "告诉你什么时候发生了追踪。",
        ),
        kitchen=Text(
            "While rehearsing the fried rice, Chef Wang fed a sausage to a passing dog, "
            "punched the time clock once more and waved at the camera. The script he wrote "
            "afterwards holds only the cooking, so on service days none of those extras "
            "happen. The salt he used that day is written in as a number, too: buy a "
            "saltier brand and the script still says the old amount. If he wants something "
            "done at every service, it has to be a line in the script.",
            "王师傅排练炒饭时，顺手喂了路过的小狗一根火腿肠、多按了一次打卡机、还对着监控比了"
            "个耶。之后写成的脚本只有做菜的步骤，所以正式出餐时这些私活一件也不会发生。那天"
            "用的盐量也作为一个数字写进了脚本：换了更咸的盐，脚本上还是老分量。想让某件事每次"
            "出餐都做，就得把它写成脚本里的一行。",
        ),
    )
    params = (
        Param(
            "length",
            4,
            Text("Input length", "输入长度"),
            Text(
                "Elements in x. Same length: the cached program runs. A new length forces a "
                "new trace, so the side effects happen once more.",
                "x 的元素个数。长度不变就直接运行缓存的程序；换一个长度会触发新的追踪，"
                "副作用于是再发生一次。",
            ),
            minimum=1,
            maximum=64,
        ),
        Param(
            "scale",
            1.0,
            Text("Scale", "倍数"),
            Text(
                "In pitfall and fix, multiplies the input (new data, same shape). In the "
                "global variants, the value of the setting: the global SCALE, or the scale "
                "argument.",
                "在 pitfall 和 fix 中，它乘到输入上（数据变了，形状没变）。在两个全局变量"
                "变体中，它是设置的取值：全局变量 SCALE，或参数 scale。",
            ),
            minimum=-10.0,
            maximum=10.0,
        ),
    )
    variants = (
        Variant(
            "pitfall",
            Text("print, global, append", "print、全局变量、append"),
            Text(
                "Side effects inside jit: they happen while tracing only.",
                "jit 里的副作用：只在追踪时发生。",
            ),
        ),
        Variant(
            "fix",
            Text("jax.debug.print + count as output", "jax.debug.print + 计数作为输出"),
            Text(
                "Prints on every call; the count goes in and comes back out.",
                "每次调用都打印；计数作为输入传入、作为输出带出。",
            ),
        ),
        Variant(
            "global-read",
            Text("A frozen global", "被冻结的全局变量"),
            Text(
                "The function reads a global: its value is baked in at trace time.",
                "函数读取全局变量：它的值在追踪时就被写死了。",
            ),
        ),
        Variant(
            "global-arg",
            Text("The setting as an argument", "把设置作为参数"),
            Text(
                "Pass the setting in: every call uses the current value, with no recompile.",
                "把设置作为参数传入：每次调用都用当前值，而且不用重编译。",
            ),
        ),
    )
    autoplay = (
        AutoplayStep(
            {"length": 4, "scale": 1.0},
            "pitfall",
            Text(
                "First call: the body runs while tracing. One line printed, counter 1.",
                "第一次调用：函数体在追踪时运行。打印一行，计数器为 1。",
            ),
        ),
        *(AutoplayStep({"length": 4, "scale": s}, "pitfall") for s in (2.0, 3.0, 4.0)),
        AutoplayStep(
            {"length": 4, "scale": 5.0},
            "pitfall",
            Text(
                "Five calls: one printed line, counter 1, one tracer in the list.",
                "五次调用：只打印一行，计数器为 1，列表里一个 tracer。",
            ),
        ),
        AutoplayStep(
            {"length": 8, "scale": 1.0},
            "pitfall",
            Text(
                "A new length forces a new trace: the side effects run once more.",
                "换个长度逼出一次新的追踪：副作用又发生了一次。",
            ),
        ),
        *(AutoplayStep({"length": 4, "scale": s}, "fix") for s in (1.0, 2.0, 3.0, 4.0)),
        AutoplayStep(
            {"length": 4, "scale": 5.0},
            "fix",
            Text(
                "jax.debug.print printed on all five calls, and the count came back as 5.",
                "jax.debug.print 五次调用都打印了，计数作为输出带回来，是 5。",
            ),
        ),
        AutoplayStep({"length": 4, "scale": 1.0}, "global-read"),
        AutoplayStep(
            {"length": 4, "scale": 2.0},
            "global-read",
            Text(
                "SCALE is now 2, but the program still multiplies by 1: it was read while tracing.",
                "SCALE 已经是 2 了，程序却仍然乘以 1：它是在追踪时读取的。",
            ),
        ),
        AutoplayStep({"length": 4, "scale": 3.0}, "global-read"),
        AutoplayStep(
            {"length": 8, "scale": 3.0},
            "global-read",
            Text(
                "A new length retraces, and only now is SCALE read again: 3.",
                "换了长度才会重新追踪，直到这时 SCALE 才被重新读取：3。",
            ),
        ),
        AutoplayStep(
            {"length": 4, "scale": 3.0},
            "global-read",
            Text(
                "Back to length 4: the old card is used, and it still says 1.",
                "回到长度 4：用的是旧卡片，上面写的还是 1。",
            ),
        ),
        AutoplayStep({"length": 4, "scale": 1.0}, "global-arg"),
        AutoplayStep({"length": 4, "scale": 2.0}, "global-arg"),
        AutoplayStep(
            {"length": 4, "scale": 3.0},
            "global-arg",
            Text(
                "As an argument, every new value is used at once, from one compiled program.",
                "作为参数，每个新值都立刻生效，用的始终是同一个编译好的程序。",
            ),
        ),
    )

    def __init__(self) -> None:
        self.state: dict[str, Any] = {}

    scripts = ScriptLesson(
        Text(
            "Read the pitfall's script: the print, the counter and the append are not in it. "
            "The jaxpr is one multiplication, because print and the list ran in Python while "
            "JAX traced, and only array operations were recorded. In the fix's script, "
            "jax.debug.print is an equation of its own (debug_print, run as a host callback), "
            "and the count is an input plus one add: both happen on every call.",
            "读一读陷阱版本的脚本：print、计数器和 append 都不在里面。jaxpr 只有一次乘法，"
            "因为 print 和列表操作是在 JAX 追踪时由 Python 执行的，被记录下来的只有数组运算。"
            "修复版本的脚本里，jax.debug.print 是一条独立的等式（debug_print，运行时作为"
            "主机回调执行），计数则是一个输入加一次 add：两者每次调用都会发生。",
        ),
        compare=(CardRef("pitfall", number=1), CardRef("fix", number=1)),
    )

    # The comments of the shown code (code_objects), in Chinese for the code view.
    code_comments = (
        Text(
            "Python code: runs while tracing, not when the program runs",
            "Python 代码：在追踪时运行，而不是在程序运行时",
        ),
        Text(
            "keeps the tracer (an abstract stand-in), never a value",
            "存下的是 tracer（一个抽象的替身），而不是数值",
        ),
        Text(
            "the caller keeps count and passes it back next time", "调用方保存 count，下次再传回来"
        ),
        Text(
            "SCALE is a Python float read while tracing: it becomes a constant of the program.",
            "SCALE 是追踪时读取的 Python 浮点数：它成了程序里的常量。",
        ),
        Text("change the global between calls…", "在两次调用之间修改全局变量……"),
        Text("…the cached program still uses the old value", "……缓存的程序仍然用旧值"),
        Text(
            "scale is an argument: a traced value, read every time the program runs.",
            "scale 是参数：一个被追踪的值，程序每次运行都会重新读取。",
        ),
        Text("pass the setting in: no stale constant", "把设置作为参数传进去：就不会有过期的常量"),
    )

    # The verdict: the fix's print and count happen on every call (issue 21).
    # The question, settled on its own calls: five calls of one shape; it counts printed lines.
    question_run = QuestionRun(
        "pitfall",
        tuple({"length": 4, "scale": s} for s in (1.0, 2.0, 3.0, 4.0, 5.0)),
        Counted.PRINTED,
        # "what is the counter, and what is in the list?": read off the run's last call
        facts=(
            Fact("counter", Text("The counter ends at {value}.", "计数器最后是 {value}。")),
            Fact(
                "seen",
                Text(
                    "The list seen ends up holding {n} item: {value}.",
                    "列表 seen 最后装着 {n} 项：{value}。",
                ),
            ),
        ),
    )
    comparisons = (
        Comparison(
            Measure.OUTPUT,
            tuple({"length": 4, "scale": s} for s in (1.0, 2.0, 3.0, 4.0, 5.0)),
            facts=("counter", "count"),
        ),
    )

    def setup(self, lab: Lab, variant: str):
        reset_globals()
        self.variant = variant
        self.state = {"count": 0, "result": None}
        if variant == "fix":
            f = lab.probe(double_and_count)

            def run(values):
                y, count = step_fix(f, *_typed(values), self.state["count"])
                self.state.update(count=int(count), result=first_values(y))
                return self.facts()

        elif variant == "global-read":
            f = lab.probe(scale_by_global)

            def run(values):
                y = step_global_read(f, *_typed(values))
                self.state["result"] = first_values(y)
                return self.facts()

        elif variant == "global-arg":
            f = lab.probe(scale_by_arg)

            def run(values):
                y = step_global_arg(f, *_typed(values))
                self.state.update(scale=float(values["scale"]), result=first_values(y))
                return self.facts()

        else:
            f = lab.probe(double)

            def run(values):
                y = step_pitfall(f, *_typed(values))
                self.state["result"] = first_values(y)
                return self.facts()

        return run

    def facts(self) -> dict[str, Any]:
        """State that lives outside the call records: what the Python side now holds."""
        variant = getattr(self, "variant", None)
        facts: dict[str, Any] = {"result": self.state.get("result")}
        if variant == "pitfall":
            facts.update(counter=counter, seen=[repr(item) for item in seen])
        elif variant == "fix":
            facts["count"] = self.state.get("count", 0)
        elif variant == "global-read":
            facts["SCALE"] = SCALE
        elif variant == "global-arg":
            facts["scale"] = self.state.get("scale")
        return facts

    def code_objects(self, variant: str):
        if variant == "fix":
            return (double_and_count, step_fix)
        if variant == "global-read":
            return (scale_by_global, step_global_read, reset_globals)
        if variant == "global-arg":
            return (scale_by_arg, step_global_arg)
        return (double, step_pitfall, reset_globals)
