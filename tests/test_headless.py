"""The core never loads Qt: the CLI and tests must run without a display."""

import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow

CODE = """
import sys
import jitlab, jitlab.cli
from jitlab.lab import discovery, engine, scenario
from jitlab.probe import monitor, probe, signature
from jitlab.records import calls as records
from jitlab.lab.engine import Run
found = discovery.scenarios()
Run(found["dynamic-shapes"]).step({"batch_size": 4})
qt = sorted(m for m in sys.modules if m.split(".")[0] in
            ("PySide6", "shiboken6", "pyqtgraph", "superqt", "PyQt5", "PyQt6", "qtpy"))
print("QT:", qt)
"""


def test_core_imports_no_qt():
    done = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "QT: []" in done.stdout


def test_the_command_line_parser_does_not_import_jax():
    """`jitlab` must show its window before JAX loads: parsing the command line is JAX-free."""
    code = (
        "import sys, jitlab, jitlab.cli; jitlab.cli.build_parser().parse_args(['quiz', '--list']);"
        "print('JAX:', 'jax' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "JAX: False" in done.stdout
