"""Refresh the Chinese catalogue from the sources, then compile it.

    python resources/i18n/update.py          # lupdate (keeps existing translations) + lrelease

Run it after adding or changing a ``tr()`` string, translate the new entries in
``jitlab_zh_CN.ts`` (Qt Linguist, or by hand: drop ``type="unfinished"``), and run it again.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
TS = HERE / "jitlab_zh_CN.ts"
QM = HERE / "jitlab_zh_CN.qm"


def tool(name: str) -> str:
    found = shutil.which(f"pyside6-{name}") or shutil.which(name)
    if found is None:
        local = Path(sys.executable).parent / f"pyside6-{name}"
        if local.exists():
            return str(local)
        raise SystemExit(f"{name} not found: install PySide6")
    return found


def sources() -> list[str]:
    return sorted(str(p.relative_to(ROOT)) for p in (ROOT / "jitlab" / "gui").rglob("*.py"))


def main() -> int:
    subprocess.run(
        [tool("lupdate"), *sources(), "-no-obsolete", "-locations", "none", "-ts", str(TS)],
        cwd=ROOT,
        check=True,
    )
    subprocess.run([tool("lrelease"), str(TS), "-qm", str(QM)], cwd=ROOT, check=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
