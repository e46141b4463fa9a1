"""``%%jitlab`` and ``%jitlab_watch``: a cell, or every cell, run under :func:`jitlab.watch`.

``%%jitlab`` runs its cell inside a watch (no file) and shows, below the cell's own output,
what ``jitlab watch`` prints at the end — per function: programs compiled, recompiles,
cache hits, time lost — with the report's timeline, reasons and signature ledger
(:mod:`jitlab.notebook.render`). ``--budget N`` then fails the cell, with
:class:`~jitlab.watching.budget.CompileBudgetExceeded`'s own message, when the cell compiled
more than ``N`` times; ``--live`` shows the kitchen and a chart while the cell runs
(:mod:`jitlab.notebook.live`), replaced by the summary when it ends.

``%jitlab_watch on`` keeps one watch running across cells and shows the summary of each
cell that compiled something; ``%jitlab_watch off`` ends it.

The cell runs as IPython runs a cell (its transforms, the user's namespace, the value of its
last expression shown as ``Out``), so what it defines stays defined. JAX is imported only
when a cell runs, never by ``%load_ext jitlab``.
"""

from __future__ import annotations

import ast
from typing import Any

from IPython.core import magic_arguments
from IPython.core.error import UsageError
from IPython.core.magic import Magics, cell_magic, line_magic, magics_class
from IPython.display import display

from jitlab.notebook.render import (
    framed,
    in_cells,
    recording_body,
    recording_of,
    recording_text,
)
from jitlab.notebook.words import say
from jitlab.records.messages import language_of


class CellReport:
    """What a watched cell compiled, shown as HTML in a notebook and as text elsewhere."""

    def __init__(
        self, recording: Any, lang: str = "en", title: str | None = None, folded: bool = False
    ) -> None:
        self.lang = language_of(lang)
        self.folded = folded  # no function's details open (the report opens the first)
        self.recording = in_cells(recording, self.lang)  # a cell's functions named by cell
        self.title = title or say("cell.title", self.lang)
        self.note = ""

    def _repr_html_(self) -> str:
        body = recording_body(self.recording, "cell", self.lang, title=self.title)
        if self.folded:
            body = body.replace("<details open>", "<details>")
        if self.note:
            body += f'<p class="bad">{self.note}</p>'
        return framed(body, self.lang)

    def __repr__(self) -> str:
        return recording_text(self.recording, self.title, self.lang)

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(repr(self))


def run_cell_code(shell: Any, cell: str) -> Any:
    """Run ``cell`` in the user's namespace as IPython would; the value of its last
    expression (None when it ends with a statement or a ``;``)."""
    __tracebackhide__ = True
    source = shell.transform_cell(cell)
    tree = shell.compile.ast_parse(source)
    tree = shell.transform_ast(tree)
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr) and not source.rstrip().endswith(";"):
        last = ast.Expression(tree.body.pop().value)
    # Named and cached as IPython names a cell: tracebacks show its lines, and the
    # functions it defines are defined "at" it.
    # IPython numbers the cell running now before it runs (execution_count is already the
    # next one's): its number is the one it cached this cell's text under, the latest.
    cached = getattr(shell.compile, "_filename_map", None)
    numbers = [n for n in cached.values() if isinstance(n, int)] if isinstance(cached, dict) else []
    number = max(numbers, default=shell.execution_count)
    name = shell.compile.cache(source, number, raw_code=cell)
    exec(shell.compile(tree, name, "exec"), shell.user_ns)
    if last is None:
        return None
    return eval(shell.compile(last, name, "eval"), shell.user_ns)


def _checked_lang(value: str) -> str:
    """``en`` or ``zh`` (``zh_CN``… too); any other language is a usage error, said in
    English and Chinese, before the cell runs (never a silent fall back to English)."""
    base = value.lower().replace("-", "_").split("_")[0]
    if base not in ("en", "zh"):
        raise UsageError(
            " / ".join(say("usage.lang", lang, value=repr(value)) for lang in ("en", "zh"))
        )
    return language_of(value)


def _checked_budget(value: str | None, lang: str) -> int | None:
    """``--budget N``: a whole number >= 0, or a usage error before the cell runs."""
    if value is None:
        return None
    try:
        budget = int(value, 10)
    except ValueError:
        budget = -1
    if budget < 0:
        raise UsageError(say("usage.budget", lang, value=repr(value)))
    return budget


def _start_or_refuse(recorder: Any, lang: str) -> None:
    """Start ``recorder``; a JAX jitlab cannot see (outside the window, or failing the
    contract check) is refused in one line before the cell runs, no traceback."""
    from jitlab.probe.contract import JaxContractError

    try:
        recorder.start()
    except JaxContractError as exc:
        raise UsageError(say("usage.refused", lang, line=exc.report.line(lang))) from None


@magics_class
class JitlabMagics(Magics):
    def __init__(self, shell: Any) -> None:
        super().__init__(shell)
        self.watching: Any = None  # the %jitlab_watch recorder
        self.watch_lang = "en"
        self._cell_start: tuple[int, dict[Any, int | None]] | None = None

    @property
    def ip(self) -> Any:
        """The shell these magics belong to."""
        return self.shell

    # -- %%jitlab ---------------------------------------------------------------------------
    @magic_arguments.magic_arguments()
    @magic_arguments.argument(
        "--budget",
        default=None,
        metavar="N",
        help="fail the cell (CompileBudgetExceeded) when it compiles more than N times",
    )
    @magic_arguments.argument(
        "--lang", default="en", help="en or zh: the language of the summary (default en)"
    )
    @magic_arguments.argument(
        "--live",
        action="store_true",
        help="show the kitchen and a chart while the cell runs (needs ipywidgets)",
    )
    @magic_arguments.argument(
        "--fold",
        action="store_true",
        help="every function's details folded under its summary line (none open)",
    )
    @magic_arguments.argument(
        "--include-internal",
        action="store_true",
        help="also count kernels JAX compiled for itself (eager ops)",
    )
    @cell_magic
    def jitlab(self, line: str, cell: str) -> None:
        """Run the cell under jitlab.watch() and show what it compiled, and why."""
        __tracebackhide__ = True
        from jitlab.watching.budget import Budget, CompileBudgetExceeded
        from jitlab.watching.recorder import Recorder

        args = magic_arguments.parse_argstring(self.jitlab, line)
        lang = _checked_lang(args.lang)
        budget = _checked_budget(args.budget, lang)
        recorder = Recorder(None, include_internal=args.include_internal)
        _start_or_refuse(recorder, lang)  # before any widget: a refusal leaves none behind
        live = None
        if args.live:
            from jitlab.notebook.live import LiveView

            try:
                live = LiveView(recorder, lang)
                live.start()
            except BaseException:  # no view: the watch ends with it (jax.jit is JAX's again)
                recorder.stop()
                raise
        value: Any = None
        failure: BaseException | None = None
        try:
            value = run_cell_code(self.ip, cell)
        except BaseException as exc:  # the report still shows what ran; then it is raised
            failure = exc
        finally:
            recorder.stop()
        report = CellReport(recording_of(recorder), lang, folded=args.fold)
        over: CompileBudgetExceeded | None = None
        if budget is not None and failure is None:
            try:
                Budget(budget, recorder, lang).check()
            except CompileBudgetExceeded as exc:
                over = exc
                report.note = say("cell.budget_failed", lang)
        if value is not None and failure is None:
            self.ip.displayhook(value)
        if live is not None:
            live.finish(report)
        else:
            display(report)
        if failure is not None:
            raise failure
        if over is not None:
            raise over

    # -- %jitlab_watch ----------------------------------------------------------------------
    @line_magic
    def jitlab_watch(self, line: str) -> None:
        """%jitlab_watch on|off [--lang en|zh]: watch every cell, with a summary after each
        cell that compiled something."""
        words = line.split()
        lang = self.watch_lang
        if "--lang" in words:
            at = words.index("--lang")
            lang = _checked_lang(words[at + 1] if at + 1 < len(words) else "")
            del words[at : at + 2]
        if words == ["on"]:
            if self.watching is not None:
                print(say("watch.already", lang))
                return
            from jitlab.watching.recorder import Recorder

            recorder = Recorder(None)
            _start_or_refuse(recorder, lang)
            self.watching, self.watch_lang = recorder, lang
            self._cell_start = None
            self.ip.events.register("pre_run_cell", self._pre_run_cell)
            self.ip.events.register("post_run_cell", self._post_run_cell)
            print(say("watch.on", lang))
        elif words == ["off"]:
            if self.watching is None:
                print(say("watch.not_on", lang))
                return
            self.stop_watching()
            print(say("watch.off", lang))
        else:
            print(say("watch.usage", lang))

    def stop_watching(self) -> None:
        recorder, self.watching = self.watching, None
        if recorder is None:
            return
        for event, callback in (
            ("pre_run_cell", self._pre_run_cell),
            ("post_run_cell", self._post_run_cell),
        ):
            if callback in self.ip.events.callbacks[event]:
                self.ip.events.unregister(event, callback)
        recorder.stop()

    def _pre_run_cell(self, info: Any = None) -> None:
        recorder = self.watching
        if recorder is None:
            return
        hits = {key: stats.hits for key, stats in list(recorder.stats.items())}
        self._cell_start = (len(recorder.calls), hits)

    def _post_run_cell(self, result: Any = None) -> None:
        recorder, start = self.watching, self._cell_start
        if recorder is None or start is None:
            return
        calls_before, hits_before = start
        recording = recording_of(recorder)
        new = recording.calls[calls_before:]
        if not any(c.record.kind.compiled for c in new):
            return
        recording.calls = new
        recording.hits = {}
        for key, stats in list(recorder.stats.items()):
            hits = stats.hits
            if hits is None or (not stats.compiles and not hits):
                continue
            before = hits_before.get(key) or 0
            recording.hits[(stats.name, stats.defined_at)] = hits - before
        title = say("cell.watching", self.watch_lang)
        display(CellReport(recording, self.watch_lang, title))
