"""`jitlab --lang zh watch`: what watch refuses, its end-of-run lines and the summary in
Chinese, none of the catalogue's English left over (the checker of tests/cli/test_cli_zh.py);
a scenario parameter out of range and a script's notes in Chinese; the recording window says
when a recording has no end line, in both languages.

Every command runs a real `jitlab` (and real JAX) in a process of its own, with a timeout.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from environment_lines import program_lines
from test_cli_zh import IDS, flat, leftover_english

from jitlab.records import diagnoses

pytestmark = pytest.mark.slow

JITLAB = str(Path(sys.executable).with_name("jitlab"))
TIMEOUT = 300

PROGRAM = """\
import jax
import jax.numpy as jnp


@jax.jit
def scale(x):
    return x * 2


for n in (2, 3, 2):
    scale(jnp.ones(n)).block_until_ready()
print("cache entries:", scale._cache_size())
"""

# One compile, then children the watch cannot record: a spawned process and two forks
# made while the recording goes to a device.
CHILDREN = """\
import multiprocessing as mp
import os

import jax
import jax.numpy as jnp


def nothing():
    pass


if __name__ == "__main__":
    jax.jit(lambda x: x + 1)(jnp.ones(2)).block_until_ready()
    child = mp.get_context("spawn").Process(target=nothing)
    child.start()
    child.join(timeout=120)
    for _ in range(2):
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
    print("spawned exit code", child.exitcode)
"""


def jitlab(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([JITLAB, *args], capture_output=True, text=True, timeout=TIMEOUT, cwd=cwd)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "prog.py").write_text(PROGRAM, encoding="utf-8")
    (tmp_path / "notes.txt").write_text("my own notes\n", encoding="utf-8")
    (tmp_path / "empty").mkdir()
    return tmp_path


def refused(args: list[str], folder: Path, lang: str) -> str:
    """The one line of a refusal, after checking it ran nothing (exit 2, no output)."""
    done = jitlab("--lang", lang, "watch", *args, cwd=folder)
    assert done.returncode == 2 and done.stdout == "", done.stderr
    lines = program_lines(done.stderr)
    assert len(lines) == 1, done.stderr
    return lines[0] + "\n"


# -- where watch may write ------------------------------------------------------------------
@pytest.mark.parametrize(
    ("out", "zh", "en"),
    [
        (
            "prog.py",  # the program itself
            "watch：prog.py 是这条命令的输入；请另给一个要写入的文件名",
            "watch: prog.py is an input of this command; name another file to write",
        ),
        (
            "notes.txt",  # a user's file
            "watch：notes.txt 已存在，且不是 `jitlab watch` 的记录；拒绝覆盖它（请给一个新文件名）",
            "watch: notes.txt exists and is not a recording of `jitlab watch`; refusing to "
            "write over it (name a new file)",
        ),
        (
            "empty",
            "watch：empty 是文件夹；请给出其中的一个文件名",
            "watch: empty is a folder; name a file in it",
        ),
    ],
    ids=["the-program", "a-users-file", "a-folder"],
)
def test_watch_refuses_an_output_in_chinese(folder: Path, out: str, zh: str, en: str) -> None:
    before = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    err = refused(["--out", out, "--", "python", "prog.py"], folder, "zh")
    assert err == f"jitlab：错误：{zh}\n"
    assert not leftover_english(err), leftover_english(err)
    assert refused(["--out", out, "--", "python", "prog.py"], folder, "en") == (
        f"jitlab: error: {en}\n"
    )
    # Nothing was written over, and nothing new appeared.
    assert {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()} == before


# -- what `python ARGS` watch cannot run ------------------------------------------------------
@pytest.mark.parametrize(
    ("program", "zh", "en"),
    [
        (
            ["python", "-i", "prog.py"],
            "watch 不支持 python 的 -i（程序结束后进入交互式提示符）；请去掉它再运行",
            "watch cannot honour python's -i (an interactive prompt after the program); "
            "run without it",
        ),
        (
            ["python", "-S", "prog.py"],
            "watch 不支持 python 的 -S（不导入 site：jitlab 本身就装在那里）；请去掉它再运行",
            "watch cannot honour python's -S (no site: jitlab itself is installed there); "
            "run without it",
        ),
        (
            ["python", "-Z", "prog.py"],
            "watch：未知的 python 选项 -Z",
            "watch: unknown python option -Z",
        ),
        (["python", "-X"], "watch：-X 需要一个值", "watch: -X needs a value"),
        (["python", "-m"], "watch：-m 需要一个模块名", "watch: -m needs a module name"),
        (["python", "-c"], "watch：-c 需要一条命令", "watch: -c needs a command"),
        (
            ["python", "--version"],
            "watch：python 的选项 --version 不运行任何程序；请给出一个脚本",
            "watch: python's option --version runs no program; give a script",
        ),
        (
            ["python", "empty"],
            "watch：在 'empty' 中找不到 '__main__' 模块",
            "watch: can't find '__main__' module in 'empty'",
        ),
        (["python", "nope.py"], "watch：没有这个脚本：nope.py", "watch: no such script: nope.py"),
        (
            ["python", "-"],
            "watch 无法运行从标准输入读入的程序；请先把它存成文件",
            "watch cannot run a program read from standard input; save it to a file",
        ),
        (
            ["python"],
            "watch 需要一个程序，例如 `jitlab watch -- python train.py ARGS`",
            "watch needs a program, e.g. `jitlab watch -- python train.py ARGS`",
        ),
    ],
    ids=lambda value: " ".join(value) if isinstance(value, list) else "",
)
def test_watch_refuses_a_program_in_chinese(folder: Path, program, zh: str, en: str) -> None:
    args = ["--out", "run.jsonl", "--", *program]
    err = refused(args, folder, "zh")
    assert err == f"jitlab：错误：{zh}\n"
    assert not leftover_english(err), leftover_english(err)
    assert refused(args, folder, "en") == f"jitlab: error: {en}\n"
    assert not (folder / "run.jsonl").exists()


# -- the end of a watched run -----------------------------------------------------------------
def test_watch_summary_in_chinese_after_python_options(folder: Path) -> None:
    """`-X dev` starts the interpreter again (jitlab.cli.watch._reexec): the command's
    language goes with it."""
    done = jitlab(
        "--lang", "zh", "watch", "--out", "run.jsonl", "--", "python", "-X", "dev", "prog.py",
        cwd=folder,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "cache entries: 2" in done.stdout  # JAX's own count: two sizes, two programs
    text = flat(done.stderr)
    for head in ("函数", "编译次数", "重编译", "命中", "编译耗时 ms", "签名数", "哪里不同"):
        assert head in text, (head, done.stderr)
    assert "记录文件：run.jsonl（2 行编译记录）" in text
    assert "x 的形状变了：f32[3] ← f32[2]" in text
    # The diagnoses' pages are data: taken out whole, wherever the terminal folded them.
    pages = str(Path(diagnoses.page("call-site-cost")).parent)
    folded = r"\s*".join(map(re.escape, pages)) + r"[/\s\w.-]*?\.\s*m\s*d"
    text = re.sub(folded, " ", done.stderr)
    allowed = (str(folder),)
    assert not leftover_english(text, allowed), leftover_english(text, allowed)


def test_watch_end_lines_in_chinese_for_a_stream_and_children(folder: Path) -> None:
    (folder / "kids.py").write_text(CHILDREN, encoding="utf-8")
    # -W ignore: the program's own warnings (Python 3.12+ and JAX warn that fork() in a
    # multithreaded process may deadlock) are its English, not jitlab's.
    args = ["watch", "--out", "/dev/null", "--", "python", "-W", "ignore", "kids.py"]
    done = jitlab("--lang", "zh", *args, cwd=folder)
    assert done.returncode == 0 and "spawned exit code 0" in done.stdout, done.stderr
    err = flat(done.stderr)
    assert "记录文件：/dev/null（流式写入：1 行编译记录）" in err, done.stderr
    assert (
        "jitlab watch：2 个 fork 出的子进程没有被记录（记录写往设备或管道，只有本进程能写）" in err
    )
    assert "以 spawn 或 forkserver 启动的进程不受监视（它们的编译不在任何记录里）" in err
    assert not leftover_english(done.stderr), leftover_english(done.stderr)
    english = flat(jitlab(*args, cwd=folder).stderr)
    assert "recording: /dev/null (a stream: 1 call line)" in english
    assert "jitlab watch: 2 forked child process(es) not recorded" in english


# -- jitlab run: a parameter out of range, a script's notes ----------------------------------
def test_a_parameter_out_of_range_in_chinese(tmp_path: Path) -> None:
    done = jitlab(
        "--lang", "zh", "run", "dynamic-shapes", "--param", "batch_size=100000", cwd=tmp_path
    )
    assert done.returncode == 2 and done.stdout == ""
    assert program_lines(done.stderr) == [
        "jitlab：错误：batch_size 的取值应为：1…1024 之间的整数，而不是 '100000'"
    ]
    assert not leftover_english(done.stderr, IDS), leftover_english(done.stderr, IDS)


def test_script_notes_in_chinese(tmp_path: Path) -> None:
    args = ("run", "control-flow", "--variant", "scan", "--param", "x=1.0", "--script", "figures")
    done = jitlab("--lang", "zh", *args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "## 注：XLA 的成本分析把循环体只算一次，而不是每次迭代各算一次" in done.stdout
    assert "cost analysis" not in done.stdout
    english = jitlab(*args, cwd=tmp_path)
    assert (
        "## note: XLA's cost analysis counts the body of a loop once, not once per iteration"
        in english.stdout
    )


# -- jitlab open: a recording with no end line ---------------------------------------------------
# The offscreen platform cannot pass size hints to a window manager (as in tests/gui).
@pytest.mark.qt_log_ignore("propagateSizeHints")
def test_the_recording_window_says_a_recording_has_no_end_line(qtbot, folder: Path) -> None:
    from PySide6.QtCore import QSettings

    from jitlab.gui import i18n
    from jitlab.gui.app import application
    from jitlab.gui.recording.window import open_recording_window

    done = jitlab("watch", "--out", "run.jsonl", "--", "python", "prog.py", cwd=folder)
    assert done.returncode == 0, done.stderr
    lines = (folder / "run.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    assert '"type": "end"' in lines[-1]
    cut = folder / "killed.jsonl"
    cut.write_text("".join(lines[:-1]), encoding="utf-8")  # killed: every line but the end
    application()
    settings = QSettings(str(folder / "jitlab.ini"), QSettings.Format.IniFormat)
    window = open_recording_window(cut, False, settings=settings)
    qtbot.addWidget(window)
    try:
        qtbot.waitUntil(lambda: window.function_order() == ["scale"], timeout=10_000)
        status = window.status_text()
        assert f"{cut} has no end line: the program was killed or ended with os._exit" in status
        assert "its counts are those written before" in status
        i18n.set_language("zh")
        status = window.status_text()
        assert f"{cut} 没有结束行：程序被终止或以 os._exit 退出（或仍在运行）" in status
        assert "no end line" not in status
    finally:
        if i18n.language() != "en":
            i18n.set_language("en")
    # The whole recording is complete, and says so.
    whole = open_recording_window(folder / "run.jsonl", False, settings=settings)
    qtbot.addWidget(whole)
    qtbot.waitUntil(lambda: "complete" in whole.status_text(), timeout=10_000)
    assert "no end line" not in whole.status_text()
