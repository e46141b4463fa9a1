"""Where the recompile-cost lesson's persistent-cache demo keeps its cache on disk, and what
the disk refused, in JAX's words (``scenarios/recompile_cost.py`` imports them in the parent
process only: its spawned child runs that file by path, with no package to import from)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def demo_cache_root() -> Path:
    try:
        from platformdirs import user_cache_dir

        return Path(user_cache_dir("jitlab")) / "compilation-cache-demo"
    except ImportError:  # pragma: no cover - platformdirs is a dependency
        return Path(tempfile.gettempdir()) / "jitlab-compilation-cache-demo"


def cache_dir_for_run(root: Path) -> tuple[str, str | None]:
    """A new, empty cache folder under ``root``; where the disk refuses (read-only, full),
    the path JAX is pointed at anyway and the OS error in words: the demo goes on uncached."""
    try:
        root.mkdir(parents=True, exist_ok=True)
        return tempfile.mkdtemp(prefix="run-", dir=root), None
    except OSError as exc:
        return str(root / f"run-{os.getpid()}"), f"{type(exc).__name__}: {exc}"


def cache_errors(refused: str | None, warnings_: list[str]) -> list[str]:
    """The OS errors in JAX's warnings ("Error writing persistent compilation cache entry
    for 'jit_predict': OSError: [Errno 28] No space left on device"), JAX's words kept, once
    each, with what was being done: "OSError: [Errno 28] No space left on device (writing)"."""
    actions: dict[str, list[str]] = {}
    if refused:
        actions[refused] = ["making the folder"]
    for warning in warnings_:
        head, sep, tail = warning.partition("': ")
        if not (sep and "persistent compilation cache" in head):
            head, tail = "", warning
        action = "writing" if "writing" in head else "reading" if "reading" in head else ""
        done = actions.setdefault(tail.strip(), [])
        if action and action not in done:
            done.append(action)
    return [f"{e} ({', '.join(a)})" if a else e for e, a in actions.items()]
