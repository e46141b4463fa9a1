"""Find scenario plugins: built-ins from ``scenarios/`` and third-party entry points.

Discovery never raises: a plugin that fails to import or is malformed comes back as an
entry with its error, and every other plugin still loads.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

from jitlab.lab import manifest
from jitlab.lab.raised import plugin_roots, raised_in
from jitlab.lab.scenario import Scenario, validate
from jitlab.lab.spec import Chapter
from jitlab.records.paths import builtin_dir, resource

ENTRY_POINT_GROUP = "jitlab.scenarios"
_BUILTIN_PACKAGE = "jitlab_builtin_scenarios"
# ``JITLAB_PLUGINS=0`` leaves installed plugins out: only the built-ins load. jitlab's own test
# suite sets it (tests/conftest.py), so a plugin a user installed cannot fail the project's
# tests; a plugin that hangs at import can be kept out of the app the same way.
PLUGINS_ENV = "JITLAB_PLUGINS"


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
    """All scenario plugins in chapter order, broken ones included (last).

    This is the one registry: the lab, ``jitlab list``, the quiz (each scenario's
    ``exercises``) and the GUI's scenario and exercise lists all read it.
    """
    entries: list[PluginEntry] = []
    # The built-ins' folder: ``scenarios/`` (or ``$JITLAB_SCENARIOS``, a copy to try one in).
    folder = scenarios_dir or manifest.builtin_folder()
    for path in sorted(folder.glob("*.py")):
        if path.name.startswith("_"):
            continue
        load = partial(_load_file, path)
        entries.extend(_load(load, path.stem, f"builtin:{path.name}", [path.parent]))
    for ep in _entry_points() if entry_points else []:
        entries.extend(_load(ep.load, ep.name, f"entry-point:{ep.name}", plugin_roots(ep.value)))
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


def _order(entry: PluginEntry) -> tuple[bool, int, str, str]:
    """By chapter number (a plugin's own chapters after the built-ins), broken ones last."""
    if entry.scenario is None:
        return (True, 0, "", entry.name)
    chapter = entry.scenario.chapter
    return (False, int(chapter), chapter.title.en, entry.name)


def _load(load: Callable[[], Any], name: str, origin: str, roots: list[Path]) -> list[PluginEntry]:
    """Import one plugin and check it; whatever it raises makes it one broken entry, named
    with the plugin's own line (``roots``: its files)."""
    try:
        return _from_object(load(), name, origin)
    except KeyboardInterrupt:  # Ctrl-C during discovery still ends the tool
        raise
    except BaseException as exc:  # sys.exit() at import must not take the tool down
        return [PluginEntry(name, origin, error=_describe(exc, roots))]


def plugins_wanted() -> bool:
    """Whether installed plugins load (``$JITLAB_PLUGINS`` is not 0, off, no or false)."""
    return os.environ.get(PLUGINS_ENV, "").strip().lower() not in ("0", "off", "no", "false")


def _entry_points() -> list[importlib.metadata.EntryPoint]:
    if not plugins_wanted():
        return []
    try:
        return list(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP))
    except Exception:
        return []


def load_file(path: Path) -> list[PluginEntry]:
    """The scenarios of one file anywhere (``jitlab check lesson.py``), loaded and checked as
    a built-in is; broken ones with their error. Never raises."""
    path = Path(path).resolve()
    load = partial(_load_file, path, _FILE_PACKAGE)
    return _load(load, path.stem, f"file:{path.name}", [path.parent])


_FILE_PACKAGE = "jitlab_checked_scenarios"  # the files load_file imports (apart from built-ins)


def _load_file(path: Path, package_name: str = _BUILTIN_PACKAGE) -> ModuleType:
    """Import a scenario module by path (a built-in, from a checkout or from the wheel)."""
    package = sys.modules.get(package_name)
    if package is None:
        package = ModuleType(package_name)
        sys.modules[package_name] = package
    # The folder being loaded: a scenario's relative import (``from ._x_exercises import …``)
    # finds its sibling there, whichever folder was discovered first.
    package.__path__ = [str(path.parent)]
    name = f"{package_name}.{path.stem}"
    cached = sys.modules.get(name)
    if cached is not None and getattr(cached, "__file__", None) == str(path):
        return cached  # the same file again; a same-named file of another folder loads anew
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
        declared = vars(cls).get("id") if isinstance(cls, type) else None
        scenario_id = declared if isinstance(declared, str) and declared.strip() else name
        if problems:  # listed under the id it declares when that is a name, else its own
            entries.append(PluginEntry(scenario_id, origin, error="; ".join(problems)))
        else:
            entries.append(PluginEntry(cls.id, origin, scenario=cls))
    return entries


def _describe(exc: BaseException, roots: list[Path]) -> str:
    raised = raised_in(exc, roots, "import")
    where = f" ({raised.place})" if raised is not None else ""
    if not isinstance(exc, Exception):  # SystemExit's str() is a bare code such as "3"
        return f"{exc!r} raised by the plugin{where}"
    return f"{type(exc).__name__}: {exc}{where}"


# -- the built-ins' manifest (the scenario list before JAX is loaded) --------------------------
def listings(scenarios_dir: Path | None = None) -> list[manifest.Listing]:
    """Listings of the built-ins as discovery finds them now (imports them: JAX)."""
    folder = scenarios_dir or manifest.builtin_folder()
    out = []
    for entry in discover(folder, entry_points=False):
        cls = entry.scenario
        if cls is None or not entry.origin.startswith("builtin:"):
            continue
        file = entry.origin.removeprefix("builtin:")
        chapter = Chapter(int(cls.chapter), cls.chapter.title)
        icon = str(getattr(cls, "icon", "") or "")
        sha = manifest.digest(folder / file)
        try:
            spec = manifest.spec_of(cls)
        except TypeError:  # a value with no JSON form: the early screen shows the question only
            spec = {}
        listing = manifest.Listing(cls.id, chapter, cls.title, cls.question, icon, file, sha, spec)
        out.append(listing)
    return out


def main(argv: list[str] | None = None) -> int:
    """``python -m jitlab.lab.discovery --manifest`` rewrites the built-ins' manifest
    (:mod:`jitlab.lab.manifest`); ``--check`` only compares."""
    args = sys.argv[1:] if argv is None else argv
    if "--manifest" not in args:
        print("usage: python -m jitlab.lab.discovery --manifest [--check]", file=sys.stderr)
        return 2
    folder = manifest.builtin_folder()
    if "--check" not in args and folder.resolve() != builtin_dir("scenarios").resolve():
        # The manifest ships with the package: never rewrite it from another folder.
        print(
            f"{manifest.SCENARIOS_ENV} names another folder ({folder}): "
            "the shipped manifest is written only from the built-in scenarios",
            file=sys.stderr,
        )
        return 2
    text = manifest.render(listings(folder))
    path = resource(manifest.MANIFEST)
    if "--check" in args:
        same = path.is_file() and path.read_text(encoding="utf-8") == text
        print(
            "manifest is current"
            if same
            else "stale: run python -m jitlab.lab.discovery --manifest"
        )
        return 0 if same else 1
    path.write_text(text, encoding="utf-8")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
