"""One test per private JAX behaviour jitlab relies on (``jitlab/probe/_jax.py``).

Each runs real JAX. After a JAX upgrade the test named for the behaviour that changed fails;
fix ``_jax.py`` (and only it) until these pass again.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import io
import json
import logging
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from registered_dataclasses import FIELDS

from jitlab.probe import _jax, _jax_programs, explain, monitor
from jitlab.records.changes import ChangeKind

pytestmark = pytest.mark.slow

HERE = Path(__file__).resolve()
JAX = _jax.VERSION  # each version-dependent test states what this JAX does


@pytest.fixture
def events() -> Iterator[list[tuple[str, str | None, int]]]:
    """(event, fun_name, thread id) of every duration event while the test runs."""
    seen: list[tuple[str, str | None, int]] = []

    def listener(event: str, duration: float, **kwargs: Any) -> None:
        seen.append((event, kwargs.get("fun_name"), threading.get_ident()))

    jax.monitoring.register_event_duration_secs_listener(listener)
    try:
        yield seen
    finally:
        _jax.unregister_duration_listener(listener)


@pytest.fixture
def explained() -> Iterator[list[logging.LogRecord]]:
    """Cache-miss explanations logged on this thread, with JAX's explanations on for it."""
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    handler = Keep(logging.DEBUG)
    loggers = [logging.getLogger(name) for name in _jax.EXPLAINING_LOGGERS]
    for logger in loggers:
        logger.addHandler(handler)
    previous = _jax.EXPLAIN.swap_local(True)
    try:
        yield records
    finally:
        _jax.EXPLAIN.set_local(previous)
        for logger in loggers:
            logger.removeHandler(handler)


def _named(seen: list[tuple[str, str | None, int]], *names: str) -> list[tuple[str, str | None]]:
    return [(event, name) for event, name, _ in seen if name in names]


# -- monitoring events ----------------------------------------------------------------------
def test_trace_lower_compile_events_fire_with_fun_name_on_the_calling_thread(events) -> None:
    def contract_f(x):
        return x * 2

    jitted = jax.jit(contract_f)
    out: list[int] = []

    def work() -> None:
        jitted(jnp.ones(3)).block_until_ready()
        out.append(threading.get_ident())

    worker = threading.Thread(target=work)
    worker.start()
    worker.join()
    jit_name = _jax.jit_event_name("contract_f")
    assert jit_name == "jit(contract_f)"
    mine = [e for e in events if e[1] in ("contract_f", jit_name)]
    assert [(e, n) for e, n, _ in mine] == [
        (_jax.TRACE_EVENT, "contract_f"),
        (_jax.LOWER_EVENT, jit_name),
        (_jax.COMPILE_EVENT, jit_name),
    ]
    assert {thread for _, _, thread in mine} == {out[0]}  # the calling thread, inside the call
    assert _jax.trace_event_name(jit_name) == "contract_f"


def test_an_in_memory_cache_hit_fires_no_event(events) -> None:
    jitted = jax.jit(lambda x: x + 1)
    x = jnp.ones(3)
    jitted(x)
    events.clear()
    jitted(x)
    assert events == []


def test_pmap_events_are_named_after_jax_inner_fun(events) -> None:
    def contract_pmapped(x):
        return x + 1

    pmapped = jax.pmap(contract_pmapped)
    pmapped(jnp.ones((1, 3)))
    names = {name for _, name, _ in events}
    if JAX < (0, 8):  # a C++ PmapFunction: events named after the function; not probed
        assert _jax.is_legacy_pmap(pmapped)
        assert {"contract_pmapped", "pmap(contract_pmapped)"} <= names
        return
    assert not _jax.is_legacy_pmap(pmapped)
    # jit(shard_map(...)) of JAX's inner function: call_wrapped on 0.8, _fun from 0.9
    assert ("call_wrapped" if JAX < (0, 9) else "_fun") == _jax.PMAP_TRACE_NAME
    assert _jax.PMAP_TRACE_NAME in names
    assert _jax.jit_event_name(_jax.PMAP_TRACE_NAME) in names
    assert "contract_pmapped" not in names
    assert _jax.is_pmap_code(pmapped.__code__.co_filename)


@pytest.mark.skipif(JAX < (0, 8), reason="pmap is a C++ PmapFunction below 0.8 (not probed)")
def test_a_pmap_compile_event_can_reach_the_function_pmap_maps() -> None:
    def contract_mapped(x):
        return x * 5

    found: list[Any] = []
    pmap_compile = _jax.jit_event_name(_jax.PMAP_TRACE_NAME)

    def listener(event: str, duration: float, **kwargs: Any) -> None:
        if event == _jax.COMPILE_EVENT and kwargs.get("fun_name") == pmap_compile:
            found.append(_jax.pmap_user_function(sys._getframe(1)))

    jax.monitoring.register_event_duration_secs_listener(listener)
    try:
        jax.pmap(contract_mapped)(jnp.ones((1, 4)))
    finally:
        _jax.unregister_duration_listener(listener)
    assert found == [contract_mapped]


PERSISTENT = """
import sys, jax, jax.numpy as jnp
from jitlab.probe import _jax
jax.config.update("jax_compilation_cache_dir", sys.argv[1])
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
seen = []
jax.monitoring.register_event_listener(lambda e, **k: seen.append(("event", e, None)))
jax.monitoring.register_event_duration_secs_listener(
    lambda e, d, **k: seen.append(("duration", e, k.get("fun_name"))))
f = jax.jit(lambda x: jnp.sin(x) * 2)
f(jnp.ones(5)).block_until_ready()
jax.clear_caches()
seen.clear()
f(jnp.ones(5)).block_until_ready()
assert ("event", _jax.PERSISTENT_HIT_EVENT, None) in seen, seen
assert ("duration", _jax.PERSISTENT_LOAD_EVENT, None) in seen, seen
print("ok")
"""


def test_a_persistent_cache_load_fires_cache_hits_and_retrieval_time(tmp_path) -> None:
    # A process of its own: JAX sets its persistent cache up once per process.
    script = tmp_path / "persistent.py"
    script.write_text(PERSISTENT)
    done = subprocess.run(
        [sys.executable, str(script), str(tmp_path / "cache")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


EXPLAINED = """
import json, logging, re, sys
import jax, jax.numpy as jnp
if sys.argv[1] == "jitlab":
    from jitlab.probe import _jax, monitor
    monitor.install()
words = []
class Kept(logging.Handler):
    def emit(self, record):
        words.append(re.sub(r"id=[0-9]+", "id=N", record.getMessage()))
logging.getLogger("jax").addHandler(Kept())
jax.jit(lambda m, v: jnp.linalg.solve(m, v) + 1)(jnp.eye(3), jnp.ones(3))  # explanations off
jax.config.update("jax_explain_cache_misses", True)
def a(x): return x + 1
def b(x): return x * 2
jax.jit(a)(1.0); jax.jit(b)(1.0); jax.jit(a)(jnp.ones(3))
for i in range(3):
    jax.jit(lambda x: x - i)(1.0)
def yes(x): return x + 1
def no(x): return x - 1
jax.jit(lambda p, x: jax.lax.cond(p, yes, no, x))(True, 1.0)
jax.jit(yes)(1.0)
jnp.sin(jnp.ones(7) * 2)
jax.jit(jax.grad(lambda x: jnp.sin(x) * 2))(1.0)
def c(x): return jax.lax.scan(lambda s, y: (s + y, y), x, jnp.ones(3))[0]
jax.jit(c)(1.0); jax.jit(c)(jnp.ones(2))
jax.jit(lambda m, v: jnp.linalg.solve(m, v))(jnp.eye(2), jnp.ones(2))
read = _jax._TRACED.complete if sys.argv[1] == "jitlab" else None
print(json.dumps({"words": words, "read": read}))
"""


def test_from_0_10_a_first_miss_is_explained_in_jaxs_words_with_no_keys_listed(tmp_path):
    # jitlab's gate (_jax._gate) has JAX's explainer explain a function no miss named before
    # with no keys: JAX's words then come from the function and its debug_info alone, and
    # JAX's bookkeeping of call sites (its "re-defined repeatedly" hint) is kept. The same
    # program, with and without jitlab's listeners, logs the same words; and the gate read
    # every call of trace_to_jaxpr it met (jit, cond, scan, grad, a linear solve whose
    # function is made by a call: noted from JAX's list, quietly while explanations are off;
    # fresh partials).
    if JAX < (0, 10):
        pytest.skip("below 0.10 JAX keeps each function's keys apart: no listing to spare")
    script = tmp_path / "explained.py"
    script.write_text(EXPLAINED)
    runs = {}
    for mode in ("plain", "jitlab"):
        done = subprocess.run(
            [sys.executable, str(script), mode], capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, done.stderr[-3000:]
        runs[mode] = json.loads(done.stdout.strip().splitlines()[-1])
    plain, watched = runs["plain"], runs["jitlab"]
    assert len(plain["words"]) >= 12
    assert sum("never seen function" in w for w in plain["words"]) >= 8
    assert sum("re-defined repeatedly" in w for w in plain["words"]) >= 2
    assert watched["words"] == plain["words"]
    assert watched["read"] is True


# -- function names -------------------------------------------------------------------------
class _Scaler:
    def __call__(self, x):
        return x * 3


def _add(a, x):
    return x + a


@pytest.mark.parametrize(
    "fun",
    [lambda x: x - 1, functools.partial(_add, 2.0), _Scaler()],
    ids=["lambda", "partial", "callable"],
)
def test_fun_name_is_the_name_in_jits_trace_event(events, fun) -> None:
    name = _jax.fun_name(fun)
    jax.jit(fun)(jnp.ones(7))
    assert (_jax.TRACE_EVENT, name) in _named(events, name)
    assert (_jax.COMPILE_EVENT, _jax.jit_event_name(name)) in _named(
        events, _jax.jit_event_name(name)
    )


# -- cache-miss explanations ------------------------------------------------------------------
def test_explain_cache_misses_logs_tracing_cache_miss_through_a_known_logger(explained) -> None:
    def contract_explained(x):
        return x - 1

    jitted = jax.jit(contract_explained)
    jitted(jnp.ones(3))
    jitted(jnp.ones(4))  # a new shape: JAX explains the miss
    misses = [r for r in explained if "contract_explained" in r.getMessage()]
    assert len(misses) == 2, [r.getMessage() for r in explained]
    for record in misses:
        assert record.levelno == logging.WARNING
        assert record.getMessage().startswith("TRACING CACHE MISS")
        assert _jax.CACHE_MISS_MARKER in record.getMessage().upper()
        assert record.name in _jax.EXPLAINING_LOGGERS
    # the module that noticed the miss: pjit up to 0.8, partial_eval from 0.9
    expected = "jax._src.pjit" if JAX < (0, 9) else "jax._src.interpreters.partial_eval"
    assert misses[0].name == expected
    assert "now f32[4] and before f32[3]" in misses[1].getMessage()
    # 0.6–0.8 write the trace time and "* key with different …" blocks; 0.9+ do not
    old_format = " ms because:" in misses[1].getMessage()
    assert old_format is (JAX < (0, 9))
    assert ("* key with different input types:" in misses[1].getMessage()) is (JAX < (0, 9))


def test_below_0_8_the_explainer_reads_a_copy_of_the_cache_another_thread_adds_to(
    explained,
) -> None:
    # JAX < 0.8 walks the live cache while it explains; another thread's compile inserting a
    # key then raises inside JAX. jitlab's guard (_jax.guard_explainer) hands it a copy. The
    # other thread is simulated deterministically: the insert happens during the walk.
    if JAX >= (0, 8):
        assert not _jax.EXPLAINER_GUARDED  # JAX copies the keys itself from 0.8
        return
    from jax._src import pjit

    assert _jax.EXPLAINER_GUARDED
    memoized = pjit._create_pjit_jaxpr
    cells = dict(zip(memoized.__code__.co_freevars, memoized.__closure__, strict=True))
    guard, fun_caches = cells["explain"].cell_contents, cells["fun_caches"].cell_contents
    assert guard.__wrapped__ is pjit.explain_tracing_cache_miss
    diff = pjit.diff_tracing_cache_keys
    intruders: list[tuple[dict, object]] = []

    def diff_while_another_thread_compiles(*args: Any) -> Any:
        if not intruders:  # into every function's cache: the one being walked is among them
            for cache in list(fun_caches.values()):
                intruders.append((cache, key := object()))
                cache[key] = None  # what another thread's compile would do, mid-walk
        return diff(*args)

    def contract_guarded(x):
        return x * 3

    jitted = jax.jit(contract_guarded)
    jitted(jnp.ones(2))
    pjit.diff_tracing_cache_keys = diff_while_another_thread_compiles
    try:
        cells["explain"].cell_contents = guard.__wrapped__  # JAX's own: the race hits
        with pytest.raises(RuntimeError, match="changed size during iteration"):
            jitted(jnp.ones(3))
        for cache, key in intruders:
            cache.pop(key, None)
        intruders.clear()
        cells["explain"].cell_contents = guard  # jitlab's: the same walk, on a copy
        assert float(jitted(jnp.ones(4))[0]) == 3.0
        assert intruders, "the simulated thread did not insert"
    finally:
        cells["explain"].cell_contents = guard
        pjit.diff_tracing_cache_keys = diff
        for cache, key in intruders:
            cache.pop(key, None)
    texts = [r.getMessage() for r in explained if "contract_guarded" in r.getMessage()]
    assert any("now f32[4] and before f32[2]" in text for text in texts), texts


def test_explain_state_has_thread_local_and_global_slots() -> None:
    for method in ("swap_local", "set_local", "get_local", "get_global", "set_global"):
        assert callable(getattr(_jax.EXPLAIN, method)), method
    assert _jax.EXPLAIN.get_local() is _jax.UNSET  # no thread-local value unless set
    previous = _jax.EXPLAIN.swap_local(True)
    try:
        assert previous is _jax.UNSET
        assert _jax.EXPLAIN.get_local() is True
        assert _jax.EXPLAIN.value is True
        other: list[Any] = []
        thread = threading.Thread(target=lambda: other.append(_jax.EXPLAIN.get_local()))
        thread.start()
        thread.join()
        assert other == [_jax.UNSET]  # another thread does not see it
    finally:
        _jax.EXPLAIN.set_local(previous)
    assert _jax.EXPLAIN.get_local() is _jax.UNSET  # set_local(UNSET) removes the value
    before = _jax.EXPLAIN.get_global()
    jax.config.update("jax_explain_cache_misses", not before)
    try:
        assert _jax.EXPLAIN.get_global() is (not before)  # the public switch is the global
    finally:
        jax.config.update("jax_explain_cache_misses", before)


def test_a_programs_explain_update_runs_the_states_global_hook() -> None:
    seen: list[Any] = []
    unhook = _jax.hook_explain_updates(seen.append)
    before = _jax.EXPLAIN.get_global()
    try:
        jax.config.update("jax_explain_cache_misses", not before)  # the program's update
        _jax.EXPLAIN.set_global(before)  # jitlab's own: no hook
    finally:
        unhook()
        jax.config.update("jax_explain_cache_misses", before)
    assert seen == [not before]


def test_persistent_cache_writes_are_raised_to_warning_by_explain() -> None:
    # The texts compiler.py / compilation_cache.py log at WARNING only while explaining.
    assert _jax_programs.raised_by_explain(
        "jax._src.compilation_cache", "Writing jit_f to persistent compilation cache with key 'k'"
    )
    assert _jax_programs.raised_by_explain(
        "jax._src.compiler", "Not writing persistent cache entry for 'jit_f' because it took < 0s"
    )
    assert not _jax_programs.raised_by_explain(
        "jax._src.compiler", "Persistent compilation cache hit for 'jit_f' with key 'k'"
    )
    source = "\n".join(
        inspect.getsource(module)
        for module in (
            __import__("jax._src.compiler", fromlist=["x"]),
            __import__("jax._src.compilation_cache", fromlist=["x"]),
        )
    )
    assert "Writing %s to persistent compilation cache" in source
    assert "if config.explain_cache_misses.value" in source


def test_clear_event_listeners_rebinds_the_listener_lists() -> None:
    # In a process of its own: clearing here would drop other tests' listeners.
    code = (
        "import jax\n"
        "from jitlab.probe import _jax\n"
        "held = (_jax.duration_listeners(), _jax.event_listeners())\n"
        "f = lambda *a, **k: None\n"
        "jax.monitoring.register_event_duration_secs_listener(f)\n"
        "assert f in held[0]\n"
        "jax.monitoring.clear_event_listeners()\n"
        "assert _jax.duration_listeners() is not held[0]\n"
        "assert _jax.event_listeners() is not held[1]\n"
        "jax.monitoring.register_event_duration_secs_listener(f)\n"
        "assert f in _jax.duration_listeners()\n"
        "print('ok')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=HERE.parents[2],
    )
    assert done.stdout.strip() == "ok", done.stderr


def test_source_exclusion_points_explanations_past_excluded_files(explained) -> None:
    monitor.install()  # registers jitlab's engine folders as excluded

    def contract_excluded(x):
        return x * 5

    from jitlab.probe.probe import Probe

    probe = Probe(jax.jit(contract_excluded))
    probe(jnp.ones(2))
    probe(jnp.ones(3))
    text = "\n".join(r.getMessage() for r in explained if "contract_excluded" in r.getMessage())
    assert f"at {HERE}:" in text  # this file's line, not the probe's
    assert "probe.py" not in text.split("defined at")[0]


def test_traceback_exclusion_leaves_a_folder_out_of_jaxs_filtered_traceback(tmp_path) -> None:
    import importlib.util
    import os
    import traceback

    folder = tmp_path / "hidden"
    folder.mkdir()
    (folder / "contract_hidden.py").write_text("def fail(x):\n    raise ValueError('no')\n")
    spec = importlib.util.spec_from_file_location("contract_hidden", folder / "contract_hidden.py")
    assert spec is not None and spec.loader is not None
    hidden = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hidden)

    def contract_traced(x):
        return hidden.fail(x)

    def files() -> list[str]:
        with pytest.raises(ValueError) as info:
            jax.jit(contract_traced)(jnp.ones(2))
        return [frame.filename for frame in traceback.extract_tb(info.value.__traceback__)]

    assert any("contract_hidden" in name for name in files())  # shown until registered
    _jax.register_traceback_exclusion(str(folder) + os.sep)
    shown = files()
    assert not any("contract_hidden" in name for name in shown)
    assert str(HERE) in shown  # the caller's line and the traced function's stay


def test_jax_jit_is_jaxs_own_function_where_jax_defines_it() -> None:
    assert _jax.JAX_JIT is jax.jit  # no stand-in in this process now

    def contract_own(x):
        return x + 3

    assert float(_jax.JAX_JIT(contract_own)(jnp.ones(()))) == 4.0


def test_summarize_source_info_names_file_line_and_function() -> None:
    def contract_source(x):
        return jnp.sin(x)

    line = inspect.getsourcelines(contract_source)[1] + 1
    eqn = jax.make_jaxpr(contract_source)(jnp.ones(2)).jaxpr.eqns[0]
    text = _jax.summarize_source_info(eqn.source_info)
    assert text.startswith(f"{HERE}:{line}:") and text.endswith("contract_source)")


# -- config states ----------------------------------------------------------------------------
def test_disable_jit_value_is_this_threads() -> None:
    assert _jax.DISABLE_JIT.value is False
    other: list[bool] = []
    with jax.disable_jit():
        assert _jax.DISABLE_JIT.value is True
        thread = threading.Thread(target=lambda: other.append(_jax.DISABLE_JIT.value))
        thread.start()
        thread.join()
    assert other == [False]
    assert _jax.DISABLE_JIT.value is False


def test_trace_context_changes_under_default_matmul_precision() -> None:
    before = _jax.trace_context()
    names = tuple(_jax.trace_context_names())
    assert isinstance(before, tuple) and len(names) == len(before)
    with jax.default_matmul_precision("highest"):
        inside = _jax.trace_context()
    assert len(inside) == len(before)
    changed = [names[i] for i, (a, b) in enumerate(zip(inside, before, strict=True)) if a != b]
    assert len(changed) == 1 and "matmul_precision" in changed[0]
    assert _jax.trace_context() == before


def test_backends_are_initialized_after_a_computation() -> None:
    from jax._src import xla_bridge

    assert callable(xla_bridge.backends_are_initialized)  # not the fallback
    jnp.ones(1).block_until_ready()
    assert _jax.backends_are_initialized() is True


# -- private attributes of jitted objects -------------------------------------------------------
def test_cache_size_counts_executables() -> None:
    jitted = jax.jit(lambda x: x * 4)
    size = _jax.cache_size_method(jitted)
    assert size is not None and size() == 0
    jitted(jnp.ones(3))
    assert size() == 1
    jitted(jnp.ones(3))  # a hit
    assert size() == 1
    jitted(jnp.ones(4))  # a new signature
    assert size() == 2 == _jax.cache_size(jitted)
    jax.clear_caches()
    assert size() == 0
    assert _jax.cache_size_method(lambda x: x) is None and _jax.cache_size(len) == -1


def test_two_jits_of_one_function_share_one_cache() -> None:
    def contract_shared(x):
        return x + 3

    first, second = jax.jit(contract_shared), jax.jit(contract_shared)
    first(jnp.ones(3))
    assert _jax.cache_size(second) == 1  # jitlab's cache_identity relies on it


def test_jit_compiles_a_committed_array_apart_and_shares_one_executable_for_the_rest(
    events,
) -> None:
    # signature.leaf_key keys a committed array on (aval, sharding) and every other leaf on
    # its abstract value alone: JAX's public `committed` flag is part of its cache key, and
    # one executable serves an uncommitted array, a NumPy array and a Python scalar alike.
    def contract_committed(x):
        return x * 2

    jit_name = _jax.jit_event_name("contract_committed")

    def compiles() -> int:
        return sum(e == (_jax.COMPILE_EVENT, jit_name) for e in _named(events, jit_name))

    jitted = jax.jit(contract_committed)
    x = jnp.ones(3)
    committed = jax.device_put(x, jax.devices()[0])
    assert not x.committed and committed.committed
    for value in (x, committed, x, np.ones(3, np.float32), committed):
        jitted(value)
    assert compiles() == 2  # the uncommitted and the committed array: two executables
    scalar = jax.jit(contract_committed)
    weak = jax.jit(lambda: 1.5)()
    assert not weak.committed and weak.aval == jax.typeof(1.5)
    scalar(1.5)
    scalar(weak)  # a weak-typed uncommitted array: the Python scalar's executable
    assert compiles() == 3
    read: list[object] = []

    def read_flag(v):
        try:
            read.append(v.committed)
        except Exception as error:  # a tracer has no flag: keyed on its abstract value
            read.append(type(error))
        return v

    jax.jit(read_flag)(x)
    assert len(read) == 1 and isinstance(read[0], type) and issubclass(read[0], Exception)


def test_jit_info_holds_normalised_static_arguments() -> None:
    def contract_static(x, n):
        return x * n

    info = _jax.jit_info(jax.jit(contract_static, static_argnames="n"))
    assert tuple(info.static_argnums) == (1,) and tuple(info.static_argnames) == ("n",)
    assert "static_argnums" in info._fields  # read by value in wrappers._options_text
    info = _jax.jit_info(jax.jit(contract_static, static_argnums=1))
    assert tuple(info.static_argnames) == ("n",)
    assert _jax.jit_info(contract_static) is None


def test_equinox_filter_jit_keeps_its_jax_jit_in_cached() -> None:
    eqx = pytest.importorskip("equinox")

    @eqx.filter_jit
    def contract_eqx(x):
        return x + 1

    inner = _jax.equinox_inner_jit(contract_eqx)
    assert _jax.cache_size(inner) == 0
    contract_eqx(jnp.ones(3))
    assert _jax.cache_size(inner) == 1


def test_nnx_jit_keeps_its_jax_jit_in_jitted_fn() -> None:
    nnx = pytest.importorskip("flax.nnx")

    @nnx.jit
    def contract_nnx(x):
        return x + 1

    assert _jax.is_nnx_jit(contract_nnx)
    inner = _jax.nnx_inner_jit(contract_nnx)
    contract_nnx(jnp.ones(3))
    assert _jax.cache_size(inner) == 1


def test_nnx_jits_inner_jax_jit_holds_the_static_arguments() -> None:
    # nnx.jit keeps no static_argnames of its own: jitlab reads them off its jax.jit, which
    # resolved them against the user's signature (the function it traces wraps it), and
    # nnx.jit_partial's, which counts positions of its own call (the bound list first).
    nnx = pytest.importorskip("flax.nnx")

    def contract_static(model, x, n):
        return x * n

    for graph in (True, False):
        wrapped = nnx.jit(contract_static, static_argnames="n", graph=graph)
        info = _jax.jit_info(_jax.nnx_inner_jit(wrapped))
        assert (tuple(info.static_argnums), tuple(info.static_argnames)) == ((2,), ("n",))
    model = nnx.Linear(2, 3, rngs=nnx.Rngs(0))
    wrapped = nnx.jit_partial(contract_static, model, static_argnames="n", graph=False)
    info = _jax.jit_info(_jax.nnx_inner_jit(wrapped))
    assert (tuple(info.static_argnums), tuple(info.static_argnames)) == ((2,), ("n",))
    assert wrapped(jnp.ones(3), n=2).shape == (3,)  # n by keyword: static, as JAX binds it


# -- JAX's frames during a compile --------------------------------------------------------------
def test_a_compile_event_fires_under_pjit_impl_and_jits_cache_miss_frames() -> None:
    found: dict[str, Any] = {}

    def contract_frames(x, n):
        return x * n

    def listener(event: str, duration: float, **kwargs: Any) -> None:
        if event != _jax.COMPILE_EVENT or kwargs.get("fun_name") != "jit(contract_frames)":
            return
        frame = sys._getframe(1)
        while frame is not None:
            jaxpr = _jax.compiling_jaxpr(frame)
            if jaxpr is not None and "jaxpr" not in found:
                found["jaxpr"] = jaxpr
            call = _jax.jit_call_in_frame(frame)
            if call is not None and "call" not in found:
                found["call"] = call
            frame = frame.f_back

    jax.monitoring.register_event_duration_secs_listener(listener)
    try:
        x = jnp.ones(2)
        jax.jit(contract_frames, static_argnames="n")(x, n=3)
    finally:
        _jax.unregister_duration_listener(listener)
    name, source = found["jaxpr"]
    line = inspect.getsourcelines(contract_frames)[1]
    assert name == "contract_frames" and source == f"contract_frames at {HERE}:{line}"
    fun, jit_info, args, kwargs = found["call"]
    assert fun is contract_frames and tuple(jit_info.static_argnames) == ("n",)
    assert args == (x,) and kwargs == {"n": 3}


def test_an_aot_compile_fires_under_mesh_computation_compile_naming_its_function() -> None:
    # docs/aot.md: jax.jit(f).trace(...).lower().compile() compiles with no jaxpr through
    # _pjit_call_impl_python: MeshComputation.compile's compile_args name the function.
    found: list[tuple[str | None, str | None]] = []

    def contract_aot(x, y):
        return 2 * x + y

    def listener(event: str, duration: float, **kwargs: Any) -> None:
        if event != _jax.COMPILE_EVENT or kwargs.get("fun_name") != "jit(contract_aot)":
            return
        frame = sys._getframe(1)
        while frame is not None:
            assert _jax.compiling_jaxpr(frame) is None
            named = _jax.aot_compiling(frame)
            if named is not None:
                found.append(named)
            frame = frame.f_back

    jax.monitoring.register_event_duration_secs_listener(listener)
    try:
        jax.jit(contract_aot).trace(3, 4).lower().compile()
    finally:
        _jax.unregister_duration_listener(listener)
    line = inspect.getsourcelines(contract_aot)[1]
    assert found == [("contract_aot", f"contract_aot at {HERE}:{line}")]


def test_transformations_are_read_off_the_functions_jax_returns() -> None:
    # jax.grad(f) is grad_f (api.py) under the api_boundary wrapper; grad_f holds a
    # value_and_grad_f of its own, vmap_f and fun_remat the function in the cell ``fun``.
    def contract_f(x):
        return jnp.sin(x).sum()

    cases = {
        (): [contract_f, jax.custom_jvp(contract_f), jax.jit(contract_f)],
        ("grad",): [jax.grad(contract_f), jax.grad(contract_f, has_aux=False)],
        ("value_and_grad",): [jax.value_and_grad(contract_f)],
        ("vmap",): [jax.vmap(contract_f)],
        ("checkpoint",): [jax.checkpoint(contract_f)],
        ("vmap", "grad"): [jax.vmap(jax.grad(contract_f))],
        ("grad", "checkpoint"): [jax.grad(jax.checkpoint(contract_f))],
        ("jacobian", "jacobian"): [jax.hessian(contract_f)],
    }
    for layers, funs in cases.items():
        for fun in funs:
            assert _jax.transformations_of(fun) == layers, (fun, layers)


def test_private_jax_is_used_only_through_this_module() -> None:
    """``jax._src`` is imported nowhere but the seam (``_jax.py`` and its second half,
    ``_jax_programs.py``) in jitlab or the built-in scenarios."""
    root = HERE.parents[2]
    offenders = [
        str(path.relative_to(root))
        for folder in ("jitlab", "scenarios")
        for path in (root / folder).rglob("*.py")
        if path.name not in ("_jax.py", "_jax_programs.py")
        and "jax._src" in path.read_text(encoding="utf-8")
        # the start-up self-check names the seam's private names as strings, to check them
        and path.relative_to(root).as_posix() != "jitlab/probe/contract.py"
    ]
    assert offenders == []


# -- what differs between versions (each test says what the running JAX does) -------------------
def test_trace_context_names_are_jaxs_from_0_10_and_found_per_state_before() -> None:
    from jax._src import config

    names = _jax.trace_context_names()
    assert len(names) == len(_jax.trace_context())
    probed = _jax._probed_context_names()
    if JAX < (0, 10):
        assert not hasattr(config, "trace_context_names")
        assert names == probed
    else:
        native = tuple(config.trace_context_names())
        assert names == native
        # where the probe names an entry, it names it as JAX does (never a wrong name)
        assert all(p in ("", n) for p, n in zip(probed, native, strict=True))
    assert "jax_default_matmul_precision" in names and "jax_enable_x64" in names
    assert _jax.trace_context() == tuple(config.trace_context())  # the probe put all back


def test_an_old_explanation_names_a_context_entry_by_its_position(explained) -> None:
    from jitlab.probe import explain

    def contract_context(x):
        return x @ x

    jitted = jax.jit(contract_context)
    jitted(jnp.ones((2, 2)))
    with jax.default_matmul_precision("float32"):
        jitted(jnp.ones((2, 2)))
    text = [r.getMessage() for r in explained if "contract_context" in r.getMessage()][-1]
    position = _jax.trace_context_names().index("jax_default_matmul_precision")
    if JAX < (0, 9):
        assert f"[{position}]: now float32 and before None" in text
    elif JAX < (0, 10):  # no bullet at all: JAX says only that the context differs
        assert "Tracing context doesn't match" in text and "differs:" not in text
    else:
        assert "* jax_default_matmul_precision differs: now float32 and before None" in text
    changes = [c for c in explain.parse(text) if c.kind.value == "tracing_context"]
    if (0, 9) <= JAX < (0, 10):
        assert [c.path for c in changes] == [""]
    else:
        assert [(c.path, c.before, c.after) for c in changes] == [
            ("jax_default_matmul_precision", "None", "float32")
        ]


def test_user_frame_takes_a_traceback_from_0_7() -> None:
    assert _jax._USER_FRAME_TAKES_TRACEBACK is (JAX >= (0, 7))

    def contract_frame(x):
        return jnp.cos(x)

    eqn = jax.make_jaxpr(contract_frame)(jnp.ones(2)).jaxpr.eqns[0]
    found = _jax.user_source(eqn.source_info)
    assert found is not None and found[0] == str(HERE) and found[2].endswith("contract_frame")


def test_the_threads_trace_is_a_config_state_from_0_10() -> None:
    from jax._src import core

    assert hasattr(core, "trace_state_strong_ref") is (JAX >= (0, 10))
    if JAX < (0, 10):
        assert core.trace_ctx.trace is _jax.EVAL_TRACE is _jax.TRACE_STATE.value


def test_a_callable_objects_events_are_unnamed_wrapped_up_to_0_8(events) -> None:
    jax.jit(_Scaler())(jnp.ones(5))
    expected = "<unnamed wrapped function>" if JAX < (0, 9) else "<unnamed function>"
    assert _jax.fun_name(_Scaler()) == expected
    assert (_jax.TRACE_EVENT, expected) in _named(events, expected)


def test_hlo_computations_list_their_instructions_from_0_10() -> None:
    compiled = jax.jit(lambda x: jnp.sin(x) * 2).lower(jnp.ones(3)).compile()
    opcodes = _jax.hlo_opcodes(compiled)
    if JAX < (0, 10):  # HloComputation has no instructions(): counted from the text
        assert opcodes is None
    else:
        assert opcodes is not None and any("kSin" in ops for ops in opcodes)


def test_a_partition_spec_is_written_the_same_on_every_version() -> None:
    spec = jax.sharding.PartitionSpec("x", None)
    assert str(spec) == ("PartitionSpec('x', None)" if JAX < (0, 9) else "P('x', None)")
    assert _jax.spec_text(spec) == "P('x', None)"


def test_unregistering_a_duration_listener_is_public_from_0_8() -> None:
    assert hasattr(jax.monitoring, "unregister_event_duration_listener") is (JAX >= (0, 8))
    seen: list[str] = []

    def listener(event: str, duration: float, **kwargs: Any) -> None:
        seen.append(event)

    jax.monitoring.register_event_duration_secs_listener(listener)
    _jax.unregister_duration_listener(listener)
    assert listener not in _jax.duration_listeners()
    jax.jit(lambda x: x - 9)(jnp.ones(2))
    assert seen == []


def test_the_version_is_inside_the_window() -> None:
    assert (0, 6) <= JAX[:2] <= (0, 12)
    if JAX >= (0, 11):  # 0.11 and 0.12 require Python 3.12 or newer
        assert sys.version_info >= (3, 12)
    assert _jax._version_tuple("0.12.0.1") == (0, 12, 0)
    assert _jax._version_tuple("0.10.2") == (0, 10, 2)
    assert _jax._version_tuple("0.9.0rc1") == (0, 9, 0)


def test_from_0_10_jitlab_can_put_off_the_tracing_cache_explainer() -> None:
    # 0.10: JAX's tracing-cache explainer sits in a closure cell of pe.trace_to_jaxpr's cache;
    # once jitlab's listeners are installed the cell holds jitlab's wrapper around JAX's own
    # (see _jax.defer_explanations). Elsewhere there is no such cell and nothing is wrapped.
    monitor.install()
    cell = _jax._tracing_explainer_cell()
    if JAX < (0, 10):
        assert cell is None
        return
    from jax._src.interpreters import partial_eval as pe

    assert cell is not None
    assert cell.cell_contents.__wrapped__ is pe.explain
    assert _jax.defer_explanations(monitor._deferral_sink, monitor.EXPLAIN_AT_ONCE)  # idempotent
    assert cell.cell_contents.__wrapped__ is pe.explain  # not wrapped twice


def test_from_0_10_jaxs_own_kernels_never_reach_the_tracing_explainer(explainer_handed) -> None:
    # 0.10: before calling its explainer JAX lists every key of its tracing cache (all
    # functions'), ~1 µs a key, only for its explainer to return at once when the function
    # is defined in JAX's own files. jitlab's gate on JAX's switch (_jax._gate_switch) skips
    # both for those; a user's function is explained exactly as before.
    found = _jax._tracing_explainer()
    assert found is not None
    assert "getattr" in found[0].__code__.co_names  # the gated switch is in place
    previous = _jax.EXPLAIN.swap_local(True)
    try:
        jnp.sin(jnp.ones(17, jnp.float32) * 3.0)  # JAX's kernels, traced for a new shape

        def mine(x):
            return x * 3

        jax.jit(mine)(jnp.ones(17))
    finally:
        _jax.EXPLAIN.set_local(previous)
    reached = [name for name, _ in explainer_handed]
    assert reached == ["mine"], reached


def test_from_0_10_a_miss_the_gate_cannot_read_is_left_to_jax_and_noted(
    explainer_handed, monkeypatch
) -> None:
    # Whatever goes wrong in jitlab's gate (here: JAX's source cannot be read), the program's
    # call runs, JAX lists its keys and explains as without jitlab, and jitlab's explainer
    # notes the function from that list (so a later miss of it is never taken for a first).
    def unreadable(filename: str) -> dict:
        raise RuntimeError(f"cannot read {filename}")

    def unread(x):
        return x * 5

    monkeypatch.setattr(_jax, "_trace_calls", unreadable)
    previous = _jax.EXPLAIN.swap_local(True)
    try:
        assert float(jax.jit(unread)(2.0)) == 10.0
    finally:
        _jax.EXPLAIN.set_local(previous)
    # (JAX's own kernels traced inside reach it too: nothing was read, JAX says nothing of them)
    listed = [keys for name, keys in explainer_handed if name == "unread"]
    assert len(listed) == 1 and listed[0] >= 1  # JAX's whole list, as without jitlab
    assert unread in _jax._TRACED.seen


def test_every_jitted_call_c_plus_plus_does_not_run_reaches_the_python_dispatch_hook() -> None:
    # A watched hit counts itself a hit when nothing marked monitor.SEEN during the call
    # (standin.WatchedFunction.__call__): that is true only if every call C++'s fast path
    # does not run (a miss, tracers, any trace or transformation around it) reaches
    # _jax.hook_python_dispatch's callback, and a hit never does.
    reached: list[str] = []

    def mine(x):
        return x * 2

    f = jax.jit(mine)
    x = jnp.ones(3)
    unhook = _jax.hook_python_dispatch(lambda: reached.append("python"))
    assert unhook is not None
    try:

        def calls(thunk) -> int:
            reached.clear()
            thunk()
            return len(reached)

        assert calls(lambda: f(x)) >= 1  # the first call: a miss
        assert calls(lambda: f(x)) == 0  # a hit: C++ ran it
        inside = {
            "grad around it": lambda: jax.grad(lambda y: (f(x) * y).sum())(1.0),
            "vmap of it": lambda: jax.vmap(f)(jnp.ones((2, 3))),
            "vmap around it": lambda: jax.vmap(lambda y: f(x) * y)(jnp.ones(2)),
            "an outer jit's trace": lambda: jax.jit(lambda y: f(x) + y)(1.0),
            "make_jaxpr": lambda: jax.make_jaxpr(lambda: f(x))(),
            "eval_shape": lambda: jax.eval_shape(lambda: f(x)),
            "a scan body": lambda: jax.lax.scan(
                lambda c, _: (c + f(x).sum(), None), 0.0, None, length=2
            ),
            "lower": lambda: f.lower(x),
        }
        for where, thunk in inside.items():
            thunk()  # JAX's own caches warm: what is left is this call's dispatch
            assert calls(thunk) >= 1, where
        assert calls(lambda: f(x)) == 0  # still a hit

        # A host callback keeps every call off the fast path: its print is the probe's to
        # catch (monitor._python_dispatch routes stdout there, never on a hit).
        def talks(y):
            jax.debug.print("y {}", y[0])
            return y + 1

        g = jax.jit(talks)
        with contextlib.redirect_stdout(io.StringIO()):
            g(x).block_until_ready()
            assert calls(lambda: g(x).block_until_ready()) >= 1
            assert calls(lambda: g(x).block_until_ready()) >= 1
    finally:
        unhook()
    reached.clear()
    jax.jit(mine)(jnp.ones(4))
    assert reached == []  # unhooked


def test_disable_jit_changes_reach_the_hook_on_every_thread_and_globally() -> None:
    # Under jax.disable_jit C++ calls the Python function itself, not cache_miss: the watch's
    # fast path closes through _jax.hook_disable_jit instead.
    seen: list[bool] = []
    state = _jax.DISABLE_JIT
    jaxs_own = (state._update_thread_local_hook, state._update_global_hook)  # 0.6–0.7: JAX's
    unhook = _jax.hook_disable_jit(lambda: seen.append(bool(state.value)))
    try:
        with jax.disable_jit():
            pass
        assert seen == [True, False]
        seen.clear()

        def in_thread() -> None:
            with jax.disable_jit():
                pass

        worker = threading.Thread(target=in_thread)
        worker.start()
        worker.join()
        assert seen == [True, False]
        seen.clear()
        jax.config.update("jax_disable_jit", True)
        jax.config.update("jax_disable_jit", False)
        assert seen == [True, False]
    finally:
        jax.config.update("jax_disable_jit", False)
        unhook()
    seen.clear()
    with jax.disable_jit():
        pass
    assert seen == []
    assert (state._update_thread_local_hook, state._update_global_hook) == jaxs_own


def test_a_donated_array_used_again_is_refused_by_cpp_up_to_0_10_and_by_python_after() -> None:
    # What a watched call of it costs depends on where JAX refuses it: C++, before any
    # Python dispatch (ValueError; filed with 0 ms) up to 0.10, JAX's Python dispatch
    # (RuntimeError; timed as any dispatched call) from 0.11.
    f = jax.jit(lambda x: x + 1, donate_argnums=0)
    x = jnp.ones(3)
    f(x).block_until_ready()
    if not x.is_deleted():
        pytest.skip("this backend kept the donated buffer")
    reached: list[str] = []
    unhook = _jax.hook_python_dispatch(lambda: reached.append("python"))
    assert unhook is not None
    try:
        with pytest.raises(ValueError if JAX < (0, 11) else RuntimeError, match="deleted"):
            f(x)
    finally:
        unhook()
    assert bool(reached) == (JAX >= (0, 11)), reached


def test_a_traced_program_is_read_through_its_equations_on_every_version() -> None:
    # jitlab reads a program's equations as ``.eqns`` of what ``trace().jaxpr`` gives and of
    # each sub-program in an equation's params: a ClosedJaxpr (with ``eqns``) up to 0.10; from
    # 0.11 ClosedJaxpr is merged into Jaxpr (``.jaxpr`` a legacy accessor), 0.12 drops the alias.
    from jax import core as jax_core

    program = (
        jax.jit(lambda x: jax.lax.cond(x.sum() > 0, jnp.sin, jnp.cos, x)).trace(jnp.ones(3)).jaxpr
    )
    assert program.eqns and all(hasattr(eqn, "params") for eqn in program.eqns)
    (cond,) = [e for e in program.eqns if str(e.primitive) == "cond"]
    assert all(hasattr(branch, "eqns") for branch in cond.params["branches"])
    if JAX >= (0, 11):
        assert type(program).__name__ == "Jaxpr"
    else:
        assert type(program).__name__ == "ClosedJaxpr"
    if JAX >= (0, 12):
        assert not hasattr(jax_core, "ClosedJaxpr") or jax_core.ClosedJaxpr is type(program)


# JAX 0.8 warns that make_mesh's default axis_types will change (0.9 made it Explicit);
# the test keeps each version's own default, as the code it checks sees it.
@pytest.mark.filterwarnings("ignore:The default axis_types will change:DeprecationWarning")
def test_entering_set_mesh_is_read_as_from_no_mesh_on_every_version(explained) -> None:
    # JAX names the mesh context outside ``jax.set_mesh`` ``None`` up to 0.10 and an empty
    # ``AbstractMesh((), axis_types=())`` from 0.11; both are read as no mesh.
    if not hasattr(jax, "set_mesh"):
        pytest.skip("no jax.set_mesh on this JAX")
    mesh = jax.make_mesh((1,), ("x",))

    def contract_mesh(x):
        return x * 2

    f = jax.jit(contract_mesh)
    f(jnp.ones(2))
    with jax.set_mesh(mesh):
        f(jnp.ones(2))
    (text,) = [
        m
        for m in (r.getMessage() for r in explained)
        if "contract_mesh" in m and "never seen" not in m
    ]
    if (0, 9) <= JAX < (0, 10):  # "Tracing context doesn't match": no name, no values
        (change,) = explain.parse(text)
        assert change.kind is ChangeKind.TRACING_CONTEXT and change.before is None, text
        return
    mesh_changes = [c for c in explain.parse(text) if c.kind is ChangeKind.MESH_CONTEXT]
    assert mesh_changes, text
    assert mesh_changes[0].before is None and mesh_changes[0].after == "mesh(x=1)", text
    if JAX >= (0, 11):
        assert "AbstractMesh((), axis_types=())" in text


def test_jit_says_why_it_kept_no_fast_path_entry() -> None:
    # slow-dispatch (jax#39289): a hit of a function with host callbacks runs in Python every
    # time; _jax.hook_fastpath_verdict hears JAX refuse it the fast path (its executable has
    # effects), and hears it offer C++ an entry for a plain function (kept: later hits are C++).
    verdicts: list[str] = []

    def printing(x):
        jax.debug.print("x {}", x)
        return x + 1

    def plain(x):
        return x + 1

    f, g = jax.jit(printing), jax.jit(plain)
    x = jnp.ones(3)
    unhook = _jax.hook_fastpath_verdict(verdicts.append)
    assert unhook is not None
    try:
        g(x)
        assert verdicts[-1] == _jax.FASTPATH_OFFERED and g._cache_size() == 1
        verdicts.clear()
        g(x)
        assert verdicts == []  # a hit C++ ran: no decision made
        f(x)
        for _ in range(3):
            verdicts.clear()
            f(x)  # a hit, yet JAX decides again, each time: refused, for its effects
            assert verdicts == [_jax.FASTPATH_EFFECTS]
    finally:
        unhook()
    verdicts.clear()
    f(x)
    assert verdicts == []  # unhooked: JAX's own function is back


def test_jit_caches_of_functions_have_a_size_and_a_capacity() -> None:
    # jax#39078: a full C++ cache of jitted functions makes _cache_size() read 0 for every new
    # function; _jax.jit_function_caches_full reads each cache's size() and capacity().
    from jax._src import pjit

    for name in ("_cpp_pjit_cache_fun_only", "_cpp_pjit_cache_explicit_attributes"):
        cache = getattr(pjit, name)
        assert cache.capacity() == 8192 and 0 <= cache.size() < 8192, name
    assert _jax.jit_function_caches_full() is False  # this process keeps far fewer alive


def test_a_call_with_effects_leaves_its_thread_tokens_until_effects_barrier() -> None:
    # _jax.effect_tokens: a jitted call with host callbacks (or ordered effects) leaves this
    # thread a token per device in JAX's thread-local set, replaced by the next such call's,
    # kept until jax.effects_barrier() (which waits for them) takes them; a call with no
    # effects leaves none. The probe waits for the tokens its call added (monitor.
    # wait_for_effects): its callbacks, on a runtime thread, have run when they are ready.
    assert _jax.EFFECT_TOKENS_READ
    ran: list[float] = []

    @jax.jit
    def plain(x):
        return x + 1

    @jax.jit
    def printing(x):
        jax.debug.callback(lambda v: ran.append(float(v)), x.sum())
        return x + 1

    @jax.jit
    def ordered(x):
        jax.debug.print("ordered {}", x.sum(), ordered=True)
        return x

    x = jnp.ones(3)
    jax.effects_barrier()
    plain(x).block_until_ready()
    assert _jax.effect_tokens() == ()
    printing(x).block_until_ready()
    first = _jax.effect_tokens()
    assert first and all(hasattr(token, "block_until_ready") for token in first)
    printing(x).block_until_ready()
    second = _jax.effect_tokens()
    assert len(second) == len(first) and not any(t is f for t in second for f in first)
    for token in second:
        token.block_until_ready()
    assert ran == [3.0, 3.0]
    elsewhere: list[tuple[object, ...]] = []
    thread = threading.Thread(target=lambda: elsewhere.append(_jax.effect_tokens()))
    thread.start()
    thread.join()
    assert elsewhere == [()]  # another thread's set is its own
    ordered(x).block_until_ready()
    assert len(_jax.effect_tokens()) > len(second)  # and one for the ordered effect
    jax.effects_barrier()
    assert _jax.effect_tokens() == ()


# -- issue 50: what the rules read of JAX ------------------------------------------------------
def test_a_callable_objects_name_is_the_unnamed_marker() -> None:
    # wrappers.function_name names such an object by its class where fun_name says this.
    assert _jax.fun_name(_Scaler()) == _jax.UNNAMED


def test_jax_clear_caches_empties_a_registered_cache_first() -> None:
    told: list[int] = []
    assert _jax.on_clear_caches(lambda: told.append(1))
    jax.clear_caches()
    assert told == [1]


def test_a_jit_objects_clear_cache_is_a_python_function_hooked_for_every_jit() -> None:
    cleared: list[Any] = []
    unhook = _jax.hook_clear_cache(cleared.append)
    assert unhook is not None
    try:
        f = jax.jit(lambda x: x + 1)
        f(jnp.ones(3))
        assert f._cache_size() == 1
        f.clear_cache()
        assert cleared == [f] and f._cache_size() == 0  # JAX's own clear still ran
        g = jax.jit(lambda x: x - 1)  # a jit made after the hook: hooked too
        g.clear_cache()
        assert cleared == [f, g]
    finally:
        unhook()
    jax.jit(lambda x: x).clear_cache()
    assert len(cleared) == 2  # unhooked: JAX's own again


def test_a_compile_after_the_call_says_which_program_jax_makes_of_it() -> None:
    # transforms.backward_compile: the transpose (grad, vjp) and the linear part of
    # jax.linearize's function, applied after the call returned; neither for a plain call.
    f = jax.jit(lambda x: jnp.sum(jnp.sin(x) * x))
    seen: list[str | None] = []

    def listener(event: str, duration: float, **kwargs: Any) -> None:
        if event == _jax.COMPILE_EVENT and kwargs.get("fun_name") == "jit(<lambda>)":
            seen.append(_jax.compiled_after_call(sys._getframe(1)))

    jax.monitoring.register_event_duration_secs_listener(listener)
    try:
        x = jnp.ones(3)
        f(x)
        _, f_lin = jax.linearize(f, x)
        f_lin(jnp.ones(3))
        jax.grad(f)(x)
    finally:
        _jax.unregister_duration_listener(listener)
    assert seen[0] is None and "linear" in seen and seen[-1] == "transpose"
    assert seen.index("linear") < len(seen) - 1


def test_jax_shares_its_cache_between_equal_functions_while_the_first_lives() -> None:
    # wrappers.FunctionKey: JAX's weakref_lru_cache keys on a weak reference, equal while
    # both functions live and compare equal; the entries go with the function that made them.
    class Model:
        def apply(self, x):
            return x * 2

    model = Model()
    compiled: list[str] = []

    def listener(event: str, duration: float, **kwargs: Any) -> None:
        if event == _jax.COMPILE_EVENT and kwargs.get("fun_name") == "jit(apply)":
            compiled.append(event)

    jax.monitoring.register_event_duration_secs_listener(listener)
    try:
        first = jax.jit(model.apply)
        first(jnp.ones(3))
        jax.jit(model.apply)(jnp.ones(3))  # an equal bound method, the first alive: shared
        assert len(compiled) == 1
        del first
        jax.jit(model.apply)(jnp.ones(3))  # the first gone, its entries with it
        assert len(compiled) == 2
    finally:
        _jax.unregister_duration_listener(listener)


def test_jax_explains_a_miss_with_a_pytree_difference_before_a_types_one(explained) -> None:
    # diff.closeness ranks earlier programs as pe.diff_tracing_cache_keys does: trace
    # context, then input pytree (static data), then input types.
    class Node:
        def __init__(self, w, tag):
            self.w, self.tag = w, tag

    jax.tree_util.register_pytree_node(
        Node, lambda n: ((n.w,), n.tag), lambda tag, kids: Node(kids[0], tag)
    )
    f = jax.jit(lambda n: n.w.sum())
    f(Node(jnp.ones(3), "a"))
    f(Node(jnp.ones(4), "b"))
    explained.clear()
    f(Node(jnp.ones(4), "a"))  # types differ from the first, the tag from the second
    words = "\n".join(r.getMessage() for r in explained)
    assert (JAX >= (0, 9)) == _jax.RANKS_KEYS_BY_PART
    if _jax.RANKS_KEYS_BY_PART:  # the pytree's key, though both differ in one thing
        assert "pytree" in words and "input types" not in words
    else:  # the smallest total difference; the two tie, and JAX lists both
        assert "Several previous keys are closest" in words


def test_jax_explains_a_miss_with_the_smallest_pjit_size_before_0_9(explained) -> None:
    # diff.size_before_0_9 counts as pjit.diff_tracing_cache_keys (0.6-0.8): a weak type
    # and a static value (1 + 1) are closer than a weak type and two arguments passed by
    # keyword (1 + the static's move by position and by keyword + the pytree's args
    # tuple and kwargs dict). (0.9+ ranks parts: test_jax_explains_a_miss_with_a_pytree…)
    f = jax.jit(lambda x, s: x + len(str(s)), static_argnames="s")
    f(0, "b")
    f(x=0, s="c")
    explained.clear()
    f(jnp.int32(0), "c")
    words = "\n".join(r.getMessage() for r in explained)
    if not _jax.RANKS_KEYS_BY_PART:  # the first call's key, alone: its static value named
        assert "Several previous keys" not in words
        assert "'b'" in words and "weak_type" in words and "kwargs" not in words


def test_jax_names_a_keyless_nodes_children_by_their_index() -> None:
    # signature.path_text: keystr's "[<flat index 0>]" written "[0]", as JAX names arguments
    # (linear_util._clean_keystr_arg_names, 0.6 to 0.12).
    class Pair:
        def __init__(self, a, b):
            self.a, self.b = a, b

    jax.tree_util.register_pytree_node(
        Pair, lambda p: ((p.a, p.b), None), lambda _, kids: Pair(*kids)
    )

    def summed(m):
        return m.a.sum() + m.b.sum()

    jaxpr = jax.jit(summed).trace(Pair(jnp.ones(2), jnp.ones(3))).jaxpr
    info = getattr(jaxpr, "debug_info", None) or jaxpr.jaxpr.debug_info  # a ClosedJaxpr < 0.11
    names = tuple(info.arg_names)
    assert names == ("m[0]", "m[1]")


def test_nnx_jit_partial_keeps_the_tree_it_flattened_the_bound_arguments_with() -> None:
    nnx = pytest.importorskip("flax.nnx")

    def step(model, x):
        return model(x).sum()

    wrapped = nnx.jit_partial(step, nnx.Linear(2, 3, rngs=nnx.Rngs(0)), graph=False)
    tree = _jax.nnx_partial_tree(wrapped)
    assert tree is not None and len(tree.children()) == 1
    inner = _jax.nnx_inner_jit(wrapped).__wrapped__  # what its jax.jit traces
    assert _jax.nnx_partial_tree(inner) == tree
    assert _jax.nnx_partial_tree(nnx.jit(step)) is None


def test_register_dataclass_keeps_its_field_lists_where_the_seam_reads_them() -> None:
    # The treedef keeps a register_dataclass node's meta values, not their names; the names
    # live in the flatten function JAX registers: listed (in any order), from static
    # metadata (the decorator form), or for a class that is no dataclass.
    for cls, (data, meta) in FIELDS.items():
        value = cls(tag="p", w=jnp.ones(2), n=3)
        assert _jax.dataclass_fields(cls) == (data, meta)
        kind, aux = jax.tree_util.tree_structure(value).node_data()
        assert kind is cls and aux == tuple(getattr(value, name) for name in meta)
        paths = [path for path, _ in jax.tree_util.tree_flatten_with_path(value)[0]]
        assert paths == [(jax.tree_util.GetAttrKey(name),) for name in data]

    class Keyless:  # registered otherwise: no names to read
        def __init__(self, w: Any) -> None:
            self.w = w

    jax.tree_util.register_pytree_node(Keyless, lambda k: ((k.w,), None), lambda _, c: Keyless(*c))
    for other in (Keyless, tuple, dict, int, jax.tree_util.Partial, [], object()):
        assert _jax.dataclass_fields(other) is None


def test_flax_struct_registers_through_register_dataclass_and_equinox_does_not() -> None:
    flax_struct = pytest.importorskip("flax.struct")
    eqx = pytest.importorskip("equinox")

    @flax_struct.dataclass
    class Struct:
        w: Any
        tag: str = flax_struct.field(pytree_node=False)

    class Module(eqx.Module):
        w: Any
        act: str = eqx.field(static=True)

    assert _jax.dataclass_fields(Struct) == (("w",), ("tag",))
    assert _jax.dataclass_fields(Module) is None  # its static fields: by their metadata
