"""Fill ``jitlab_zh_CN.ts`` from a {English: Chinese} table (a helper for translators).

    python resources/i18n/fill.py TABLE.py   # TABLE.py defines ZH = {...}

Entries already translated in the .ts are kept; the table only fills unfinished ones.
"""

from __future__ import annotations

import runpy
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

TS = Path(__file__).resolve().parent / "jitlab_zh_CN.ts"


def fill(table: dict[str, str]) -> list[str]:
    tree = ET.parse(TS)
    missing = []
    for message in tree.iter("message"):
        source = message.findtext("source") or ""
        translation = message.find("translation")
        if translation is None or translation.get("type") != "unfinished":
            continue
        if source in table:
            translation.text = table[source]
            del translation.attrib["type"]
        else:
            missing.append(source)
    tree.write(TS, encoding="utf-8", xml_declaration=True)
    return missing


if __name__ == "__main__":
    left = fill(runpy.run_path(sys.argv[1])["ZH"])
    print("\n".join(f"untranslated: {s}" for s in left) or "all translated")
