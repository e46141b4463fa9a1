"""The built-ins' manifest: the scenario list before JAX is loaded, never out of date."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from jitlab.lab import discovery, manifest
from jitlab.records.paths import builtin_dir

pytestmark = pytest.mark.slow


def test_the_shipped_manifest_is_what_discovery_finds_now() -> None:
    # Fails after a built-in's title, question, chapter or any byte of its file changed.
    assert discovery.main(["--manifest", "--check"]) == 0, (
        "the built-ins' manifest is stale: run `python -m jitlab.lab.discovery --manifest` "
        "and commit resources/scenarios.json"
    )
    found = discovery.listings()
    assert manifest.listed() == found
    builtins = [e.name for e in discovery.discover(entry_points=False) if e.ok]
    assert [x.id for x in found] == builtins  # every built-in, in the list's order


def test_listing_needs_no_jax_and_takes_milliseconds() -> None:
    code = (
        "import sys, time\n"
        "t = time.perf_counter()\n"
        "from jitlab.lab.manifest import listed\n"
        "items = listed()\n"
        "print(len(items), 'jax' in sys.modules, time.perf_counter() - t)\n"
    )
    timings = []
    # The fastest of three fresh processes: a stall on a loaded machine is not the listing's.
    for _ in range(3):
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        )
        count, jax_loaded, seconds = out.stdout.split()
        assert int(count) == len(discovery.listings()) >= 7
        assert jax_loaded == "False"
        timings.append(float(seconds))
    assert min(timings) < 0.5, timings  # JAX alone takes longer than this to import


def test_a_changed_file_waits_for_discovery(tmp_path: Path, monkeypatch) -> None:
    folder = tmp_path / "scenarios"
    shutil.copytree(builtin_dir("scenarios"), folder)
    edited = folder / "control_flow.py"
    edited.write_text(edited.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    monkeypatch.setattr(manifest, "builtin_dir", lambda name: folder)
    ids = [x.id for x in manifest.listed()]
    assert "control-flow" not in ids  # its manifest line may no longer say what the file says
    assert "dynamic-shapes" in ids and len(ids) == len(discovery.listings()) - 1


def test_a_damaged_or_missing_manifest_lists_nothing_early(tmp_path: Path, monkeypatch) -> None:
    damaged = tmp_path / "scenarios.json"
    for text in ('{"scenarios": [{"id": 3}]}', "not json", '{"scenarios": 5}'):
        damaged.write_text(text, encoding="utf-8")
        monkeypatch.setattr(manifest, "resource", lambda *parts: damaged)
        assert manifest.listed() == []
    monkeypatch.setattr(manifest, "resource", lambda *parts: tmp_path / "missing.json")
    assert manifest.listed() == []


def test_another_scenarios_folder_is_not_listed_from_the_manifest(tmp_path: Path) -> None:
    assert manifest.listed(tmp_path) == []
    assert manifest.listed(builtin_dir("scenarios")) == manifest.listed()


def test_a_stale_manifest_names_its_files_in_both_languages(tmp_path: Path) -> None:
    folder = tmp_path / "scenarios"
    shutil.copytree(builtin_dir("scenarios"), folder)
    assert manifest.stale(folder) == [] and manifest.stale_notice(folder) is None
    edited = folder / "control_flow.py"
    edited.write_text(edited.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    (folder / "static_args.py").unlink()
    (folder / "new_one.py").write_text("", encoding="utf-8")
    (folder / "_helper.py").write_text("", encoding="utf-8")  # not a scenario: not listed
    assert manifest.stale(folder) == ["control_flow.py", "new_one.py", "static_args.py"]
    notice = manifest.stale_notice(folder)
    assert notice is not None
    assert "control_flow.py, new_one.py, static_args.py" in notice.en
    assert "python -m jitlab.lab.discovery --manifest" in notice.en
    assert "场景清单已过期" in notice.zh and "new_one.py" in notice.zh


def test_jitlab_list_says_the_manifest_is_stale(tmp_path: Path) -> None:
    folder = tmp_path / "scenarios"
    shutil.copytree(builtin_dir("scenarios"), folder)
    env = {**os.environ, manifest.SCENARIOS_ENV: str(folder), "COLUMNS": "200"}
    command = [sys.executable, "-m", "jitlab", "list"]
    clean = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    assert clean.returncode == 0, clean.stderr
    assert "manifest" not in clean.stdout
    edited = folder / "side_effects.py"
    edited.write_text(edited.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    for lang, words in (("en", "The scenario manifest is out of date"), ("zh", "场景清单已过期")):
        done = subprocess.run(
            [*command, "--lang", lang], env=env, capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, done.stderr
        line = next(x for x in done.stdout.splitlines() if words in x)
        assert "side_effects.py" in line, done.stdout


def test_the_shipped_manifest_is_never_written_from_another_folder(tmp_path, monkeypatch):
    monkeypatch.setenv(manifest.SCENARIOS_ENV, str(tmp_path))
    before = manifest.resource(manifest.MANIFEST).read_bytes()
    assert discovery.main(["--manifest"]) == 2
    assert manifest.resource(manifest.MANIFEST).read_bytes() == before


def test_each_stand_in_shows_what_its_class_shows_and_a_bad_spec_shows_none() -> None:
    # The early lesson screen is built from these: it must say what the class will say.
    classes = discovery.scenarios(discovery.discover(entry_points=False))
    for listing in manifest.listed():
        early = listing.lesson()
        real = classes[listing.id]
        assert early is not None and manifest.is_stand_in(early) and not manifest.is_stand_in(real)
        for name in (*manifest.SPEC_FIELDS, "id", "title", "question", "icon"):
            assert getattr(early, name) == getattr(real, name), (listing.id, name)
        assert early.defaults() == real.defaults()
        for variant in real.variant_ids():
            for lang in ("en", "zh"):
                assert early().source(variant, lang) == real().source(variant, lang)
    broken = manifest.Listing.from_json(
        {**manifest.listed()[0].to_json(), "spec": {"params": [{"_": "Nothing"}]}}
    )
    assert broken.lesson() is None  # the question alone, as before
