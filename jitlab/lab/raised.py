"""Where a plugin's own code raised: the innermost frame in the plugin's files.

When a scenario's import, ``setup`` or step raises, its author needs the line of *their* code,
not jitlab's or JAX's frame at the bottom of the traceback. :func:`raised_in` walks the
traceback and keeps the innermost frame inside the plugin's folder (its top-level package, or
its one file), else the innermost frame outside jitlab itself. Imports no JAX.
"""

from __future__ import annotations

import importlib.util
import inspect
import sys
import traceback
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jitlab.records.text import Text

__all__ = ["Raised", "display", "plugin_roots", "raised_in"]

_JITLAB = Path(__file__).resolve().parents[1]  # jitlab's own package


@dataclass(frozen=True)
class Raised:
    """The plugin's line an exception came from, and what the plugin was doing."""

    during: str  # "import", "setup" (building the step) or "step" (a call)
    file: str  # as :func:`display` shows it
    line: int
    function: str
    code: str  # the line itself

    @property
    def place(self) -> str:
        return f"{self.file}:{self.line}"

    def words(self) -> Text:
        """``setup raised it at lesson.py:42, in setup: return 1 / 0``, in both languages."""
        code = f": {self.code}" if self.code else ""
        return Text(
            f"{self.during} raised it at {self.place}, in {self.function}{code}",
            f"{self.during} 抛出了它，位置 {self.place}，在 {self.function} 中{code}",
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "during": self.during,
            "file": self.file,
            "line": self.line,
            "function": self.function,
            "code": self.code,
        }

    @classmethod
    def from_json(cls, data: object) -> Raised | None:
        """Read :meth:`to_json` back (None for anything else: an old record, a plugin's fact)."""
        if not isinstance(data, Mapping):
            return None
        line = data.get("line")
        fields = [data.get(k) for k in ("during", "file", "function", "code")]
        if not (isinstance(line, int) and all(isinstance(f, str) for f in fields)):
            return None
        during, file, function, code = fields
        return cls(str(during), str(file), line, str(function), str(code))


def display(path: str | Path) -> str:
    """A file as an author reads it: relative to the working folder when inside it."""
    text = str(path)
    if not text:
        return ""
    try:
        return str(Path(text).resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError):
        return text


def plugin_roots(owner: object) -> list[Path]:
    """The folders (or the one file) holding a plugin's code: a class's or module's top-level
    package, an entry point's (``"pkg.mod:Cls"``), or a file's folder."""
    if isinstance(owner, Path):
        return [owner.resolve().parent]
    if isinstance(owner, str):
        top = owner.partition(":")[0].split(".")[0]
    else:
        top = str(getattr(owner, "__module__", None) or getattr(owner, "__name__", "")).split(".")[
            0
        ]
    module = sys.modules.get(top)
    if module is not None:
        paths = getattr(module, "__path__", None)
        if paths:
            return [Path(p).resolve() for p in paths]
        file = getattr(module, "__file__", None)
        return [Path(file).resolve()] if file else []
    try:
        spec = importlib.util.find_spec(top) if top else None
    except (ImportError, ValueError):
        spec = None
    if spec is None:
        return []
    if spec.submodule_search_locations:
        return [Path(p).resolve() for p in spec.submodule_search_locations]
    return [Path(spec.origin).resolve()] if spec.origin else []


def _inside(file: str, roots: Iterable[Path]) -> bool:
    try:
        path = Path(file).resolve()
    except OSError:
        return False
    return any(path == root or root in path.parents for root in roots)


def raised_in(exc: BaseException, roots: Iterable[Path], during: str) -> Raised | None:
    """The innermost frame of ``exc``'s traceback inside ``roots``; else the innermost one
    outside jitlab; None when there is no frame (a SyntaxError names its own line)."""
    roots = list(roots)
    if isinstance(exc, SyntaxError) and exc.filename and exc.lineno:
        code = (exc.text or "").strip()
        return Raised(during, display(exc.filename), exc.lineno, "<module>", code)
    frames = traceback.extract_tb(exc.__traceback__) if exc.__traceback__ else []
    frames = [f for f in frames if f.filename and not f.filename.startswith("<frozen ")]
    chosen = next((f for f in reversed(frames) if _inside(f.filename, roots)), None)
    if chosen is None:
        chosen = next((f for f in reversed(frames) if not _inside(f.filename, [_JITLAB])), None)
    if chosen is None or chosen.lineno is None:
        return None
    code = (chosen.line or "").strip()
    return Raised(during, display(chosen.filename), chosen.lineno, chosen.name, code)


def source_file(obj: object) -> str:
    """The file that defines ``obj`` ("" for a class made in memory)."""
    try:
        return inspect.getsourcefile(obj) or inspect.getfile(obj)  # type: ignore[arg-type]
    except (TypeError, OSError):
        return ""
