"""The one module scenarios and plugins import (`jitlab.lab.scenario`): everything a built-in
uses is there, the built-ins take nothing from anywhere else in jitlab, and importing it
loads no JAX (a plugin's listing must not pay for JAX's start-up)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import jitlab.lab.scenario as plugin

pytestmark = pytest.mark.slow

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"


def _jitlab_imports(path: Path) -> list[tuple[int, str, tuple[str, ...]]]:
    """Every import of a jitlab module in the file, at any depth (a lazy one counts too)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "jitlab":
            found.append((node.lineno, node.module or "", tuple(a.name for a in node.names)))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "jitlab":
                    found.append((node.lineno, alias.name, ()))
    return found


def test_importing_the_plugin_module_loads_no_jax():
    # A fresh interpreter: this test process has long imported JAX.
    code = (
        "import sys\n"
        "import jitlab.lab.scenario as s\n"
        "assert 'jax' not in sys.modules, sorted(m for m in sys.modules if m.startswith('jax'))\n"
        "from jitlab.lab.scenario import Exercise, Lab, Scenario, compile_answer, mesh_devices\n"
        "assert 'jax' not in sys.modules, 'a re-exported name loaded JAX'\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_every_built_in_imports_jitlab_only_through_the_plugin_module():
    files = sorted(SCENARIOS.glob("*.py"))
    assert len(files) >= 8
    elsewhere = [
        f"{path.name}:{line}: {module}"
        for path in files
        for line, module, _ in _jitlab_imports(path)
        if module != "jitlab.lab.scenario"
    ]
    assert not elsewhere, "built-ins import from jitlab.lab.scenario only:\n" + "\n".join(elsewhere)


def test_every_name_the_built_ins_take_is_exported_and_resolves():
    taken = {
        name
        for path in SCENARIOS.glob("*.py")
        for _, module, names in _jitlab_imports(path)
        if module == "jitlab.lab.scenario"
        for name in names
    }
    assert taken <= set(plugin.__all__), taken - set(plugin.__all__)
    for name in plugin.__all__:  # the lazy ones (cache_size, Probe, the anatomy) load here
        assert getattr(plugin, name) is not None, name
    assert plugin.analyze_error.__module__ == "jitlab.probe.anatomy"
    assert plugin.cache_size.__module__ == "jitlab.probe._jax"


def test_an_unknown_name_is_an_attribute_error():
    try:
        plugin.no_such_name  # noqa: B018
    except AttributeError as exc:
        assert "no_such_name" in str(exc)
    else:
        raise AssertionError("no AttributeError")
