"""The command line's own streams (issue 40): a reader that leaves (`| head -1` under
pipefail), an ASCII console, a file name that is not UTF-8, and the app's settings with HOME
unset. Each fault is made for real: a shell pipeline, the encoding Python is started with, a
file with that name on disk, a process started without HOME."""

from __future__ import annotations

import json
import os
import pwd
import subprocess
import sys
from pathlib import Path

import pytest
from environment_lines import program_lines
from recorded import call_line

pytestmark = pytest.mark.slow

JITLAB = [sys.executable, "-m", "jitlab.cli"]
READER_LEFT = 141  # 128 + SIGPIPE: what a shell shows for `cat big | head -1`


def call(function: str, shape: list[int], t: float, kind: str = "compile") -> dict:
    return call_line(function, shape, t, kind, defined_at="train.py:3")


def recording(path: Path | bytes, functions: int, process: int | None = None) -> None:
    start: dict = {"type": "start", "argv": [], "time": 1.0}
    if process is not None:
        start["process"] = process
    lines = [start, *(call(f"f{i}", [2], 0.1) for i in range(functions))]
    lines.append({"type": "end", "time": 2.0})
    with open(path, "w", encoding="utf-8") as f:
        f.write("".join(json.dumps(line) + "\n" for line in lines))


def shell(command: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    # The folder's own jitlab, whatever the folder the test runs in (`python -m` reads '' first).
    runner = " ".join(JITLAB)
    return subprocess.run(
        ["bash", "-c", f"set -o pipefail; {command.replace('jitlab', runner)}"],
        cwd=cwd,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.fixture(scope="module")
def big(tmp_path_factory) -> Path:
    """Recordings whose tables are far longer than a pipe holds (64 KiB), so the reader of
    `| head -1` has surely left while the command still writes."""
    folder = tmp_path_factory.mktemp("pipes")
    recording(folder / "base.jsonl", 3000)
    recording(folder / "new.jsonl", 3000)
    return folder


@pytest.mark.parametrize(
    "command",
    ["jitlab diff base.jsonl new.jsonl", "jitlab summary base.jsonl"],
    ids=["diff", "summary"],
)
def test_a_reader_that_left_is_never_the_commands_own_status(big, command) -> None:
    # Unpiped, both runs are the same: status 0, no regression.
    whole = shell(f"{command} > /dev/null", big)
    assert whole.returncode == 0, whole.stderr
    piped = shell(f"{command} | head -1", big)
    assert piped.stdout.strip().startswith(f"jitlab {command.split()[1]}"), piped.stdout
    # Not diff's 1 ("compiles more") nor summary's 1 ("diverged"): the status of a writer
    # whose reader left, as `cat` gets, and not a word on stderr.
    assert piped.returncode == READER_LEFT, (piped.returncode, piped.stderr[-2000:])
    assert program_lines(piped.stderr) == []


def test_an_ascii_console_gets_plain_stand_ins_never_a_crash(tmp_path) -> None:
    for process in (0, 1):
        recording(tmp_path / f"run.p{process}.jsonl", 2 + process, process=process)
    files = ["run.p0.jsonl", "run.p1.jsonl"]
    ascii_console = {"PYTHONIOENCODING": "ascii", "LANG": "C", "LC_ALL": "C"}
    for args, status in (
        (["summary", *files], 1),  # process 1 compiled f2, process 0 did not
        (["--lang", "zh", "summary", *files], 1),
        (["diff", *files], 1),
        (["--help"], 0),
    ):
        done = subprocess.run(
            [*JITLAB, *args],
            cwd=tmp_path,
            env={**os.environ, **ascii_console},
            capture_output=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == status, (args, done.stderr.decode(errors="replace"))
        assert b"Traceback" not in done.stderr and b"UnicodeEncodeError" not in done.stderr
        done.stdout.decode("ascii")  # nothing the console cannot show
        done.stderr.decode("ascii")
    summary = subprocess.run(
        [*JITLAB, "summary", *files],
        cwd=tmp_path,
        env={**os.environ, **ascii_console},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert "jitlab summary . 2 processes" in summary.stdout  # "·" as "."


@pytest.mark.parametrize("locale", ["C.UTF-8", "C"])
def test_json_is_valid_utf8_whatever_the_file_names(tmp_path, locale) -> None:
    name = b"run-\xff\xfe.jsonl"  # not UTF-8: Python holds it as lone surrogates
    recording(os.path.join(os.fsencode(tmp_path), name), 2)
    for args in (["summary", "--json", name], ["diff", "--json", name, name]):
        done = subprocess.run(
            [*(os.fsencode(a) for a in JITLAB), *(os.fsencode(a) for a in args)],
            cwd=tmp_path,
            env={**os.environ, "LC_ALL": locale, "LANG": locale},
            capture_output=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr.decode(errors="replace")
        text = done.stdout.decode("utf-8")  # strict: a raw \xff byte fails here
        data = json.loads(text)
        if args[0] == "summary":
            # Escaped as a recording escapes it: read back, it names the same file.
            assert data["files"]["0"] == os.fsdecode(name)
            assert os.fsencode(data["files"]["0"]) == name


def test_settings_without_home_go_to_the_users_home_not_the_root(tmp_path) -> None:
    pytest.importorskip("PySide6")
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("HOME", "XDG_CONFIG_HOME", "JITLAB_SETTINGS")
    }
    env["QT_QPA_PLATFORM"] = "offscreen"
    # Where the settings would be written (no write: the user's real settings stay as they are).
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from jitlab.gui.settings import make_settings; print(make_settings().fileName())",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    home = pwd.getpwuid(os.getuid()).pw_dir  # what os.path.expanduser("~") reads with no HOME
    assert done.stdout.strip() == os.path.join(home, ".config", "jitlab", "jitlab.conf")
    assert not done.stdout.startswith("/.config")


def test_settings_of_a_user_without_a_home_are_kept_for_the_session(monkeypatch, capsys) -> None:
    # A user the password database does not know (a container's arbitrary uid): made here by
    # expanduser's own answer for it ("~" unchanged), since this suite's Python lives in a
    # folder such a user could not read.
    settings = pytest.importorskip("jitlab.gui.settings")
    monkeypatch.delenv("HOME", raising=False)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("JITLAB_SETTINGS", raising=False)
    monkeypatch.setattr(os.path, "expanduser", lambda path: path)
    monkeypatch.setattr(settings, "_session", [])
    first, second = settings.make_settings(), settings.make_settings()
    first.setValue("language", "zh")
    first.sync()
    assert second.fileName() == first.fileName()  # one place for the whole session
    assert not first.fileName().startswith("/.config")
    assert second.value("language") == "zh"
    assert capsys.readouterr().err.count("settings are kept for this session only") == 1
    folder = settings._session[0]
    folder.cleanup()
    assert not Path(folder.name).exists()
