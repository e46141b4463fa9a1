"""The `slow` marker is true: every test file that starts a process says so, so that
`pytest -m "not slow"` is a quick loop that still runs everything in-process."""

from __future__ import annotations

import ast
import re
from pathlib import Path

TESTS = Path(__file__).parent

# What starts a process in these tests: subprocess, a pty, multiprocessing, a fork or exec,
# a Jupyter kernel, or the helpers that do so (a jax.distributed job, a real recording run).
STARTS = re.compile(
    r"subprocess\.(run|Popen|check_output|check_call|call)\b|\bPopen\(|run_on_pty\b"
    r"|\.Process\(|get_context\(|\bpty\.(fork|spawn)|os\.(fork|exec|spawn)"
    r"|runpytest_subprocess|\brun_job\(|\brecord_real\(|\brun_chromium\("
    r"|\bnbrun\b|NotebookClient|KernelManager|\bexample_plugin\b"
)


def _marked_slow(source: str) -> bool:
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets
        ):
            return "pytest.mark.slow" in ast.unparse(node.value)
    return False


def test_every_file_that_starts_a_process_is_marked_slow():
    unmarked = []
    for path in sorted(TESTS.rglob("test_*.py")):
        if path == Path(__file__):
            continue  # its patterns are not calls
        source = path.read_text(encoding="utf-8")
        if STARTS.search(source) and not _marked_slow(source):
            unmarked.append(str(path.relative_to(TESTS)))
    assert not unmarked, f"add `pytestmark = pytest.mark.slow` to: {unmarked}"


def test_the_check_sees_a_process_and_the_mark():
    assert STARTS.search("done = subprocess.run([sys.executable, '-c', code])")
    assert STARTS.search("from nbrun import execute")
    assert not STARTS.search("import subprocess  # for its exit codes")
    assert _marked_slow("import pytest\npytestmark = [pytest.mark.slow, pytest.mark.xfail]\n")
    assert not _marked_slow("import pytest\npytestmark = pytest.mark.xfail\n")
