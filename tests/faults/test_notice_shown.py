"""A recording that says its counts may be short is shown as such (issue 20, "The guard must
not be blinded"): a program that removes jitlab's JAX listeners under ``jitlab watch`` gets
a ``notice`` line in its recording; the watch's end-of-run summary, ``jitlab summary`` and
``jitlab report`` each say so, in English and in Chinese, never as a complete count."""

from __future__ import annotations

import html
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from jitlab.records import messages

pytestmark = pytest.mark.slow

JITLAB = str(Path(sys.executable).with_name("jitlab"))
TIMEOUT = 240  # seconds a subprocess may take on a busy machine, never a bound on speed

# Three real compiles of step; the program (a library may do it) clears every listener.
CLEARS = """
import jax, jax.numpy as jnp

@jax.jit
def step(x):
    return x * 3

step(jnp.ones(2))
jax.monitoring.clear_event_listeners()
step(jnp.ones(3))
step(jnp.ones(4))
"""


def jitlab(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("LANG", "LC_ALL", "LANGUAGE")}
    return subprocess.run(
        [JITLAB, *args], capture_output=True, text=True, timeout=TIMEOUT, cwd=cwd, env=env
    )


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    folder = tmp_path_factory.mktemp("notice")
    (folder / "prog.py").write_text(textwrap.dedent(CLEARS), encoding="utf-8")
    done = jitlab("watch", "--out", "rec.jsonl", "--", "python", "prog.py", cwd=folder)
    assert done.returncode == 0, done.stderr
    return folder, done


def squeezed(text: str) -> str:
    """Text with all white space gone: rich wraps lines wherever the terminal ends."""
    return "".join(text.split())


def notice_times(folder: Path) -> list[float]:
    lines = [json.loads(line) for line in (folder / "rec.jsonl").read_text().splitlines()]
    return [n["t"] for n in lines if n["type"] == "notice" and n["notice"] == "listeners_removed"]


def test_the_watch_summary_says_the_counts_may_be_short(recorded):
    folder, done = recorded
    assert len(notice_times(folder)) == 1  # the recording holds the notice
    words = messages.listeners_removed_text(notice_times(folder), "en")
    # Once from inside the program when it happened, once in the summary of the recording.
    assert squeezed(words) in squeezed(done.stderr), done.stderr
    assert done.stderr.count("clear_event_listeners()") == 2, done.stderr


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_jitlab_summary_shows_the_notice(recorded, lang):
    folder, _ = recorded
    done = jitlab("--lang", lang, "summary", "rec.jsonl", cwd=folder)
    assert done.returncode == 0, done.stderr
    words = messages.listeners_removed_text(notice_times(folder), lang)
    assert squeezed(words) in squeezed(done.stdout), done.stdout
    assert "clear_event_listeners()" in done.stdout
    if lang == "zh":
        assert "监听器" in done.stdout
    data = json.loads(jitlab("summary", "--json", "rec.jsonl", cwd=folder).stdout)
    # jnp.ones' own kernels, left out of the listing, are a notice of their own (issue 52)
    assert data["notices"] == {"0": ["listeners_removed", "internal_left_out"]}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_jitlab_report_warns_that_earlier_counts_may_be_incomplete(recorded, lang):
    folder, _ = recorded
    done = jitlab("--lang", lang, "report", "rec.jsonl", "-o", f"r.{lang}.html", cwd=folder)
    assert done.returncode == 0, done.stderr
    page = (folder / f"r.{lang}.html").read_text(encoding="utf-8")
    assert 'class="warning"' in page
    assert "clear_event_listeners()" in page
    words = messages.listeners_removed_text(notice_times(folder), lang)
    assert html.escape(words, quote=True) in page
