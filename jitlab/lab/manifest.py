"""The scenario list without importing the scenarios: a manifest of the built-ins.

A scenario module imports JAX (about a second), so discovering it must wait for JAX. The
list a learner picks from needs none of that: each built-in's id, chapter, title, question
and icon are written to ``resources/scenarios.json`` (by ``python -m jitlab.lab.discovery
--manifest``), with the SHA-256 of the file they came from. The app lists those at once and
swaps in the real discovery when it arrives; a file that changed since the manifest was
written is left out until then, so the early list never shows what the file no longer says.

Each listing also keeps the lesson screen's spec (parameters, variants, lesson texts, the
code each variant shows): :meth:`Listing.lesson` makes a JAX-free stand-in class from it, so
the window builds its sliders, Step and code before JAX has loaded. The stand-in never runs:
the executor swaps in the discovered class of the same id before its first call
(:func:`is_stand_in`).
Plugins from entry points come with the discovery (napari's npe2 manifests follow the same
idea). ``tests/lab/test_manifest.py`` fails when the shipped manifest is stale.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeGuard

from jitlab.lab.spec import (
    AutoplayStep,
    CardRef,
    Chapter,
    Comparison,
    Lesson,
    Measure,
    Param,
    Scenario,
    ScriptLesson,
    Text,
    Variant,
)
from jitlab.records.messages import language_of, say
from jitlab.records.paths import builtin_dir, resource

MANIFEST = "scenarios.json"
# Another folder of built-in scenarios (a copy to try a new scenario in): discovery, the
# manifest's early list and its staleness check read it instead of the shipped ``scenarios/``.
SCENARIOS_ENV = "JITLAB_SCENARIOS"


def builtin_folder() -> Path:
    """The folder the built-in scenarios are read from: ``$JITLAB_SCENARIOS`` if set and a
    folder; one that is not (a typo, a file) is said once on stderr and the shipped folder
    used, never an empty list with the wrong advice."""
    chosen = os.environ.get(SCENARIOS_ENV, "").strip()
    if not chosen:
        return builtin_dir("scenarios")
    folder = Path(chosen).expanduser().resolve()
    if folder.is_dir():
        return folder
    if chosen not in _SAID:
        _SAID.add(chosen)
        lang = language_of(os.environ.get("LC_ALL") or os.environ.get("LANG"))
        warning = say(
            "env.ignored",
            lang,
            name=SCENARIOS_ENV,
            value=repr(chosen[:200]),
            expected=say("env.folder", lang),
            default=say("env.shipped", lang),
        )
        print(warning, file=sys.stderr)
    return builtin_dir("scenarios")


_SAID: set[str] = set()  # JITLAB_SCENARIOS values said not to be a folder (once each)


@dataclass(frozen=True)
class Listing:
    """A scenario as the list shows it; it stands in for the class until discovery."""

    id: str
    chapter: Chapter
    title: Text
    question: Text
    icon: str  # as the class declares it: an icon name or a path next to its file
    file: str  # the built-in file it came from
    digest: str  # SHA-256 of that file when the manifest was written
    # The lesson screen's spec, as JSON (:func:`spec_of`); empty in an older manifest.
    spec: Mapping[str, Any] = field(default_factory=dict)

    # Until discovery arrives a listing fills a discovery entry's place in the list.
    @property
    def name(self) -> str:
        return self.id

    @property
    def scenario(self) -> Listing:
        return self

    error = None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "chapter": [self.chapter.number, self.chapter.title.en, self.chapter.title.zh],
            "title": [self.title.en, self.title.zh],
            "question": [self.question.en, self.question.zh],
            "icon": self.icon,
            "file": self.file,
            "sha256": self.digest,
            "spec": dict(self.spec),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Listing:
        number, chapter_en, chapter_zh = data["chapter"]
        return cls(
            str(data["id"]),
            Chapter(int(number), Text(str(chapter_en), str(chapter_zh))),
            Text(*map(str, data["title"])),
            Text(*map(str, data["question"])),
            str(data.get("icon") or ""),
            str(data["file"]),
            str(data["sha256"]),
            dict(data.get("spec") or {}),
        )

    def lesson(self) -> type[Scenario] | None:
        """A JAX-free stand-in for the scenario's class, enough to build its lesson screen
        (None when this listing carries no spec, or one this jitlab cannot read)."""
        if not self.spec:
            return None
        try:
            attrs = {name: _decode(value) for name, value in self.spec.items()}
        except Exception:  # an unreadable spec costs the early screen, nothing else
            return None
        sources: dict[str, dict[str, str]] = attrs.pop("sources", {})

        def source(self: Scenario, variant: str, language: str = "en") -> str:
            texts = sources.get(variant, {})
            return texts.get("zh" if language.startswith("zh") else "en", "")

        attrs.update(
            id=self.id,
            chapter=self.chapter,
            title=self.title,
            question=self.question,
            icon=self.icon,
            source=source,
            _stand_in=True,
        )
        return type(f"Early_{self.id.replace('-', '_')}", (Scenario,), attrs)


def is_stand_in(cls: Any) -> TypeGuard[type[Scenario]]:
    """Is ``cls`` a :meth:`Listing.lesson` stand-in (it shows a lesson, it cannot run)?"""
    return bool(vars(cls).get("_stand_in")) if isinstance(cls, type) else False


# What the lesson screen reads from a scenario's class before JAX (the rest comes with it).
SPEC_FIELDS = ("lesson", "params", "variants", "autoplay", "scripts", "comparisons", "also_judged")
_KINDS = {
    c.__name__: c
    for c in (Text, Param, Variant, Lesson, CardRef, ScriptLesson, AutoplayStep, Comparison)
}


def spec_of(cls: type[Scenario]) -> dict[str, Any]:
    """The lesson screen's spec of a scenario class as JSON: :data:`SPEC_FIELDS` and the
    code each variant shows, in both languages."""
    spec = {name: _encode(getattr(cls, name)) for name in SPEC_FIELDS}
    scenario = cls()
    spec["sources"] = {
        v.id: {lang: scenario.source(v.id, lang) for lang in ("en", "zh")} for v in cls.variants
    }
    return spec


def _encode(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        kind = type(value).__name__
        if kind not in _KINDS:
            raise TypeError(f"no manifest form for {kind}")
        fields = dataclasses.fields(value)
        return {"_": kind, **{f.name: _encode(getattr(value, f.name)) for f in fields}}
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, list | tuple):
        return [_encode(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _encode(v) for k, v in value.items()}
    if value is None or isinstance(value, str | int | float | bool):
        return value
    raise TypeError(f"no manifest form for {type(value).__name__}")


def _decode(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_decode(v) for v in value)
    if isinstance(value, dict):
        items = {k: _decode(v) for k, v in value.items() if k != "_"}
        kind = value.get("_")
        if kind is None:
            return items
        if kind == "Comparison":
            items["measure"] = Measure(items["measure"])
        return _KINDS[kind](**items)
    return value


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def listed(scenarios_dir: Path | None = None) -> list[Listing]:
    """The built-ins the manifest lists whose files are unchanged, in discovery order.

    Empty for another scenarios folder, or when the manifest is missing or unreadable:
    the list then fills when discovery ends. Never raises."""
    folder = builtin_folder()
    if scenarios_dir is not None and Path(scenarios_dir).resolve() != folder.resolve():
        return []
    try:
        data = json.loads(resource(MANIFEST).read_text(encoding="utf-8"))
        listings = [Listing.from_json(item) for item in data["scenarios"]]
        digests: dict[str, str] = {}
        fresh = []
        for item in listings:
            path = folder / item.file
            if item.file not in digests:
                digests[item.file] = digest(path) if path.is_file() else ""
            if digests[item.file] == item.digest:
                fresh.append(item)
        return fresh
    except Exception:  # a damaged manifest costs the early list, nothing else
        return []


def render(listings: list[Listing]) -> str:
    body = {"about": __doc__.splitlines()[0], "scenarios": [x.to_json() for x in listings]}
    return json.dumps(body, ensure_ascii=False, indent=1) + "\n"


def stale(scenarios_dir: Path | None = None) -> list[str]:
    """The built-in files the manifest does not match (changed, new, gone), sorted; a
    missing or unreadable manifest is ``[MANIFEST]``. Empty when it is current. JAX-free
    (it hashes the files), so ``jitlab list`` and the app say so before discovery ends."""
    folder = Path(scenarios_dir) if scenarios_dir is not None else builtin_folder()
    files = {p.name for p in folder.glob("*.py")}  # a scenario's `_` helpers count too
    try:
        data = json.loads(resource(MANIFEST).read_text(encoding="utf-8"))
        recorded = {str(item["file"]): str(item["sha256"]) for item in data["scenarios"]}
    except Exception:
        return [MANIFEST]
    scenario_files = {f for f in files if not f.startswith("_")}
    wrong = {f for f, sha in recorded.items() if f not in files or digest(folder / f) != sha}
    return sorted(wrong | (scenario_files - set(recorded)))


def stale_notice(scenarios_dir: Path | None = None) -> Text | None:
    """One line for ``jitlab list`` and the app when the manifest is stale, else None."""
    files = stale(scenarios_dir)
    if not files:
        return None
    names = ", ".join(files)
    return Text(
        f"The scenario manifest is out of date ({names}): "
        "run python -m jitlab.lab.discovery --manifest",
        f"场景清单已过期（{names}）：请运行 python -m jitlab.lab.discovery --manifest",
    )
