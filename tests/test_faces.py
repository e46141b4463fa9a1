"""The headless packages import no face: ``jitlab.core`` and ``jitlab.quiz`` never reach the
command line (``jitlab.cli``), the GUI (``jitlab.gui``) or Qt, not even lazily inside a
function. Read from the source, so an import hidden in a rarely taken branch counts too."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import jitlab

ROOT = Path(jitlab.__file__).parent
FACES = ("jitlab.cli", "jitlab.gui", "PySide6", "shiboken6", "pyqtgraph", "superqt")


def imported_modules(path: Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
    return found


@pytest.mark.parametrize("package", ["core", "quiz"])
def test_headless_packages_import_no_face(package: str) -> None:
    bad = [
        f"{path.relative_to(ROOT)}:{line}: {name}"
        for path in sorted((ROOT / package).rglob("*.py"))
        for line, name in imported_modules(path)
        if any(name == face or name.startswith(f"{face}.") for face in FACES)
    ]
    assert not bad, bad


def test_scenarios_import_no_face() -> None:
    # Built-in scenarios live outside the package (scenarios/, jitlab/_builtin/ when
    # installed), so import-linter's contracts cannot see them: read their source instead.
    folder = ROOT.parent / "scenarios"
    if not folder.is_dir():
        folder = ROOT / "_builtin" / "scenarios"
    files = sorted(folder.glob("*.py"))
    assert files
    bad = [
        f"{path.name}:{line}: {name}"
        for path in files
        for line, name in imported_modules(path)
        if any(name == face or name.startswith(f"{face}.") for face in FACES)
    ]
    assert not bad, bad


def test_the_command_line_is_one_package() -> None:
    modules = {p.stem for p in (ROOT / "cli").glob("*.py")}
    assert {"__init__", "__main__", "list", "run", "quiz", "watch", "open"} <= modules
    assert not (ROOT / "cli.py").exists() and not (ROOT / "quiz" / "cli.py").exists()


def test_every_gui_module_is_held_to_the_executor_contract() -> None:
    # The import-linter contract lists the GUI modules by hand: a new one must be added
    # there (or be the executor itself) to be checked at all.
    import tomllib

    config = tomllib.loads((ROOT.parent / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    (contract,) = [c for c in contracts if "executor" in c["name"]]
    listed = set(contract["source_modules"])
    exempt = {"jitlab.gui.__init__", "jitlab.gui.executor"}
    modules = {f"jitlab.gui.{p.stem}" for p in (ROOT / "gui").glob("*.py")} - exempt
    assert modules == listed
