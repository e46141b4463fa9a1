"""Run notebooks in a real kernel (nbclient + ipykernel) on this interpreter.

The kernel is this test's Python (``sys.executable``): its own kernelspec, written into the
test's folder, so a ``python3`` kernelspec elsewhere on the machine (another Python, another
jitlab) is never picked. It imports the jitlab this test imports (``PYTHONPATH``), from any
checkout. Cells that fail are kept (``allow_errors``): each test reads the error it expects.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import nbformat
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient

import jitlab

KERNEL = "jitlab-test"


def notebook(cells: list[str]) -> Any:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    return nb


def execute(nb: Any, folder: Path, timeout: int = 600, client_class: Any = NotebookClient) -> Any:
    """Execute ``nb`` (a notebook node, or a list of cell sources) in a fresh kernel whose
    working folder is ``folder``; the executed notebook (``client_class``: a
    :class:`NotebookClient` that also looks at the messages, say)."""
    if isinstance(nb, list):
        nb = notebook(nb)
    spec = folder / "kernels" / KERNEL
    spec.mkdir(parents=True, exist_ok=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    kernel = {"argv": argv, "display_name": "jitlab test", "language": "python"}
    (spec / "kernel.json").write_text(json.dumps(kernel))
    specs = KernelSpecManager(kernel_dirs=[str(spec.parent)])
    km = AsyncKernelManager(kernel_name=KERNEL, kernel_spec_manager=specs)
    root = str(Path(jitlab.__file__).resolve().parents[1])
    path = os.environ.get("PYTHONPATH")
    env = {
        **os.environ,
        "PYTHONPATH": root + (os.pathsep + path if path else ""),
        "JAX_PLATFORMS": os.environ.get("JAX_PLATFORMS", "cpu"),
        "IPYTHONDIR": str(folder / ".ipython"),  # the user's IPython profile stays untouched
    }
    client = client_class(
        nb,
        km=km,
        timeout=timeout,
        allow_errors=True,
        resources={"metadata": {"path": str(folder)}},
    )
    client.execute(env=env)
    return nb


def outputs(cell: Any, kind: str | None = None) -> list[Any]:
    return [o for o in cell.outputs if kind is None or o.output_type == kind]


def text(cell: Any) -> str:
    """Everything the cell printed to stdout."""
    return "".join(o.text for o in outputs(cell, "stream") if o.name == "stdout")


def data(cell: Any, mime: str) -> list[str]:
    """The ``mime`` part of each display / result output, in order."""
    found = []
    for o in cell.outputs:
        if o.output_type in ("display_data", "execute_result") and mime in o.data:
            value = o.data[mime]
            found.append(value if isinstance(value, str) else "".join(value))
    return found


def error(cell: Any) -> Any:
    errors = outputs(cell, "error")
    return errors[0] if errors else None


def table_row(plain: str, function: str) -> dict[str, str]:
    """A row of a summary's plain-text table (``function compiles recompiles hits …``)."""
    lines = plain.splitlines()
    head = next(i for i, line in enumerate(lines) if line.split()[:1] == ["function"])
    names = lines[head].replace("ms compiling", "ms_compiling").split()
    for line in lines[head + 1 :]:
        cells = line.split()
        if cells and cells[0] == function:
            return dict(zip(names, cells, strict=True))
    raise AssertionError(f"no row for {function!r} in:\n{plain}")
