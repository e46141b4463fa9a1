"""A scenario's lesson as a Jupyter notebook (``jitlab notebook SCENARIO -o lesson.ipynb``).

Two halves, one module:

* :func:`build` turns a scenario's spec into an nbformat v4 notebook: the kitchen story, the
  predict-then-run question, the pitfall and the fix as ``%%jitlab`` cells, the lesson's
  verdict, the other faces of the pitfall and the exercises, in English or Chinese. It runs
  no JAX (the scenario's module is imported to read its spec and source, nothing is called).
* :func:`open_lesson` is what the notebook's own cells call, in the kernel: it finds the
  scenario as the app does (:mod:`jitlab.lab.discovery`), runs a variant on the lesson's
  calls with the engine the app and ``jitlab run --compare`` use, and judges the two runs
  with :func:`jitlab.lab.verdict.judge`, the function the app's Complete page calls.

The code shown is the code that runs. A variant's code cell is the scenario's own source, as
the app's code view shows it (:meth:`Scenario.source`, comments translated in Chinese). Run,
the cell defines those functions; :meth:`NotebookLesson.run` then makes the lab's calls with
*these* definitions: each function the cell compiled is rebuilt on the scenario module's
globals (so ``global counter`` still means the module's counter, which the lesson's facts
read) and stands in for the module's own for the duration of the run, then the module's own
come back (leave no trace). Edit a cell, run it again, and the measurement follows the edit.

JAX-free at import: JAX loads when a cell runs a lesson.
"""

from __future__ import annotations

import dataclasses
import re
import sys
import types
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from jitlab.lab.spec import CardRef, Comparison, Param, Scenario, ScriptLesson, Text, values_text

if TYPE_CHECKING:
    import nbformat

    from jitlab.lab.verdict import Graded, Verdict
    from jitlab.records.calls import CallRecord

__all__ = [
    "RAISES",
    "LessonRun",
    "NotebookLesson",
    "build",
    "comparisons",
    "is_lesson_notebook",
    "open_lesson",
    "variable_name",
]

# The cell tag Jupyter (and nbclient) read as "this cell is meant to raise": the error is
# the lesson, and running the notebook top to bottom goes on past it.
RAISES = "raises-exception"
METADATA_KEY = "jitlab"


def _t(en: str, zh: str) -> Text:
    return Text(en, zh)


# The notebook's own words (the lesson's words come from the scenario's spec).
_WORDS = {
    "exported": _t(
        "A lesson of jitlab, written by `jitlab notebook {id}` from the scenario's own spec: "
        "the code cells are the code the lab shows and runs. Run the cells from the top; "
        "each `%%jitlab` cell shows what `jax.jit` did in it, call by call.",
        "jitlab 的一课，由 `jitlab notebook {id}` 根据场景自身的定义生成：代码单元格就是实验室"
        "展示并运行的代码。请从上往下运行；每个 `%%jitlab` 单元格都会逐次列出 `jax.jit` 在其中"
        "做了什么。",
    ),
    "kitchen": _t("In Chef Wang's kitchen", "王师傅的厨房"),
    "setup": _t(
        "First the lab: the scenario, found as the app finds it, and the names its code uses.",
        "先准备实验室：按应用的方式找到这个场景，并导入它的代码用到的名字。",
    ),
    "devices": _t(
        "8 simulated CPU devices, as the app asks for them: before JAX starts",
        "和应用一样，模拟 8 台 CPU 设备：必须在 JAX 启动前设置",
    ),
    "found": _t("the scenario, as the app finds it", "按应用的方式找到场景"),
    "names": _t("the names its code uses", "它的代码用到的名字"),
    "predict": _t("Predict before you run", "先预测，再运行"),
    "calls": _t(
        "The cells below make the lesson's {n} calls, the same for the pitfall and the fix "
        "(the app's “Measure both”): {calls}.",
        "下面的单元格会做这一课的 {n} 次调用，陷阱版和修正版完全相同（即应用里的“两者都测”）："
        "{calls}。",
    ),
    "write": _t(
        "Write your prediction in the next cell before you run the pitfall.",
        "运行陷阱版之前，先在下一个单元格写下你的预测。",
    ),
    "graded": _t(
        "The verdict cell grades it on the question's own calls, run for that purpose "
        "({calls}); the lesson's calls above are a second, separate finding.",
        "结论单元格会专门把题目自己的那组调用跑一遍（{calls}），用它来评判你的预测；"
        "上面这一课的调用是另一项独立的结论。",
    ),
    "prediction": _t("your prediction, in words", "你的预测，用文字写下"),
    "pitfall": _t("The pitfall", "陷阱"),
    "fix": _t("The fix", "修正"),
    "code": _t(
        "The code is the scenario's own, as the app shows it; run the cell and the lab makes "
        "its calls with these definitions.",
        "代码就是场景自己的代码，与应用里显示的一样；运行这个单元格，实验室就用这些定义来调用。",
    ),
    "error": _t(
        "The error, as JAX raised it in the first failing call (this cell is meant to raise):",
        "JAX 在第一次失败的调用中抛出的错误（这个单元格本来就会报错）：",
    ),
    "what": _t("What goes wrong", "哪里出了问题"),
    "why": _t("Why", "为什么"),
    "verdict": _t("Predicted and measured", "预测与实测"),
    "verdict_text": _t(
        "Your prediction next to what the two runs measured, judged as the app's Complete page "
        "judges them.",
        "把你的预测和两次运行的实测放在一起，用应用“完成”页同样的方式评判。",
    ),
    "scripts": _t("What the scripts show", "脚本里看得出什么"),
    "scripts_cell": _t(
        "The next cell makes {calls}, each in a fresh run, and shows the script JAX compiled "
        "for each card (its jaxpr, figures, StableHLO and HLO) — the app's “{button}”.",
        "下一个单元格重新做一遍{calls}（每次都是全新的运行），并展示 JAX 为每张卡片编译的脚本"
        "（它的 jaxpr、数字、StableHLO 与 HLO），即应用里的“{button}”。",
    ),
    "compare_button": _t("Compare the scripts", "对比两份脚本"),
    "read_button": _t("Read the script", "读这份脚本"),
    "ref": _t("the {variant} call", "{variant}的调用"),
    "ref_values": _t("the {variant} call ({values})", "{variant}的调用（{values}）"),
    "ref_card": _t("until it makes card #{n}", "直到它做出第 #{n} 张卡"),
    "and": _t(" and ", "和"),
    "script_of": _t(
        "Card #{card} of {function}, made by {ref}:", "{function} 的 #{card} 号卡片，由{ref}做出："
    ),
    "no_script": _t(
        "No script: {ref} made no card in {n} calls.",
        "没有脚本：{ref}在 {n} 次调用里没有做出卡片。",
    ),
    "same_jaxpr": _t(
        "The two jaxprs are the same equations; what differs is below (StableHLO).",
        "两份 jaxpr 的等式完全相同；不同之处见下方（StableHLO）。",
    ),
    "jaxpr_diff": _t("How the two jaxprs differ:", "两份 jaxpr 的不同之处："),
    "stablehlo_diff": _t(
        "How the two StableHLO programs differ:", "两份 StableHLO 程序的不同之处："
    ),
    "same_programs": _t("The two programs are the same.", "两份程序完全相同。"),
    "face": _t("Another face of the pitfall", "陷阱的另一副面孔"),
    "exercises": _t("Exercises", "练习"),
    "further": _t("Going further", "延伸阅读"),
    "further_text": _t(
        "The lesson ends above. Below, for reference: what the compiled scripts show, and the "
        "same pitfall in other code. Each run's report is folded to one line per function: "
        "click a line to open it.",
        "这一课到上面就结束了。下面供参考：编译出的脚本里看得出什么，以及同一个陷阱在别的代码里"
        "的样子。每次运行的报告都折叠成每个函数一行：点开哪一行就看哪一行。",
    ),
    "exercises_text": _t(
        "Predict, then run: each snippet runs for real and the run settles the answer. "
        "Put your prediction in the call (`prediction=…`) before you run it.",
        "先预测，再运行：每段代码都会真实运行，由运行结果给出答案。运行前把你的预测写进调用"
        "（`prediction=…`）。",
    ),
    "options": _t("Options", "选项"),
    "number": _t("Answer with a whole number.", "用一个整数作答。"),
    "error_kind": _t(
        "Answer with an option, or the name of the exception.", "选择一个选项，或写出异常的名字。"
    ),
    "claim": _t("The claim", "说法"),
    "your_guess": _t("your prediction", "你的预测"),
    # -- what the cells print in the kernel --
    "said": _t("Your prediction: {text}", "你的预测：{text}"),
    # the prediction, graded on the question's own calls (as the app's Complete page does)
    "not_a_count": _t(
        "This question is not answered by a count: check your words against the verdict below.",
        "这道题的答案不是一个次数：拿你的话和下面的结论对一对。",
    ),
    "second": _t(
        "Then the lesson's comparison, a separate finding: the pitfall and the fix on the same "
        "calls.",
        "接下来是课程的对比，另一项结论：陷阱版和修正版跑同一组调用。",
    ),
    "no_prediction": _t(
        "No prediction written (the `prediction` cell).", "没有写下预测（`prediction` 单元格）。"
    ),
    "failed_note": _t(
        "A call that raises gives no result, so its time is no saving: compare the costs of "
        "runs that work.",
        "抛出异常的调用没有结果，它的耗时谈不上节省：请比较能正常运行的版本的开销。",
    ),
    "call_line": _t("call #{n} ({params}): ", "#{n} 号调用（{params}）："),
    "pitfall_at": _t("The pitfall compiled at calls {calls}.", "陷阱版在 {calls} 号调用时编译。"),
    "fix_at": _t("The fix compiled at calls {calls}.", "修正版在 {calls} 号调用时编译。"),
    "answer": _t("The run's answer: {value}", "运行给出的答案：{value}"),
    "right": _t("You said {said}: right.", "你答 {said}：对了。"),
    "close": _t("You said {said}: right (it names a base class).", "你答 {said}：对（基类）。"),
    "wrong": _t("You said {said}: not what the run shows.", "你答 {said}：和运行结果不符。"),
    "skipped": _t("Not run here: {why}", "这里没有运行：{why}"),
    "broke": _t("The run broke: {why}", "运行出错：{why}"),
    "no_error": _t("no call raised", "没有调用抛出异常"),
}


def _colon(lang: str) -> str:
    return "：" if lang == "zh" else ": "


def _say(key: str, lang: str, **fields: Any) -> str:
    text = _WORDS[key].get(lang)
    return text.format(**fields) if fields else text


# -- the notebook ---------------------------------------------------------------------------
def build(scenario: type[Scenario], lang: str = "en") -> nbformat.NotebookNode:
    """The lesson of ``scenario`` as a notebook, in ``lang`` (``en`` or ``zh``)."""
    import nbformat.v4 as v4

    from jitlab._version import __version__

    lang = "zh" if lang.startswith("zh") else "en"
    instance = scenario()
    cells: list[Any] = []

    def md(*parts: str) -> None:
        cells.append(v4.new_markdown_cell("\n\n".join(p for p in parts if p)))

    def code(source: str, raises: bool = False) -> None:
        metadata = {"tags": [RAISES]} if raises else {}
        cells.append(v4.new_code_cell(source.rstrip("\n"), metadata=metadata))

    variants = {v.id: v for v in scenario.variants}
    lessons = comparisons(scenario)
    main = lessons[0]
    names = _Names()
    md(
        f"# {_md(scenario.title.get(lang))}",
        f"*{_md(scenario.chapter.title.get(lang))}*",
        _say("exported", lang, id=scenario.id),
    )
    md(f"## {_say('kitchen', lang)}", _md(scenario.lesson.kitchen.get(lang)))
    md(_say("setup", lang))
    code(_setup_source(scenario, lang))
    calls = ", ".join(_call_words(call, scenario.params, lang) for call in main.calls) or "{}"
    md(
        f"## {_say('predict', lang)}",
        f"**{_md(scenario.question.get(lang))}**",
        _md(_say("calls", lang, n=len(main.calls), calls=calls)),
        _say("write", lang),
        _md(_graded_words(scenario, lang)),
    )
    code(f'prediction = ""  # {_say("prediction", lang)}')
    pitfall, fix = (variants[v] for v in main.variants)
    md(
        f"## {_say('pitfall', lang)}{_colon(lang)}{_md(pitfall.title.get(lang))}",
        _md(pitfall.summary.get(lang)),
        _say("code", lang),
    )
    pitfall_name = names.take(pitfall.id)
    code(_run_source(instance, main, pitfall.id, pitfall_name, lang))
    if main.measure.value == "errors":
        md(_say("error", lang))
        code(f"lesson.reraise({pitfall_name})", raises=True)
    md(
        f"## {_say('what', lang)}",
        _md(scenario.lesson.what.get(lang)),
        f"## {_say('why', lang)}",
        _md(scenario.lesson.why.get(lang)),
    )
    md(
        f"## {_say('fix', lang)}{_colon(lang)}{_md(fix.title.get(lang))}",
        _md(fix.summary.get(lang)),
        _md(scenario.lesson.fix.get(lang)),
        _say("code", lang),
    )
    fix_name = names.take(fix.id)
    code(_run_source(instance, main, fix.id, fix_name, lang))
    md(f"## {_say('verdict', lang)}", _say("verdict_text", lang))
    code(f"verdict = lesson.verdict({pitfall_name}, {fix_name}, prediction)")
    # The lesson ends with its verdict; the exercises practise it. What the scripts show and
    # the pitfall's other faces come after, as reference, their reports folded.
    exercises = tuple(scenario.exercises)
    if exercises:
        md(f"## {_say('exercises', lang)}", _say("exercises_text", lang))
        for exercise in exercises:
            _exercise(md, code, exercise, lang)
    script_lesson = getattr(scenario, "scripts", None)
    if script_lesson is not None or len(lessons) > 1:
        md(f"# {_say('further', lang)}", _say("further_text", lang))
    if script_lesson is not None:
        _scripts(md, code, scenario, script_lesson, lang)
    for face in lessons[1:]:
        _face(md, code, instance, face, variants, names, lang)
    nb = v4.new_notebook(cells=cells)
    nb.metadata.update(
        {
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
            "language_info": {"name": "python"},
            METADATA_KEY: {
                "lesson": scenario.id,
                "lang": lang,
                "jitlab": __version__,
                "comparisons": [list(c.variants) for c in lessons],
            },
        }
    )
    return nb


def comparisons(scenario: type[Scenario]) -> tuple[Comparison, ...]:
    """The lesson's comparisons, the pitfall and the fix's first (as the app judges it)."""
    main = scenario.comparison()
    return (main, *(c for c in scenario.comparisons if c is not main))


class _Names:
    """The notebook variables holding the runs: a variant's name, made unique (the fix that
    a second face compares with is ``fix_static_explosion``, the lesson's own stays ``fix``)."""

    def __init__(self) -> None:
        self.used: set[str] = set()

    def take(self, variant: str, against: str = "") -> str:
        name = variable_name(variant)
        if name in self.used and against:
            name = f"{name}_{variable_name(against)}"
        base, n = name, 2
        while name in self.used:
            name, n = f"{base}_{n}", n + 1
        self.used.add(name)
        return name


def _face(
    md: Any,
    code: Any,
    instance: Scenario,
    face: Comparison,
    variants: Any,
    names: _Names,
    lang: str,
) -> None:
    pitfall, fix = (variants[v] for v in face.variants)
    calls = ", ".join(_call_words(call, instance.params, lang) for call in face.calls) or "{}"
    md(
        f"## {_say('face', lang)}{_colon(lang)}"
        f"{_md(pitfall.title.get(lang))} → {_md(fix.title.get(lang))}",
        _md(_say("calls", lang, n=len(face.calls), calls=calls)),
        f"### {_md(pitfall.title.get(lang))}",
        _md(pitfall.summary.get(lang)),
    )
    pitfall_name = names.take(pitfall.id)
    code(_run_source(instance, face, pitfall.id, pitfall_name, lang, fold=True))
    if face.measure.value == "errors":
        md(_say("error", lang))
        code(f"lesson.reraise({pitfall_name})", raises=True)
    md(f"### {_md(fix.title.get(lang))}", _md(fix.summary.get(lang)))
    fix_name = names.take(fix.id, against=pitfall.id)
    code(_run_source(instance, face, fix.id, fix_name, lang, fold=True))
    code(f"verdict = lesson.verdict({pitfall_name}, {fix_name})")


def _scripts(md: Any, code: Any, scenario: type[Scenario], lesson: ScriptLesson, lang: str) -> None:
    """What the chef's scripts show (the scenario's :class:`ScriptLesson`, as the app's answer
    shows it), and a cell that makes the cards it names and shows their scripts."""
    parts = [f"## {_say('scripts', lang)}", _md(lesson.text.get(lang))]
    if lesson.compare:
        refs = _say("and", lang).join(_ref_words(scenario, ref, lang) for ref in lesson.compare)
        button = "compare_button" if len(lesson.compare) > 1 else "read_button"
        parts.append(_say("scripts_cell", lang, calls=refs, button=_say(button, lang)))
    md(*parts)
    if lesson.compare:
        code("lesson_scripts = lesson.scripts()")


def _ref_words(scenario: type[Scenario], ref: CardRef, lang: str, markdown: bool = True) -> str:
    """A card a :class:`ScriptLesson` names: its variant's title, the values, its number
    (``markdown``: the values as code, the title escaped)."""
    title = next((v.title.get(lang) for v in scenario.variants if v.id == ref.variant), ref.variant)
    values = values_text(scenario.params, dict(ref.params), lang)
    if markdown:
        title, values = _md(title), _md(values)
    key = "ref_values" if values else "ref"
    text = _say(key, lang, variant=f"“{title}”", values=values)
    if ref.number is not None:
        text += " " + _say("ref_card", lang, n=ref.number)
    return text


def _exercise(md: Any, code: Any, exercise: Any, lang: str) -> None:
    parts = [f"### {_md(exercise.title.get(lang))}", _md(exercise.question.get(lang))]
    if exercise.claim is not None:
        parts.insert(1, f"*{_say('claim', lang)}*{_colon(lang)}{_md(exercise.claim.get(lang))}")
    if exercise.options:
        letters = "abcdefghijklmnopqrstuvwxyz"
        parts.append(
            f"{_say('options', lang)}{_colon(lang)}\n\n"
            + "\n".join(
                f"- **{letters[i]}** · `{o.id}` — {_md(o.label.get(lang))}"
                for i, o in enumerate(exercise.options)
            )
        )
    kind = str(exercise.kind)
    if kind == "number":
        parts.append(_say("number", lang))
    elif kind == "error":
        parts.append(_say("error_kind", lang))
    md(*parts)
    code(exercise.source_in(lang))
    name = exercise.snippet.__name__
    code(
        f'answer = lesson.exercise("{exercise.id}", {name}, prediction=None)'
        f"  # {_say('your_guess', lang)}"
    )


def _setup_source(scenario: type[Scenario], lang: str) -> str:
    module = scenario.__module__
    return "\n".join(
        [
            "from jitlab.probe.devices import simulate_cpu_devices",
            "",
            f"simulate_cpu_devices(8)  # {_say('devices', lang)}",
            "%load_ext jitlab",
            "from jitlab.notebook.lesson import open_lesson",
            "",
            f'lesson = open_lesson("{scenario.id}", lang="{lang}")  # {_say("found", lang)}',
            f"from {module} import *  # {_say('names', lang)}",
        ]
    )


def _graded_words(scenario: type[Scenario], lang: str) -> str:
    """How the prediction is graded (on the question's own calls), where it is a count."""
    answer = getattr(scenario, "question_run", None)
    if answer is None:
        return ""
    calls = ", ".join(_call_words(call, scenario.params, lang) for call in answer.calls)
    return _say("graded", lang, calls=calls)


def _run_source(
    instance: Scenario,
    comparison: Comparison,
    variant: str,
    name: str,
    lang: str,
    fold: bool = False,
) -> str:
    """A variant's cell: ``%%jitlab``, the variant's code as the app shows it, the run (on
    ``comparison``'s calls: named when it is not the first that holds the variant)."""
    source = instance.source(variant, lang).rstrip("\n")
    face = ""
    if type(instance).comparison(variant) != comparison:
        face = f', face="{comparison.pitfall}"'
    run = f'{name} = lesson.run("{variant}", globals(){face})'
    magic = "%%jitlab --lang zh" if lang == "zh" else "%%jitlab"
    if fold:  # another face of the pitfall: reference, its report folded
        magic += " --fold"
    return f"{magic}\n" + (f"{source}\n\n\n{run}" if source else run)


def variable_name(variant: str) -> str:
    """The variable holding a variant's run (``last-batch-raw`` → ``last_batch_raw``)."""
    name = re.sub(r"\W", "_", variant)
    return name if name.isidentifier() and not name[0].isdigit() else f"run_{name}"


def _call_words(call: Mapping[str, Any], params: Iterable[Param], lang: str) -> str:
    """One call's values as the app's controls name them (never the parameters' ids)."""
    return "(" + values_text(params, call, lang) + ")"


_MD_SPECIAL = re.compile(r"([\\*_\[\]<>#|~])")


def _md(text: str) -> str:
    """Spec text as Markdown: backtick spans stay code, the rest is plain text (no markup
    sneaks in from a lesson's words: ``*``, ``_``, ``<`` are escaped)."""
    parts = re.split(r"(`[^`]*`)", text)
    return "".join(
        p if p.startswith("`") and p.endswith("`") and len(p) > 1 else _escape(p) for p in parts
    )


def _escape(text: str) -> str:
    return _MD_SPECIAL.sub(r"\\\1", text.replace("&", "&amp;"))


def is_lesson_notebook(data: Any) -> bool:
    """Whether parsed JSON ``data`` is a notebook written by :func:`build`."""
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        return False
    metadata = data.get("metadata")
    return isinstance(metadata, dict) and isinstance(metadata.get(METADATA_KEY), dict)


# -- in the kernel: the notebook's cells call these ----------------------------------------------
def open_lesson(scenario_id: str, lang: str = "en") -> NotebookLesson:
    """The scenario ``scenario_id`` as discovery finds it (a KeyError naming the ids if none)."""
    from jitlab.lab.discovery import scenarios

    found = scenarios()
    if scenario_id not in found:
        raise KeyError(f"no scenario {scenario_id!r}; choose from {', '.join(sorted(found))}")
    return NotebookLesson(found[scenario_id], lang)


@dataclasses.dataclass(frozen=True)
class LessonRun:
    """One variant's run on the lesson's calls: its records, as the app holds them."""

    variant: str
    records: tuple[CallRecord, ...]
    lang: str = "en"
    shown: tuple[str, ...] = ()  # the parameters the lesson's calls set (the rest: defaults)
    comparison: Comparison | None = None  # whose calls these are
    params: tuple[Param, ...] = ()  # the scenario's: the calls' values said by their labels
    # the definitions its cell ran with (for the question's own run)
    code: Mapping[str, Any] = dataclasses.field(default_factory=dict, repr=False, compare=False)

    @property
    def first_error(self) -> CallRecord | None:
        return next((r for r in self.records if r.error is not None), None)

    def lines(self) -> list[str]:
        from jitlab.lab.exercise import kind_text

        out = []
        for r in self.records:
            values = r.params or {}
            shown = {k: values[k] for k in self.shown if k in values}
            params = values_text(self.params, shown, self.lang)
            line = _say("call_line", self.lang, n=r.index, params=params)
            line += kind_text(r.kind.value).get(self.lang)
            if r.error is not None:
                first = r.error.message.splitlines()[0] if r.error.message else ""
                line += f" — {r.error.type}: {first}"
            out.append(line)
        return out

    def __repr__(self) -> str:
        return f"<{self.variant}: {len(self.records)} calls>"

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text("\n".join([f"{self.variant}:", *self.lines()]))


class NotebookLesson:
    """A scenario's lesson, driven from a notebook's cells (imports JAX on first use)."""

    def __init__(self, scenario: type[Scenario], lang: str = "en") -> None:
        self.scenario = scenario
        self.lang = "zh" if lang.startswith("zh") else "en"
        self.module = sys.modules[scenario.__module__]

    def __repr__(self) -> str:
        return f"<lesson {self.scenario.id}: {self.scenario.title.get(self.lang)}>"

    def run(
        self, variant: str, code: Mapping[str, Any] | None = None, face: str | None = None
    ) -> LessonRun:
        """``variant`` on the calls of its comparison (the one whose pitfall is ``face``
        where given), with the functions ``code`` (a cell's globals) defines in place of the
        module's own; then shown call by call."""
        from jitlab.lab.engine import Run

        comparison = self.scenario.comparison(face or variant)
        if variant not in comparison.variants:
            raise ValueError(f"{variant!r} is not compared in the lesson of {face!r}")
        with self._installed(variant, code or {}):
            run = Run(self.scenario, variant)
            records = tuple(run.step(dict(call)) for call in comparison.calls or ({},))
        shown = tuple(dict.fromkeys(k for call in comparison.calls for k in call))
        result = LessonRun(
            variant, records, self.lang, shown, comparison, self.scenario.params, dict(code or {})
        )
        print("\n".join(result.lines()))
        return result

    def reraise(self, run: LessonRun) -> None:
        """Raise the first failing call's exception, as JAX raised it (the lesson's error)."""
        record = run.first_error
        if record is None or record.error is None:
            print(_say("no_error", self.lang))
            return
        if record.error.exception is not None:
            raise record.error.exception
        raise RuntimeError(f"{record.error.type}: {record.error.message}")

    def verdict(self, pitfall: LessonRun, fix: LessonRun, prediction: str | None = None) -> Verdict:
        """The lesson's verdict on two runs: :func:`jitlab.lab.verdict.judge`, the app's."""
        from jitlab.lab.verdict import judge, matches

        comparison = pitfall.comparison or self.scenario.comparison(pitfall.variant)
        verdict = judge(comparison, list(pitfall.records), list(fix.records))
        lang = self.lang
        lines = []
        data: dict[str, Any] = {"verdict": _json(verdict.to_json(lang))}
        if prediction is not None:
            said = str(prediction).strip()
            lines.append(_say("said", lang, text=said) if said else _say("no_prediction", lang))
            graded = self.question(said, pitfall, fix)
            if graded is None:
                lines.append(_say("not_a_count", lang))
            else:
                data["prediction"] = graded.to_json(lang)
                lines += [graded.sentence.get(lang), *(a.get(lang) for a in graded.answers)]
                lines.append(_say("second", lang))
        lines.append(verdict.text(lang))
        if comparison.measure.value == "compiles":  # which calls, by the numbers shown above
            for side, run in (("pitfall", pitfall), ("fix", fix)):
                at = [f"#{r.index}" for r in run.records if r.kind.compiled]
                if at:
                    joined = "、".join(at) if lang == "zh" else ", ".join(at)
                    lines.append(_say(f"{side}_at", lang, calls=joined))
        if verdict.note is not None and all(
            matches(comparison, list(r.records)) for r in (pitfall, fix)
        ):
            lines.append(verdict.note.get(lang))
        if verdict.pitfall.errors or verdict.fix.errors:
            lines.append(_say("failed_note", lang))
        else:
            lines.append(verdict.timing.sentence.get(lang))
        _show("\n".join(lines), data, paragraphs=True)
        return verdict

    def question(self, said: str, *runs: LessonRun) -> Graded | None:
        """The prediction ``said`` graded on the question's own calls (the scenario's
        ``question_run``), run for that purpose in a fresh run of its variant, with the code
        of whichever of ``runs`` ran that variant from its cell; None where the question is
        not a count (the app's Complete page grades the same way)."""
        from jitlab.lab.engine import Run
        from jitlab.lab.verdict import grade
        from jitlab.records.text import prediction_number

        answer = getattr(self.scenario, "question_run", None)
        if answer is None:
            return None
        code = next((r.code for r in runs if r.variant == answer.variant), {})
        with self._installed(answer.variant, code):
            run = Run(self.scenario, answer.variant)
            records = [run.step(dict(call)) for call in answer.calls]
        title = next(v.title for v in self.scenario.variants if v.id == answer.variant)
        said_n = prediction_number(said) if said else None
        return grade(answer, records, said_n, title, self.scenario.params)

    def scripts(self, max_calls: int = 8) -> list[Any]:
        """The scripts of the cards the scenario's :class:`ScriptLesson` names: each made by
        a fresh run of its variant, called with the card's values until it compiles that card
        (at most ``max_calls`` calls), then shown; of two, how they differ. The scripts (a
        :class:`~jitlab.records.scripts.Script`, or None where no card was made)."""
        from jitlab.lab.engine import Run
        from jitlab.notebook.render import uncoloured
        from jitlab.records.scripts import compare

        lesson: ScriptLesson | None = getattr(self.scenario, "scripts", None)
        lang = self.lang
        made: list[Any] = []
        shown = []
        for ref in lesson.compare if lesson is not None else ():
            words = _ref_words(self.scenario, ref, lang, markdown=False)
            run, script, cards = Run(self.scenario, ref.variant), None, 0
            for _ in range(max_calls):
                record = run.step(dict(ref.params))
                if not record.kind.compiled or record.card is None or run.last_probe is None:
                    continue
                cards += 1
                if ref.number is None or cards == ref.number:
                    script = run.last_probe.script(record.card)
                    break
            made.append(script)
            if script is None:
                _show(_say("no_script", lang, ref=words, n=max_calls), {"script": None})
                continue
            title = _say(
                "script_of", lang, card=script.card + 1, function=script.function, ref=words
            )
            shown.append(
                {"variant": ref.variant, "card": script.card, "signature": str(script.signature)}
            )
            _show(title, {"script": shown[-1]})
            _display_script(script, lang)
        if len(made) == 2 and all(s is not None for s in made):
            diff = compare(made[0], made[1])
            if diff.jaxpr_diff:  # without the colours JAX prints a jaxpr with in a kernel
                text = _say("jaxpr_diff", lang) + "\n" + uncoloured(diff.jaxpr_diff)
            elif diff.stablehlo_diff:
                text = _say("same_jaxpr", lang) + "\n" + uncoloured(diff.stablehlo_diff)
            else:
                text = _say("same_programs", lang)
            same = {"same_jaxpr": diff.same_jaxpr, "same_stablehlo": diff.same_stablehlo}
            _show(text, {"scripts_diff": same})
        return made

    def exercise(self, exercise_id: str, snippet: Any, prediction: Any = None) -> Any:
        """Run one of the scenario's exercises with ``snippet`` (the cell's definition),
        read the answer off the run, and say how the prediction fares."""
        from jitlab.lab.exercise import Exercise

        declared = {e.id: e for e in self.scenario.exercises if isinstance(e, Exercise)}
        exercise = declared[exercise_id]
        if isinstance(snippet, types.FunctionType):
            exercise = dataclasses.replace(exercise, snippet=self._rebuilt(snippet))
        result = exercise.check(prediction)
        lang = self.lang
        outcome = result.outcome
        lines = []
        value: Any = None
        if outcome.answer is not None:
            value = outcome.answer.value
            lines.append(_say("answer", lang, value=value))
            lines.append(outcome.answer.detail.get(lang))
            if result.prediction is not None:
                key = "right" if result.exact else "close" if result.correct else "wrong"
                lines.append(_say(key, lang, said=result.prediction))
        elif outcome.skipped is not None:
            lines.append(_say("skipped", lang, why=outcome.skipped.get(lang)))
        else:
            lines.append(_say("broke", lang, why=outcome.failure))
        lines.append(exercise.explanation.get(lang))
        _show(
            "\n".join(lines),
            {"exercise": {"id": exercise_id, "answer": _json(value)}},
            paragraphs=True,
        )
        return result

    # -- the cell's code in the scenario's module ---------------------------------------
    def _rebuilt(self, fn: types.FunctionType) -> types.FunctionType:
        """``fn``'s code (what its cell compiled) on the scenario module's globals."""
        new = types.FunctionType(
            fn.__code__, vars(self.module), fn.__name__, fn.__defaults__, fn.__closure__
        )
        new.__kwdefaults__ = fn.__kwdefaults__
        new.__doc__ = fn.__doc__
        new.__qualname__ = fn.__qualname__
        new.__module__ = self.module.__name__
        new.__dict__.update(fn.__dict__)
        return new

    @contextmanager
    def _installed(self, variant: str, code: Mapping[str, Any]) -> Iterator[None]:
        """The cell's definitions of the variant's functions in the module, for one run."""
        names = [getattr(obj, "__name__", "") for obj in self.scenario().code_objects(variant)]
        saved: dict[str, Any] = {}
        for name in names:
            fn = code.get(name)
            own = getattr(self.module, name, None)
            if not isinstance(fn, types.FunctionType) or fn is own or name in saved:
                continue
            saved[name] = own
            setattr(self.module, name, self._rebuilt(fn))
        try:
            yield
        finally:
            for name, own in saved.items():
                setattr(self.module, name, own)


def _display_script(script: Any, lang: str) -> None:
    """A script in the lesson's language (the rich display registered for every Script
    speaks English: it cannot know the lesson's): its HTML, or its text outside IPython."""
    from jitlab.notebook.render import script_html, script_text

    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:
        get_ipython = None
    if get_ipython is None or get_ipython() is None:
        print(script_text(script, lang))
        return
    bundle = {"text/html": script_html(script, lang), "text/plain": script_text(script, lang)}
    display(bundle, raw=True)


def _json(value: Any) -> Any:
    from jitlab.records.calls import jsonable

    return jsonable(value)


def _show(text: str, data: Mapping[str, Any], paragraphs: bool = False) -> None:
    """Text for the reader, and the same result as JSON under ``application/json`` (so a
    test, or a tool, reads the measurement without parsing words)."""
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:
        get_ipython = None
    if get_ipython is None or get_ipython() is None:  # outside IPython: the words are enough
        print(text)
        return
    shown: dict[str, Any] = {"text/plain": text, "application/json": {METADATA_KEY: dict(data)}}
    if paragraphs:
        from jitlab.notebook.render import framed
        from jitlab.report.html import esc

        # Paragraphs a notebook wraps between words (its plain-text output breaks lines
        # anywhere, mid-word included); the first line, the finding, in bold.
        lines = [line for line in text.splitlines() if line.strip()]
        body = "".join(
            f"<p><strong>{esc(line)}</strong></p>" if i == 0 else f"<p>{esc(line)}</p>"
            for i, line in enumerate(lines)
        )
        lang = "zh" if re.search(r"[\u4e00-\u9fff]", text) else "en"
        shown["text/html"] = framed(body, lang)
    display(shown, raw=True)
