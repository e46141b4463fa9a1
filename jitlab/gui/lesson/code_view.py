"""The code that runs, the fix as a diff, what the calls printed, and the last error."""

from __future__ import annotations

import difflib
import html
from pathlib import Path

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QFontDatabase,
    QFontMetricsF,
    QPainter,
    QPaintEvent,
    QPalette,
    QTextCursor,
    QTextOption,
)
from PySide6.QtWidgets import QTabWidget, QTextEdit, QVBoxLayout, QWidget
from superqt.utils import CodeSyntaxHighlight, qthrottled

from jitlab.gui.i18n import Retranslating, language, translate
from jitlab.gui.style import format_ms, is_dark
from jitlab.gui.views.model import Change, RunState
from jitlab.gui.views.reasons import error_words
from jitlab.lab.spec import Scenario, Text
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
    return [t.get(lang) for t in out]


# Facts that are a lesson's point (what a side effect left behind): shown after every call.
LESSON_FACTS = ("counter", "seen", "count", "SCALE", "scale")

_SIDE_ERRORS = {
    "cache_error": Text("The disk cache was not used:", "磁盘缓存没有用上："),
    "facts_error": Text("The scenario could not report what it saw:", "场景没能报告它看到的情况："),
}


def _mono(widget: QWidget) -> None:
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    widget.setFont(font)


def source_of(scenario: type[Scenario], variant: str, lang: str = "en") -> str:
    """The scenario's own source for a variant (comments in ``lang`` where the scenario
    translates them), or the reason it could not be read."""
    try:
        return scenario().source(variant, lang) or "# (this scenario shows no code)"
    except KeyboardInterrupt:  # Ctrl-C belongs to the user
        raise
    except BaseException as exc:  # zip, C extension… or a plugin's sys.exit(): not our end
        return f"{UNAVAILABLE}{plugin_error(exc)}"


UNAVAILABLE = "# source unavailable: "


def plugin_error(exc: BaseException) -> str:
    """A plugin's exception in words; SystemExit's own str() is a bare code such as ``3``."""
    if not isinstance(exc, Exception):
        return f"{exc!r} raised by the scenario"
    return f"{type(exc).__name__}: {exc}"


def fix_diff(scenario: type[Scenario], lang: str = "en") -> str:
    """The fix as a unified diff against the pitfall: what to change, nothing else."""
    sources = [source_of(scenario, "pitfall", lang), source_of(scenario, "fix", lang)]
    for text in sources:
        if text.startswith(UNAVAILABLE):  # no diff to make: say why, not "the same code"
            return text
    pitfall, fix = (text.splitlines() for text in sources)
    lines = difflib.unified_diff(pitfall, fix, "pitfall", "fix", n=3, lineterm="")
    return "\n".join(lines) or "# the fix runs the same code"


class CodeText(QTextEdit):
    """Read-only code that wraps at the pane's width with a hanging indent.

    A wrapped line goes on under its own text, ``HANG`` characters further in than the code's
    indentation (deeper than the next block level), after a grey ↪ drawn in the margin, so a
    continuation never reads as a line of code at column 0.
    """

    HANG = 6  # characters, past the line's own indentation
    MARK = "↪"

    def __init__(self, prefix: int = 0, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.prefix = prefix  # characters before the code on each line (a diff's +, - or space)
        self.setReadOnly(True)
        self.setAcceptRichText(False)
        self.setLineWrapMode(QTextEdit.LineWrapMode.WidgetWidth)
        self.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        _mono(self)

    def set_code(self, text: str) -> None:
        self.setPlainText(text)
        self._hang()

    def _hang(self) -> None:
        width = QFontMetricsF(self.font()).horizontalAdvance(" ")
        cursor = QTextCursor(self.document())
        cursor.beginEditBlock()
        block = self.document().begin()
        while block.isValid():
            code = block.text()[self.prefix :]
            lead = self.prefix + len(code) - len(code.lstrip(" "))
            hang = (lead + self.HANG) * width
            form = block.blockFormat()
            form.setLeftMargin(hang)
            form.setTextIndent(-hang)  # the first line at column 0, the rest under ``hang``
            cursor.setPosition(block.position())
            cursor.setBlockFormat(form)
            block = block.next()
        cursor.endEditBlock()

    def continuations(self) -> list[tuple[int, QRectF]]:
        """The wrapped lines: (block number, line rectangle in document coordinates)."""
        out = []
        layout = self.document().documentLayout()
        block = self.document().begin()
        while block.isValid():
            lines = block.layout()
            if lines is not None and lines.lineCount() > 1:
                top = layout.blockBoundingRect(block).topLeft()
                for i in range(1, lines.lineCount()):
                    out.append((block.blockNumber(), lines.lineAt(i).rect().translated(top)))
            block = block.next()
        return out

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        marks = self.continuations()
        if not marks:
            return
        painter = QPainter(self.viewport())
        painter.setPen(self.palette().color(QPalette.ColorRole.PlaceholderText))
        painter.setFont(self.font())
        metrics = QFontMetricsF(self.font())
        dx = -self.horizontalScrollBar().value()
        dy = -self.verticalScrollBar().value()
        for _, rect in marks:
            x = rect.left() - metrics.horizontalAdvance(self.MARK + " ") + dx
            painter.drawText(QPointF(x, rect.top() + metrics.ascent() + dy), self.MARK)
        painter.end()


class CodeView(Retranslating, QWidget):
    """Two tabs: the variant's code, highlighted; the fix as a diff against the pitfall.

    Comments follow the interface language where the scenario translates them
    (``Scenario.code_comments``)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.tabs = QTabWidget(self)
        self.code = CodeText(0, self)
        self.code.setObjectName("codeView")
        self.diff = CodeText(1, self)
        self.diff.setObjectName("diffView")
        self.tabs.addTab(self.code, "")
        self.tabs.addTab(self.diff, "")
        self._highlighters: list[CodeSyntaxHighlight] = []
        self._shown: tuple[type[Scenario], str] | None = None
        self.apply_theme()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.tabs)
        self.retranslate()

    def apply_theme(self) -> None:
        theme = "monokai" if is_dark() else "default"
        self._highlighters = [
            CodeSyntaxHighlight(self.code.document(), "python", theme),
            CodeSyntaxHighlight(self.diff.document(), "diff", theme),
        ]

    def show_scenario(self, scenario: type[Scenario], variant: str) -> None:
        self._shown = (scenario, variant)
        lang = language()
        self.code.set_code(source_of(scenario, variant, lang))
        self.diff.set_code(fix_diff(scenario, lang))

    def retranslate(self) -> None:
        self.tabs.setTabText(0, self.tr("Code that runs"))
        self.tabs.setTabText(1, self.tr("Fix vs pitfall (diff)"))
        self.tabs.setTabToolTip(
            0, self.tr("The source of the current variant, exactly as it runs.")
        )
        self.tabs.setTabToolTip(1, self.tr("What the fix changes, as a diff against the pitfall."))
        if self._shown is not None:  # the comments follow the language
            self.show_scenario(*self._shown)


class OutputView(Retranslating, QTextEdit):
    """What the calls printed, trace-time lines and runtime lines told apart."""

    TRACE = "#b35c00"
    RUNTIME = "#1f7a3a"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("outputView")
        self.setReadOnly(True)
        _mono(self)
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


_RED = "#c0392b"
_GREY = "#6b6f76"
_LABEL = "#2c6fbb"
_TIGHT = "margin-top:0px; margin-bottom:2px;"
_GAP = "margin-top:8px; margin-bottom:1px;"


def _fixed_family() -> str:
    return QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont).family()


def _inline(code: str) -> str:
    """A bit of code inside a line of prose: monospace, escaped."""
    return f"<span style=\"font-family:'{_fixed_family()}'\">{html.escape(code)}</span>"


def _code(text: str) -> str:
    """A block of code or JAX's message: monospace, line breaks kept, long lines wrapped."""
    return (
        f"<p style=\"{_TIGHT} white-space:pre-wrap; font-family:'{_fixed_family()}'\">"
        f"{html.escape(text)}</p>"
    )


class ErrorView(Retranslating, QTextEdit):
    """The last error: a short what / where / why / fix first, the details and JAX's own
    words below, every line wrapped to the pane (it is often only a few lines tall)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("errorView")
        self.setReadOnly(True)
        # Prose in the interface font; only code and JAX's message are monospace (_code).
        self.setLineWrapMode(QTextEdit.LineWrapMode.WidgetWidth)
        self.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.document().setDocumentMargin(4)
        self.record: CallRecord | None = None
        self.retranslate()

    def bind(self, state: RunState) -> None:
        """Follow a run model: the newest error a call raised, or the worker's own failure."""
        state.subscribe(self._changed)

    def _changed(self, change: Change) -> None:
        if change.cleared:
            self.record = None
            self.clear()
        errors = [s.record for s in change.served if s.record.error is not None]
        if errors:
            self.show_error(errors[-1])  # one per frame: the others are in the log
        if change.failure:
            self.show_text(translate("MainWindow", "Internal error"), change.failure)

    def show_error(self, record: CallRecord) -> None:
        self.record = record
        error = record.error
        if error is None:
            return
        esc = html.escape
        params = ", ".join(f"{k}={v}" for k, v in (record.params or {}).items())
        head = self.tr("Call #%1 (%2) raised:").replace("%1", str(record.index))
        head = head.replace("%2", params)
        # The same figure as the call's mark on the chart and its row in the log.
        spent = self.tr("failed after %1").replace("%1", format_ms(record.latency_ms))
        notes = record.notes or {}
        anatomy = notes.get("anatomy") if isinstance(notes.get("anatomy"), dict) else None
        lines = error.message.splitlines()
        headline = (anatomy or {}).get("headline") or (lines[0] if lines else "")
        what = f"<b style='color:{_RED}'>{esc(error.type)}</b>&nbsp; "
        explained = self.explained(record)
        if explained:  # our words first; JAX's own headline kept, word for word, below
            what += f"<b>{esc(explained)}</b><br>{_inline(headline)}"
        else:
            what += f"<b>{esc(headline)}</b>"
        what += f"<span style='color:{_GREY}'> · {esc(spent)}</span>"
        rows = [self._row(self.tr("What"), what)]
        if anatomy is not None:
            rows += self._summary(anatomy)
        # A table: the labels in one column, so a wrapped line stays under its own text.
        out = [f"<table cellspacing='0' cellpadding='1' width='100%'>{''.join(rows)}</table>"]
        if anatomy is not None:
            out.append(self._details(notes))
        raw = esc(self.tr("JAX's message"))
        out.append(
            f"<p style='{_GAP}'><b>{raw}</b>&nbsp;&nbsp;<span style='color:{_GREY}'>"
            f"{esc(head)}</span></p>"
        )
        out.append(_code(error.message))
        self.setHtml("".join(out))

    @staticmethod
    def explained(record: CallRecord) -> str:
        """JAX's headline in the interface language, where it is not English ("" else)."""
        return error_words(record)

    @staticmethod
    def _row(label: str, body: str) -> str:
        """One row of the summary: a short bold label, then its text (which may wrap)."""
        return (
            f"<tr><td style='white-space:nowrap'><b style='color:{_LABEL}'>"
            f"{html.escape(label)}</b>&nbsp;</td><td width='100%'>{body}</td></tr>"
        )

    def _summary(self, a: dict) -> list[str]:
        """Where (the failing line of your code), why (the category), and the usual fix."""
        lang = language()[:2]
        esc = html.escape
        out = []
        stack = a.get("stack") or []
        if stack:
            f = stack[-1]
            place = esc(f"{Path(f['file']).name}:{f['line']} · {f['function']}()")
            code = f["code"].split("  # ")[0]  # the line without its comment (details: whole)
            out.append(self._row(self.tr("Where"), f"{place}&nbsp;&nbsp;{_inline(code)}"))
        why = esc((a.get("category_title") or {}).get(lang, ""))
        ctx = a.get("context") or {}
        if ctx.get("arguments"):
            needed = self.tr("argument(s): %1").replace("%1", ", ".join(ctx["arguments"]))
            why += f"<span style='color:{_GREY}'> · {esc(needed)}</span>"
        out.append(self._row(self.tr("Why"), why))
        out.append(self._row(self.tr("Fix"), esc((a.get("fix") or {}).get(lang, ""))))
        return out

    def _details(self, notes: dict) -> str:
        """The error taken apart in three layers, the eager re-run, the fixed jaxpr."""
        a = notes["anatomy"]
        esc = html.escape
        stack = a.get("stack") or []
        frames = []
        for i, f in enumerate(stack):
            text = f"{Path(f['file']).name}:{f['line']} in {f['function']}: {f['code']}"
            if i == len(stack) - 1:
                frames.append(f"<b style='color:{_RED}'>→ {_inline(text)}</b>")
            else:
                frames.append(f"&nbsp;&nbsp;{_inline(text)}")
        ctx = a.get("context") or {}
        phases = {  # the anatomy's phase, in the interface language
            "tracing": self.tr("while tracing"),
            "before tracing": self.tr("before tracing"),
            "running": self.tr("while running"),
        }
        phase = str(ctx.get("phase") or "")
        context = [esc(f"{phases.get(phase, phase)} {ctx.get('function') or ''}").strip()]
        if ctx.get("location"):
            context[0] += esc(f" ({ctx['location']})")
        if ctx.get("arguments"):
            context.append(
                esc(self.tr("argument(s): %1").replace("%1", ", ".join(ctx["arguments"])))
            )
        if ctx.get("operation"):
            context.append(esc(self.tr("operation: %1").replace("%1", ctx["operation"])))
        values = [
            _inline(v["text"] if v.get("source") == "message" else f"{v['source']}: {v['text']}")
            for v in a.get("abstract_values") or []
        ]
        titles = (
            self.tr("① Python stack — your frames only"),
            self.tr("② Tracing context"),
            self.tr("③ Abstract values"),
            self.tr("The same call under jax.disable_jit()"),
            self.tr("jax.make_jaxpr of the fixed function"),
        )
        out = []
        for title, body in zip(titles, (frames, context, values), strict=False):
            out.append(f"<p style='{_GAP}'><b>{esc(title)}</b></p>")
            out.append(f"<p style='{_TIGHT}'>{'<br>'.join(body) or '-'}</p>")
        eager = notes.get("eager")
        if isinstance(eager, dict):
            out.append(f"<p style='{_GAP}'><b>{esc(titles[3])}</b></p>")
            if eager.get("ok"):
                said = esc(self.tr("Runs without error: the problem is tracing, not the math."))
            else:
                said = esc(f"{eager.get('error_type')}: {eager.get('message') or ''}")
                if eager.get("frame"):
                    said += f"<br><b>→ {_inline(eager['frame'])}</b>"
            out.append(f"<p style='{_TIGHT}'>{said}</p>")
        if notes.get("fixed_jaxpr"):
            out.append(f"<p style='{_GAP}'><b>{esc(titles[4])}</b></p>")
            out.append(_code(notes["fixed_jaxpr"]))
        return "".join(out)

    def show_text(self, title: str, text: str) -> None:
        self.record = None
        self.setHtml(
            f"<p style='{_TIGHT}'><b style='color:{_RED}'>{html.escape(title)}</b></p>{_code(text)}"
        )

    def retranslate(self) -> None:
        self.setPlaceholderText(
            self.tr("No error so far. A call that raises shows its error here.")
        )
        self.setToolTip(self.tr("The last error a call raised."))
        if self.record is not None:  # the labels and the fix follow the language
            self.show_error(self.record)
