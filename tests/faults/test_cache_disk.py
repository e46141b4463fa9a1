"""Fault table, a disk that refuses the persistent cache: the OS error is in the row.

`jitlab run recompile-cost --variant persistent-cache` writes its demo cache under the user
cache folder (platformdirs, so ``XDG_CACHE_HOME``). Here that folder is, for real, a tiny
filesystem filled to the last byte ("No space left on device") or one mounted read-only
("Read-only file system"): a private mount namespace when we are root, a folder without
write permission otherwise. JAX then warns and compiles without its cache; the table row,
the ``--json`` notes and the run's summary must all say so, and the run must go on.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

JITLAB = Path(sys.executable).with_name("jitlab")
RUN = ["run", "recompile-cost", "--variant", "persistent-cache", "--param", "batch_size=8,8"]
ERRNO = {"full": "No space left on device", "read-only": "Read-only file system"}


def run_on_refusing_disk(
    tmp_path: Path, how: str, *args: str, program: list[str] | None = None
) -> subprocess.CompletedProcess:
    """``jitlab run`` (or ``program``) with its user cache folder on a disk that refuses."""
    cache = tmp_path / "cache"
    cache.mkdir(exist_ok=True)
    env = {**os.environ, "XDG_CACHE_HOME": str(cache), "COLUMNS": "120"}
    env["QT_QPA_PLATFORM"] = "offscreen"
    command = program or [str(JITLAB), *RUN, *args]
    if os.geteuid() != 0:  # permissions hold for us: a folder we may not write to
        if how == "full":
            pytest.skip("filling a filesystem needs a mount namespace (root)")
        cache.chmod(0o555)
        try:
            return subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
        finally:
            cache.chmod(0o755)
    if shutil.which("unshare") is None:
        pytest.skip("no unshare to make a private mount")
    options = "ro,size=64k" if how == "read-only" else "size=64k"
    fill = f" && {{ dd if=/dev/zero of={cache}/fill bs=4k 2>/dev/null; true; }}"
    script = (
        f"mount -t tmpfs -o {options} tmpfs {cache}"
        + (fill if how == "full" else "")
        + ' && exec "$@"'
    )
    done = subprocess.run(
        ["unshare", "-m", "sh", "-c", script, "sh", *command],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    if done.returncode != 0 and not done.stdout:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()[:200]}")
    return done


def why_column(table: str) -> str:
    """The 'why / output' cells of a rich table, wrapped lines joined again."""
    cells = [line.split("│")[-2].strip() for line in table.splitlines() if line.startswith("│")]
    return " ".join(cell for cell in cells if cell)


def expected(how: str) -> str:
    """The OS's words for the fault (a read-only folder, without root, refuses by permission)."""
    return ERRNO[how] if os.geteuid() == 0 else "Permission denied"


@pytest.mark.parametrize("how", ["full", "read-only"])
def test_the_os_error_is_in_the_table_row_and_the_run_goes_on(tmp_path: Path, how: str) -> None:
    done = run_on_refusing_disk(tmp_path, how)
    print(done.stdout)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    rows = done.stdout.split("\n│ 1 │")  # the first call's row, then the second's
    assert len(rows) == 2, done.stdout
    for row in rows:
        why = why_column("│" + row if not row.startswith("│") else row)
        assert "cache_error:" in why and expected(how) in why, why
    assert "2 calls: 2 compile" in done.stdout and "0 error" in done.stdout


@pytest.mark.parametrize("how", ["full", "read-only"])
def test_the_os_error_is_in_the_json_notes(tmp_path: Path, how: str) -> None:
    done = run_on_refusing_disk(tmp_path, how, "--json")
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    calls, summary = lines[:-1], lines[-1]["summary"]
    assert [call["kind"] for call in calls] == ["compile", "compile"]  # no cache, no hit
    assert summary["errors"] == 0 and summary["persistent_hits"] == 0
    assert expected(how) in calls[0]["notes"]["cache_error"]
    if how == "full":  # JAX's own warning, whole, beside the short form
        warned = calls[0]["notes"]["cache_warnings"]
        assert any("Error writing persistent compilation cache" in w for w in warned)


WINDOW = """
import sys
from PySide6.QtCore import QSettings
from jitlab.gui.app import application
from jitlab.gui.lesson.window import MainWindow

app = application()
settings = QSettings(sys.argv[1], QSettings.Format.IniFormat)
window = MainWindow(settings, "recompile-cost", "persistent-cache", entry_points=False)
window.show()
while not window.catalogue.entries:
    app.processEvents()
window.set_mode("execute")
window.step()
while not window.state.records:
    app.processEvents()
window.link.drain()
print(window.output.toPlainText())
window.close()
window.shutdown()
"""


@pytest.mark.parametrize("how", ["full", "read-only"])
def test_the_os_error_is_in_the_windows_output_pane(tmp_path: Path, how: str) -> None:
    script = tmp_path / "window.py"
    script.write_text(WINDOW)
    done = run_on_refusing_disk(
        tmp_path, how, program=[sys.executable, str(script), str(tmp_path / "s.ini")]
    )
    assert done.returncode == 0, done.stderr
    # The Output pane says it in a sentence (no raw `cache_error=` dump), with the OS error.
    assert "The disk cache was not used: OSError" in done.stdout, done.stdout
    assert expected(how) in done.stdout, done.stdout
