"""How long the script view takes to open a 100,000-line HLO, and to scroll through it.

Run: ``QT_QPA_PLATFORM=offscreen python benchmarks/script_view.py [lines]``. No JAX: the
script is a synthetic one (plain data, as the executor hands it over), so only the view is
measured. Prints the figures; "open" is set_script until the first screen is highlighted
and painted.
"""

from __future__ import annotations

import os
import sys
import time
from types import SimpleNamespace

from PySide6.QtWidgets import QApplication

from jitlab.gui.executor import ScriptOf
from jitlab.gui.scripts.window import ScriptWindow
from jitlab.records.calls import LeafSpec, Signature
from jitlab.records.scripts import Script


def synthetic_hlo(lines: int) -> str:
    out = ["HloModule jit_big, is_scheduled=true", "", "ENTRY %main (p0: f32[64,64]) -> f32[64] {"]
    for i in range(lines - 4):
        out.append(
            f"  %add.{i} = f32[64,64]{{1,0}} add(f32[64,64]{{1,0}} %p{i}, f32[64,64]{{1,0}} "
            f'%c{i}), metadata={{op_name="jit(big)/add" stack_frame_id={i % 7}}}'
        )
    out.append("}")
    return "\n".join(out)


def synthetic_script(lines: int) -> Script:
    hlo = synthetic_hlo(lines)
    stablehlo = "\n".join(
        f"    %{i} = stablehlo.add %arg0, %cst : tensor<64x64xf32>" for i in range(lines)
    )
    jaxpr = "{ lambda ; a:f32[64,64]. let\n" + "\n".join(
        f"    b{i}:f32[64,64] = add a 1.0:f32[] # /tmp/big.py:{3 + i % 5}:4 (big)"
        for i in range(min(lines, 20_000))
    )
    return Script(
        function="big",
        card=0,
        signature=Signature((LeafSpec("a", (64, 64), "float32", False),), (), "PyTreeDef(*)"),
        created_by=0,
        source="def big(a):\n" + "    a = a + 1.0\n" * 5 + "    return a\n",
        source_file="/tmp/big.py",
        source_line=1,
        jaxpr=jaxpr,
        jaxpr_annotated=jaxpr + "\n  in (a,) }",
        stablehlo=stablehlo,
        hlo=hlo,
    )


def _headless() -> None:
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def main() -> None:
    _headless()
    lines = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    app = QApplication.instance() or QApplication(sys.argv)
    card = SimpleNamespace(key=("big", 0), number=1, signature="f32[64,64]", created_by=0)
    window = ScriptWindow(card)  # type: ignore[arg-type]
    window.resize(1280, 800)
    window.show()
    app.processEvents()
    script = synthetic_script(lines)
    made = ScriptOf("big", 0, 0, script)
    view = window.view
    start = time.perf_counter()
    view.set_script(made, 1)
    view.tabs.setCurrentWidget(view.hlo)
    app.processEvents()
    view.hlo.viewport().repaint()
    opened = (time.perf_counter() - start) * 1e3
    hlo_chars = len(script.hlo)
    # Scroll a page at a time through the first 200 pages, then jump to the end.
    bar = view.hlo.verticalScrollBar()
    page = bar.pageStep()
    frames = []
    for i in range(200):
        t = time.perf_counter()
        bar.setValue(i * page)
        view.hlo.viewport().repaint()
        app.processEvents()
        frames.append((time.perf_counter() - t) * 1e3)
    t = time.perf_counter()
    bar.setValue(bar.maximum())
    view.hlo.viewport().repaint()
    app.processEvents()
    jump = (time.perf_counter() - t) * 1e3
    t = time.perf_counter()
    view.find_bar.box.setText("%add.99990 ")
    found = view.find_bar.search()
    find_ms = (time.perf_counter() - t) * 1e3
    frames.sort()
    print(f"HLO lines                 {lines:,} ({hlo_chars / 1e6:.1f} MB of text)")
    print(f"open (set_script → shown) {opened:,.0f} ms")
    print(f"scroll a page: median     {frames[len(frames) // 2]:.1f} ms, worst {frames[-1]:.1f} ms")
    print(f"jump to the end           {jump:.1f} ms")
    print(f"find near the end         {find_ms:.1f} ms (found: {found})")
    print(f"blocks highlighted        {len(view.hlo.highlighter.done):,}")
    window.close()


if __name__ == "__main__":
    main()
