"""`jitlab --lang zh`: every command's tables, summaries and errors in Chinese, none of the
catalogue's English left over; plurals right in English.

The recordings are made by a real `jitlab watch` of a tiny program; `run` and `quiz` run
real JAX. The checker (:func:`leftover_english`) scans output for the English of every
catalogue entry (:func:`jitlab.records.messages.english_fragments`).
"""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from jitlab.records.messages import CATALOGUE, english_fragments, say

pytestmark = pytest.mark.slow

JITLAB = str(Path(sys.executable).with_name("jitlab"))
VARIANT = ("pitfall",)  # `jitlab run`'s title names the variant by its id
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
FRAGMENTS = sorted(english_fragments(), key=len, reverse=True)
CJK = "\u4e00-\u9fff"

PROGRAM = """\
import jax
import jax.numpy as jnp


@jax.jit
def scale(x):
    return x * 2


for n in SIZES:
    scale(jnp.ones(n)).block_until_ready()
print("cache entries:", scale._cache_size())
"""


def _ids() -> tuple[str, ...]:
    """Scenario and variant ids, parameter names and choices: what a user types, not prose."""
    from jitlab.lab.discovery import discover

    ids: list[str] = []
    for entry in discover():
        cls = entry.scenario
        if cls is not None:
            ids += [cls.id, *cls.variant_ids()]
            ids += [p.name for p in cls.params] + [c for p in cls.params for c in p.choices]
    return tuple(ids)


IDS = _ids()


def leftover_english(text: str, allowed: tuple[str, ...] = ()) -> list[str]:
    """The catalogue's English fragments found in ``text``, once data (``allowed``) and
    identifiers (``static-if``, ``--max-extra-compiles``, ``batch_size``) are taken out."""
    for value in sorted(allowed, key=len, reverse=True):
        text = text.replace(value, " ")
    text = re.sub(r"[\w.-]*\w[-_][\w.-]*", " ", ANSI.sub("", text))
    for word in allowed:  # an identifier standing alone: the variant `pitfall`
        text = re.sub(rf"(?<![A-Za-z_]){re.escape(word)}(?![A-Za-z_])", " ", text)
    flat = " ".join(text.split())
    return [
        f
        for f in FRAGMENTS
        if re.search(rf"(?<![A-Za-z_]){re.escape(f)}(?![A-Za-z_])", flat) is not None
    ]


def flat(text: str) -> str:
    """Output with escape codes, table borders and line breaks taken out."""
    text = ANSI.sub("", text)
    text = re.sub(r"[│┃┏┓┗┛┡┩└┘├┤┼╇╋━─┳┻┬┴╈]", " ", text)
    return " ".join(text.split())


def main_in_process(argv: list[str], monkeypatch) -> int:
    """For commands that stop before any JAX computation (a usage error, a listing)."""
    from jitlab.cli import main

    # main() may ask for 8 CPU devices through XLA_FLAGS: keep that out of later tests.
    monkeypatch.setenv("XLA_FLAGS", os.environ.get("XLA_FLAGS", ""))
    return main(argv)


def watch(folder: Path, sizes: tuple[int, ...], out: Path, *lang: str) -> str:
    """Record the tiny program with a real `jitlab watch`; its summary (stderr)."""
    script = folder / f"prog_{len(sizes)}.py"
    script.write_text(PROGRAM.replace("SIZES", repr(sizes)), encoding="utf-8")
    done = subprocess.run(
        [JITLAB, *lang, "watch", "--out", str(out), "--", "python", str(script)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=folder,
    )
    assert done.returncode == 0, done.stderr
    # JAX's own count: one executable per distinct size, so the recompiles did happen.
    assert f"cache entries: {len(set(sizes))}" in done.stdout
    return done.stderr


@pytest.fixture(scope="module")
def recordings(tmp_path_factory) -> dict[str, object]:
    folder = tmp_path_factory.mktemp("zh")
    base, new = folder / "r1.jsonl", folder / "r2.jsonl"
    summary_zh = watch(folder, (2, 3, 2, 4), base, "--lang", "zh")
    summary_en = watch(folder, (2, 3, 2, 4, 5), new)
    p0, p1 = folder / "job.p0.jsonl", folder / "job.p1.jsonl"
    shutil.copy(base, p0)
    shutil.copy(new, p1)
    return {
        "folder": folder,
        "base": base,
        "new": new,
        "p0": p0,
        "p1": p1,
        "summary_zh": summary_zh,
        "summary_en": summary_en,
    }


def jitlab(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([JITLAB, *args], capture_output=True, text=True, timeout=300, cwd=cwd)


# -- the catalogue ----------------------------------------------------------------------
def test_every_entry_has_both_languages_with_the_same_fields():
    for key, message in CATALOGUE.items():
        assert message.en and message.zh, key
        # "once" names no count; "{n} times" does
        english = message.en + (message.en_plural or "")
        fields = set(re.findall(r"\{(\w+)", english))
        assert set(re.findall(r"\{(\w+)", message.zh)) == fields, key


def test_chinese_uses_full_width_punctuation():
    bad = {}
    for key, message in CATALOGUE.items():
        text = re.sub(r"\{\w+\}|`[^`]*`|<[^>]*>", "X", message.zh)
        if re.search(rf"[{CJK}][,;:()!?]|[,;:()!?][{CJK}]", text):
            bad[key] = message.zh
    assert not bad


def test_the_checker_finds_english_in_english_output():
    english = say(
        "run.summary",
        "en",
        calls="1 call",
        compiles="",
        recompiles="",
        hits="",
        persistent="",
        errors="",
        rate="0%",
        ms="1",
    )
    assert "hit rate" in leftover_english(english)
    assert "what differed" in leftover_english(say("col.what_differed", "en"))
    assert not leftover_english(say("col.what_differed", "zh"))


@pytest.mark.parametrize(
    ("key", "one", "two"),
    [
        ("n.calls", "1 call", "2 calls"),
        ("n.compiles", "1 compile", "2 compiles"),
        ("n.recompiles", "1 recompile", "2 recompiles"),
        ("n.cache_hits", "1 cache hit", "2 cache hits"),
        ("n.errors", "1 error", "2 errors"),
        ("n.processes", "1 process", "2 processes"),
        ("n.divergences", "1 divergence", "2 divergences"),
        ("n.times", "once", "2 times"),
    ],
)
def test_english_plurals_for_1_and_2(key, one, two):
    assert say(key, "en", n=1) == one and say(key, "en", n=2) == two
    assert say(key, "zh", n=1).startswith("1") and say(key, "zh", n=2).startswith("2")


# -- jitlab run and list ------------------------------------------------------------------
def test_run_summary_counts_in_the_right_number():
    done = jitlab("run", "dynamic-shapes", "--param", "batch_size=4")
    assert done.returncode == 0, done.stderr
    one = flat(done.stdout)
    assert (
        "1 call: 1 compile (0 recompiles), 0 cache hits, 0 persistent-cache hits, 0 errors" in one
    )
    done = jitlab("run", "dynamic-shapes", "--param", "batch_size=4,8,8")
    assert done.returncode == 0, done.stderr
    three = flat(done.stdout)
    assert (
        "3 calls: 2 compiles (1 recompile), 1 cache hit, 0 persistent-cache hits, 0 errors" in three
    )


def test_run_in_chinese():
    done = jitlab("--lang", "zh", "run", "dynamic-shapes", "--param", "batch_size=8,16,8")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    text = flat(out)
    for head in ("参数", "类型", "延迟 ms", "追踪", "降级", "编译", "原因 / 输出"):
        assert head in text, head
    assert "首次编译" in text and "重编译" in text and "缓存命中" in text
    assert "3 次调用：2 次编译（其中 1 次重编译），1 次缓存命中，0 次持久缓存命中，0 次错误" in text
    assert "命中率 33%" in text and "x 的形状变了" in text
    assert "忽大忽小的批次 · 原样喂入" in text  # the table's title: the titles, not the ids
    assert not leftover_english(out, VARIANT), leftover_english(out, VARIANT)


def test_run_on_a_terminal_in_chinese():
    sys.path.insert(0, str(Path(__file__).parents[1] / "faults"))
    from ptyrun import run_on_pty

    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env["TERM"] = "xterm-256color"
    result = run_on_pty(
        [JITLAB, "--lang", "zh", "run", "dynamic-shapes", "--param", "batch_size=8,16,8"],
        env=env,
        timeout=180,
    )
    text = flat(result.output)
    assert result.status == 0, text[-2000:]
    assert "原因 / 输出" in text and "3 次调用：2 次编译（其中 1 次重编译），1 次缓存命中" in text
    assert not leftover_english(result.output, VARIANT), leftover_english(result.output, VARIANT)


def test_ctrl_c_on_a_terminal_is_said_in_chinese():
    sys.path.insert(0, str(Path(__file__).parents[1] / "faults"))
    from ptyrun import run_on_pty

    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env["TERM"] = "xterm-256color"
    sizes = ",".join(str(n) for n in range(1, 400))  # every call recompiles: a long run
    result = run_on_pty(
        [JITLAB, "--lang", "zh", "run", "dynamic-shapes", "--param", f"batch_size={sizes}"],
        env=env,
        timeout=180,
        ctrl_c_after=("重编译", 1),
    )
    text = flat(result.output)
    assert result.status == 130, text[-2000:]
    assert "jitlab：这次调用结束后停止（再按一次 Ctrl-C 立即停止）" in text
    assert "已中断（Ctrl-C）：以下是已完成的调用" in text
    assert re.search(r"\d+ 次调用：\d+ 次编译（其中 \d+ 次重编译）", text)
    assert not leftover_english(result.output, VARIANT), leftover_english(result.output, VARIANT)


def test_list_in_chinese(monkeypatch, capsys):
    assert main_in_process(["list", "--lang", "zh"], monkeypatch) == 0
    out = capsys.readouterr().out
    text = flat(out)
    assert "jitlab 场景" in text and "陷阱" in text and "变体" in text and "参数" in text
    assert "之间的整数" in text and "动态形状" in text
    assert not leftover_english(out, IDS), leftover_english(out, IDS)


# -- recordings: watch, diff, summary, report ---------------------------------------------
def test_watch_summary_in_chinese(recordings):
    from jitlab.recordings.reader import read_recording
    from jitlab.recordings.summary import summarize

    out = recordings["summary_zh"]
    text = flat(out)
    for head in ("函数", "编译次数", "重编译", "命中", "编译耗时 ms", "签名数", "哪里不同"):
        assert head in text, head
    assert "x 的形状变了：f32[3] ← f32[2]" in text and "x 的形状变了：f32[4] ← f32[3] ×1" in text
    assert "记录文件：" in text and "（3 行编译记录）" in text
    (row,) = summarize(read_recording(recordings["base"])[0])
    assert (row.executables, row.recompiles, row.hits) == (3, 2, 1)
    allowed = (str(recordings["folder"]),)
    assert not leftover_english(out, allowed), leftover_english(out, allowed)
    # The English summary of the other run: its count in the right number too.
    assert "(4 compile lines)" in flat(recordings["summary_en"])


def test_diff_in_chinese(recordings):
    done = jitlab("--lang", "zh", "diff", str(recordings["base"]), str(recordings["new"]))
    assert done.returncode == 1, done.stderr
    text = flat(done.stdout)
    assert "函数" in text and "新增 / 消失的签名" in text and "更多" in text
    assert "退化：编译次数 3 → 4" in text and "比基准多编译 1 次（4 对 3；允许 0）" in text
    allowed = (str(recordings["folder"]),)
    assert not leftover_english(done.stdout, allowed), leftover_english(done.stdout, allowed)
    english = jitlab("diff", str(recordings["base"]), str(recordings["new"]))
    assert "1 more compile than the base run (4 vs 3; allowed 0)" in flat(english.stdout)


def test_summary_in_chinese(recordings):
    done = jitlab("summary", "--lang", "zh", str(recordings["p0"]), str(recordings["p1"]))
    assert done.returncode == 1, done.stderr
    text = flat(done.stdout)
    assert "jitlab summary · 2 个进程" in text and "进程" in text and "签名数" in text
    assert "处分歧：" in text and "进程 1 为 x: f32[5] 编译了 scale，进程 0 没有" in text
    allowed = (str(recordings["folder"]),)
    assert not leftover_english(done.stdout, allowed), leftover_english(done.stdout, allowed)


def page_text(page: str) -> str:
    """What a reader of the page sees as prose: tags, code, styles and data cells taken out."""
    page = re.sub(r"<(style|pre|code)\b.*?</\1>", " ", page, flags=re.DOTALL)
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def test_report_in_chinese(recordings, tmp_path):
    out = tmp_path / "page.html"
    done = jitlab(
        "report", "--lang", "zh", str(recordings["base"]), str(recordings["new"]), "-o", str(out)
    )
    assert done.returncode == 0, done.stderr
    assert "jitlab report：已写入" in done.stdout and "KiB）" in done.stdout
    page = out.read_text(encoding="utf-8")
    assert '<html lang="zh-CN">' in page
    for heading in ("这次运行", "函数", "何时编译", "为什么又编译了", "签名台账", "分桶建议"):
        assert f">{heading}<" in page, heading
    text = " ".join(page_text(page).split())
    assert "编译了 3 个程序（2 次重编译），缓存命中：1。" in text
    assert "x 的形状" in text and "——2 次；例如" in text
    # The bucket code's comments too (its identifiers stay code).
    assert "# 每次调用前，补齐到所在的桶：" in page and "Before each call" not in page
    assert not leftover_english(text), leftover_english(text)
    # The English page says the same counts in its own words.
    english = tmp_path / "en.html"
    assert jitlab("report", str(recordings["base"]), "-o", str(english)).returncode == 0
    assert "3 programs compiled (2 recompiles)" in " ".join(
        page_text(english.read_text(encoding="utf-8")).split()
    )


def test_report_of_a_job_in_chinese(recordings, tmp_path):
    out = tmp_path / "job.html"
    done = jitlab(
        "--lang", "zh", "report", str(recordings["p0"]), str(recordings["p1"]), "-o", str(out)
    )
    assert done.returncode == 0, done.stderr
    page = out.read_text(encoding="utf-8")
    assert ">进程之间的分歧<" in page and ">进程 0<" in page
    text = " ".join(page_text(page).split())
    assert "处分歧：各进程编译的程序不同。" in text
    assert not leftover_english(text), leftover_english(text)


def test_summary_of_one_process_twice_is_refused_in_chinese(recordings, monkeypatch, capsys):
    p0 = str(recordings["p0"])
    with pytest.raises(SystemExit) as exit_:
        main_in_process(["--lang", "zh", "summary", p0, p0], monkeypatch)
    err = capsys.readouterr().err
    assert (
        exit_.value.code == 2 and err == "jitlab：错误：summary：两份记录属于同一个进程：进程 0\n"
    )
    with pytest.raises(SystemExit):
        main_in_process(["summary", p0, p0], monkeypatch)
    assert capsys.readouterr().err.endswith("two recordings are of the same process: process 0\n")


# -- quiz ---------------------------------------------------------------------------------
def test_quiz_prompts_and_scoring_in_chinese():
    from jitlab.quiz.exercises import BY_ID

    # A process of its own: the exercise runs JAX, whose backend would start here with the
    # 8 devices the command asks for.
    done = jitlab("--lang", "zh", "quiz", "--exercise", "static-if", "--answer", "2")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    text = flat(out)
    assert "练习 1/1 · static-if" in text and "你的预测：2" in text
    assert "✓ 答对了。" in text and "实际运行结果：2" in text and "得分：1/1" in text
    assert "动手试试：jitlab run control-flow --variant static-if" in text
    # The exercise's code is code: its identifiers and comments are not ours to translate.
    source_lines = tuple(line.strip() for line in BY_ID["static-if"].source.splitlines())
    allowed = tuple(line for line in source_lines if line)
    assert not leftover_english(out, allowed), leftover_english(out, allowed)

    done = jitlab("quiz", "--lang", "zh", "--list")  # the catalogue asks JAX for devices
    assert done.returncode == 0, done.stderr
    listing = done.stdout
    assert "练习" in listing and "场景" in listing and "标题" in listing and "数字" in listing
    assert not leftover_english(listing), leftover_english(listing)


def test_quiz_asks_in_chinese():
    from jitlab.quiz.exercises import BY_ID

    done = subprocess.run(
        [JITLAB, "--lang", "zh", "quiz", "--exercise", "static-if"],
        input="two\n2\n",  # a bad answer is asked again, in Chinese
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    text = flat(done.stdout)
    assert "你的预测（一个整数）（输入 q 退出）：" in text
    assert "static-if 需要一个整数，而不是 'two'" in text and "得分：1/1" in text
    source = tuple(line.strip() for line in BY_ID["static-if"].source.splitlines() if line.strip())
    assert not leftover_english(done.stdout, source), leftover_english(done.stdout, source)


# -- usage errors ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--lang", "zh", "run", "nope"], "没有场景 'nope'；可用的场景："),
        (
            ["--lang", "zh", "run", "dynamic-shapes", "--param", "batch_size=0"],
            "batch_size 的取值应为：1…1024 之间的整数，而不是 '0'",
        ),
        (["--lang", "zh", "run", "dynamic-shapes", "--variant", "x"], "没有变体 'x'"),
        (
            [
                "--lang",
                "zh",
                "run",
                "dynamic-shapes",
                "--param",
                "batch_size=1,2",
                "--param",
                "depth=1,2,3",
            ],
            "--param batch_size 有 2 个值；请给 1 个或 3 个",
        ),
        (["--lang", "zh", "frobnicate"], "无效的选择：'frobnicate'"),
        (["--lang=zh", "--bogus"], "无法识别的参数：--bogus"),
        (["report", "--lang", "zh", "x.jsonl"], "缺少以下参数：-o/--out"),
        (["--lang", "zh", "diff", "a", "b", "--max-extra-compiles", "x"], "应为 ≥ 0 的整数"),
        (["--lang", "zh", "quiz", "--list", "--solve"], "只能选一个"),
        (
            ["--lang", "zh", "quiz", "--exercise", "static-if", "--answer", "two"],
            "static-if 需要一个整数，而不是 'two'",
        ),
        (["--lang", "zh", "summary", "/"], "是文件夹，不是记录文件"),
        (["--lang", "zh", "open", "/no/such.jsonl", "--no-follow"], "open：没有这个记录文件："),
        (["--lang", "zh", "open", "/"], "open：/ 是文件夹，不是记录文件"),
    ],
)
def test_usage_errors_in_chinese(argv, words, monkeypatch, capsys):
    with pytest.raises(SystemExit) as exit_:
        main_in_process(argv, monkeypatch)
    out, err = capsys.readouterr()
    assert exit_.value.code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("jitlab：错误：") and words in err, err
    assert not leftover_english(err, IDS), leftover_english(err, IDS)
