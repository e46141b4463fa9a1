"""What the calls printed (trace time against runtime) and what a side effect left behind."""

from __future__ import annotations

import html

from PySide6.QtWidgets import QTextEdit, QWidget
from superqt.utils import qthrottled

from jitlab.gui.i18n import Retranslating, language
from jitlab.gui.style import fixed_font
from jitlab.gui.views.model import Change, RunState
from jitlab.lab.spec import Text
from jitlab.records.calls import CallRecord

FLUSH_MS = 200  # bound to a run: printed lines appended at most 5 times a second in a flood


def _n(value: object) -> str:
    """A figure as a learner reads it: 12.3 ms, not 12.345678."""
    if isinstance(value, float):
        return f"{value:.1f}" if abs(value) >= 10 else f"{value:.2f}"
    return str(value)


def _join(items: object) -> str:
    return ", ".join(str(i) for i in items) if isinstance(items, list | tuple) else str(items)


def fact_sentences(notes: dict | None, lang: str) -> list[str]:
    """What a scenario noted beside the call, as sentences in ``lang``.

    Notes are the scenario's data (``facts()``); only those a learner can read as a sentence
    are shown, the rest (paths, thresholds, the error view's layers) are left out: a raw
    ``cards_new_functions={…}`` teaches nothing."""
    if not notes:
        return []
    f = {k: v for k, v in notes.items() if v is not None}
    out: list[Text] = []

    def say(en: str, zh: str) -> None:
        out.append(Text(en, zh))

    if "counter" in f:  # side-effects: a Python counter the function bumps
        v = f["counter"]
        say(f"The Python counter now holds {v}.", f"Python 计数器现在是 {v}。")
    if isinstance(f.get("seen"), list):
        n = len(f["seen"])
        say(
            f"The Python list seen holds {n} item{'s' if n != 1 else ''}.",
            f"Python 列表 seen 里有 {n} 项。",
        )
    if "count" in f:
        v = f["count"]
        say(f"The count that came back out of the call: {v}.", f"调用带回来的计数：{v}。")
    if "SCALE" in f:
        v = f["SCALE"]
        say(f"The global SCALE is now {v}.", f"全局变量 SCALE 现在是 {v}。")
    if "scale" in f:
        v = f["scale"]
        say(f"The scale passed in: {v}.", f"传入的 scale：{v}。")
    if "graph_equations" in f:
        v = f["graph_equations"]
        say(f"The traced graph has {v} equations.", f"追踪出的计算图有 {v} 个方程。")
    if "jax_cache_size" in f:
        v = f["jax_cache_size"]
        say(
            f"JAX's own cache holds {v} compiled program{'s' if v != 1 else ''} of this function.",
            f"JAX 自己的缓存里存着这个函数的 {v} 个编译好的程序。",
        )
    if {"epoch", "batch", "rows"} <= f.keys():  # dynamic-shapes: an epoch in batches
        e, b, r = f["epoch"], int(f["batch"]) + 1, f["rows"]
        total = f.get("batches_per_epoch", "?")
        pad = int(f.get("padded_rows") or 0)
        say(
            f"Epoch {e}, batch {b} of {total}: {r} rows"
            + (f", padded with {pad} rows." if pad else "."),
            f"第 {e} 轮，第 {b}/{total} 批：{r} 行" + (f"，补了 {pad} 行。" if pad else "。"),
        )
        dropped = int(f.get("rows_dropped_per_epoch") or 0)
        if dropped:
            say(
                f"{dropped} rows are never trained on in an epoch.",
                f"每轮有 {dropped} 行从未被训练到。",
            )
    if {"arrived", "served", "serving_size"} <= f.keys():  # an inference queue
        a, sv, size = f["arrived"], f["served"], f["serving_size"]
        pad, wait = f.get("padded_rows", 0), f.get("still_waiting", 0)
        say(
            f"{a} requests arrived; {sv} served as a batch of {size} ({pad} padding rows); "
            f"{wait} still waiting.",
            f"来了 {a} 个请求；{sv} 个按大小 {size} 的批次处理（补了 {pad} 行）；"
            f"还有 {wait} 个在等。",
        )
    if {"lengths", "padded_length"} <= f.keys() and isinstance(f["lengths"], list):
        longest, padded = max(f["lengths"], default=0), f["padded_length"]
        tokens = f.get("padding_tokens", 0)
        say(
            f"Longest sentence: {longest} tokens, padded to {padded} ({tokens} padding tokens).",
            f"最长的句子 {longest} 个词元，补齐到 {padded}（补了 {tokens} 个词元）。",
        )
    if "lr_type" in f and "x_dtype" in f:  # recompile-cost: what the loop passed in
        keys = _join(f.get("batch_keys", []))
        say(
            f"This step passed lr as a {f['lr_type']}, x as {f['x_dtype']}, batch keys {keys}.",
            f"这一步传入的 lr 是 {f['lr_type']}，x 是 {f['x_dtype']}，batch 的键是 {keys}。",
        )
    if "cards" in f and not isinstance(f["cards"], list):
        v = f["cards"]
        say(
            f"The training step's card holder has {v} card{'s' if v != 1 else ''}.",
            f"训练步的卡片架上有 {v} 张卡片。",
        )
    made = f.get("cards_new_functions")
    if isinstance(made, dict) and made:
        total = sum(int(n) for n in made.values())
        say(
            f"Cards written for new function objects: {total} so far.",
            f"为新函数对象写下的卡片：目前共 {total} 张。",
        )
    if float(f.get("warmup_total_ms") or 0) > 0:
        sizes = _join(f.get("expected_sizes", []))
        ms = _n(f["warmup_total_ms"])
        say(
            f"The warm-up compiled sizes {sizes} in {ms} ms, before any request.",
            f"预热在任何请求之前，用 {ms} ms 编译了大小 {sizes}。",
        )
    if "request_size_expected" in f and "expected_sizes" in f:
        if f["request_size_expected"]:
            say("This request's size is one the service expects.", "这个请求的大小在服务预期之内。")
        else:
            say(
                "This request's size is not one the service expects.",
                "这个请求的大小不在服务预期之内。",
            )
    if "process_ms" in f:  # the persistent cache: one fresh process per call
        say(
            f"A fresh process made this call in {_n(f['process_ms'])} ms in all.",
            f"一个新进程完成了这次调用，总共 {_n(f['process_ms'])} ms。",
        )
        if "predict_entries" in f:
            n = f["predict_entries"]
            say(
                f"The disk cache holds {n} entr{'ies' if n != 1 else 'y'} for predict.",
                f"磁盘缓存里有 {n} 条 predict 的记录。",
            )
        if f.get("time_saved_ms") is not None:
            ms = _n(f["time_saved_ms"])
            say(
                f"Loading from disk saved {ms} ms against the first compile.",
                f"从磁盘加载比第一次编译省了 {ms} ms。",
            )
    if "layout_arrived" in f:  # sharding: the layout the batch came in, and the one jit saw
        arrived, used = f["layout_arrived"], f.get("layout_used", f["layout_arrived"])
        shard = f.get("shard_shape")
        say(
            f"The batch arrived laid out as {arrived}; jit saw {used}"
            + (f"; each device holds a [{_join(shard)}] shard." if shard else "."),
            f"批次到达时的布局是 {arrived}；jit 看到的是 {used}"
            + (f"；每个设备持有 [{_join(shard)}] 的一块。" if shard else "。"),
        )
        if f.get("ran_on"):  # accelerators, or simulated CPU devices where there is one GPU
            ran_on = str(f["ran_on"])
            say(
                f"The mesh: {ran_on}.",
                "网格：" + ran_on.replace("(simulated)", "（模拟）") + "。",
            )
    return [t.get(lang) for t in out]


# Facts that are a lesson's point (what a side effect left behind): shown after every call.
LESSON_FACTS = ("counter", "seen", "count", "SCALE", "scale")

_SIDE_ERRORS = {
    "cache_error": Text("The disk cache was not used:", "磁盘缓存没有用上："),
    "facts_error": Text("The scenario could not report what it saw:", "场景没能报告它看到的情况："),
}


class OutputView(Retranslating, QTextEdit):
    """What the calls printed, trace-time lines and runtime lines told apart."""

    TRACE = "#b35c00"
    RUNTIME = "#1f7a3a"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("outputView")
        self.setReadOnly(True)
        self.setFont(fixed_font())
        self.lines: list[tuple[int, str, str]] = []  # (call, when, text)
        self._pending: list[str] = []
        self.entries = 0  # entries shown (or about to be): an empty pane is not brought forward
        self._last_facts: set[str] = set()
        self.retranslate()

    NOTE = "#6b6f76"
    WARN = "#b7791f"

    def bind(self, state: RunState) -> None:
        """Follow a run model: what each served call printed or noted."""
        self._flush_later = qthrottled(self.flush, timeout=FLUSH_MS, parent=self)
        state.subscribe(self._changed)

    def _changed(self, change: Change) -> None:
        if change.cleared:
            self.clear_lines()
        for served in change.served:
            if served.record.stdout or served.record.notes:  # printed, or the scenario noted
                self.add(served.record)
        if self._pending:
            self._flush_later()

    def add(self, record: CallRecord) -> None:
        lang = language()
        for key, value in (record.notes or {}).items():
            if key.endswith("_error") and value and len(self._pending) < 500:
                # Something went wrong beside the call (a cache the disk refused…): whole.
                said = _SIDE_ERRORS.get(key)
                self._pending.append(
                    f"<span style='color:{self.WARN}'><b>⚠ #{record.index}</b>&nbsp;&nbsp;"
                    + (f"{html.escape(said.get(lang))} " if said else "")
                    + f"{html.escape(str(value))}</span>"
                )
                self.entries += 1
        # What the scenario observed outside the jitted code (a counter, a list, a cache), as
        # sentences; one that says the same as the call before is not repeated.
        notes = record.notes or {}
        sentences = fact_sentences({k: v for k, v in notes.items() if k not in LESSON_FACTS}, lang)
        fresh = [s for s in sentences if s not in self._last_facts]
        self._last_facts = set(sentences)
        # A side effect's state is the lesson ("still 1 after five calls"): said every call.
        fresh = fact_sentences({k: notes[k] for k in LESSON_FACTS if k in notes}, lang) + fresh
        if fresh and len(self._pending) < 500:
            self._pending.append(
                f"<span style='color:{self.NOTE}'>· #{record.index}&nbsp;&nbsp;"
                f"{html.escape(' '.join(fresh))}</span>"
            )
            self.entries += 1
        for line in record.stdout:
            self.entries += 1
            self.lines.append((record.index, line.when, line.text))
            if len(self._pending) < 500:  # a flood of prints: keep the frame short
                tag = self.tr("trace") if line.when == "trace" else self.tr("runtime")
                color = self.TRACE if line.when == "trace" else self.RUNTIME
                badge = "⚙" if line.when == "trace" else "▶"
                self._pending.append(
                    f"<span style='color:{color}'><b>{badge} #{record.index} {tag}</b></span>"
                    f"&nbsp;&nbsp;{html.escape(line.text)}"
                )

    def flush(self) -> None:
        if self._pending:
            self.append("<br>".join(self._pending))
            self._pending = []

    def clear_lines(self) -> None:
        self.lines = []
        self._pending = []
        self.entries = 0
        self._last_facts = set()
        self.clear()

    def retranslate(self) -> None:
        self.setPlaceholderText(
            self.tr(
                "What the calls print appears here. ⚙ trace: printed while jit traced the "
                "function (happens only when it compiles). ▶ runtime: printed while the "
                "compiled code ran (jax.debug.print)."
            )
        )
        self.setToolTip(
            self.tr(
                "Printed output of the calls: trace-time lines in orange, runtime lines in green."
            )
        )
