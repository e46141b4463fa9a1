"""The words of jitlab's text faces — the ``jitlab`` command and the HTML report — in English
and Chinese, in one catalogue.

Longer than 500 lines on purpose: it is one table of messages, each entry its English and
Chinese side by side, so a translator has one place to read; the diagnoses' words, a table of
their own, sit in :mod:`jitlab.records.diagnosis_words` and :mod:`jitlab.records.quiz_words`
and join the catalogue here.

Each entry is a template in both languages (``str.format`` fields); English entries that
count something carry a plural form, chosen by the field ``n``. Chinese has no plural and
uses full-width punctuation (，。：（）); code identifiers, units and JAX's own words stay as
they are. The GUI has its own catalogue (Qt's ``.ts``); lesson texts are ``Text(en, zh)``.

A dict rather than gettext: both languages sit side by side where they are written, there is
no compile step for the package, and a test can read every English template to check that
none is left in Chinese output (:func:`english_fragments`). JAX-free, imports nothing of
jitlab but its own word tables: the CLI and the report (a JAX-free module) both read it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from jitlab.records import check_words, diagnosis_words, quiz_words

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
    found: set[str] = set()
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
    "watch.not_started": _M(
        "jitlab watch: the recording could not start when the program imported JAX ({error}); "
        "the program goes on, not watched",
        "jitlab watch：程序导入 JAX 时记录无法开始（{error}）；程序照常运行，但不受监视",
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
    "watch.exec_not_followed": _M(
        "jitlab watch: the program replaced itself by exec with {program}, which jitlab "
        "cannot watch (not a Python that runs jitlab): what it does is not recorded",
        "jitlab watch：程序用 exec 把自己换成了 {program}，jitlab 无法记录它（不是能运行 "
        "jitlab 的 Python）：它所做的不会被记录",
    ),
    "watch.no_interpreter": _M(
        "watch: no Python named {python} here", "watch：这里没有名为 {python} 的 Python"
    ),
    "watch.other_interpreter": _M(
        "watch: {python} is not the Python jitlab runs in ({here}) and cannot import jitlab: "
        "install jitlab there, or name `python` to run the program in jitlab's",
        "watch：{python} 不是 jitlab 所在的 Python（{here}），也无法导入 jitlab：请在那里安装 "
        "jitlab，或写 `python`，在 jitlab 所在的 Python 中运行程序",
    ),
    "watch.same_file": _M(
        "{path} is being written by another watch of this program: give this one a file of its own",
        "{path} 正由本程序的另一个 watch 写入：请给这一个另用一个文件",
    ),
    "watch.gone": _M(
        "recording: {name} was deleted while the program ran ({n} call line written to it)",
        "记录文件：{name} 在程序运行期间被删除（曾写入 {n} 行编译记录）",
        "recording: {name} was deleted while the program ran ({n} call lines written to it)",
    ),
    # -- jitlab watch: the fleet view (--metrics-port, --otlp) ---------------------------
    "watch.needs_fleet": _M(
        "watch: {option} needs {package}, which the fleet extra installs: "
        "pip install 'jitlab[fleet]'",
        "watch：{option} 需要 {package}，由 fleet 附加依赖安装：pip install 'jitlab[fleet]'",
    ),
    "watch.cannot_serve": _M(
        "watch: cannot serve metrics at {address}: {error}",
        "watch：无法在 {address} 提供指标：{error}",
    ),
    "watch.port_range": _M(
        "watch: {option} takes a port from 1 to 65535, not {value}",
        "watch：{option} 需要 1 到 65535 之间的端口号，而不是 {value}",
    ),
    "watch.at_least_one": _M(
        "watch: {option} takes a whole number of at least 1, not {value}",
        "watch：{option} 需要不小于 1 的整数，而不是 {value}",
    ),
    "watch.metrics_failed": _M(
        "jitlab: the fleet view's {door} stopped ({error}); the program and its recording go on",
        "jitlab：fleet 视图的 {door} 已停止（{error}）；程序和记录照常继续",
    ),
    "watch.otlp_failed": _M(
        "jitlab: a push of metrics over OTLP failed ({error}); jitlab tries again while the "
        "program runs; the program and its recording go on",
        "jitlab：通过 OTLP 推送指标失败（{error}）；程序运行期间 jitlab 会继续重试，"
        "程序和记录照常继续",
    ),
    "watch.metrics_alone": _M(
        "watch: {option} needs {needs}", "watch：{option} 需要与 {needs} 一起使用"
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
    "recording.no_end": _M(
        "the recording has no end line: the program was killed or ended "
        "with os._exit (or it is still running); its counts are those written before",
        "记录没有结束行：程序被终止或以 os._exit 退出（或仍在运行）；计数为此前写入的部分",
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
    # Qt that cannot load (a bare server lacks the system libraries): jitlab/cli/_qt.py.
    "qt.cannot_load": _M(
        "Qt cannot load here: {error}; `jitlab run`, `watch`, `summary` and `report` need no "
        "window",
        "Qt 在这里无法加载：{error}；`jitlab run`、`watch`、`summary` 和 `report` 不需要窗口",
    ),
    "qt.cannot_load_library": _M(
        "Qt cannot load here: {library} is missing or broken (on Debian/Ubuntu: sudo apt "
        "install {package}); `jitlab run`, `watch`, `summary` and `report` need no window",
        "Qt 在这里无法加载：缺少 {library} 或它已损坏（Debian/Ubuntu 上：sudo apt install "
        "{package}）；`jitlab run`、`watch`、`summary` 和 `report` 不需要窗口",
    ),
    "qt.cannot_load_unknown": _M(
        "Qt cannot load here: {library} is missing or broken (install the package that has "
        "it: apt-file search {library}); `jitlab run`, `watch`, `summary` and `report` need "
        "no window",
        "Qt 在这里无法加载：缺少 {library} 或它已损坏（安装提供它的软件包：apt-file search "
        "{library}）；`jitlab run`、`watch`、`summary` 和 `report` 不需要窗口",
    ),
    "qt.hung": _M("it did not start within {seconds} s", "它在 {seconds} 秒内没有启动"),
    "qt.crashed": _M("it stopped with signal {signal}", "它因信号 {signal} 而停止"),
    "doctor.qt_broken": _M("{version} · cannot load", "{version} · 无法加载"),
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
    # batches of one size, then a last partial batch: pad it up (one compile) or drop it
    "report.buckets.partial": _M(
        "The size of {dim} was {full}, then {partial}, in {compiles}: batches of {full} and a "
        "last partial batch (a dataset that {full} does not divide). Pad the last batch up to "
        "{full} and mask the padding (one compile for both), or drop it (drop_last).",
        "{dim} 的大小先是 {full}，后来是 {partial}，共 {compiles}：{full} 一批，最后一批不满"
        "（数据集不能被 {full} 整除）。把最后一批补齐到 {full} 并用掩码遮住补齐部分（两种大小"
        "只编译一次），或者直接丢掉它（drop_last）。",
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
    "notice.recordings_joined": _M(
        "this file holds {n} recordings one after another (files joined with cat, a "
        "program that watched twice into one file, or one that replaced itself by exec): "
        "their compiles and hits are summed; the header is the first one's",
        "这个文件里有 {n} 段记录，一段接着一段（用 cat 拼起来的文件、向同一个文件记录了两次的"
        "程序、或用 exec 替换了自己的程序）：编译和命中是它们的合计；表头取第一段的",
    ),
    "notice.exec": _M(
        "the program replaced itself by exec at {times}; the recording goes on with the "
        "new program (its compiles are counted again)",
        "程序在 {times} 用 exec 替换了自己；记录接着记下新的程序（它的编译重新计数）",
    ),
    "notice.exec_not_followed": _M(
        "the program replaced itself by exec at {times} with a program jitlab cannot watch "
        "(not a Python that runs jitlab): nothing after that is recorded",
        "程序在 {times} 用 exec 把自己换成了 jitlab 无法记录的程序（不是能运行 jitlab 的 "
        "Python）：此后的一切都没有记录",
    ),
    "notice.other": _M("the recording notes: {notice}", "记录中的提示：{notice}"),
    "watch.notice": _M("jitlab watch: {notice}", "jitlab watch：{notice}"),
    # A JITLAB_* variable whose value jitlab cannot use: said once, the default used.
    "env.ignored": _M(
        "jitlab: warning: ignoring {name}={value}: {expected}; using {default}",
        "jitlab：警告：忽略 {name}={value}：{expected}；改用：{default}",
    ),
    "env.floor_ms": _M("expected a number of milliseconds >= 0", "应为大于等于 0 的毫秒数"),
    "env.floor_default": _M("{ms} ms", "{ms} 毫秒"),
    "env.folder": _M("not a folder", "不是文件夹"),
    "env.shipped": _M("the shipped scenarios", "随 jitlab 发布的场景"),
    "summary.notice": _M("process {index}: {notice}", "进程 {index}：{notice}"),
    "report.warning": _M("Counts may be incomplete:", "计数可能不完整："),
    "report.notice_of": _M("{who}: {notice}.", "{who}：{notice}。"),
}
# Tables of their own, joined here.
for _table in (quiz_words.WORDS, diagnosis_words.WORDS, check_words.WORDS):
    CATALOGUE.update((key, Message(*words)) for key, words in _table.items())


def listeners_removed_text(times: Sequence[float | None], lang: str, n: int | None = None) -> str:
    """The ``listeners_removed`` notices of a recording (their ``t``: seconds into it; ``n``
    how many in all, when only the first few times were kept)."""
    n = len(times) if n is None else n
    shown = [_seconds(t) for t in times[:5]]
    if n > len(shown):
        shown.append("…")
    return say("notice.listeners_removed", lang, n=n, times=listing(shown, lang))


# Notices a watch writes at its end, with a count and the names they are about
# (:class:`jitlab.records.lines.RecordedNotice`): their words take ``n`` and ``detail``.
COUNTED_NOTICES = ("internal_left_out", "jitted_before")


def notice_texts(
    notices: Sequence[tuple[str, float | None]],
    lang: str,
    counts: dict[str, int] | None = None,
    details: dict[str, str] | None = None,
) -> list[str]:
    """What a recording's ``notice`` lines ((notice, t) pairs, in order; ``counts``: how
    many of each in all; ``details``: the names a notice is about) say, one text per kind
    of notice; one a newer jitlab wrote is named as it is."""
    counts = counts or {}
    removed = [t for notice, t in notices if notice == "listeners_removed"]
    n = counts.get("listeners_removed", len(removed))
    texts = [listeners_removed_text(removed, lang, n)] if removed else []
    others = dict.fromkeys(notice for notice, _ in notices if notice != "listeners_removed")
    for notice in others:
        if notice in COUNTED_NOTICES:
            count = counts.get(notice, 1)
            detail = (details or {}).get(notice, "")
            texts.append(say(f"notice.{notice}", lang, n=count, detail=detail))
            continue
        if f"notice.{notice}" not in _SAID_NOTICES:
            texts.append(say("notice.other", lang, notice=notice))
            continue
        # recordings_joined counts the recordings after the first; it says how many in all
        n = counts.get(notice, 1) + (notice == "recordings_joined")
        shown = [_seconds(t) for seen, t in notices if seen == notice][:5]
        times = listing(shown + ["…"] * (n > len(shown)), lang)
        texts.append(say(f"notice.{notice}", lang, n=n, times=times))
    return texts


# The notices said in words of their own (the rest: named as written, "notice.other").
_SAID_NOTICES = ("notice.recordings_joined", "notice.exec", "notice.exec_not_followed")


def _seconds(t: float | None) -> str:
    # "0.1 s" kept on one line (a no-break space): a terminal wraps it nowhere
    return f"{t:.1f}\u00a0s" if t is not None else "?"


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


def incomplete(ended: bool, cut_off: bool, lang: str) -> str:
    """What a recording's reader could not have: ``""`` for one that ended, else that it
    has no end line; and that its last line was cut off mid-write (its bytes not read)."""
    parts = [] if ended else [say("recording.no_end", lang)]
    parts += [say("report.cut_off", lang)] if cut_off else []
    return say("sep.semi", lang).join(parts)


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
