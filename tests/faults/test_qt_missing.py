"""Fault table (issue 51, row 14): Qt's system libraries missing, as on a bare server.

The fault is real: a folder on ``LD_LIBRARY_PATH`` holds an empty ``libEGL.so.1``, so the
dynamic loader fails the real ``import PySide6.QtGui`` (``…/libEGL.so.1: file too short``; a
bare server's loader says ``libEGL.so.1: cannot open shared object file``, read by the same
rule: :func:`test_the_loaders_words_name_the_library`). Every face that opens a window says
so in one line naming the library and its package, and exits 1; ``jitlab doctor`` loads Qt
in a fresh interpreter and says Qt cannot load (exit 1), where it said Qt was fine.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from jitlab.cli._qt import PACKAGES, missing_library

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the ELF loader's fault"),
]

JITLAB = str(Path(sys.executable).with_name("jitlab"))


@pytest.fixture
def bare(tmp_path: Path) -> dict[str, str]:
    """An environment where the real loader cannot load libEGL.so.1 (checked first)."""
    folder = tmp_path / "lib"
    folder.mkdir()
    (folder / "libEGL.so.1").write_bytes(b"")
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    env["LD_LIBRARY_PATH"] = os.pathsep.join(
        p for p in (str(folder), os.environ.get("LD_LIBRARY_PATH", "")) if p
    )
    probe = subprocess.run(
        [sys.executable, "-c", "import PySide6.QtGui"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert probe.returncode != 0 and "libEGL.so.1" in probe.stderr, probe.stderr
    return env


def run(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [JITLAB, *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=300
    )


@pytest.mark.parametrize(
    "args",
    [["--scenario", "dynamic-shapes"], ["open", "run.jsonl"], ["quiz", "--gui"]],
    ids=["jitlab", "open", "quiz-gui"],
)
def test_a_window_without_qt_says_what_to_install_in_one_line(bare, tmp_path, args) -> None:
    (tmp_path / "run.jsonl").write_text('{"type": "start", "argv": [], "time": 1.0}\n')
    done = run(args, bare, tmp_path)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert "libEGL.so.1" in lines[0] and "apt install libegl1" in lines[0], lines[0]
    zh = run(["--lang", "zh", *args], bare, tmp_path)
    assert zh.returncode == 1 and len(zh.stderr.splitlines()) == 1, zh.stderr
    assert "无法加载" in zh.stderr and "libegl1" in zh.stderr, zh.stderr


def test_doctor_loads_qt_for_real_and_says_it_cannot(bare, tmp_path) -> None:
    done = run(["doctor"], bare, tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    text = " ".join(done.stdout.split())
    assert "cannot load" in text and "libEGL.so.1" in text and "libegl1" in text, text
    assert "All checks pass" not in text
    body = json.loads(run(["doctor", "--json"], bare, tmp_path).stdout)
    assert body["qt"]["loads"] is False and "libEGL.so.1" in body["qt"]["problem"]
    assert body["contract"]["ok"]  # JAX is fine: only Qt is off
    healthy = json.loads(run(["doctor", "--json"], {**os.environ}, tmp_path).stdout)
    assert healthy["qt"] == {"loads": True, "problem": None}


@pytest.mark.parametrize(
    ("said", "library"),
    [
        # What a bare Debian/Ubuntu's loader says (the servers), and this fault's.
        ("libEGL.so.1: cannot open shared object file: No such file or directory", "libEGL.so.1"),
        ("/tmp/x/lib/libEGL.so.1: file too short", "libEGL.so.1"),
        ("libxkbcommon.so.0: cannot open shared object file: No such file or directory", None),
        ("/usr/lib/libGL.so.1: invalid ELF header", "libGL.so.1"),
        ("No module named 'PySide6'", "-"),
    ],
)
def test_the_loaders_words_name_the_library(said: str, library: str | None) -> None:
    if library == "-":
        assert missing_library(said) is None
        return
    found = missing_library(said)
    assert found == (library or "libxkbcommon.so.0") and found in PACKAGES
