"""Pitfall 1: side effects inside a jitted function happen once, while it is traced."""

from __future__ import annotations

from typing import Any

import jax
import numpy as np

from jitlab.lab.scenario import (
    Answer,
    AnswerKind,
    AutoplayStep,
    CardRef,
    Comparison,
    Counted,
    Evidence,
    Exercise,
    Fact,
    Lab,
    Lesson,
    Measure,
    Option,
    Param,
    Pitfall,
    QuestionRun,
    Scenario,
    ScriptLesson,
    Text,
    Variant,
    calls_text,
    error_answer,
    error_options,
    kind_text,
    printed_answer,
)

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


def _short(values: Any) -> list[float]:
    return [round(float(v), 4) for v in np.asarray(values).ravel()[:8]]


# ===========================================================================================
# Exercises: predict what jax.jit does, then a real run settles it (`jitlab quiz`).
# Each snippet is what the user reads; the answer is read off the run, never stored.
# ===========================================================================================
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
        snippet=keep_tracer_in_list,
        code_comments=(
            Text("stores what x is while tracing", "把追踪时的 x 存起来"),
            Text("use the stored value after the call", "调用结束后再用存下的值"),
        ),
        settle=error_answer,
        options=error_options("UnexpectedTracerError", "IndexError", "TracerBoolConversionError"),
    ),
)


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
                self.state.update(count=int(count), result=_short(y))
                return self.facts()

        elif variant == "global-read":
            f = lab.probe(scale_by_global)

            def run(values):
                y = step_global_read(f, *_typed(values))
                self.state["result"] = _short(y)
                return self.facts()

        elif variant == "global-arg":
            f = lab.probe(scale_by_arg)

            def run(values):
                y = step_global_arg(f, *_typed(values))
                self.state.update(scale=float(values["scale"]), result=_short(y))
                return self.facts()

        else:
            f = lab.probe(double)

            def run(values):
                y = step_pitfall(f, *_typed(values))
                self.state["result"] = _short(y)
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
