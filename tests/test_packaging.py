"""The built wheel carries the built-in scenarios, the resources the app reads and the
licence, and finds them installed; the README's images stay in the sdist."""

from __future__ import annotations

import re
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent


def test_wheel_contains_scenarios_and_resources_and_discovers_them(tmp_path: Path):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (wheel,) = tmp_path.glob("jitlab-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    for module in (ROOT / "scenarios").glob("*.py"):
        assert f"jitlab/_builtin/scenarios/{module.name}" in names
    # What the app reads through jitlab.records.paths.resource, and nothing else.
    read = ["scenarios.json", "kitchen.svg", "i18n/jitlab_zh_CN.qm"]
    read += [f"icons/{p.name}" for p in (ROOT / "resources" / "icons").glob("*.svg")]
    shipped = sorted(n.split("_builtin/resources/")[1] for n in names if "_builtin/resources/" in n)
    assert shipped == sorted(read)
    # The README's images are not the program (they were 30 % of the wheel: issue 54).
    images = re.findall(r"\]\((resources/[^)]+)\)", (ROOT / "README.md").read_text("utf-8"))
    assert images
    assert not [n for n in names if n.endswith((".png", ".jpg", ".gif"))]
    licence = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
    assert licence, "the MIT licence the metadata declares is not in the wheel"
    text = zipfile.ZipFile(wheel).read(licence[0]).decode()
    assert text.startswith("MIT License") and "the jitlab authors" in text
    assert any(n.endswith("entry_points.txt") for n in names)

    # The sdist keeps the licence, the README's images and the translators' catalogue.
    done = subprocess.run(
        [sys.executable, "-m", "hatchling", "build", "-t", "sdist", "-d", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (sdist,) = tmp_path.glob("jitlab-*.tar.gz")
    with tarfile.open(sdist) as tar:
        inside = {name.split("/", 1)[1] for name in tar.getnames() if "/" in name}
    assert {"LICENSE", "resources/i18n/jitlab_zh_CN.ts", *images} <= inside

    # Unpacked on its own (no source checkout on the path), it still lists the built-ins.
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    code = (
        "import jitlab; from jitlab.lab.discovery import discover;"
        "print(jitlab.__file__); print(sorted(e.name for e in discover() if e.ok))"
    )
    listed = subprocess.run(
        [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(site)!r}); {code}"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert listed.returncode == 0, listed.stderr
    first, second = listed.stdout.splitlines()
    assert first.startswith(str(site))
    assert "'dynamic-shapes'" in second


def test_the_notebook_extra_brings_a_kernel():
    # Issue 54: `pip install 'jitlab[notebook]'` gave no kernel to run the lesson it exports.
    import tomllib

    from packaging.requirements import Requirement

    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    extra = {
        Requirement(r).name: Requirement(r) for r in project["optional-dependencies"]["notebook"]
    }
    assert {"ipython", "ipykernel", "nbformat", "ipywidgets"} <= set(extra)
    tested = {Requirement(r).name: Requirement(r) for r in project["optional-dependencies"]["test"]}
    assert extra["ipykernel"].specifier == tested["ipykernel"].specifier  # the one the tests run


def test_the_jax_the_user_has_inside_the_window_is_kept_and_outside_refused():
    # pip keeps an installed JAX that the requirement admits: every release of the window
    # (the newest patch of each minor CI tests) must be admitted, and nothing outside it.
    import tomllib

    from packaging.requirements import Requirement

    from jitlab.probe.contract import SUPPORTED_FROM, SUPPORTED_UNTIL

    root = Path(__file__).resolve().parents[1]
    project = tomllib.loads((root / "pyproject.toml").read_text("utf-8"))["project"]
    wanted = {Requirement(r).name: Requirement(r) for r in project["dependencies"]}
    inside = ["0.6.2", "0.7.2", "0.8.3", "0.9.2", "0.10.2", "0.11.2", "0.12.0.1"]
    for name in ("jax", "jaxlib"):
        spec = wanted[name].specifier
        for version in inside:
            assert spec.contains(version), (name, version)
        for version in ("0.5.3", "0.13.0"):
            assert not spec.contains(version), (name, version)
    # The requirement and jitlab's own check of the installed JAX name the same window.
    assert SUPPORTED_FROM == (0, 6) and SUPPORTED_UNTIL == (0, 13)
    assert "Programming Language :: Python :: 3.13" in project["classifiers"]


def test_the_diagnoses_pages_ship_in_the_sdist_and_the_wheel_and_explain_prints_them(
    tmp_path: Path,
):
    # The sdist holds the pages; a wheel built from that sdist (as pip builds one from
    # PyPI's) carries them inside the package, where `jitlab explain` and every face find
    # them with no checkout around.
    sdist = subprocess.run(
        [sys.executable, "-m", "hatchling", "build", "-t", "sdist", "-d", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert sdist.returncode == 0, sdist.stdout + sdist.stderr
    (archive,) = tmp_path.glob("jitlab-*.tar.gz")
    pages = sorted(p.name for p in (ROOT / "docs" / "diagnoses").glob("*.md"))
    assert len(pages) >= 8
    import tarfile

    with tarfile.open(archive) as held:
        names = held.getnames()
    for name in pages:
        assert any(n.endswith(f"/docs/diagnoses/{name}") for n in names), name
    wheel_dir = tmp_path / "wheel"
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(wheel_dir),
            str(archive),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = wheel_dir.glob("jitlab-*.whl")
    inside = zipfile.ZipFile(wheel).namelist()
    for name in pages:
        assert f"jitlab/_builtin/docs/diagnoses/{name}" in inside, name
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)

    def explain(*argv: str) -> subprocess.CompletedProcess[str]:
        code = (
            f"import sys; sys.path.insert(0, {str(site)!r}); from jitlab.cli import main;"
            f"sys.exit(main({list(argv)!r}))"
        )
        return subprocess.run(
            [sys.executable, "-I", "-c", code],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=tmp_path,  # no checkout here: only the installed package
        )

    english = explain("explain", "identity-static")
    assert english.returncode == 0, english.stderr
    assert english.stdout.startswith("# `identity-static`")
    assert "### What happened" in english.stdout and "发生了什么" not in english.stdout
    chinese = explain("--lang", "zh", "explain", "identity-static")
    assert chinese.returncode == 0, chinese.stderr
    assert "### 发生了什么" in chinese.stdout and "### What happened" not in chinese.stdout
    unknown = explain("explain", "warp-drive")
    assert unknown.returncode == 2 and "warp-drive" in unknown.stderr
    assert "recompile-limit" in unknown.stderr
    where = subprocess.run(
        [
            sys.executable,
            "-I",
            "-c",
            f"import sys; sys.path.insert(0, {str(site)!r});"
            "from jitlab.records.diagnoses import page_url; print(page_url('slow-dispatch'))",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert (
        where.stdout.strip()
        == (site / "jitlab" / "_builtin" / "docs" / "diagnoses" / "slow-dispatch.md").as_uri()
    )
