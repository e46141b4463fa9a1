"""The notebook face's own words, in English and Chinese, beside the catalogue they extend.

Everything else it says comes from :mod:`jitlab.records.messages` (the report's and the
command line's words): :func:`say` looks here first, then there. The kitchen's states are the
desktop app's (Chef Wang's kitchen: ``resources/i18n/jitlab_zh_CN.ts``), word for word.
"""

from __future__ import annotations

from typing import Any

from jitlab.records import messages
from jitlab.records.messages import Message as _M
from jitlab.records.messages import language_of

WORDS: dict[str, _M] = {
    # -- the kitchen, as the app's kitchen panel says it -------------------------------------
    "kitchen.idle": _M("Waiting for an order", "等待点单"),
    "kitchen.writing": _M(
        "Writing the script (lowering + compiling)…", "正在写脚本（降级 + 编译）…"
    ),
    "kitchen.rewriting": _M("Writing another script (recompiling)…", "正在另写一份脚本（重编译）…"),
    "kitchen.cooking": _M("Cooking from the new script (running)…", "照新脚本做菜（运行中）…"),
    "kitchen.hit": _M(
        "Served from a script already written (cache hit)", "用已经写好的脚本出餐（缓存命中）"
    ),
    "kitchen.compile": _M("First script written: card #{card}", "第一份脚本写好了：{card} 号卡片"),
    "kitchen.recompile": _M(
        "Re-rehearsed! New card #{card} in the holder", "重新排练了！卡片架上多了 {card} 号卡片"
    ),
    "kitchen.persistent": _M(
        "Script fetched from the archive (persistent cache)", "从档案柜取出脚本（持久缓存）"
    ),
    "kitchen.error": _M("The order failed: see the error", "这单做砸了：请看错误信息"),
    "kitchen.tip": _M(
        "Chef Wang's kitchen. Rehearsal = tracing, script = compiling, card holder = "
        "jit's cache (one card per compiled signature), alarm = a recompile.",
        "王师傅的厨房。排练 = 追踪，脚本 = 编译，卡片架 = jit 的缓存（每个编译过的签名一张卡片），"
        "警报 = 重编译。",
    ),
    # -- the live view ----------------------------------------------------------------------
    "live.title": _M("jitlab · live", "jitlab · 实时"),
    "live.state": _M("{state} · {function} · {age} s ago", "{state} · {function} · {age} 秒前"),
    "live.state_now": _M("{state} · {function}", "{state} · {function}"),
    "live.counts": _M(
        "{calls} seen · {compiles} ({recompiles}) · time lost compiling {lost}",
        "已看到 {calls} · {compiles}（{recompiles}）· 编译耗费 {lost}",
    ),
    "live.chart": _M(
        "Last {window} s: a bar per compile (its height: the time it cost), calls per second "
        "in grey (a watch counts cache hits without timing each one: it keeps the program's "
        "asynchronous dispatch).",
        "最近 {window} 秒：每次编译一根柱（高度：耗费的时间），灰色为每秒调用次数"
        "（监视只计数缓存命中、不逐次计时：它保留程序的异步派发）。",
    ),
    "live.rate": _M("{n} calls/s", "每秒 {n} 次调用"),
    "live.peak_rate": _M("grey: calls per second, peak {rate}", "灰色：每秒调用次数，峰值 {rate}"),
    "live.tallest": _M("tallest bar: {ms}", "最高的柱：{ms}"),
    "live.seconds": _M("{s} s", "{s} 秒"),
    # -- a cell's summary -------------------------------------------------------------------
    "cell.title": _M("jitlab · this cell", "jitlab · 本单元格"),
    # where a function defined in a notebook cell is (IPython's temporary file, named)
    "cell.site": _M("cell [{n}], line {line}", "单元格 [{n}] 第 {line} 行"),
    "cell.watching": _M("jitlab · watching (%jitlab_watch)", "jitlab · 持续监视（%jitlab_watch）"),
    "cell.events_only": _M(
        "Hits of a function jitted before the watch began are not counted ('–'): jit it inside "
        "a %%jitlab cell, or after %jitlab_watch on.",
        "监视开始前就已 jit 的函数不计缓存命中（“–”）：在 %%jitlab 单元格里 jit 它，"
        "或先运行 %jitlab_watch on。",
    ),
    "cell.budget_failed": _M(
        "The compile budget failed: see the error below.", "编译预算未通过：见下方错误信息。"
    ),
    "watch.on": _M(
        "jitlab is watching every cell from now on (a summary after each cell that compiles; "
        "%jitlab_watch off to stop).",
        "jitlab 从现在起监视每个单元格（每个发生编译的单元格之后显示摘要；"
        "%jitlab_watch off 停止）。",
    ),
    "watch.off": _M("jitlab stopped watching.", "jitlab 已停止监视。"),
    "watch.already": _M("jitlab is already watching.", "jitlab 已经在监视。"),
    "watch.not_on": _M("jitlab was not watching.", "jitlab 本来就没有在监视。"),
    "watch.usage": _M(
        "usage: %jitlab_watch on|off [--lang en|zh]", "用法：%jitlab_watch on|off [--lang en|zh]"
    ),
    "usage.lang": _M(
        "--lang {value}: jitlab speaks en or zh; the cell did not run",
        "--lang {value}：jitlab 只会说 en 或 zh；单元格没有运行",
    ),
    "usage.budget": _M(
        "--budget {value}: a budget is a whole number of compiles >= 0; the cell did not run",
        "--budget {value}：预算是 ≥ 0 的编译次数（整数）；单元格没有运行",
    ),
    "usage.refused": _M("{line}; the cell did not run", "{line}；单元格没有运行"),
    # -- rich display of jitlab's objects ---------------------------------------------------
    "probe.title": _M("Probe of {function}", "{function} 的探针"),
    "probe.cards": _M("Card holder", "卡片架"),
    "probe.no_cards": _M("No card yet: nothing compiled.", "还没有卡片：什么都没编译。"),
    "probe.card_head.card": _M("card", "卡片"),
    "probe.card_head.signature": _M("signature", "签名"),
    "probe.card_head.hits": _M("cache hits", "缓存命中"),
    "probe.card_head.cost": _M("cost to write", "编写耗时"),
    "probe.card_head.by": _M("written by call", "由第几次调用写出"),
    "probe.records_dropped": _M(
        "The oldest {n} records were dropped to keep memory bounded (counts stay exact).",
        "为限制内存，最早的 {n} 条记录已丢弃（计数仍然精确）。",
    ),
    "recorder.title": _M("jitlab.watch recording", "jitlab.watch 记录"),
    "recorder.active": _M("(still recording)", "（仍在记录）"),
    "recording.title": _M("Recording {name}", "记录 {name}"),
    "script.title": _M("Script of {function}, card #{card}", "{function} 的脚本，{card} 号卡片"),
    "script.figures": _M("Figures", "数字"),
    "script.source": _M("Source", "源代码"),
    "script.jaxpr": _M(
        "jaxpr (each equation with the line that made it)", "jaxpr（每个方程及产生它的代码行）"
    ),
    "script.texts": _M("StableHLO and optimized HLO", "StableHLO 与优化后的 HLO"),
    "script.unavailable": _M("{part}: {why}", "{part}：{why}"),
    "script.signature": _M("Signature", "签名"),
    "script.unknown": _M("unknown", "未知"),
    # a script's figures, named as the app's script window names them (never the raw keys)
    "figure.equations": _M("jaxpr equations (sub-graphs once)", "jaxpr 方程数（子图只计一次）"),
    "figure.top_level_equations": _M("top-level equations", "顶层方程数"),
    "figure.hlo_instructions": _M("HLO instructions (optimized)", "HLO 指令数（优化后）"),
    "figure.stablehlo_ops": _M("StableHLO operations", "StableHLO 操作数"),
    "figure.flops": _M("flops (XLA's estimate)", "浮点运算次数（XLA 估计）"),
    "figure.transcendentals": _M("transcendentals", "超越函数运算次数"),
    "figure.bytes_accessed": _M("bytes accessed", "访问字节数"),
    "figure.argument_bytes": _M("argument memory", "参数内存"),
    "figure.output_bytes": _M("output memory", "输出内存"),
    "figure.temp_bytes": _M("temporary memory", "临时内存"),
    "figure.generated_code_bytes": _M("generated code", "生成的代码"),
    "figure.trace_ms": _M("trace time (when compiled)", "追踪时间（编译时）"),
    "figure.lower_ms": _M("lower time", "降级时间"),
    "figure.compile_ms": _M("compile time", "编译时间"),
}


def say(key: str, lang: str, /, **fields: Any) -> str:
    """``key`` from this face's words, else from :mod:`jitlab.records.messages`."""
    message = WORDS.get(key)
    if message is None:
        return messages.say(key, lang, **fields)
    return message.template(language_of(lang), fields.get("n")).format(**fields)
