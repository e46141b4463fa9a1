"""The headless packages import no face: none below ``jitlab.gui`` and ``jitlab.cli`` reaches the
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


@pytest.mark.parametrize(
    "package", ["records", "probe", "lab", "watching", "recordings", "report", "quiz", "notebook"]
)
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


def _contracts() -> list[dict]:
    import tomllib

    config = tomllib.loads((ROOT.parent / "pyproject.toml").read_text(encoding="utf-8"))
    return config["tool"]["importlinter"]["contracts"]


def test_the_executor_contract_holds_the_whole_gui_package() -> None:
    # Package-level: a new GUI module is checked without being listed anywhere; only the
    # executor's own imports are exempt.
    (contract,) = [c for c in _contracts() if "executor" in c["name"]]
    assert contract["source_modules"] == ["jitlab.gui"]
    assert all(rule.startswith("jitlab.gui.executor -> ") for rule in contract["ignore_imports"])


def test_every_package_has_its_place_in_the_layers() -> None:
    # The package layers (the contract named "layers: …"; records has one of its own inside)
    contracts = _contracts()
    (layers,) = [c for c in contracts if c["type"] == "layers" and c["name"].startswith("layers:")]
    placed = {name.strip() for layer in layers["layers"] for name in layer.split("|")}
    beside = {"jitlab.recordings", "jitlab.report"}  # readers of files: their own contract
    packages = {f"jitlab.{p.parent.name}" for p in ROOT.glob("*/__init__.py")}
    assert packages - {"jitlab._builtin"} == placed | beside


def _package_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 and parts[0] == "jitlab" else ""


# The one private module meant to be imported across packages: the seam to private JAX.
SEAMS = {"jitlab.probe._jax", "jitlab.probe._jax_programs"}  # the private-JAX seam, both halves
# Known, owned elsewhere: the stand-in's hot path reads the monitor's thread-local directly.
KNOWN = {"watching/standin.py: monitor._local"}


def test_no_private_name_crosses_a_package() -> None:
    """A package uses another's public names only (``from jitlab.report.page import
    _overview`` or ``page._CSS`` from the notebook would be a second renderer waiting)."""
    bad = []
    for path in sorted(ROOT.rglob("*.py")):
        parts = path.relative_to(ROOT).parts
        own = parts[0] if len(parts) > 1 else ""
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        modules: set[str] = set()  # names bound to another package's modules
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom) or node.level or not node.module:
                continue
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                if _package_of(full) in ("", own) or full in SEAMS:
                    continue
                if alias.name.startswith("_") and not alias.name.startswith("__"):
                    bad.append(f"{path.relative_to(ROOT)}:{node.lineno}: {full}")
                file = ROOT.parent / full.replace(".", "/")
                if file.with_suffix(".py").is_file() or file.is_dir():  # a module, not a class
                    modules.add(alias.asname or alias.name)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in modules
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
            ):
                where = f"{path.relative_to(ROOT)}: {node.value.id}.{node.attr}"
                if where not in KNOWN:
                    bad.append(where)
    assert not bad, bad
