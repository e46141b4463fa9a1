"""Is the installed JAX one jitlab can see? The start-up check of jitlab's contract with JAX.

jitlab's answers rest on private JAX names and on the events a compile fires (see
:mod:`jitlab.probe._jax`). On a JAX that moved them, every compile would look like a cache hit:
a confident wrong answer. So before the probe classifies a single call, this check looks at
the installed JAX — its version is inside the supported window, the private names the seam
reads exist, and a tiny known compile (a fresh jitted function called with two shapes, on
the calling thread, through jitlab's own listeners) fires the trace, lower and compile events
named after the function — and :func:`require` raises :class:`JaxContractError` when it does
not. Run once per process (cached); the compile costs a few milliseconds.

The names are checked as strings, without importing the seam: where ``_jax.py`` cannot even
be imported the check still says which name is gone. (It names JAX's private modules only
as text; the seam stays the one module that uses them.)
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.metadata
import re
import threading
from dataclasses import dataclass
from typing import Any, Literal

from jitlab.records import messages

__all__ = [
    "SUPPORTED_FROM",
    "SUPPORTED_UNTIL",
    "ContractItem",
    "ContractReport",
    "JaxContractError",
    "check",
    "require",
]

Status = Literal["ok", "missing", "changed"]

# The JAX minors jitlab is checked on: from 0.6 up to, not including, 0.11.
SUPPORTED_FROM = (0, 6)
SUPPORTED_UNTIL = (0, 13)

# (module under jax._src, attribute path, first JAX version that needs it) — what the seam
# reads. A name needed only from some version on is not asked of older ones (their shim in
# ``_jax.py`` does without it).
_NAMES: tuple[tuple[str, str, tuple[int, int]], ...] = (
    ("config", "explain_cache_misses", (0, 0)),
    ("config", "explain_cache_misses._update_global_hook", (0, 0)),
    ("config", "config_ext.unset", (0, 0)),
    ("config", "disable_jit", (0, 0)),
    ("config", "trace_context", (0, 0)),
    ("config", "trace_context_names", (0, 10)),
    ("monitoring", "_event_duration_secs_listeners", (0, 0)),
    ("monitoring", "_event_listeners", (0, 0)),
    ("source_info_util", "register_exclusion", (0, 0)),
    ("source_info_util", "summarize", (0, 0)),
    ("source_info_util", "user_frame", (0, 0)),
    ("util", "fun_name", (0, 0)),
    ("core", "trace_state_strong_ref", (0, 10)),  # below 0.10: core.trace_ctx (_jax.py)
    ("core", "eval_trace", (0, 0)),
    ("core", "Tracer", (0, 0)),
    ("pjit", "_pjit_call_impl_python", (0, 0)),  # the frame compile events fire under
)


@dataclass(frozen=True)
class ContractItem:
    """One thing jitlab needs of JAX: ``status`` is ``ok``, ``missing`` or ``changed``."""

    name: str
    status: Status
    detail: str = ""  # in English; JAX's own words (an exception) when ``why`` is empty
    why: str = ""  # the catalogue entry ``contract.why.<why>`` that words it in any language
    fields: tuple[tuple[str, str], ...] = ()  # that entry's fields

    def to_json(self) -> dict[str, str]:
        return {"name": self.name, "status": self.status, "detail": self.detail}

    def words(self, lang: str) -> str:
        """The detail in ``lang`` (``en`` or ``zh``)."""
        if not self.why:
            return self.detail
        return messages.say(f"contract.why.{self.why}", lang, **dict(self.fields))


def _item(name: str, status: Status, why: str, **fields: str) -> ContractItem:
    """An item that is off, its detail worded by the catalogue (English kept for JSON)."""
    pairs = tuple(fields.items())
    detail = messages.say(f"contract.why.{why}", "en", **fields)[:300]
    return ContractItem(name, status, detail, why, pairs)


@dataclass(frozen=True)
class ContractReport:
    jax_version: str
    items: tuple[ContractItem, ...]
    compiled: bool  # did the check run its known compile (False: names and version only)

    @property
    def ok(self) -> bool:
        return all(item.status == "ok" for item in self.items)

    @property
    def problems(self) -> tuple[ContractItem, ...]:
        return tuple(item for item in self.items if item.status != "ok")

    def problem_text(self, lang: str = "en") -> str:
        """What is off, in one line (``trace event missing (…); …``)."""
        parts: list[str] = []
        for item in self.problems:
            words = item_words(item.name, lang)
            status = messages.say(f"contract.{item.status}", lang)
            detail = item.words(lang)
            key = "contract.problem" if detail else "contract.problem_bare"
            parts.append(messages.say(key, lang, item=words, status=status, detail=detail))
        return messages.say("contract.separator", lang).join(parts)

    def line(self, lang: str = "en") -> str:
        """The one line every command prints when the check fails."""
        return messages.say(
            "contract.refused",
            lang,
            version=self.jax_version,
            problems=self.problem_text(lang),
            window=supported_text(),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "jax": self.jax_version,
            "ok": self.ok,
            "compiled": self.compiled,
            "items": [item.to_json() for item in self.items],
        }


class JaxContractError(RuntimeError):
    """The installed JAX breaks jitlab's contract: the probe refuses to classify calls
    (a compile it cannot see would be recorded as a cache hit)."""

    def __init__(self, report: ContractReport) -> None:
        super().__init__(report.line())
        self.report = report


# The check's items by their (English, data) names -> their catalogue entries; the private
# names are JAX's own and stay as they are.
_ITEM_WORDS = {
    "JAX version": "contract.item.version",
    "jitlab.probe._jax": "contract.item.seam",
    "trace event": "contract.item.trace",
    "lower event": "contract.item.lower",
    "compile event": "contract.item.compile",
    "cache-miss explanation": "contract.item.explain",
    "jit cache size": "contract.item.cache_size",
    "JAX trace state": "contract.item.trace_state",
}


def item_words(name: str, lang: str) -> str:
    key = _ITEM_WORDS.get(name)
    return messages.say(key, lang) if key else name


def supported_text() -> str:
    last = (SUPPORTED_UNTIL[0], SUPPORTED_UNTIL[1] - 1)
    return f"{SUPPORTED_FROM[0]}.{SUPPORTED_FROM[1]}–{last[0]}.{last[1]}"


def version_tuple(text: str) -> tuple[int, int]:
    """(major, minor) of a version string such as ``0.10.2`` or ``0.11.0.dev20260101``."""
    found = re.match(r"(\d+)\.(\d+)", text)
    return (int(found[1]), int(found[2])) if found else (0, 0)


# -- the check ----------------------------------------------------------------------------------
# Re-entrant: a face that asks again on the thread running the check (a probe made while it
# compiles) is answered, never left waiting on its own thread.
_lock = threading.RLock()
_reports: dict[bool, ContractReport] = {}  # by "compiled": once per process each


def check(*, compile: bool = True) -> ContractReport:
    """The check, run once per process (``compile=False``: the version and the names only,
    without starting JAX's backend). Never raises."""
    with _lock:
        found = _reports.get(compile)
        if found is None:
            found = _reports[compile] = _run(compile)
            if compile:  # the whole check answers the callers of its part too
                _reports[False] = found
        return found


def require(*, compile: bool = True) -> ContractReport:
    """:func:`check`, raising :class:`JaxContractError` when anything is off."""
    report = check(compile=compile)
    if not report.ok:
        raise JaxContractError(report)
    return report


def require_before_counting() -> ContractReport:
    """The whole check, the known compile included, for a face that counts compiles (a
    watch, a budget) — raising :class:`JaxContractError` when anything is off.

    Where JAX's backend is already up the compile runs here. Before it, a compile here would
    start the program's backend ahead of its own ``XLA_FLAGS`` or
    ``jax.distributed.initialize``: the same check then runs in a process of its own, once
    per process — a fork of this one where that is safe (Linux, one thread: ~0.3 s, JAX is
    imported already), else a fresh interpreter of this one (the same executable,
    environment and path: the same JAX; ~2 s, mostly importing JAX)."""
    names = require(compile=False)  # a missing name or a version outside: no need to compile
    if names.compiled:
        return names
    from jitlab.probe import _jax

    if _jax.backends_are_initialized():
        return require(compile=True)
    with _lock:
        report = _elsewhere[0] if _elsewhere else None
        if report is None:
            report = _run_forked() or _run_elsewhere()
            _elsewhere.append(report)
    if not report.ok:
        raise JaxContractError(report)
    return report


_elsewhere: list[ContractReport] = []  # the check as another process ran it (cached)


def require_elsewhere() -> ContractReport:
    """The whole check, its known compile included, in a process of its own, JAX never
    imported here: ``jitlab watch`` before it hands the program to python, whose own
    ``import jax`` is then the first (:mod:`jitlab.cli.launch`): a fork of this process (no
    thread but this one yet), else a fresh interpreter. Where JAX is imported here already
    (the fleet view's imports, a caller's), as :func:`require_before_counting`. Raises
    :class:`JaxContractError`."""
    import sys

    if "jax" in sys.modules:
        return require_before_counting()
    with _lock:
        if not _elsewhere:
            _elsewhere.append(_run_forked() or _run_elsewhere())
        report = _elsewhere[0]
    if not report.ok:
        raise JaxContractError(report)
    return report


def passed_on() -> dict[str, Any] | None:
    """The whole check's report (its known compile included) as this process has it, for
    the image that replaces this one by exec (``jitlab watch`` hands it to the program's own
    interpreter, whose JAX is the same): see :func:`take_over`. None: not run yet."""
    with _lock:
        report = _elsewhere[0] if _elsewhere else _reports.get(True)
    return None if report is None else _report_json(report)


def take_over(data: Any) -> None:
    """The report an earlier image of this process handed on (:func:`passed_on`): the
    compile check is not run again here."""
    with _lock:
        _elsewhere[:] = [_report_from_json(data)]


def _entries_not_kept(jitted: Any, call: Any, trace_name: str) -> bool:
    """After two compiles ``_cache_size()`` is 0: is that size not to be read in this
    process (jax#39078's symptom; on 0.10.2, once a C++ cache holds 8,192 entries, a new
    function's count reads 0 while C++ keeps and runs its entries)? Told by a repeated call:
    it compiled nothing, JAX offered C++ an entry, and the size is still 0. jitlab counts
    compiles by JAX's events, so its counts still hold."""
    import jax
    import numpy as np

    from jitlab.probe import _jax, monitor

    collector = monitor.CallCollector(trace_name, None, False)
    monitor.fastpath_verdict()  # cleared: a verdict after the call is this call's
    previous = monitor.begin(collector)
    collector.user_explain = False
    try:
        with jax.log_compiles(False), jax.disable_jit(False), jax.transfer_guard("allow"):
            call(jitted, np.zeros((2,), np.float32))
    except Exception:
        return False
    finally:
        monitor.end(collector, previous)
    offered = monitor.fastpath_verdict() == _jax.FASTPATH_OFFERED
    return collector.quiet and offered and _jax.cache_size(jitted) == 0


def _report_json(report: ContractReport) -> dict[str, Any]:
    """``report`` whole (each item's catalogue entry and fields too), for another process."""
    items = [
        {"name": i.name, "status": i.status, "detail": i.detail, "why": i.why, "fields": i.fields}
        for i in report.items
    ]
    return {"jax": report.jax_version, "items": items}


def _report_from_json(data: Any) -> ContractReport:
    items = tuple(
        ContractItem(
            str(i["name"]),
            i["status"] if i["status"] in ("ok", "missing", "changed") else "changed",
            str(i["detail"]),
            str(i["why"]),
            tuple((str(k), str(v)) for k, v in i["fields"]),
        )
        for i in data["items"]
    )
    return ContractReport(str(data["jax"]), items, compiled=True)


def _run_forked() -> ContractReport | None:
    """:func:`check` in a forked child of this process; None where a fork is not safe (not
    Linux, other threads running, a watch active: its fork handlers would count the child) or
    the child gave no answer — the caller then runs a fresh interpreter. The child's streams
    go to ``/dev/null`` and it leaves by ``os._exit``: nothing of the parent's (buffered
    output, exit handlers) runs twice. Its backend is its own; the parent's stays unstarted."""
    import json
    import os
    import sys

    monitor = sys.modules.get("jitlab.probe.monitor")  # none before JAX is imported here
    watching = monitor is not None and monitor.watching()
    if not sys.platform.startswith("linux") or threading.active_count() != 1 or watching:
        return None
    try:
        read, write = os.pipe()
    except OSError:
        return None
    try:
        pid = os.fork()
    except OSError:
        os.close(read)
        os.close(write)
        return None
    if pid == 0:  # the child: check, answer, leave
        status = 1
        try:
            os.close(read)
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # GPU memory
            from jitlab.probe import _jax

            _jax.turn_persistent_cache_off()  # the user's cache: nothing read or written
            payload = json.dumps(_report_json(_run(True))).encode("utf-8")
            with os.fdopen(write, "wb") as answer:
                answer.write(payload)
            status = 0
        finally:
            os._exit(status)
    os.close(write)
    with os.fdopen(read, "rb") as answer:
        data = answer.read()
    os.waitpid(pid, 0)
    try:
        return _report_from_json(json.loads(data.decode("utf-8")))
    except Exception:  # the child died (a crash in JAX?): a fresh interpreter says why
        return None


_ELSEWHERE_SOURCE = """
import json, sys
from jitlab.probe import contract
answer = json.dumps(contract._report_json(contract.check()))
sys.stdout.write("\\njitlab-contract " + answer)
"""


def _run_elsewhere() -> ContractReport:
    """:func:`check` in a fresh interpreter; what could not run it is said as an item."""
    import json
    import os
    import subprocess
    import sys

    version = "?"
    with contextlib.suppress(Exception):  # JAX is not imported here for it
        jax = sys.modules.get("jax")
        version = str(jax.__version__) if jax is not None else importlib.metadata.version("jax")
    # the folder above this jitlab package (this file is jitlab/probe/contract.py)
    ours = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ)  # its sitecustomize, JAX_PLATFORMS, XLA_FLAGS: the program's
    env["PYTHONPATH"] = os.pathsep.join(p for p in (env.get("PYTHONPATH"), ours) if p)
    env.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # a GPU's memory stays free
    from jitlab.probe import _jax

    env.update(_jax.PERSISTENT_CACHE_OFF)  # the user's cache: nothing read or written
    try:
        done = subprocess.run(
            [sys.executable, "-c", _ELSEWHERE_SOURCE],
            env=env,
            cwd=ours,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=600,
            check=False,
        )
        out = done.stdout.decode("utf-8", "replace")
        marker = out.rfind("\njitlab-contract ")
        if marker < 0:
            tail = done.stderr.decode("utf-8", "replace").strip().splitlines()
            raise RuntimeError(tail[-1] if tail else f"exit status {done.returncode}")
        return _report_from_json(json.loads(out[marker + len("\njitlab-contract ") :]))
    except Exception as exc:  # never a pass that did not look: said as what is off
        got = f"{type(exc).__name__}: {exc}"[:200]
        item = _item("compile event", "missing", "elsewhere_failed", got=got)
        return ContractReport(version, (item,), compiled=True)


def _run(compile: bool) -> ContractReport:
    try:
        import jax
    except Exception as exc:  # no JAX, or one that cannot import: nothing else to check
        detail = f"{type(exc).__name__}: {exc}"[:200]
        return ContractReport("?", (ContractItem("import jax", "missing", detail),), compile)

    version = str(getattr(jax, "__version__", "?"))
    items = [_version_item(version)]
    items.extend(_name_items(version_tuple(version)))
    seam = _seam_item()
    items.append(seam)
    if seam.status == "ok" and SUPPORTED_FROM <= version_tuple(version) < (0, 8):
        items.extend(_explainer_items())
    if compile:
        try:
            items.extend(_compile_items(seam.status == "ok"))
        except Exception as exc:  # a JAX broken some other way: off, said, never raised
            got = f"{type(exc).__name__}: {exc}"[:200]
            items.append(_item("compile event", "changed", "check_raised", got=got))
    return ContractReport(version, tuple(items), compiled=compile)


def _version_item(version: str) -> ContractItem:
    inside = SUPPORTED_FROM <= version_tuple(version) < SUPPORTED_UNTIL
    if inside:
        return ContractItem("JAX version", "ok")
    return _item("JAX version", "changed", "outside", version=version, window=supported_text())


def _name_items(version: tuple[int, int]) -> list[ContractItem]:
    items: list[ContractItem] = []
    for module_name, path, since in _NAMES:
        if version < since:
            continue
        name = f"jax._src.{module_name}.{path}"
        try:
            value: Any = importlib.import_module(f"jax._src.{module_name}")
        except Exception as exc:
            items.append(ContractItem(name, "missing", f"{type(exc).__name__}: {exc}"[:200]))
            continue
        missing = False
        for part in path.split("."):
            if not hasattr(value, part):
                missing = True
                break
            value = getattr(value, part)
        items.append(ContractItem(name, "missing" if missing else "ok"))
    return items


def _seam_item() -> ContractItem:
    try:
        importlib.import_module("jitlab.probe.monitor")  # imports the seam, _jax.py
    except Exception as exc:
        return ContractItem("jitlab.probe._jax", "changed", f"{type(exc).__name__}: {exc}"[:200])
    return ContractItem("jitlab.probe._jax", "ok")


def _explainer_items() -> list[ContractItem]:
    # Below 0.8 jitlab hands JAX's cache-miss explainer a copy of the cache (_jax.py).
    from jitlab.probe import _jax

    name = "jax._src.pjit._create_pjit_jaxpr explain (thread guard)"
    return [ContractItem(name, "ok" if _jax.EXPLAINER_GUARDED else "changed")]


_CHECK_SOURCE = """
def jitlab_contract_check(x):
    return x * 2 + 1

def call(jitted, x):
    return jitted(x).block_until_ready()
"""


def _compile_items(seam_ok: bool) -> list[ContractItem]:
    """Compile a fresh function twice (two shapes) as a probed call does: through jitlab's
    listeners, on this thread. Each must fire the trace, lower and compile events named after
    the function, and explain the second miss; JAX's cache must then hold two executables."""
    names = ("trace event", "lower event", "compile event", "cache-miss explanation")
    if not seam_ok:
        return [_item(name, "missing", "not_checked") for name in names]
    import jax
    import numpy as np

    from jitlab.probe import _jax, monitor

    monitor.install()
    monitor.revive()  # a program cleared them: back, as its first probed call would do

    class Seeing(monitor.CallCollector):
        """A collector that also keeps every event it is shown (to say what came instead)."""

        def duration(self, event: str, seconds: float, fun_name: str | None) -> None:
            seen.append((event, fun_name))
            super().duration(event, seconds, fun_name)

    # Written as a user's code: JAX explains misses only for calls made outside its own files
    # and the registered exclusions (jitlab's), so the function and its call live in "<check>".
    code: dict[str, Any] = {}
    exec(compile(_CHECK_SOURCE, "<jitlab contract check>", "exec"), code)
    # JAX's own jit: while a watch runs jax.jit is its stand-in, and the check's compile is
    # no compile of the program's (nor a probe of the watch's, which would check again).
    jitted = _jax.JAX_JIT(code["jitlab_contract_check"])
    trace_name = _jax.fun_name(code["jitlab_contract_check"])
    call = code["call"]
    seen: list[tuple[str, str | None]] = []  # every duration event of the calls, for details
    calls: list[Any] = []
    failed: list[BaseException] = []
    # _cache_size() reads 0 in this process whatever was compiled (jax#39078): a cache of jitted
    # functions is full, or JAX offered C++ an entry and C++ kept none.
    not_kept: list[bool] = []

    def two_calls() -> None:
        for size in (2, 3):
            x = np.zeros((size,), np.float32)  # a NumPy array: making it compiles nothing
            collector = Seeing(trace_name, None, False)
            previous = monitor.begin(collector)
            # Leave no trace: the program's log sees neither the check's explanations (passed
            # on only when the user "wants" them) nor its compile lines.
            collector.user_explain = False
            try:
                # As at the top of a program, whatever this thread's settings: a real compile.
                with jax.log_compiles(False), jax.disable_jit(False), jax.transfer_guard("allow"):
                    call(jitted, x)
            except Exception as exc:
                failed.append(exc)
                return
            finally:
                monitor.end(collector, previous)
            calls.append(collector)
        if _jax.cache_size(jitted) == 0:
            full = _jax.jit_function_caches_full()
            not_kept.append(full or _entries_not_kept(jitted, call, trace_name))

    state: list[ContractItem] = []  # JAX's trace state, when it cannot be read
    try:
        at_top = getattr(_jax, "TRACE_STATE", None) is None or (
            _jax.TRACE_STATE.value is _jax.EVAL_TRACE
        )
    except Exception as exc:  # every probed call reads it: off, and said (never raised)
        at_top = False  # the calls on a thread of their own, to check the rest
        got = f"{type(exc).__name__}: {exc}"[:200]
        state.append(_item("JAX trace state", "changed", "trace_state", got=got))
    if at_top:
        with _jax.persistent_cache_writes_off():  # the user's cache holds none of its own
            two_calls()  # on the calling thread, as a probed call runs
    else:  # a Probe made inside a transformation: a trace would stage the calls, not run them

        def two_calls_unwritten() -> None:
            with _jax.persistent_cache_writes_off():
                two_calls()

        helper = threading.Thread(target=two_calls_unwritten, name="jitlab-contract-check")
        helper.start()
        helper.join()
    if failed:
        detail = f"the check's call raised {failed[0]!r}"[:200]
        return [*state, *(ContractItem(name, "changed", detail) for name in names)]

    items = state
    for name, flag, event, expected in (
        ("trace event", "traced", monitor.TRACE_EVENT, trace_name),
        ("lower event", "lowered", monitor.LOWER_EVENT, _jax.jit_event_name(trace_name)),
        ("compile event", "compiled", monitor.COMPILE_EVENT, _jax.jit_event_name(trace_name)),
    ):
        if all(getattr(call, flag) for call in calls):
            items.append(ContractItem(name, "ok"))
            continue
        fired = sorted({repr(fun) for ev, fun in seen if ev == event and fun})
        unnamed = any(ev == event and not fun for ev, fun in seen)
        if fired:  # the event came, named otherwise: jitlab could not tell it was ours
            got = ", ".join(fired)[:150]
            items.append(_item(name, "changed", "renamed", event=event, got=got, expected=expected))
        elif unnamed:  # JAX <= 0.5: compile events carry no function name at all
            items.append(_item(name, "changed", "unnamed", event=event, expected=expected))
        else:
            items.append(_item(name, "missing", "never_fired", event=event, expected=expected))
    if calls[1].explanations:
        items.append(ContractItem("cache-miss explanation", "ok"))
    else:
        items.append(_item("cache-miss explanation", "missing", "no_explanation"))
    entries = _jax.cache_size(jitted)
    if entries == 2 or (entries == 0 and any(not_kept)):
        items.append(ContractItem("jit cache size", "ok"))
    else:
        items.append(_item("jit cache size", "changed", "cache_size", got=str(entries)))
    return items
