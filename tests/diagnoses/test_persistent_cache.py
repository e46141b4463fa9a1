"""persistent-not-written and persistent-key-changed (jax#15739, pylcm#392, jax-gcm#592) in
real `jitlab watch` runs of a reproduction (synthetic data), checked against JAX's own log
of the same run: the program logs at DEBUG (``logging.basicConfig``), so JAX's persistent-
cache lines reach its stderr as they would without jitlab (issue 40) and name the keys and
figures jitlab must have recorded."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

JITLAB = str(Path(sys.executable).with_name("jitlab"))

# argv: cache folder, the constant f captures, "fast" (thresholds at 0) or not, "debug" or not.
PROGRAM = """
import logging, sys
logging.basicConfig(level=logging.DEBUG if "debug" in sys.argv else logging.WARNING)
import jax, jax.numpy as jnp
jax.config.update("jax_compilation_cache_dir", sys.argv[1])
if "fast" in sys.argv:
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
SCALE = float(sys.argv[2])

@jax.jit
def step(x):
    return jnp.sin(x) * SCALE  # SCALE is captured: part of the program, so of its key

step(jnp.ones(5)).block_until_ready()
print("done", flush=True)
"""

MISS = re.compile(
    r"DEBUG:jax\._src\.compiler:PERSISTENT COMPILATION CACHE MISS for 'jit_step' with key '([^']+)'"
)
HIT = re.compile(
    r"DEBUG:jax\._src\.compiler:Persistent compilation cache hit for 'jit_step' with key '([^']+)'"
)
TOO_FAST = re.compile(
    r"DEBUG:jax\._src\.compiler:Not writing persistent cache entry for 'jit_step' because it "
    r"took < ([\d.]+) seconds to compile \(([\d.]+)s\)"
)


def _watch(
    tmp_path: Path, name: str, cache: Path | str, *args: str
) -> tuple[subprocess.CompletedProcess, list[dict]]:
    program = tmp_path / "program.py"
    program.write_text(PROGRAM)
    recording = tmp_path / f"{name}.jsonl"
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    done = subprocess.run(
        [JITLAB, "watch", "--out", str(recording), "--", "python", str(program), str(cache), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in recording.read_text().splitlines()]
    return done, lines


def _of(lines: list[dict], kind: str) -> list[dict]:
    return [line for line in lines if line["type"] == kind and line.get("function") == "step"]


def _program_part(stderr: str) -> str:
    """The program's own stderr: what comes before jitlab's end table (which lists the
    diagnoses, persistent-not-written among them)."""
    return stderr.split("jitlab watch · ", 1)[0]


def _cache_lines(log: str) -> list[str]:
    """The program's persistent-cache log lines, compile times left out (they vary)."""
    lines = [line for line in log.splitlines() if "persistent" in line.lower()]
    return [re.sub(r"\(\d+\.\d+s\)", "(…s)", line) for line in lines if "Initialized" not in line]


def _fates(lines: list[dict]) -> list[dict]:
    """Each compile's fate: on its ``call`` line."""
    return [call["persistent"] for call in _of(lines, "call") if "persistent" in call]


def test_a_fast_compile_is_not_written_and_says_why_as_jax_logged_it(tmp_path) -> None:
    done, lines = _watch(tmp_path, "slow", tmp_path / "cache", "2.0", "debug")
    # JAX's own log in the program's stderr, at DEBUG as without jitlab, once each.
    keys, too_fast = MISS.findall(done.stderr), TOO_FAST.findall(done.stderr)
    assert len(keys) == 1 and len(too_fast) == 1, done.stderr
    assert "WARNING:jax._src.compiler" not in done.stderr
    # The same lines, the same key, as the program logs without jitlab.
    program = tmp_path / "program.py"
    plain = subprocess.run(
        # The same folder (it is part of the key): nothing was written to it.
        [sys.executable, str(program), str(tmp_path / "cache"), "2.0", "debug"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert plain.returncode == 0, plain.stderr
    assert _cache_lines(_program_part(done.stderr)) == _cache_lines(plain.stderr)
    assert MISS.findall(plain.stderr) == keys
    [fate] = _fates(lines)
    assert fate["outcome"] == "not_written" and fate["why"] == "min_compile_time"
    assert fate["key"] == keys[0]
    assert f"{fate['figures']['min_compile_s']:.2f}" == too_fast[0][0]
    assert f"{fate['figures']['compile_s']:.2f}" == too_fast[0][1]
    [diagnosis] = _of(lines, "diagnosis")
    assert diagnosis["id"] == "persistent-not-written"
    assert diagnosis["figures"]["why"] == "min_compile_time"
    assert diagnosis["figures"]["key"] == keys[0]
    summary = subprocess.run(
        [JITLAB, "summary", "--persistent", "--json", str(tmp_path / "slow.jsonl")],
        capture_output=True,
        text=True,
    )
    data = json.loads(summary.stdout)
    assert [d["id"] for d in data["diagnoses"]["0"]] == ["persistent-not-written"]
    [listed] = data["persistent"]["0"]
    assert (listed["outcome"], listed["rerun"], listed["signature"]) == (
        "not_written",
        "no",
        "x: f32[5]",
    )
    text = subprocess.run(
        [JITLAB, "summary", "--persistent", str(tmp_path / "slow.jsonl")],
        capture_output=True,
        text=True,
        env=dict(os.environ, COLUMNS="200"),
    ).stdout
    # A compile under a second, not stored: listed for information (a rerun loses little).
    assert "persistent-not-written (for information, nothing to fix) · step" in text
    assert data["diagnoses"]["0"][0]["problem"] is False
    assert (
        f"compiled in {too_fast[0][1]} s, under jax_persistent_cache_min_compile_time_secs" in text
    )
    assert text.count("a rerun compiles it again") == 1  # the one compile's fate, said once
    assert "a rerun compiles it again" in text


def test_without_debug_the_program_sees_no_cache_lines_and_jitlab_still_records_them(
    tmp_path,
) -> None:
    done, lines = _watch(tmp_path, "quiet", tmp_path / "cache", "2.0")
    program = _program_part(done.stderr)
    assert "persistent" not in program.lower()  # the program's log: as without jitlab
    # jitlab's end table lists it (for information where the compile took under a second)
    listed = r"persistent-not-written( \(for information, nothing to fix\))? · step"
    assert re.search(listed, done.stderr)
    [fate] = _fates(lines)
    assert (fate["outcome"], fate["why"]) == ("not_written", "min_compile_time")
    assert fate["key"].startswith("jit_step-")


def test_written_then_loaded_then_a_changed_key_named_by_diff(tmp_path) -> None:
    cache = tmp_path / "cache"
    first, wrote = _watch(tmp_path, "wrote", cache, "2.0", "fast", "debug")
    second, loaded = _watch(tmp_path, "loaded", cache, "2.0", "fast", "debug")
    third, changed = _watch(tmp_path, "changed", cache, "3.0", "fast", "debug")
    [written] = _fates(wrote)
    assert written["outcome"] == "written" and written["key"] == MISS.findall(first.stderr)[0]
    [load] = _fates(loaded)
    assert load["outcome"] == "loaded" and load["key"] == HIT.findall(second.stderr)[0]
    assert load["key"] == written["key"]
    [recompiled] = _fates(changed)
    assert recompiled["outcome"] == "written"
    assert recompiled["key"] == MISS.findall(third.stderr)[0] != written["key"]
    summary = subprocess.run(
        [JITLAB, "summary", "--persistent", "--json", str(tmp_path / "loaded.jsonl")],
        capture_output=True,
        text=True,
    )
    assert [f["rerun"] for f in json.loads(summary.stdout)["persistent"]["0"]] == ["yes"]
    # Loaded in the base run, compiled in the new one, under two keys JAX logged.
    paths = [str(tmp_path / "loaded.jsonl"), str(tmp_path / "changed.jsonl")]
    diff = subprocess.run([JITLAB, "diff", *paths, "--json"], capture_output=True, text=True)
    [found] = json.loads(diff.stdout)["diagnoses"]
    assert found["id"] == "persistent-key-changed" and found["function"] == "step"
    figures = found["figures"]
    assert (figures["base_outcome"], figures["new_outcome"]) == ("loaded", "written")
    assert (figures["base_key"], figures["new_key"]) == (load["key"], recompiled["key"])
    assert figures["parts"] == ""  # same jaxlib, backend and XLA flags: the program changed
    text = subprocess.run(
        [JITLAB, "--lang", "zh", "diff", *paths],
        capture_output=True,
        text=True,
        env=dict(os.environ, COLUMNS="200"),
    ).stdout
    assert "persistent-key-changed · step" in text and "缓存键变了" in text


def test_the_cache_folder_written_another_way_is_another_key_and_diff_names_it(tmp_path) -> None:
    """``get_compile_options`` puts a path under the cache folder into the compile options
    (jax_persistent_cache_enable_xla_caches' default): ``cache`` and ``/abs/cache`` are the
    same folder but two keys, so the second run compiles again."""
    first, wrote = _watch(tmp_path, "absolute", tmp_path / "cache", "2.0", "fast", "debug")
    second, again = _watch(tmp_path, "relative", "cache", "2.0", "fast", "debug")
    keys = MISS.findall(first.stderr) + MISS.findall(second.stderr)
    assert len(keys) == 2 and keys[0] != keys[1]  # JAX itself: two keys, no load
    assert [f["outcome"] for f in _fates(wrote) + _fates(again)] == ["written", "written"]
    paths = [str(tmp_path / "absolute.jsonl"), str(tmp_path / "relative.jsonl")]
    diff = subprocess.run([JITLAB, "diff", *paths, "--json"], capture_output=True, text=True)
    [found] = json.loads(diff.stdout)["diagnoses"]
    figures = found["figures"]
    assert found["id"] == "persistent-key-changed"
    assert (figures["base_key"], figures["new_key"]) == tuple(keys)
    assert figures["parts"] == "cache_dir"
    assert (figures["base_cache_dir"], figures["new_cache_dir"]) == (
        str(tmp_path / "cache"),
        "cache",
    )


PROBED = """
import sys
import jax, jax.numpy as jnp
import jitlab
jax.config.update("jax_compilation_cache_dir", sys.argv[1])
jax.config.update("jax_persistent_cache_min_compile_time_secs", float(sys.argv[2]))

def step(x):
    return jnp.cos(x) + 1

probe = jitlab.Probe(step)
probe(jnp.ones(4))
probe(jnp.ones(4))  # a cache hit: no fate
probe(jnp.ones(6))
print(json.dumps([[r.kind.value, r.persistent and r.persistent.to_json()] for r in probe.records]))
""".replace("import sys", "import json, sys")


def test_a_probes_records_carry_each_compiles_fate(tmp_path) -> None:
    script = tmp_path / "probed.py"
    script.write_text(PROBED)

    def probed(threshold: str) -> list:
        done = subprocess.run(
            [sys.executable, str(script), str(tmp_path / "cache"), threshold],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
        assert "persistent" not in done.stderr.lower()  # the program's log: nothing added
        return json.loads(done.stdout.splitlines()[-1])

    slow = probed("1000")
    assert [kind for kind, _ in slow] == ["compile", "cache_hit", "recompile"]
    assert slow[1][1] is None
    assert [(f["outcome"], f["why"]) for _, f in (slow[0], slow[2])] == [
        ("not_written", "min_compile_time"),
    ] * 2
    assert slow[0][1]["figures"]["min_compile_s"] == 1000.0
    fast = probed("0")
    assert [(f["outcome"], f["key"] is not None) for _, f in (fast[0], fast[2])] == [
        ("written", True),
    ] * 2
    again = probed("0")
    assert [kind for kind, _ in again] == ["persistent_hit", "cache_hit", "persistent_hit"]
    assert [again[0][1]["outcome"], again[2][1]["outcome"]] == ["loaded", "loaded"]


# A validation step with a debug print, the cache configured: JAX refuses to store it for
# its host callbacks (before 0.11) and says nothing of its compile time.
CALLBACK = """
import sys
import jax, jax.numpy as jnp
jax.config.update("jax_compilation_cache_dir", sys.argv[1])
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)

@jax.jit
def step(x):
    jax.debug.print("loss {l}", l=x.sum())
    return x * 2

step(jnp.ones(5)).block_until_ready()
"""


def test_a_cheap_compile_refused_for_host_callbacks_is_information(tmp_path) -> None:
    """Not written for its host callbacks, compiled in a fraction of a second: what a new
    process pays to compile it again is the compile jitlab measured, under a second, so it
    is listed for information (it was stated as a problem, JAX giving no time)."""
    from jitlab.probe import _jax

    if _jax.VERSION >= (0, 11, 0):
        pytest.skip("JAX 0.11 stores programs with host callbacks")
    program = tmp_path / "program.py"
    program.write_text(CALLBACK)
    recording = tmp_path / "run.jsonl"
    done = subprocess.run(
        [JITLAB, "watch", "--out", str(recording), "--", "python", str(program), "cache"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in recording.read_text().splitlines()]
    [call] = [c for c in _of(lines, "call") if c["kind"] == "compile"]
    assert call["persistent"]["why"] == "host_callbacks"
    [diagnosis] = _of(lines, "diagnosis")
    compile_s = diagnosis["figures"]["compile_s"]
    assert compile_s == round(call["compile_ms"] / 1e3, 4) and 0 < compile_s < 1
    summary = subprocess.run(
        [JITLAB, "summary", "--json", str(recording)], capture_output=True, text=True
    )
    [listed] = json.loads(summary.stdout)["diagnoses"]["0"]
    assert listed["id"] == "persistent-not-written" and listed["problem"] is False
