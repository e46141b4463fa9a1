"""The typing ratchet: basedpyright strict on the JAX-free data packages (records, recordings,
report) and the probe, with an allow-list of modules not yet clean that only shrinks.

.ci/run runs `basedpyright`, which skips the allow-listed modules ([tool.basedpyright]'s
`exclude` in pyproject.toml). Here the same settings check every module of those packages,
the listed ones too: a listed module that has become clean must come off the list, and a
module off the list must have no error."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from collections import Counter
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # basedpyright runs node

ROOT = Path(__file__).parent.parent


def _settings() -> dict:
    with open(ROOT / "pyproject.toml", "rb") as f:
        return dict(tomllib.load(f)["tool"]["basedpyright"])


def _errors_per_module(settings: dict, folder: Path) -> Counter[str]:
    """basedpyright's error count for every module under `include`, the excluded ones too."""
    config = {k: v for k, v in settings.items() if k != "exclude"}
    config["include"] = [str(ROOT / p) for p in settings["include"]]
    config["extraPaths"] = [str(ROOT)]  # this checkout's jitlab, not an installed one
    (folder / "pyrightconfig.json").write_text(json.dumps(config), encoding="utf-8")
    done = subprocess.run(
        [
            str(Path(sys.executable).parent / "basedpyright"),
            *("--project", str(folder), "--pythonpath", sys.executable, "--outputjson"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    report = json.loads(done.stdout)
    assert report["summary"]["filesAnalyzed"] > 0, done.stderr
    errors: Counter[str] = Counter()
    for d in report["generalDiagnostics"]:
        if d["severity"] == "error":
            errors[Path(d["file"]).relative_to(ROOT).as_posix()] += 1
    return errors


def test_the_allow_list_only_shrinks(tmp_path: Path) -> None:
    settings = _settings()
    assert settings["typeCheckingMode"] == "strict"
    allowed = set(settings["exclude"])
    found = (p for folder in settings["include"] for p in (ROOT / folder).rglob("*.py"))
    modules = {p.relative_to(ROOT).as_posix() for p in found}
    assert allowed <= modules, f"not a module of the checked packages: {sorted(allowed - modules)}"
    errors = _errors_per_module(settings, tmp_path)
    now_clean = sorted(allowed - set(errors))
    assert not now_clean, f"clean now: take these off [tool.basedpyright] exclude: {now_clean}"
    not_clean = {m: n for m, n in sorted(errors.items()) if m not in allowed}
    assert not not_clean, f"strict errors (run basedpyright) in modules off the list: {not_clean}"
