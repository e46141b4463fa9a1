"""The words of jitlab's text faces — the ``jitlab`` command and the HTML report — in English
and Chinese, in one catalogue.

Longer than 500 lines on purpose: it is one table of messages, each entry its English and
Chinese side by side; split across modules, a translator would lose the one place to read.

Each entry is a template in both languages (``str.format`` fields); English entries that
count something carry a plural form, chosen by the field ``n``. Chinese has no plural and
uses full-width punctuation (，。：（）); code identifiers, units and JAX's own words stay as
they are. The GUI has its own catalogue (Qt's ``.ts``); lesson texts are ``Text(en, zh)``.

A dict rather than gettext: both languages sit side by side where they are written, there is
no compile step for the package, and a test can read every English template to check that
none is left in Chinese output (:func:`english_fragments`). JAX-free, imports nothing of
jitlab: the CLI and the report (a JAX-free module) both read it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

LANGUAGES = ("en", "zh")


def language_of(value: str | None) -> str:
    """``zh`` for any Chinese (``zh``, ``zh_CN``…), else ``en`` (also when not given)."""
    return "zh" if value and value.lower().startswith("zh") else "en"


@dataclass(frozen=True)
class Message:
    en: str
    zh: str
    en_plural: str | None = None  # English when the field ``n`` is not 1

    def template(self, lang: str, n: Any = None) -> str:
        if lang == "zh":
            return self.zh
        if self.en_plural is not None and n != 1:
            return self.en_plural
        return self.en


def say(key: str, lang: str, /, **fields: Any) -> str:
    """The entry ``key`` in ``lang`` with ``fields`` filled in (``n`` picks the plural)."""
    return CATALOGUE[key].template(language_of(lang), fields.get("n")).format(**fields)


def reword(text: str, lang: str, prefix: str) -> str:
    """``text``, an English entry under ``prefix`` as it was filled in (a note kept in a
    recording, say), in ``lang``; the fields keep their values. Text that no entry matches
    is returned as it is (an older jitlab's words, or JAX's own)."""
    if language_of(lang) == "en":
        return text
    for key, message in CATALOGUE.items():
        if not key.startswith(prefix):
            continue
        for template in (message.en, message.en_plural):
            if template is None:
                continue
            pieces = re.split(r"\{(\w+)\}", template)
            pattern = "".join(
                re.escape(p) if i % 2 == 0 else f"(?P<{p}>.*?)" for i, p in enumerate(pieces)
            )
            found = re.fullmatch(pattern, text, re.DOTALL)
            if found is not None:  # a field that is itself an entry is said in lang too
                fields = {k: reword(v, lang, prefix) for k, v in found.groupdict().items()}
                return message.zh.format(**fields)
    return text


def listing(items: Iterable[object], lang: str) -> str:
    """Items joined as a list reads in ``lang``: ``a, b`` or ``a、b``."""
    return ("、" if language_of(lang) == "zh" else ", ").join(str(i) for i in items)


def english_fragments(min_letters: int = 4) -> set[str]:
    """The English words of every entry that no Chinese entry uses: what must never show in
    Chinese output (a checker for tests). Fragments are the template text between fields,
    kept when they hold a word of at least ``min_letters`` letters."""
    fields = r"\{[^}]*\}|<[^>]*>|`[^`]*`"
    chinese = " ".join(re.sub(fields, " ", m.zh) for m in CATALOGUE.values())
    found = set()
    for message in CATALOGUE.values():
        for template in (message.en, message.en_plural or ""):
            for piece in re.split(fields, template):
                piece = piece.strip(" .,:;()[]·—–-→←/…'\"#%+\n")
                words = re.findall(f"[A-Za-z]{{{min_letters},}}", piece)
                if words and piece not in chinese:
                    found.add(piece)
    return found


_KINDS = {
    # kind value: (English name, Chinese name) — the GUI's words for the same kinds
    "compile": ("first compile", "首次编译"),
    "recompile": ("recompile", "重编译"),
    "cache_hit": ("cache hit", "缓存命中"),
    "persistent_hit": ("persistent-cache hit", "持久缓存命中"),
    "error": ("error", "错误"),
    "eager": ("eager (jit disabled)", "即时执行（jit 已关闭）"),
    "traced": ("traced into an outer computation", "被并入外层计算追踪"),
}

_M = Message
CATALOGUE: dict[str, Message] = {
    **{f"kind.{k}": _M(en, zh) for k, (en, zh) in _KINDS.items()},
    # -- counts (plurals) ---------------------------------------------------------------
    "n.calls": _M("{n} call", "{n} 次调用", "{n} calls"),
    "n.compiles": _M("{n} compile", "{n} 次编译", "{n} compiles"),
    # a run's first compiles: "compile" in English, as the table's kind says it
    "n.first_compiles": _M("{n} compile", "{n} 次首次编译", "{n} compiles"),
    "n.recompiles": _M("{n} recompile", "{n} 次重编译", "{n} recompiles"),
    "n.cache_hits": _M("{n} cache hit", "{n} 次缓存命中", "{n} cache hits"),
    "n.persistent_hits": _M(
        "{n} persistent-cache hit", "{n} 次持久缓存命中", "{n} persistent-cache hits"
    ),
    "n.errors": _M("{n} error", "{n} 次错误", "{n} errors"),
    "n.programs": _M("{n} program", "{n} 个程序", "{n} programs"),
    "n.processes": _M("{n} process", "{n} 个进程", "{n} processes"),
    "n.functions_more": _M(
        "{n} more function is in the overview table only.",
        "另有 {n} 个函数只列在总览表里。",
        "{n} more functions are in the overview table only.",
    ),
    "n.times": _M("once", "{n} 次", "{n} times"),
    "n.more": _M("… {n} more", "……另有 {n} 项", "… {n} more"),
    "n.divergences": _M("{n} divergence", "{n} 处分歧", "{n} divergences"),
    "n.scripts": _M("{n} script", "{n} 份脚本", "{n} scripts"),
    "n.compile_lines": _M("{n} compile line", "{n} 行编译记录", "{n} compile lines"),
    "n.long_lines": _M(" ({n} longer than {mib} MiB)", "（其中 {n} 行超过 {mib} MiB，未读取）"),
    "n.skipped_lines": _M(
        "{n} unreadable line skipped", "跳过了 {n} 行无法读取的记录", "{n} unreadable lines skipped"
    ),
    # -- column heads shared by the CLI's tables ----------------------------------------
    "col.function": _M("function", "函数"),
    "col.compiles": _M("compiles", "编译次数"),
    "col.recompiles": _M("recompiles", "重编译"),
    "col.hits": _M("hits", "命中"),
    "col.ms_compiling": _M("ms compiling", "编译耗时 ms"),
    "col.signatures": _M("signatures", "签名数"),
    "col.what_differed": _M("what differed", "哪里不同"),
    "col.process": _M("process", "进程"),
    "col.scenario": _M("scenario", "场景"),
    "col.pitfall": _M("pitfall", "陷阱"),
    "col.variants": _M("variants", "变体"),
    "col.parameters": _M("parameters", "参数"),
    "col.params": _M("params", "参数"),
    "col.kind": _M("kind", "类型"),
    "col.latency_ms": _M("latency ms", "延迟 ms"),
    "col.trace": _M("trace", "追踪"),
    "col.lower": _M("lower", "降级"),
    "col.compile": _M("compile", "编译"),
    "col.why_output": _M("why / output", "原因 / 输出"),
    "col.signatures_changed": _M("signatures added / gone", "新增 / 消失的签名"),
    "col.exercise": _M("exercise", "练习"),
    "col.title": _M("title", "标题"),
    # -- jitlab list --------------------------------------------------------------------
    "list.title": _M("jitlab scenarios", "jitlab 场景"),
    "list.broken": _M("broken", "已损坏"),
    "list.param": _M("{name}={default} ({allowed})", "{name}={default}（{allowed}）"),
    # -- jitlab run ---------------------------------------------------------------------
    "run.defaults": _M("defaults", "默认值"),
    "run.interrupted": _M(
        "interrupted (Ctrl-C): the calls made so far", "已中断（Ctrl-C）：以下是已完成的调用"
    ),
    "run.stopping": _M(
        "jitlab: stopping after this call (Ctrl-C again to stop now)",
        "jitlab：这次调用结束后停止（再按一次 Ctrl-C 立即停止）",
    ),
    # {compiles}: every program compiled (first or again), the one meaning of "compiles";
    # {recompiles}: how many of those were recompiles
    "run.summary": _M(
        "{calls}: {compiles} ({recompiles}), {hits}, {persistent}, {errors} · hit rate "
        "{rate} · time lost to compiling {ms} ms",
        "{calls}：{compiles}（其中 {recompiles}），{hits}，{persistent}，{errors} · 命中率 {rate}"
        " · 编译耗费 {ms} ms",
    ),
    "run.script_call": _M(
        "# call {index} ({params}): {kind}", "# 调用 #{index}（{params}）：{kind}"
    ),
    "run.script_card": _M(", card {card}", "，卡片 {card}"),
    "run.script_head": _M(
        "## {part} of {function} card {card}: {signature}",
        "## {function} 卡片 {card} 的 {part}：{signature}",
    ),
    "run.script_note": _M("## note: {note}", "## 注：{note}"),
    # -- jitlab watch (its end-of-run summary) ------------------------------------------
    "watch.title": _M("jitlab watch · {path}", "jitlab watch · {path}"),
    "watch.eager_op": _M("eager op (JAX's own kernel)", "即时算子（JAX 自己的内核）"),
    "watch.recording": _M("recording: {path} ({lines}{rest})", "记录文件：{path}（{lines}{rest}）"),
    "watch.stream": _M(
        "recording: {name} (a stream: {n} call line)",
        "记录文件：{name}（流式写入：{n} 行编译记录）",
        "recording: {name} (a stream: {n} call lines)",
    ),
    # English says "process(es)" as it always has (tests and users grep for it)
    "watch.forks_not_recorded": _M(
        "jitlab watch: {n} forked child process(es) not recorded "
        "(the recording goes to a device or a pipe, which only this process writes)",
        "jitlab watch：{n} 个 fork 出的子进程没有被记录（记录写往设备或管道，只有本进程能写）",
    ),
    "watch.children": _M(
        "jitlab watch: forked child processes recorded their own files: {names}",
        "jitlab watch：fork 出的子进程各自写了自己的记录文件：{names}",
    ),
    "watch.not_watched": _M(
        "jitlab watch: processes started with spawn or forkserver are not watched "
        "(their compiles are not in any recording)",
        "jitlab watch：以 spawn 或 forkserver 启动的进程不受监视（它们的编译不在任何记录里）",
    ),
    "watch.no_summary": _M(
        "jitlab watch: no summary ({error})", "jitlab watch：无法给出摘要（{error}）"
    ),
    # -- a recording that could not be written to its end (the program goes on) ----------
    "watch.recording_stopped": _M(
        "jitlab: recording stopped: {why} at call {n}; the recording holds calls {held} ({path})",
        "jitlab：记录已停止：第 {n} 次调用时{why}；记录文件保留了第 {held} 次调用（{path}）",
    ),
    "watch.recording_stopped_none": _M(
        "jitlab: recording stopped: {why} at call {n}; the recording holds no calls ({path})",
        "jitlab：记录已停止：第 {n} 次调用时{why}；记录文件中没有调用（{path}）",
    ),
    "watch.stop.disk_full": _M("disk full", "磁盘已满"),
    "watch.stop.too_large": _M("file size limit reached", "文件大小已达上限"),
    "watch.stop.closed": _M("the program closed the recording's file", "程序关闭了记录文件"),
    "watch.gone": _M(
        "recording: {name} was deleted while the program ran ({n} call line written to it)",
        "记录文件：{name} 在程序运行期间被删除（曾写入 {n} 行编译记录）",
        "recording: {name} was deleted while the program ran ({n} call lines written to it)",
    ),
    # -- jitlab watch: what it refuses to run -------------------------------------------
    "watch.no_program": _M(
        "watch needs a program, e.g. `jitlab watch -- python train.py ARGS`",
        "watch 需要一个程序，例如 `jitlab watch -- python train.py ARGS`",
    ),
    "watch.option_runs_nothing": _M(
        "watch: python's option {option} runs no program; give a script",
        "watch：python 的选项 {option} 不运行任何程序；请给出一个脚本",
    ),
    "watch.needs_value": _M("watch: {option} needs a value", "watch：{option} 需要一个值"),
    "watch.needs_module": _M(
        "watch: {option} needs a module name", "watch：{option} 需要一个模块名"
    ),
    "watch.needs_command": _M("watch: {option} needs a command", "watch：{option} 需要一条命令"),
    "watch.cannot_honour": _M(
        "watch cannot honour python's {option}; run without it",
        "watch 不支持 python 的 {option}；请去掉它再运行",
    ),
    "watch.opt.i": _M(
        "-i (an interactive prompt after the program)", "-i（程序结束后进入交互式提示符）"
    ),
    "watch.opt.S": _M(
        "-S (no site: jitlab itself is installed there)", "-S（不导入 site：jitlab 本身就装在那里）"
    ),
    "watch.opt.x": _M("-x (skip the first line of the source)", "-x（跳过源代码的第一行）"),
    "watch.opt.h": _M("-h (python's help)", "-h（python 的帮助）"),
    "watch.opt.V": _M("-V (python's version)", "-V（python 的版本）"),
    "watch.opt.?": _M("-? (python's help)", "-?（python 的帮助）"),
    "watch.unknown_option": _M(
        "watch: unknown python option {option}", "watch：未知的 python 选项 {option}"
    ),
    "watch.stdin": _M(
        "watch cannot run a program read from standard input; save it to a file",
        "watch 无法运行从标准输入读入的程序；请先把它存成文件",
    ),
    "watch.no_main": _M(
        "watch: can't find '__main__' module in {target}",
        "watch：在 {target} 中找不到 '__main__' 模块",
    ),
    "watch.no_script": _M("watch: no such script: {target}", "watch：没有这个脚本：{target}"),
    "watch.cannot_start": _M(
        "watch: cannot start {python}: {error}", "watch：无法启动 {python}：{error}"
    ),
    # -- where a command may write (jitlab.records.outputs, jitlab.cli._output) --------------
    "output.refused": _M("{command}: {why}", "{command}：{why}"),
    "output.cannot_write": _M(
        "{command}: cannot write {path}: {error}", "{command}：无法写入 {path}：{error}"
    ),
    "output.cannot_use": _M("cannot use {path}: {error}", "无法使用 {path}：{error}"),
    "output.folder": _M(
        "{path} is a folder; name a file in it", "{path} 是文件夹；请给出其中的一个文件名"
    ),
    "output.input": _M(
        "{path} is an input of this command; name another file to write",
        "{path} 是这条命令的输入；请另给一个要写入的文件名",
    ),
    "output.not_ours": _M(
        "{path} exists and is not {what}; refusing to write over it (name a new file)",
        "{path} 已存在，且不是 {what}；拒绝覆盖它（请给一个新文件名）",
    ),
    "output.recording": _M("a recording of `jitlab watch`", "`jitlab watch` 的记录"),
    "output.report": _M("a page of `jitlab report`", "`jitlab report` 的页面"),
    # -- notes of a compile's script (jitlab.probe.scripts), shown by `jitlab run --script` --
    "script.loop": _M(
        "XLA's cost analysis counts the body of a loop once, not once per iteration",
        "XLA 的成本分析把循环体只算一次，而不是每次迭代各算一次",
    ),
    "script.retraced": _M(
        "JAX no longer held this program: it traced the function again for this script "
        "(its Python ran again; what it printed is in stdout)",
        "JAX 已不再保存这个程序：为了这份脚本它又追踪了一次函数"
        "（函数的 Python 代码又运行了一次；它打印的内容在 stdout 里）",
    ),
    "script.context": _M(
        "made under another trace context than the compile ({names}): "
        "the program may differ from the one the call ran",
        "生成时的追踪上下文与编译时不同（{names}）：程序可能与那次调用运行的程序不同",
    ),
    "script.context_any": _M("JAX's trace context", "JAX 的追踪上下文"),
    "script.no_cost": _M("no cost analysis: {error}", "没有成本分析：{error}"),
    "script.no_memory": _M("no memory analysis: {error}", "没有内存分析：{error}"),
    "script.stand_ins": _M(
        "made with zero-filled stand-ins of the array arguments ({size} bytes): "
        "equinox.filter_jit traces arrays only",
        "用全零的数组参数替身生成（{size} 字节）：equinox.filter_jit 只追踪数组",
    ),
    "sep": _M(", ", "，"),
    "sep.semi": _M("; ", "；"),
    # -- jitlab diff ----------------------------------------------------------------------
    "diff.title": _M("jitlab diff · {base} → {new}", "jitlab diff · {base} → {new}"),
    "diff.more": _M("more", "更多"),
    "diff.new": _M("new", "新增"),
    "diff.fewer": _M("fewer", "更少"),
    "diff.gone": _M("gone", "消失"),
    "diff.same": _M("same", "相同"),
    "diff.totals": _M(
        "compiles {base} → {new}, ms compiling {base_ms} → {new_ms}",
        "编译次数 {base} → {new}，编译耗时 {base_ms} → {new_ms} ms",
    ),
    "diff.regression": _M("regression", "退化"),
    "diff.ok": _M("ok", "通过"),
    "diff.base": _M("base", "基准"),
    "diff.new_run": _M("new", "新记录"),
    "diff.extra_compiles": _M(
        "{n} more compile than the base run ({new} vs {base}; allowed {allowed}): {worse}",
        "比基准多编译 {n} 次（{new} 对 {base}；允许 {allowed}）：{worse}",
        "{n} more compiles than the base run ({new} vs {base}; allowed {allowed}): {worse}",
    ),
    "diff.extra_ms": _M(
        "{ms} ms more compiling than the base run ({new} vs {base} ms; allowed {allowed} ms)",
        "比基准多花 {ms} ms 编译（{new} 对 {base} ms；允许 {allowed} ms）",
    ),
    "diff.bad_count": _M(
        "expected a whole number ≥ 0, got {text}", "应为 ≥ 0 的整数，而不是 {text}"
    ),
    "diff.bad_ms": _M("expected milliseconds, got {text}", "应为毫秒数，而不是 {text}"),
    "diff.bad_finite": _M(
        "expected a finite number ≥ 0, got {text}", "应为 ≥ 0 的有限数，而不是 {text}"
    ),
    # -- jitlab summary -------------------------------------------------------------------
    "summary.title": _M("jitlab summary · {processes}", "jitlab summary · {processes}"),
    "summary.process_skipped": _M("process {index}: {skipped}", "进程 {index}：{skipped}"),
    "summary.same_process": _M(
        "summary: two recordings are of the same process: {processes}",
        "summary：两份记录属于同一个进程：{processes}",
    ),
    "summary.failed": _M("summary: {error}", "summary：{error}"),
    "summary.same": _M("every process compiled the same programs", "每个进程编译的程序都相同"),
    "summary.no_end": _M(
        "process {index}: the recording has no end line: the program was killed or ended "
        "with os._exit (or it is still running); its counts are those written before",
        "进程 {index}：记录没有结束行：程序被终止或以 os._exit 退出（或仍在运行）；"
        "计数为此前写入的部分",
    ),
    "div.signature": _M(
        "{who} compiled {function} for {signature}; {others} did not",
        "{who} 为 {signature} 编译了 {function}，{others} 没有",
    ),
    "div.fields": _M(" (differs in {fields})", "（不同之处：{fields}）"),
    "div.counts": _M(
        "{function} compiled a different number of programs ({counts})",
        "各进程为 {function} 编译的程序数不同（{counts}）",
    ),
    "div.first": _M("; first: {first}", "；最早：{first}"),
    "div.process": _M("process {names}", "进程 {names}", "processes {names}"),
    "div.count": _M("process {process}: {n}", "进程 {process}：{n}"),
    "first.call": _M(
        "process {process}'s compile #{number}{where}{when}",
        "进程 {process} 的第 {number} 次编译{where}{when}",
    ),
    "first.where": _M(" at {where}", "，位于 {where}"),
    "first.when": _M(", t={t} s", "，t={t} s"),
    # -- jitlab quiz ----------------------------------------------------------------------
    "quiz.exercise": _M("Exercise", "练习"),
    "quiz.claim": _M("Claim", "说法"),
    "quiz.prompt_number": _M("Your prediction (a whole number)", "你的预测（一个整数）"),
    "quiz.prompt_choice": _M("Your prediction (a letter)", "你的预测（一个字母）"),
    "quiz.prompt_error": _M(
        "Your prediction (an exception name, a letter, or none)", "你的预测（异常名、字母或 none）"
    ),
    "quiz.right": _M("✓ Right.", "✓ 答对了。"),
    "quiz.close": _M("✓ Right — precisely, it is {value}.", "✓ 答对了——确切地说是 {value}。"),
    "quiz.wrong": _M("✗ Not this time.", "✗ 这次没猜中。"),
    "quiz.late": _M("⏱ Too late: not scored", "⏱ 超时：不计分"),
    "quiz.late_after": _M("⏱ Too late: not scored ({s} s).", "⏱ 超时：不计分（{s} 秒）。"),
    "quiz.run_says": _M("The run says: {value}", "实际运行结果：{value}"),
    "quiz.skipped": _M("Skipped: {why}", "已跳过：{why}"),
    "quiz.broken": _M("The run broke: {why}", "运行出了意外：{why}"),
    "quiz.play": _M("Play with it: {command}", "动手试试：{command}"),
    "quiz.score": _M("Score: {score}/{total}", "得分：{score}/{total}"),
    "quiz.review": _M("To review:", "需要复习："),
    "quiz.nothing": _M("Nothing to review: well done.", "没有需要复习的，干得好。"),
    "quiz.stopped": _M("Stopped. Score: {score}/{total}", "已停止。得分：{score}/{total}"),
    "quiz.seconds_left": _M("{s}s left", "剩 {s} 秒"),
    "quiz.quit": _M("(q to stop)", "（输入 q 退出）"),
    "quiz.lab": _M(
        "# lab.jit is jax.jit with jitlab's probe around it; lab.note keeps a value",
        "# lab.jit 就是套上 jitlab 探针的 jax.jit；lab.note 记下一个值",
    ),
    "quiz.you": _M("You predicted: {value}", "你的预测：{value}"),
    "quiz.seed": _M("seed {seed}: {ids}", "随机种子 {seed}：{ids}"),
    "quiz.left_out": _M("jitlab quiz: {problem} (left out)", "jitlab quiz：{problem}（已略去）"),
    "quiz.kind.number": _M("number", "数字"),
    "quiz.kind.choice": _M("choice", "选择"),
    "quiz.kind.error": _M("error", "异常"),
    "quiz.kind.misconception": _M("misconception", "误区"),
    "quiz.err.scenario": _M(
        "unknown scenario {scenario}; scenarios with exercises: {valid}",
        "没有场景 {scenario}；有练习的场景：{valid}",
    ),
    "quiz.err.exercise": _M(
        "unknown exercise {exercise}; valid exercises: {valid} (see `jitlab quiz --list`)",
        "没有练习 {exercise}；可用的练习：{valid}（见 `jitlab quiz --list`）",
    ),
    "quiz.err.no_match": _M(
        "no exercise matches --exercise and --scenario together",
        "没有同时符合 --exercise 和 --scenario 的练习",
    ),
    "quiz.err.modes": _M(
        "choose one of --list, --solve and --interview, not {modes}",
        "--list、--solve 和 --interview 只能选一个，不能同时用 {modes}",
    ),
    "quiz.err.answer_mode": _M("--answer does not apply to --{mode}", "--answer 不适用于 --{mode}"),
    "quiz.err.interview_select": _M(
        "--interview draws from all exercises: drop --exercise/--scenario",
        "--interview 从全部练习中抽题：请去掉 --exercise/--scenario",
    ),
    "quiz.err.seed_seconds": _M(
        "--seed and --seconds apply to --interview only", "--seed 和 --seconds 只用于 --interview"
    ),
    "quiz.err.seconds": _M(
        "--seconds must be positive and finite, not {value}",
        "--seconds 必须是有限的正数，而不是 {value}",
    ),
    "quiz.err.json": _M(
        "--json needs --answer (one per question), --solve or --list",
        "--json 需要 --answer（每题一个）、--solve 或 --list",
    ),
    "quiz.err.json_interview": _M(
        "--json needs --answer (one per question)", "--json 需要 --answer（每题一个）"
    ),
    "quiz.err.answers": _M(
        "got {got} --answer for {n} question; give one each",
        "给了 {got} 个 --answer，但有 {n} 道题；每题给一个",
        "got {got} --answer for {n} questions; give one each",
    ),
    "quiz.parse.number": _M(
        "{exercise} expects a whole number, not {value}", "{exercise} 需要一个整数，而不是 {value}"
    ),
    "quiz.parse.negative": _M(
        "{exercise} expects a whole number ≥ 0, not {value}",
        "{exercise} 需要 ≥ 0 的整数，而不是 {value}",
    ),
    "quiz.parse.choice": _M(
        "{exercise} expects one of {allowed}, not {value}",
        "{exercise} 需要 {allowed} 之一，而不是 {value}",
    ),
    "quiz.parse.error": _M(
        "{exercise} expects one of {allowed} or an exception name, not {value}",
        "{exercise} 需要 {allowed} 之一或一个异常名，而不是 {value}",
    ),
    "quiz.err.interview": _M("--interview: {error}", "--interview：{error}"),
    # -- usage errors ---------------------------------------------------------------------
    "usage.error": _M("jitlab: error: {message}", "jitlab：错误：{message}"),
    "usage.see_help": _M("{message} (see `{prog} --help`)", "{message}（见 `{prog} --help`）"),
    "usage.param_form": _M(
        "--param expects NAME=V1,V2,..., got {spec}",
        "--param 的格式是 NAME=V1,V2,...，而不是 {spec}",
    ),
    "usage.param_twice": _M(
        "--param {name} is given twice; give all its values once: {name}=V1,V2,...",
        "--param {name} 给了两次；请一次给出它的所有值：{name}=V1,V2,...",
    ),
    "usage.param_unknown": _M(
        "unknown parameter {name} for {scenario}; valid parameters: {valid}",
        "{scenario} 没有参数 {name}；可用的参数：{valid}",
    ),
    "usage.none": _M("none", "无"),
    "usage.param_value": _M(
        "{name} must be {allowed}, not {value}", "{name} 的取值应为：{allowed}，而不是 {value}"
    ),
    "allowed.choices": _M("one of {choices}", "{choices} 之一"),
    "allowed.bool": _M("true or false", "true 或 false"),
    "allowed.int_range": _M("an integer in {lo}…{hi}", "{lo}…{hi} 之间的整数"),
    "allowed.number_range": _M("a number in {lo}…{hi}", "{lo}…{hi} 之间的数"),
    "allowed.int": _M("an integer", "整数"),
    "allowed.finite": _M("a finite number", "有限的数"),
    "usage.param_lengths": _M(
        "--param {name} has {n} value; give 1 or {length}",
        "--param {name} 有 {n} 个值；请给 1 个或 {length} 个",
        "--param {name} has {n} values; give 1 or {length}",
    ),
    "usage.scenario_broken": _M(
        "scenario {scenario} is broken: {error}", "场景 {scenario} 已损坏：{error}"
    ),
    "usage.scenario_unknown": _M(
        "unknown scenario {scenario}; valid scenarios: {valid}",
        "没有场景 {scenario}；可用的场景：{valid}",
    ),
    "usage.variant_unknown": _M(
        "unknown variant {variant} for {scenario}; valid variants: {valid}",
        "{scenario} 没有变体 {variant}；可用的变体：{valid}",
    ),
    "usage.scenario_near": _M(
        "unknown scenario {scenario}; did you mean {near}? (`jitlab list` shows them all)",
        "没有场景 {scenario}；是不是想要 {near}？（`jitlab list` 列出全部场景）",
    ),
    "usage.command_near": _M(
        "unknown command {command}; did you mean {near}? (see `jitlab --help`)",
        "没有命令 {command}；是不是想要 {near}？（见 `jitlab --help`）",
    ),
    # The start-up check of jitlab's contract with JAX (jitlab.probe.contract) and `jitlab doctor`.
    "contract.refused": _M(
        "jitlab cannot see what JAX {version} does, so it will not guess: {problems}. "
        "Supported: JAX {window}; `jitlab doctor` shows the whole check",
        "jitlab 看不清 JAX {version} 做了什么，因此不作猜测：{problems}。"
        "支持的版本：JAX {window}；`jitlab doctor` 显示完整的检查",
    ),
    "contract.problem": _M("{item} {status} ({detail})", "{item}{status}（{detail}）"),
    "contract.problem_bare": _M("{item} {status}", "{item}{status}"),
    "contract.separator": _M("; ", "；"),
    "contract.why.outside": _M("{version}, outside {window}", "{version}，不在 {window} 之内"),
    "contract.why.not_checked": _M(
        "not checked: jitlab.probe._jax did not import",
        "未检查：jitlab.probe._jax 无法导入",
    ),
    "contract.why.renamed": _M(
        "{event} came named {got}, not {expected}",
        "{event} 带的名字是 {got}，而不是 {expected}",
    ),
    "contract.why.unnamed": _M(
        "{event} came with no function name, not {expected}",
        "{event} 没有带函数名（应为 {expected}）",
    ),
    "contract.why.never_fired": _M(
        "{event} for {expected} never fired", "{expected} 的 {event} 从未触发"
    ),
    "contract.why.no_explanation": _M(
        "JAX explained no cache miss (jax_explain_cache_misses)",
        "JAX 没有解释任何缓存未命中（jax_explain_cache_misses）",
    ),
    "contract.why.cache_size": _M(
        "_cache_size() gave {got} after two shapes, not 2",
        "两种形状之后 _cache_size() 是 {got}，而不是 2",
    ),
    "contract.why.trace_state": _M(
        "JAX's trace state cannot be read: {got}", "读不出 JAX 的 trace 状态：{got}"
    ),
    "contract.why.check_raised": _M(
        "the check's known compile failed: {got}", "检查用的已知编译失败：{got}"
    ),
    "contract.why.elsewhere_failed": _M(
        "the check's known compile could not run in a fresh interpreter: {got}",
        "检查用的已知编译无法在新的解释器中运行：{got}",
    ),
    "contract.ok": _M("ok", "正常"),
    "contract.missing": _M("missing", "缺失"),
    "contract.changed": _M("changed", "已改变"),
    "doctor.title": _M("jitlab doctor", "jitlab doctor（自检）"),
    "doctor.col.item": _M("item", "项目"),
    "doctor.col.value": _M("value", "值"),
    "doctor.col.check": _M("JAX contract", "JAX 约定"),
    "doctor.col.status": _M("status", "状态"),
    "doctor.col.detail": _M("detail", "说明"),
    "doctor.not_installed": _M("not installed", "未安装"),
    "doctor.row.backend": _M("backend", "后端"),
    "doctor.row.devices": _M("devices", "设备"),
    "doctor.row.platform": _M("platform", "平台"),
    "contract.item.version": _M("JAX version", "JAX 版本"),
    "contract.item.seam": _M("jitlab.probe._jax imports", "jitlab.probe._jax 可导入"),
    "contract.item.trace": _M("trace event", "trace 事件"),
    "contract.item.lower": _M("lower event", "lower 事件"),
    "contract.item.compile": _M("compile event", "compile 事件"),
    "contract.item.explain": _M("cache-miss explanation", "缓存未命中的解释"),
    "contract.item.cache_size": _M("jit cache size", "jit 缓存大小"),
    "contract.item.trace_state": _M("JAX trace state", "JAX 的 trace 状态"),
    "doctor.unknown": _M("unknown", "未知"),
    "doctor.all_ok": _M(
        "All checks pass: jitlab can see what this JAX does.",
        "全部检查通过：jitlab 看得清这个 JAX 做了什么。",
    ),
    "doctor.not_ok": _M(
        "{n} check is off: jitlab refuses to probe on this JAX (supported: JAX {window}).",
        "{n} 项检查未通过：jitlab 不会在这个 JAX 上探测（支持的版本：JAX {window}）。",
        "{n} checks are off: jitlab refuses to probe on this JAX (supported: JAX {window}).",
    ),
    "usage.folder_not_recording": _M(
        "{command}: {path} is a folder, not a recording", "{command}：{path} 是文件夹，不是记录文件"
    ),
    "usage.no_recording": _M(
        "{command}: no such recording: {path}", "{command}：没有这个记录文件：{path}"
    ),
    "usage.named_twice": _M(
        "{command}: the same recording is named twice", "{command}：同一份记录给了两次"
    ),
    "usage.cannot_read": _M(
        "{command}: cannot read {path}: {error}", "{command}：无法读取 {path}：{error}"
    ),
    # A recording of a newer major format (jitlab.recordings.reader.NewerFormat).
    "recording.newer_format": _M(
        "written by a newer jitlab (recording format {version}; this jitlab reads format"
        " {major}.x): update jitlab to open it",
        "由更新版本的 jitlab 写入（记录格式 {version}；此版本只读得懂 {major}.x 格式）："
        "请升级 jitlab 后再打开",
    ),
    # A FIFO, a device, a socket given as a recording (jitlab.recordings.reader.NotARegularFile).
    "usage.not_regular": _M(
        "{command}: {path} is {what}, not a recording file",
        "{command}：{path} 是{what}，不是记录文件",
    ),
    "file.fifo": _M("a named pipe (FIFO)", "命名管道（FIFO）"),
    "file.char_device": _M("a character device", "字符设备"),
    "file.block_device": _M("a block device", "块设备"),
    "file.socket": _M("a socket", "套接字"),
    "file.folder": _M("a folder", "文件夹"),
    "file.other": _M("not a regular file", "非普通文件"),
    "usage.not_recording": _M(
        "{command}: {path} is not a recording of `jitlab watch` (no line it could read)",
        "{command}：{path} 不是 `jitlab watch` 的记录（没有一行能读懂）",
    ),
    "usage.report_folder": _M(
        "report: {out} is a folder; name the HTML file to write",
        "report：{out} 是文件夹；请给出要写入的 HTML 文件名",
    ),
    "report.wrote": _M(
        "jitlab report: wrote {out} ({size} KiB)", "jitlab report：已写入 {out}（{size} KiB）"
    ),
    # argparse's own errors (its English templates, as argparse words them)
    "argparse.unrecognized": _M("unrecognized arguments: {args}", "无法识别的参数：{args}"),
    "argparse.invalid_choice": _M(
        "invalid choice: {value} (choose from {choices})", "无效的选择：{value}（可选：{choices}）"
    ),
    "argparse.required": _M("the following arguments are required: {args}", "缺少以下参数：{args}"),
    "argparse.one_argument": _M("expected one argument", "需要一个值"),
    "argparse.invalid_value": _M("invalid {type} value: {value}", "无效的 {type} 值：{value}"),
    "argparse.ambiguous": _M(
        "ambiguous option: {option} could match {matches}",
        "有歧义的选项：{option} 可能指 {matches}",
    ),
    "argparse.argument": _M("argument {name}: {message}", "参数 {name}：{message}"),
    # -- the report page ------------------------------------------------------------------
    "report.title": _M("jitlab report", "jitlab 报告"),
    "report.not_recorded": _M("not recorded", "未记录"),
    "report.made": _M(
        "Made by {tool}{version}{when}. One file: no script, no network.",
        "由 {tool}{version} 生成{when}。单个文件：无脚本，不联网。",
    ),
    "report.made_when": _M(", {when}", "于 {when}"),
    "report.run": _M("The run", "这次运行"),
    "report.process": _M("process {n}", "进程 {n}"),
    "report.row.file": _M("file", "文件"),
    "report.row.program": _M("program", "程序"),
    "report.row.started": _M("started", "开始时间"),
    "report.row.host": _M("host", "主机"),
    "report.row.jax": _M("JAX", "JAX"),
    "report.row.jitlab": _M("jitlab (recording)", "jitlab（记录时）"),
    "report.row.backend": _M("backend", "后端"),
    "report.row.devices": _M("devices", "设备"),
    "report.row.flags": _M("JAX flags (XLA_FLAGS, config)", "JAX 选项（XLA_FLAGS、config）"),
    "report.row.process": _M("process", "进程"),
    "report.row.compiled": _M("programs compiled", "编译的程序"),
    "report.row.ended": _M("ended", "是否结束"),
    "report.devices_here": _M("{n} on this process", "本进程 {n} 个"),
    "report.devices_job": _M("{n} in the job", "整个作业 {n} 个"),
    "report.single_process": _M("single process", "单进程"),
    "report.process_of": _M("{index} of {count}", "共 {count} 个中的第 {index} 个"),
    "report.ended_yes": _M("yes", "是"),
    "report.ended_no": _M(
        "no: the program was stopped, or is still running", "否：程序被停止了，或仍在运行"
    ),
    "report.cut_off": _M("the last line was cut off", "最后一行被截断"),
    "report.functions": _M("Functions", "函数"),
    "report.nothing_compiled": _M(
        "Nothing was compiled while recording.", "记录期间没有编译任何东西。"
    ),
    "report.time_lost": _M(
        "Time lost compiling{across}: {total} (trace + lower + compile) in {programs}. "
        "Most time lost first.",
        "编译耗费的时间{across}：{total}（追踪 + 降级 + 编译），共 {programs}。"
        "耗时最多的排在前面。",
    ),
    "report.across": _M(" across {processes}", "（{processes}合计）"),
    "report.head.function": _M("function", "函数"),
    "report.head.compiled": _M("programs compiled", "编译的程序"),
    "report.head.recompiles": _M("recompiles", "重编译"),
    "report.head.hits": _M("cache hits", "缓存命中"),
    "report.head.time_lost": _M("time lost compiling", "编译耗时"),
    "report.head.share": _M("share", "占比"),
    "report.head.signatures": _M("signatures", "签名数"),
    "report.div.none": _M(
        "Every process compiled the same programs: no divergence.",
        "每个进程编译的程序都相同：没有分歧。",
    ),
    "report.div.compiled": _M("compiled {signature}", "编译了 {signature}"),
    "report.div.count": _M("compiled a different number of programs", "编译的程序数不同"),
    "report.div.bad": _M(
        "{divergences}: the processes did not compile the same programs. In SPMD code a "
        "collective then waits on the process still compiling, or two processes run "
        "different programs.",
        "{divergences}：各进程编译的程序不同。在 SPMD 代码里，集合通信会等待仍在编译的进程，"
        "或者两个进程运行着不同的程序。",
    ),
    "report.div.head.processes": _M("processes", "进程"),
    "report.div.head.but_not": _M("but not", "没有的进程"),
    "report.div.head.what": _M("what", "内容"),
    "report.div.head.differs": _M("differs from the others in", "与其他进程的不同之处"),
    "report.div.head.per_process": _M("programs per process", "每个进程的程序数"),
    "report.div.head.first": _M("first seen", "最早出现"),
    "report.div.title": _M("Divergence between processes", "进程之间的分歧"),
    "report.defined_at": _M("defined at {where}", "定义于 {where}"),
    "report.facts": _M(
        "{programs} compiled ({recompiles}), cache hits: {hits}. Time lost compiling: "
        "{total} (trace {trace}, lower {lower}, compile {compile}).",
        "编译了 {programs}（{recompiles}），缓存命中：{hits}。编译耗费的时间：{total}"
        "（追踪 {trace}，降级 {lower}，编译 {compile}）。",
    ),
    "report.not_counted": _M("not counted", "未计数"),
    "report.when": _M("When it compiled", "何时编译"),
    "report.ledger": _M("Signature ledger", "签名台账"),
    "report.ledger_note": _M(
        "One row per program compiled, oldest first. A highlighted cell differs from the "
        "row above: that is what made JAX compile again.",
        "每编译一个程序一行，最早的在前。高亮的单元格与上一行不同：正是它让 JAX 又编译了一次。",
    ),
    "report.tip.call": _M("call {index}", "调用 #{index}"),
    "report.tip.at": _M("at {t} s", "在 {t} s"),
    "report.timeline": _M(
        "Compile timeline of {function}: {count} compiled or failed, over {span}",
        "{function} 的编译时间线：{count}编译或失败，横跨{span}",
    ),
    "report.timeline.count": _M("{n} program", "{n} 个程序", "{n} programs"),
    "report.timeline.seconds": _M("{s} s of recording", " {s} s 的记录"),
    "report.timeline.order": _M("the order of compiles", "编译顺序"),
    "report.lane.compiles": _M("compiles", "编译"),
    "report.binned": _M(
        "{n} compiles here, the costliest {ms}", "这里有 {n} 次编译，最贵的一次 {ms}"
    ),
    "report.caption.timed": _M("seconds since the recording started", "自记录开始的秒数"),
    "report.caption.order": _M(
        "compiles in order (no times recorded)", "按顺序排列的编译（没有记录时间）"
    ),
    "report.caption.height": _M(
        "{caption}; bar height: time lost, up to {ms}", "{caption}；柱高：耗时，最高 {ms}"
    ),
    "report.why": _M("Why it compiled again", "为什么又编译了"),
    "report.reason": _M("{what} — {times}; e.g. {example}", "{what}——{times}；例如 {example}"),
    "report.nothing": _M("Nothing compiled.", "没有编译。"),
    "report.ledger.kind": _M("kind", "类型"),
    "report.ledger.at": _M("at", "时间"),
    "report.ledger.cost": _M("cost", "耗时"),
    "report.ledger.called_from": _M("called from", "调用位置"),
    "report.ledger.changed": _M("what changed", "改变了什么"),
    "report.ledger.before": _M("changed, before: {before}", "变了，之前是：{before}"),
    "report.ledger.function_object": _M("function object", "函数对象"),
    "report.ledger.static": _M("{name} (static)", "{name}（静态）"),
    "report.ledger.more": _M(
        "… {n} more compile not listed; the timeline shows them all.",
        "……另有 {n} 次编译没有列出；时间线上都有。",
        "… {n} more compiles not listed; the timeline shows them all.",
    ),
    "report.ledger.more_columns": _M(
        "… {n} more argument column not shown; the columns that changed come first.",
        "……另有 {n} 个参数列没有列出；有变化的列排在前面。",
        "… {n} more argument columns not shown; the columns that changed come first.",
    ),
    "report.buckets.title": _M("Bucket suggestion", "分桶建议"),
    # one axis of a dimension (the GUI's .ts says it the same way)
    "report.axis": _M("%1 (axis %2)", "%1（第 %2 轴）"),
    "report.buckets": _M(
        "The size of {dim} took {values} values in {compiles}. Padding each call up to one "
        "of the bucket sizes {buckets} cuts this to {fewer}, at the cost of {share} padding "
        "over the sizes seen ({tool}: the least padding for {fewer}).",
        "{dim} 的大小取了 {values} 个不同的值，共 {compiles}。把每次调用填充到分桶大小 {buckets} "
        "之一，可以降到 {fewer}，代价是比见过的大小多填充 {share}（{tool}：{fewer}时填充最少）。",
    ),
    # the sizes that compiled are powers of two already: code that pads to buckets
    "report.buckets.already": _M(
        "The size of {dim} took {values} values in {compiles}, each a power of two ({sizes}): "
        "already buckets, one compile per bucket; no padding to suggest.",
        "{dim} 的大小取了 {values} 个不同的值，共 {compiles}，每个都是 2 的幂（{sizes}）："
        "这本身就是分桶，每个桶编译一次，不必再建议填充。",
    ),
    # the comments of the bucket code (the GUI's .ts says them the same way)
    "code.header": _M(
        "%2: bucket sizes for %1, one compile each (%4 sizes seen)",
        "%2：%1 的桶大小，每个桶编译一次（出现过 %4 种大小）",
    ),
    "code.bucket": _M("The smallest bucket that holds n.", "能装下 n 的最小桶。"),
    "code.larger": _M("larger than every bucket: one more compile", "比所有桶都大：会多编译一次"),
    "code.pad": _M("Pad a with zeros along axis up to size.", "沿 axis 用 0 把 a 补齐到 size。"),
    "code.usage": _M("Before each call, pad to the bucket:", "每次调用前，补齐到所在的桶："),
    "code.nested": _M("pad these leaves the same way", "这些叶子也照样补齐"),
    "code.mask": _M(
        "Only the first n rows are real: mask the padding out of sums and means",
        "只有前 n 行是真数据：求和、求均值时用掩码去掉补齐部分",
    ),
    "code.call": _M("pass the padded arguments and the mask", "传入补齐后的参数和掩码"),
    "report.histogram": _M(
        "Compiles per size of {dim}; suggested buckets {buckets}",
        "{dim} 每个大小的编译次数；建议的分桶：{buckets}",
    ),
    "report.hist.tip": _M("size {size}: {compiles}", "大小 {size}：{compiles}"),
    "report.hist.bucket": _M(" (a bucket)", "（一个分桶）"),
    "report.hist.padded": _M(" (padded to {bucket})", "（填充到 {bucket}）"),
    "report.legend": _M(
        "Kinds: {first} is the first program of a function; {recompile} any later one (a new "
        "signature, or a cache JAX no longer had); {persistent} a program loaded from disk "
        "instead of compiled. Time lost is trace + lower + compile. Hover a mark or a "
        "highlighted cell for details.",
        "类型：{first}是函数的第一个程序；{recompile}是之后的任何一个"
        "（新的签名，或 JAX 已不再有的缓存）；"
        "{persistent}是从磁盘载入而不是编译出来的程序。耗时 = 追踪 + 降级 + 编译。"
        "把鼠标停在标记或高亮的单元格上可看详情。",
    ),
    # what changed, in the report's reasons list
    "change.shape": _M("shape of {path}", "{path} 的形状"),
    "change.dtype": _M("dtype of {path}", "{path} 的 dtype"),
    "change.weak_type": _M("weak type of {path}", "{path} 的弱类型"),
    "change.sharding": _M("sharding of {path}", "{path} 的分片"),
    "change.static_value": _M("static argument {path}", "静态参数 {path}"),
    "change.tree_structure": _M("pytree structure", "pytree 结构"),
    "change.keyword_vs_positional": _M(
        "{path} passed by keyword or position", "{path} 按关键字还是按位置传入"
    ),
    "change.new_argument": _M("new argument {path}", "新参数 {path}"),
    "change.argument_gone": _M("argument {path} gone", "参数 {path} 不见了"),
    "change.tracing_context": _M("tracing context {path}", "追踪上下文 {path}"),
    "change.new_function_object": _M("a new function object", "新的函数对象"),
    "change.jit_options": _M("jit option {path}", "jit 选项 {path}"),
    "change.shared_executable": _M(
        "another jax.jit of the same function", "同一函数的另一个 jax.jit"
    ),
    "change.cache_cleared": _M("JAX's cache cleared", "JAX 的缓存被清空"),
    "change.jax_explained": _M("JAX's own explanation", "JAX 自己的解释"),
    "change.recorded": _M("words from an older recording", "旧记录里的原话"),
    "change.unknown": _M("jitlab cannot tell", "jitlab 无法判断"),
    # the watch and the probe, on stderr
    "listeners_cleared": _M(
        "jitlab: the program removed jitlab's JAX listeners "
        "(jax.monitoring.clear_event_listeners()); registered again. Compiles in between "
        "were not seen: counts are a lower bound, and a compile budget fails.",
        "jitlab：程序移除了 jitlab 的 JAX 监听器（jax.monitoring.clear_event_listeners()），"
        "已重新注册。其间的编译没有被看到：计数只是下限，编译预算判为失败。",
    ),
    # a compile budget that failed (jitlab.budget, %%jitlab --budget N)
    "budget.over": _M(
        "{n} compile(s) where the budget allows {max}:",
        "编译了 {n} 次，而预算只允许 {max} 次：",
    ),
    "budget.compile": _M(
        "  {number}. {function} {kind}{where}: {reason} ({ms} ms){over}",
        "  {number}. {function} {kind}{where}：{reason}（{ms} ms）{over}",
    ),
    "budget.where": _M(" at {where}", "，位于 {where}"),
    "budget.bad_max": _M(
        "{name} must be a whole number >= 0 (how many compiles are allowed), not {value}",
        "{name} 必须是 ≥ 0 的整数（允许编译的次数），而不是 {value}",
    ),
    "budget.marker_unknown": _M(
        "@pytest.mark.compile_budget: unknown argument {name}= (it takes max_compiles=N)",
        "@pytest.mark.compile_budget：没有参数 {name}=（它只接受 max_compiles=N）",
    ),
    "budget.marker_many": _M(
        "@pytest.mark.compile_budget takes one budget (max_compiles=N), not {got}",
        "@pytest.mark.compile_budget 只接受一个预算（max_compiles=N），而不是 {got}",
    ),
    "budget.over_mark": _M("  ← over budget", "  ← 超出预算"),
    "budget.blinded": _M(
        "the compile budget could not see: jitlab's JAX listeners were removed during the "
        "block (jax.monitoring.clear_event_listeners()), so compiles may have gone uncounted "
        "({n} counted, the budget allows {max}).",
        "编译预算看不见：块运行期间 jitlab 的 JAX 监听器被移除了"
        "（jax.monitoring.clear_event_listeners()），编译可能没有被计入"
        "（计入 {n} 次，预算允许 {max} 次）。",
    ),
    # a recording's ``notice`` lines, where it is read back (watch summary, summary, report)
    "notice.listeners_removed": _M(
        "the program removed jitlab's JAX listeners (jax.monitoring.clear_event_listeners()) "
        "{n} time, noticed at {times}; registered again, but compiles before that may be "
        "missing: the counts up to then are a lower bound",
        "程序移除了 jitlab 的 JAX 监听器（jax.monitoring.clear_event_listeners()）{n} 次，"
        "发现于 {times}；已重新注册，但此前的编译可能缺失：到那时为止的计数只是下限",
        "the program removed jitlab's JAX listeners (jax.monitoring.clear_event_listeners()) "
        "{n} times, noticed at {times}; registered again, but compiles before that may be "
        "missing: the counts up to then are a lower bound",
    ),
    "notice.other": _M("the recording notes: {notice}", "记录中的提示：{notice}"),
    "watch.notice": _M("jitlab watch: {notice}", "jitlab watch：{notice}"),
    "summary.notice": _M("process {index}: {notice}", "进程 {index}：{notice}"),
    "report.warning": _M("Counts may be incomplete:", "计数可能不完整："),
    "report.notice_of": _M("{who}: {notice}.", "{who}：{notice}。"),
    # -- diagnoses (jitlab/records/diagnoses.py; one page each in docs/diagnoses/) ---------
    "diagnosis.warning": _M("jitlab: {id}: {text}", "jitlab：{id}：{text}"),
    "diagnosis.fix": _M("  likely fix: {fix}", "  可能的修复：{fix}"),
    "diagnosis.page": _M("  more: {page}", "  详见：{page}"),
    "diagnosis.line": _M("{id} · {text} ({page})", "{id} · {text}（{page}）"),
    "diagnosis.title": _M("Diagnoses:", "诊断："),
    "diagnosis.process": _M("process {index}: {line}", "进程 {index}：{line}"),
    "diagnosis.newer": _M(
        "{function}: diagnosis {id} (from a newer jitlab)",
        "{function}：诊断 {id}（来自更新的 jitlab）",
    ),
    "diagnosis.recompile_limit": _M(
        "{function} compiled {n} times (more than {limit}); {changing}.",
        "{function} 已编译 {n} 次（超过 {limit} 次）；{changing}。",
    ),
    "diagnosis.changing.shape": _M(
        "the shape of {argument} changed in {n} of {of} recompiles",
        "{of} 次重编译中有 {n} 次是 {argument} 的形状变了",
    ),
    "diagnosis.changing.static_value": _M(
        "the static argument {argument} took a new value in {n} of {of} recompiles",
        "{of} 次重编译中有 {n} 次是静态参数 {argument} 取了新值",
    ),
    "diagnosis.changing.new_function_object": _M(
        "the function was jitted again as a new function object in {n} of {of} recompiles",
        "{of} 次重编译中有 {n} 次是函数被重新创建为新的函数对象后再次 jit",
    ),
    "diagnosis.changing.other": _M(
        "{argument} changed ({change}) in {n} of {of} recompiles",
        "{of} 次重编译中有 {n} 次是 {argument} 变了（{change}）",
    ),
    "diagnosis.changing.unknown": _M(
        "jitlab cannot tell which argument keeps changing (JAX did not say)",
        "jitlab 无法判断是哪个参数在不断变化（JAX 没有说明）",
    ),
    "diagnosis.fix.bucket": _M(
        "pad or bucket {argument} to a few sizes (say powers of two), so that its shapes repeat",
        "把 {argument} 填充或分桶到少数几种尺寸（例如 2 的幂），让形状重复出现",
    ),
    "diagnosis.fix.static": _M(
        "{argument} is static: pass it as a traced argument instead, or stop passing it a new "
        "value on each call",
        "{argument} 是静态参数：改为作为被追踪的参数传入，或者不要每次调用都传入新值",
    ),
    "diagnosis.fix.recreate": _M(
        "create the jitted function once, outside the loop, and call that same object",
        "在循环外只创建一次被 jit 的函数，之后一直调用同一个对象",
    ),
    "diagnosis.fix.dtype": _M(
        "cast {argument} to one dtype before the call (a Python float and a float32 array "
        "differ too)",
        "调用前把 {argument} 转成同一种 dtype（Python 浮点数与 float32 数组也算不同）",
    ),
    "diagnosis.fix.other": _M(
        "keep {argument} the same from call to call, or make its few values repeat",
        "让 {argument} 在每次调用之间保持不变，或只取少数几种会重复的值",
    ),
    "diagnosis.fix.unknown": _M(
        "run with jitlab open to see each recompile's reason, then see the page below",
        "用 jitlab open 查看每次重编译的原因，再参阅下面的页面",
    ),
    "diagnosis.identity_static": _M(
        "{function} compiled again because its static {argument} is a new {cls} object "
        "equal in content to the last one ({value}), but {cls} compares and hashes by "
        "identity, so jit's cache never matches it.",
        "{function} 再次编译：它的静态参数 {argument} 是一个新的 {cls} 对象，内容与上一个相同"
        "（{value}），但 {cls} 按对象身份比较和求哈希，jit 的缓存因此永远对不上。",
    ),
    "diagnosis.fix.identity": _M(
        "give {cls} __eq__ and __hash__ by value (a frozen dataclass does), pass its numbers "
        "as traced arguments, or build it once outside the loop",
        "为 {cls} 定义按值比较的 __eq__ 和 __hash__（冻结的 dataclass 即可），把其中的数值作为"
        "被追踪的参数传入，或者在循环外只创建一次",
    ),
    # -- diagnoses shown in the faces (report, notebook, jitlab open): any id, its page --------
    "diagnosis.heading": _M("Diagnoses", "诊断"),
    "diagnosis.page_missing": _M(
        "{page} (not on this machine)",
        "{page}（本机上没有这一页）",
    ),
    # -- executables-growing (jitlab/records/diagnoses.py, docs/diagnoses/) -------------------
    "diagnosis.executables_growing.same": _M(
        "{function} has {live} executables still alive after {compiles} compiles, {same} "
        "of them for one signature (the same shapes and dtypes, static values that differ "
        "only in an object's address): a new program each time for inputs it already had "
        "one for ({held}).",
        "{function} 编译 {compiles} 次后仍有 {live} 个可执行程序存活，其中 {same} 个对应同一个"
        "签名（形状和 dtype 相同，静态值只有对象地址不同）：对已有程序的输入一次次编译新程序"
        "（{held}）。",
    ),
    "diagnosis.executables_growing.unseen": _M(
        "{function} has {live} executables still alive after {compiles} compiles ({held}); "
        "jitlab did not see its arguments, so it cannot tell whether they are for different "
        "shapes.",
        "{function} 编译 {compiles} 次后仍有 {live} 个可执行程序存活（{held}）；jitlab 没有"
        "看到它的参数，因此无法判断它们是否对应不同的形状。",
    ),
    "diagnosis.executables_growing.held": _M(
        "in all, as JAX's memory_analysis says: code {code}, temp {temp}, arguments "
        "{arguments}, outputs {outputs}",
        "按 JAX 的 memory_analysis 合计：代码 {code}，临时 {temp}，"
        "参数 {arguments}，输出 {outputs}",
    ),
    "diagnosis.fix.executables_growing": _M(
        "build the model or optimizer (and the jitted function) once, outside the loop, and "
        "pass what changes as traced arrays; a static or closed-over object that is new each "
        "epoch makes a new program each epoch, and while the jitted function lives JAX keeps "
        "every one",
        "在循环外只创建一次模型或优化器（以及被 jit 的函数），把会变的部分作为被追踪的数组传入；"
        "每个 epoch 都新建的静态对象或闭包捕获的对象，会让每个 epoch 编译一份新程序，"
        "而只要被 jit 的函数还在，JAX 就会全部保留",
    ),
    # -- slow-dispatch (diagnoses.SLOW_DISPATCH; docs/diagnoses/slow-dispatch.md) ---------
    "diagnosis.slow_dispatch": _M(
        "{function}: {n} of its {hits} cache hits ran through JAX's Python dispatch, not its "
        "C++ fast path: {cause}.",
        "{function}：{hits} 次缓存命中里有 {n} 次走了 JAX 的 Python 分派，而不是 C++ 快速路径："
        "{cause}。",
    ),
    "diagnosis.slow_dispatch_live": _M(
        "{function}: a cache hit ran through JAX's Python dispatch, not its C++ fast path: "
        "{cause}.",
        "{function}：一次缓存命中走了 JAX 的 Python 分派，而不是 C++ 快速路径：{cause}。",
    ),
    "diagnosis.slow_dispatch.callback": _M(
        "the function has host callbacks (jax.debug.print, debug.callback, io_callback), and "
        "JAX never gives such a program a fast-path entry",
        "函数里有主机回调（jax.debug.print、debug.callback、io_callback），JAX 从不为这样的程序"
        "建立快速路径条目",
    ),
    "diagnosis.slow_dispatch.not_kept": _M(
        "JAX offered its C++ cache an entry and the cache kept none (_cache_size() stayed 0), "
        "as jax#39078 reports once 8,192 jitted functions are alive: functions jitted later "
        "may lose their fast path too",
        "JAX 把条目交给了 C++ 缓存，缓存却没有保留（_cache_size() 一直是 0），jax#39078 报告的"
        "正是存活的被 jit 函数达到 8,192 个之后的这种情形：之后被 jit 的函数也可能失去快速路径",
    ),
    "diagnosis.slow_dispatch.unknown": _M(
        "JAX did not say why (jitlab cannot tell)",
        "JAX 没有说明原因（jitlab 无法判断）",
    ),
    "diagnosis.fix.dispatch_callback": _M(
        "take jax.debug.print / callbacks out of the hot function (or behind a flag that "
        "removes them once debugged); each call then costs microseconds less",
        "把 jax.debug.print 和回调移出频繁调用的函数（或用开关在调试完后去掉）；"
        "每次调用就能省下几微秒",
    ),
    "diagnosis.fix.dispatch_not_kept": _M(
        "keep fewer jitted functions alive (jit once, not per object or per call), or call "
        "jax.clear_caches() to let JAX keep fast-path entries again",
        "让存活的被 jit 函数少一些（只 jit 一次，而不是每个对象或每次调用都 jit），"
        "或者调用 jax.clear_caches() 让 JAX 重新保留快速路径条目",
    ),
    "diagnosis.fix.dispatch_unknown": _M(
        "see the page below; JAX's own dispatch did not say why",
        "参阅下面的页面；JAX 自己的分派没有说明原因",
    ),
    "diagnosis.bad_warn_after": _M(
        "{name}: {value} is not a number of compiles (a whole number >= 0; 0 turns the "
        "warning off)",
        "{name}：{value} 不是编译次数（应为 >= 0 的整数；0 表示关闭警告）",
    ),
    # -- captured-constant and call-site-cost (docs/diagnoses/; jitlab/records/diagnoses.py)
    "diagnosis.captured_constant": _M(
        "{function} compiled again for a re-created function whose program differs from the "
        "last one only in captured constants: {constant} ({type}, {kind}) {before} → {after}"
        "{more}.",
        "{function} 因函数被重新创建而再次编译，新程序与上一个只差在捕获的常量："
        "{constant}（{type}，{kind}）{before} → {after}{more}。",
    ),
    "diagnosis.captured_constant.unnamed": _M(
        "{function} compiled again for a re-created function whose program differs from the "
        "last one only in captured constants: a constant ({type}, {kind}) {before} → "
        "{after}{more}.",
        "{function} 因函数被重新创建而再次编译，新程序与上一个只差在捕获的常量："
        "一个常量（{type}，{kind}）{before} → {after}{more}。",
    ),
    "diagnosis.captured_constant.more": _M(" (and {n} more)", "（另有 {n} 个）"),
    "diagnosis.captured_constant.literal": _M(
        "a Python number written into the program", "写进程序的 Python 数值"
    ),
    "diagnosis.captured_constant.const": _M("an array captured by the program", "被程序捕获的数组"),
    "diagnosis.captured_constant.shape": _M(
        "{function} compiled again for a re-created function, and its program differs from "
        "the last one in more than constants ({before} → {after} equations): jitlab cannot "
        "tell that a captured constant is the cause.",
        "{function} 因函数被重新创建而再次编译，但新程序与上一个不只差在常量（方程数 {before} → "
        "{after}）：jitlab 无法断定原因是捕获的常量。",
    ),
    "diagnosis.captured_constant.unread": _M(
        "{function} compiled again for a re-created function with the same program shape; it "
        "captures arrays too big for jitlab to read, so it cannot tell whether their values "
        "changed.",
        "{function} 因函数被重新创建而再次编译，程序结构相同；它捕获的数组太大，jitlab 没有读取，"
        "无法判断其中的值是否变了。",
    ),
    "diagnosis.captured_constant.no_jaxpr": _M(
        "{function} compiled again for a re-created function; jitlab could not get its "
        "program, so it cannot tell whether only captured constants changed.",
        "{function} 因函数被重新创建而再次编译；jitlab 拿不到它的程序，无法判断是否只是捕获的"
        "常量变了。",
    ),
    "diagnosis.fix.captured-constant": _M(
        "pass the value as an argument of the jitted function (a traced array, so a new value "
        "reuses the program), and jit it once; with Optax, optax.inject_hyperparams",
        "把这个值作为被 jit 函数的参数传入（被追踪的数组，新值可复用同一程序），并只 jit 一次；"
        "使用 Optax 时用 optax.inject_hyperparams",
    ),
    "diagnosis.call_site_cost": _M(
        "{site}: {n} compiles cost {ms} ms (trace {trace} + lower {lower} + compile "
        "{compile}), call site {rank} of {sites} by cost, {share} of all compile time; "
        "mostly {function}.",
        "{site}：{n} 次编译共耗时 {ms} 毫秒（追踪 {trace} + 降级 {lower} + 编译 {compile}），"
        "按耗时在 {sites} 个调用点中排第 {rank}，占全部编译时间的 {share}；主要是 {function}。",
    ),
    "diagnosis.call_site_cost.title": _M(
        "Compile cost by call site (costliest first):", "按调用点统计的编译耗时（从高到低）："
    ),
    "diagnosis.fix.call-site-cost": _M(
        "see what changes between this line's calls (jitlab open shows each recompile's "
        "reason) and make its calls repeat one signature",
        "查看这一行的各次调用之间有什么变化（jitlab open 会显示每次重编译的原因），"
        "让它的调用重复同一个签名",
    ),
    # -- persistent cache: persistent-not-written, persistent-key-changed (issue 43) --------
    "persistent.why.min_compile_time": _M(
        "compiled in {compile_s} s, under jax_persistent_cache_min_compile_time_secs = "
        "{min_compile_s} s",
        "编译用了 {compile_s} 秒，低于 jax_persistent_cache_min_compile_time_secs = "
        "{min_compile_s} 秒",
    ),
    "persistent.why.min_entry_size": _M(
        "its entry is {size} bytes, under jax_persistent_cache_min_entry_size_bytes = {min_size}",
        "它的缓存条目只有 {size} 字节，低于 jax_persistent_cache_min_entry_size_bytes = {min_size}",
    ),
    "persistent.why.host_callbacks": _M(
        "it uses host callbacks (jax.debug.print, a breakpoint), which this JAX does not store",
        "它用了主机回调（jax.debug.print、断点），这个版本的 JAX 不存这样的程序",
    ),
    "persistent.why.process_id": _M(
        "only process 0 of a multi-process job writes the cache",
        "多进程作业中只有 0 号进程写缓存",
    ),
    "persistent.why.cache_disabled": _M(
        "the cache is configured but JAX could not open it",
        "缓存已配置，但 JAX 没能打开它",
    ),
    "diagnosis.persistent_not_written": _M(
        "{function} was compiled but not written to the persistent cache: {why}; every new "
        "process compiles it again.",
        "{function} 编译了，却没有写入持久缓存：{why}；每个新进程都要重新编译它。",
    ),
    "diagnosis.fix.persistent_not_written": _M(
        'lower the threshold JAX named (jax.config.update("jax_persistent_cache_min_compile_'
        'time_secs", 0), and …_min_entry_size_bytes to 0) before the first compile',
        '在第一次编译之前调低 JAX 所说的门槛（jax.config.update("jax_persistent_cache_min_'
        'compile_time_secs", 0)，以及把 …_min_entry_size_bytes 设为 0）',
    ),
    "persistent.outcome.written": _M("written to the cache", "已写入缓存"),
    "persistent.outcome.not_written": _M("not written ({why})", "未写入（{why}）"),
    "persistent.outcome.loaded": _M("loaded from the cache", "从缓存加载"),
    "persistent.outcome.compiled": _M("compiled (JAX logged no write)", "已编译（JAX 未记录写入）"),
    "diagnosis.persistent_key_changed": _M(
        "{function}: {signature} was {base} in the base run and {new} in the new one: its "
        "cache key changed ({base_key} → {new_key}); {what}.",
        "{function}：{signature} 在基准运行中{base}，在新运行中{new}：它的缓存键变了"
        "（{base_key} → {new_key}）；{what}。",
    ),
    "persistent.part": _M("{part} differs: {base} → {new}", "{part} 不同：{base} → {new}"),
    "persistent.same_parts": _M(
        "jaxlib, the backend, the XLA flags and the cache folder are the same, so the program "
        "itself or its compile options differ (its code, a captured constant, a shape, a "
        "config flag); JAX hashes them into one digest, so jitlab can't tell which",
        "jaxlib、后端、XLA 开关和缓存目录都相同，所以是程序本身或编译选项不同（代码、捕获的常量、"
        "形状、配置开关）；JAX 把它们合成一个摘要，jitlab 分辨不出是哪一个",
    ),
    "persistent.same_key": _M(
        "{function}: {signature} was {base} in the base run and {new} in the new one, under the "
        "same cache key {key}: the entry was not there (another cache directory, or it was "
        "evicted or removed).",
        "{function}：{signature} 在基准运行中{base}，在新运行中{new}，缓存键相同（{key}）："
        "缓存里没有这个条目（换了缓存目录，或条目被淘汰、删除）。",
    ),
    "persistent.unknown_key": _M(
        "{function}: {signature} was {base} in the base run and {new} in the new one; jitlab "
        "can't tell whether its key changed: JAX did not log the key of both (it logs a load's "
        "key only at DEBUG or with jax_log_compiles).",
        "{function}：{signature} 在基准运行中{base}，在新运行中{new}；jitlab 无法判断缓存键是否"
        "变了：JAX 没有记下两边的键（加载时的键只在 DEBUG 级别或开启 jax_log_compiles 时记录）。",
    ),
    "persistent.title": _M("Persistent cache:", "持久缓存："),
    "persistent.rerun.yes": _M("a rerun would load it", "再运行会直接加载"),
    "persistent.rerun.no": _M("a rerun compiles it again", "再运行还要重新编译"),
    "persistent.rerun.unknown": _M("can't tell whether a rerun hits", "无法判断再运行是否命中"),
    "persistent.row": _M(
        "{function} {signature}: {outcome}; {rerun}", "{function} {signature}：{outcome}；{rerun}"
    ),
    "persistent.none": _M(
        "No persistent-cache lines in this recording: the persistent cache was not configured "
        "(jax_compilation_cache_dir), or JAX's cache log was kept from jitlab (its loggers set "
        "above WARNING), or an older jitlab recorded it.",
        "这份记录里没有持久缓存的记录：这次运行没有配置持久缓存（jax_compilation_cache_dir），"
        "或者 JAX 的缓存日志没有传到 jitlab（它的 logger 级别高于 WARNING），"
        "或者是旧版 jitlab 录的。",
    ),
}


def listeners_removed_text(times: Sequence[float | None], lang: str, n: int | None = None) -> str:
    """The ``listeners_removed`` notices of a recording (their ``t``: seconds into it; ``n``
    how many in all, when only the first few times were kept)."""
    n = len(times) if n is None else n
    # "0.1 s" kept on one line (a no-break space): a terminal wraps it nowhere
    shown = [f"{t:.1f}\u00a0s" if t is not None else "?" for t in times[:5]]
    if n > len(shown):
        shown.append("…")
    return say("notice.listeners_removed", lang, n=n, times=listing(shown, lang))


def notice_texts(
    notices: Sequence[tuple[str, float | None]], lang: str, counts: dict[str, int] | None = None
) -> list[str]:
    """What a recording's ``notice`` lines ((notice, t) pairs, in order; ``counts``: how
    many of each in all) say, one text per kind of notice; one a newer jitlab wrote is
    named as it is."""
    removed = [t for notice, t in notices if notice == "listeners_removed"]
    n = (counts or {}).get("listeners_removed", len(removed))
    texts = [listeners_removed_text(removed, lang, n)] if removed else []
    others = dict.fromkeys(notice for notice, _ in notices if notice != "listeners_removed")
    texts += [say("notice.other", lang, notice=notice) for notice in others]
    return texts


def kind_name(kind: object, lang: str) -> str:
    """A call kind (a ``CallKind`` or its value) by name: ``first compile`` / ``首次编译``."""
    return say(f"kind.{getattr(kind, 'value', kind)}", lang)


def skipped_lines(bad_lines: int, lang: str, long_lines: int = 0, mib: int = 16) -> str:
    """``"3 unreadable lines skipped"``, or ``""`` when every line was read; with how many
    of them were too long to read (``long_lines``, over ``mib`` MiB)."""
    if not bad_lines:
        return ""
    text = say("n.skipped_lines", lang, n=bad_lines)
    if long_lines:
        text += say("n.long_lines", lang, n=long_lines, mib=mib)
    return text


def processes_text(processes: Sequence[int], lang: str) -> str:
    """``process 1`` / ``processes 0, 2`` / ``进程 0、2``."""
    return say("div.process", lang, n=len(processes), names=listing(processes, lang))


def first_call_text(first: Any, lang: str) -> str:
    """Where a process first compiled what made it diverge (a ``processes.FirstCall``)."""
    where = say("first.where", lang, where=first.called_from) if first.called_from else ""
    when = say("first.when", lang, t=f"{first.t:.2f}") if first.t is not None else ""
    return say(
        "first.call",
        lang,
        process=first.process,
        number=first.compile_number,
        where=where,
        when=when,
    )


def divergence_text(d: Any, lang: str) -> str:
    """One divergence (a ``processes.Divergence``) in ``lang``, as its ``message`` says it."""
    if language_of(lang) == "en":
        return str(d.message)
    if d.kind == "signature":
        text = say(
            "div.signature",
            lang,
            who=processes_text(d.processes, lang),
            function=d.function,
            signature=d.signature,
            others=processes_text(d.others, lang),
        )
        if d.fields:
            text += say("div.fields", lang, fields=say("sep.semi", lang).join(d.fields))
    else:
        counts = say("sep", lang).join(
            say("div.count", lang, process=p, n=n) for p, n in sorted(d.counts.items())
        )
        text = say("div.counts", lang, function=d.function, counts=counts)
    if d.first is not None:
        text += say("div.first", lang, first=first_call_text(d.first, lang))
    return text


def allowed_values(param: Any, lang: str) -> str:
    """What a scenario parameter (a ``spec.Param``) accepts, as ``Param.describe`` says it
    in English."""
    if param.choices:
        return say("allowed.choices", lang, choices=listing(param.choices, lang))
    if param.type is bool:
        return say("allowed.bool", lang)
    if param.minimum is not None and param.maximum is not None:
        key = "allowed.int_range" if param.type is int else "allowed.number_range"
        return say(key, lang, lo=param.minimum, hi=param.maximum)
    return say("allowed.finite" if param.type is float else "allowed.int", lang)
