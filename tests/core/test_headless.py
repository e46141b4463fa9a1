"""The core never loads Qt: the CLI and tests must run without a display."""

import subprocess
import sys

CODE = """
import sys
import jitlab, jitlab.cli
from jitlab.core import discovery, engine, monitor, probe, records, scenario, signature
from jitlab.core.engine import Run
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
