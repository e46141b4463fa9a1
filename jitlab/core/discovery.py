"""Find scenario plugins: built-ins from ``scenarios/`` and third-party entry points.

Discovery never raises: a plugin that fails to import or is malformed comes back as an
entry with its error, and every other plugin still loads.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from jitlab.core.paths import builtin_dir
from jitlab.core.scenario import Scenario, validate

ENTRY_POINT_GROUP = "jitlab.scenarios"
_BUILTIN_PACKAGE = "jitlab_builtin_scenarios"


@dataclass(frozen=True)
class PluginEntry:
    name: str  # the scenario id, or the module / entry point name when it is broken
    origin: str  # "builtin:<file>" or "entry-point:<name>"
    scenario: type[Scenario] | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.scenario is not None


def discover(scenarios_dir: Path | None = None, entry_points: bool = True) -> list[PluginEntry]:
    """All scenario plugins, built-ins first (sorted by pitfall), broken ones included."""
    entries: list[PluginEntry] = []
    folder = scenarios_dir or builtin_dir("scenarios")
    for path in sorted(folder.glob("*.py")):
        if path.name.startswith("_"):
            continue
        origin = f"builtin:{path.name}"
        try:
            module = _load_file(path)
        except Exception as exc:
            entries.append(PluginEntry(path.stem, origin, error=_describe(exc)))
            continue
        entries.extend(_from_object(module, path.stem, origin))
    for ep in _entry_points() if entry_points else []:
        origin = f"entry-point:{ep.name}"
        try:
            obj = ep.load()
        except Exception as exc:
            entries.append(PluginEntry(ep.name, origin, error=_describe(exc)))
            continue
        entries.extend(_from_object(obj, ep.name, origin))
    seen: set[str] = set()
    unique = []
    for entry in entries:
        if entry.ok and entry.name in seen:
            entry = PluginEntry(entry.name, entry.origin, error="duplicate scenario id")
        seen.add(entry.name)
        unique.append(entry)
    return sorted(unique, key=_order)


def scenarios(entries: list[PluginEntry] | None = None) -> dict[str, type[Scenario]]:
    """The working scenarios by id."""
    return {e.name: e.scenario for e in (entries or discover()) if e.scenario is not None}


def _order(entry: PluginEntry) -> tuple[int, str]:
    return (int(entry.scenario.pitfall) if entry.scenario else 99, entry.name)


def _entry_points() -> list[importlib.metadata.EntryPoint]:
    try:
        return list(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP))
    except Exception:
        return []


def _load_file(path: Path) -> ModuleType:
    """Import a built-in scenario module by path (works from a checkout and from the wheel)."""
    if _BUILTIN_PACKAGE not in sys.modules:
        package = ModuleType(_BUILTIN_PACKAGE)
        package.__path__ = [str(path.parent)]
        sys.modules[_BUILTIN_PACKAGE] = package
    name = f"{_BUILTIN_PACKAGE}.{path.stem}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # before exec: dataclasses and inspect.getsource need it
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def _from_object(obj: Any, name: str, origin: str) -> list[PluginEntry]:
    if isinstance(obj, ModuleType):
        classes = [
            value
            for value in vars(obj).values()
            if isinstance(value, type)
            and issubclass(value, Scenario)
            and value.__module__ == obj.__name__
            and "id" in vars(value)
        ]
        if not classes:
            return [PluginEntry(name, origin, error="defines no Scenario subclass with an id")]
    else:
        classes = [obj]
    entries = []
    for cls in classes:
        problems = validate(cls)
        scenario_id = getattr(cls, "id", name) if isinstance(cls, type) else name
        if problems:
            entries.append(PluginEntry(str(scenario_id), origin, error="; ".join(problems)))
        else:
            entries.append(PluginEntry(cls.id, origin, scenario=cls))
    return entries


def _describe(exc: BaseException) -> str:
    last = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
    where = f" ({Path(last[0].filename).name}:{last[0].lineno})" if last else ""
    return f"{type(exc).__name__}: {exc}{where}"
