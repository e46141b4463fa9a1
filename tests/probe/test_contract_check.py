"""The start-up check of jitlab's contract with JAX (jitlab.probe.contract), on real JAX.

Each check runs in a fresh interpreter: the check is cached per process, and a broken
contract is made for real there — an event name of the seam changed before the listeners
are installed, or a JAX version outside the window — never by mocking JAX.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import jax
import pytest
from environment_lines import program_lines

pytestmark = pytest.mark.slow


def python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=300
    )


def test_the_check_passes_on_this_jax_after_a_real_compile():
    done = python(
        """
        import json
        import jax

        fired = []  # the events of the check's own function, seen from outside jitlab
        jax.monitoring.register_event_duration_secs_listener(
            lambda event, secs, **kw: fired.append((event, kw.get("fun_name")))
        )
        from jitlab.probe import contract

        report = contract.check()
        again = contract.check()
        ours = [(e, n) for e, n in fired if "jitlab_contract_check" in str(n)]
        print(json.dumps({"report": report.to_json(), "ours": ours, "cached": again is report}))
        """
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    report = out["report"]
    assert report["ok"] and report["compiled"] and report["jax"] == jax.__version__
    statuses = {item["name"]: item["status"] for item in report["items"]}
    for name in ("JAX version", "trace event", "lower event", "compile event"):
        assert statuses[name] == "ok", name
    assert statuses["cache-miss explanation"] == "ok" and statuses["jit cache size"] == "ok"
    assert all(status == "ok" for status in statuses.values()), statuses
    # Two real compiles happened (two shapes), each with its trace, lower and compile event.
    events = [event for event, _ in out["ours"]]
    assert events.count("/jax/core/compile/backend_compile_duration") == 2, out["ours"]
    assert events.count("/jax/core/compile/jaxpr_trace_duration") == 2, out["ours"]
    assert out["cached"]


def test_plain_import_of_jitlab_runs_no_check_and_no_jax():
    done = python(
        """
        import sys
        import jitlab
        print("jax" in sys.modules, "jitlab.probe.contract" in sys.modules)
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "False"]


RENAMED_EVENT = """
    import jitlab.probe._jax as seam

    seam.TRACE_EVENT = "/jax/core/compile/renamed_trace_duration"  # a JAX that renamed it
"""


def test_a_renamed_event_makes_the_probe_refuse():
    done = python(
        RENAMED_EVENT
        + """
    import jax
    import jax.numpy as jnp
    from jitlab import Probe
    from jitlab.probe.contract import JaxContractError

    def f(x):
        return x + 1

    try:
        probe = Probe(jax.jit(f))
    except JaxContractError as exc:
        print("refused:", exc)
        print("items:", [i.name for i in exc.report.problems])
    else:
        probe(jnp.ones(3))
        print("classified:", [r.kind.value for r in probe.records])
    """
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("refused: "), done.stdout
    assert f"JAX {jax.__version__}" in lines[0] and "trace event missing" in lines[0]
    assert "renamed_trace_duration" in lines[0]
    assert lines[1] == "items: ['trace event']"
    assert "classified" not in done.stdout


def test_jitlab_run_refuses_in_one_line_when_an_event_changed():
    done = python(
        RENAMED_EVENT
        + """
    from jitlab.cli import main

    raise SystemExit(main(["run", "dynamic-shapes", "--param", "batch_size=8,8"]))
    """
    )
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert done.stdout == ""  # no table: not one call classified
    lines = program_lines(done.stderr)
    assert len(lines) == 1, done.stderr
    assert f"JAX {jax.__version__}" in lines[0] and "trace event missing" in lines[0]
    assert "jitlab doctor" in lines[0]


OUTSIDE_WINDOW = """
    import jax

    jax.__version__ = "0.5.3"  # what a JAX below the window reports
"""


def test_a_jax_outside_the_window_is_refused_by_probe_run_and_watch(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text("print('the program ran')\n", encoding="utf-8")
    out = tmp_path / "w.jsonl"
    block = tmp_path / "block.jsonl"
    done = python(
        OUTSIDE_WINDOW
        + f"""
    import sys
    from jitlab.cli import main
    from jitlab.probe.contract import JaxContractError, check

    print("window:", [(i.name, i.status) for i in check().problems])
    try:
        from jitlab import Probe

        Probe(jax.jit(lambda x: x))
    except JaxContractError as exc:
        print("probe refused")
    print("run:", main(["run", "dynamic-shapes", "--param", "batch_size=8"]))
    print("watch:", main(["watch", "--out", {str(out)!r}, "--", "python", {str(script)!r}]))
    import jitlab

    for name, block in (("block", jitlab.watch({str(block)!r})), ("budget", jitlab.budget(0))):
        try:
            with block:
                jax.jit(lambda x: x + 1)(1.0)
            print(name, "went on")
        except JaxContractError:
            print(name, "refused")
    """
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines == [
        "window: [('JAX version', 'changed')]",
        "probe refused",
        "run: 1",
        "watch: 1",
        "block refused",
        "budget refused",
    ]
    assert not block.exists()  # refused before the recording file was made
    said = program_lines(done.stderr)
    assert len(said) == 2 and said[0] == said[1], done.stderr
    assert "JAX 0.5.3" in said[0] and "0.5.3, outside 0.6–0.12" in said[0]
    assert "the program ran" not in done.stdout and not out.exists()


def test_the_check_leaves_no_trace_in_the_programs_log():
    done = python(
        """
        import logging
        import jax

        seen = []
        handler = logging.Handler()
        handler.emit = lambda record: seen.append(record.getMessage())
        logging.getLogger().addHandler(handler)
        jax.config.update("jax_log_compiles", True)
        jax.config.update("jax_explain_cache_misses", True)
        from jitlab.probe import contract

        report = contract.check()
        print(report.ok, jax.config.jax_log_compiles, jax.config.jax_explain_cache_misses)
        print([m for m in seen if "jitlab_contract_check" in m or "broadcast" in m])
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["True True True", "[]"]


def test_the_check_compiles_for_real_whatever_the_callers_state():
    # A first Probe made under disable_jit, a transfer guard, inside jax.vmap: the check's
    # calls still compile (a trace would stage them), and nothing is refused.
    done = python(
        """
        import jax
        import jax.numpy as jnp
        from jitlab.probe import contract

        x = jnp.ones(3)
        jax.config.update("jax_disable_jit", True)
        with jax.transfer_guard("disallow"):

            @jax.vmap
            def made_inside(v):
                print(contract.check().ok, contract.check().problem_text() or "-")
                return v

            with jax.disable_jit(False):
                made_inside(x)
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "-"]


def test_the_refusal_is_said_in_chinese():
    done = python(
        RENAMED_EVENT
        + """
    from jitlab.cli import main

    raise SystemExit(main(["--lang", "zh", "run", "dynamic-shapes", "--param", "batch_size=8"]))
    """
    )
    assert done.returncode == 1 and done.stdout == "", done.stdout
    lines = program_lines(done.stderr)
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"jitlab 看不清 JAX {jax.__version__} 做了什么")
    assert "trace 事件缺失（jitlab_contract_check 的 /jax/core/compile/renamed_trace" in lines[0]
    assert "never fired" not in lines[0] and "missing" not in lines[0]
