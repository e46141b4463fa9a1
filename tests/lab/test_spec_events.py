"""The spec and the events are plain Python: reading them loads neither JAX nor Qt."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow


def _loaded_after(imports: str) -> list[str]:
    code = (
        f"import sys; import {imports}; "
        "print(' '.join(sorted(m for m in sys.modules "
        "if m.split('.')[0] in ('jax', 'jaxlib', 'PySide6'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return out.stdout.split()


def test_spec_and_events_import_no_jax_and_no_qt() -> None:
    assert _loaded_after("jitlab.lab.spec, jitlab.lab.events") == []


def test_the_old_import_paths_name_the_same_classes() -> None:
    from jitlab.lab import engine, events, scenario, spec

    for name in ("CallStarted", "PhaseEnded", "CallFinished", "Event", "Listener"):
        assert getattr(engine, name) is getattr(events, name)
    for name in spec.__all__:
        assert getattr(scenario, name) is getattr(spec, name)


def test_engine_emits_the_jax_free_event_classes() -> None:
    from jitlab.lab.discovery import scenarios
    from jitlab.lab.engine import Run
    from jitlab.lab.events import CallFinished, CallStarted, PhaseEnded

    seen: list[type] = []
    run = Run(scenarios()["dynamic-shapes"], "pitfall", listener=lambda e: seen.append(type(e)))
    run.step({"batch_size": 8})
    assert seen[0] is CallStarted and seen[-1] is CallFinished
    assert PhaseEnded in seen  # the first call compiles
