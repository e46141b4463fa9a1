"""jitlab in Jupyter, VS Code and Colab notebooks: no Qt (an import contract says so).

``%load_ext jitlab`` (or ``import jitlab.notebook`` in a running kernel) registers

* ``%%jitlab [--budget N] [--lang zh] [--live]``: the cell run under :func:`jitlab.watch`,
  what it compiled and why shown below it (:mod:`jitlab.notebook.magics`);
* ``%jitlab_watch on|off``: every cell watched, a summary after each one that compiled;
* rich display: a :class:`~jitlab.probe.probe.Probe`, a :func:`jitlab.watch` recorder, a
  recording read from a file and a :class:`~jitlab.records.scripts.Script` show themselves as
  HTML (the report's renderer) with a plain-text form (:mod:`jitlab.notebook.render`).

The display formatters are registered with IPython by type name, from here: the packages that
define those types (``probe``, ``watching``) may not import the report (the layers'
contracts), and registering by name imports nothing — not even JAX.
"""

from __future__ import annotations

from typing import Any

__all__ = ["load_ipython_extension", "register_formatters", "unload_ipython_extension"]

# (module, class name) -> the names of its HTML and text renderers in jitlab.notebook.render
FORMATTERS = {
    ("jitlab.probe.probe", "Probe"): ("probe_html", "probe_text"),
    ("jitlab.watching.recorder", "Recorder"): ("recorder_html", "recorder_text"),
    ("jitlab.recordings.reader", "Recording"): ("file_recording_html", "file_recording_text"),
    ("jitlab.records.scripts", "Script"): ("script_html", "script_text"),
}


def _html(name: str) -> Any:
    def format_html(obj: Any) -> str:
        from jitlab.notebook import render

        return str(getattr(render, name)(obj))

    return format_html


def _text(name: str) -> Any:
    def format_text(obj: Any, p: Any, cycle: bool) -> None:
        from jitlab.notebook import render

        p.text(str(getattr(render, name)(obj)))

    return format_text


def register_formatters(ip: Any) -> None:
    """Show jitlab's objects as HTML (and text) in ``ip``, an IPython shell."""
    formatters = ip.display_formatter.formatters
    for (module, name), (html, text) in FORMATTERS.items():
        formatters["text/html"].for_type_by_name(module, name, _html(html))
        formatters["text/plain"].for_type_by_name(module, name, _text(text))


def load_ipython_extension(ip: Any) -> None:
    """``%load_ext jitlab`` / ``%load_ext jitlab.notebook``: the magics and rich display."""
    from jitlab.notebook.magics import JitlabMagics

    if not any(isinstance(m, JitlabMagics) for m in ip.magics_manager.registry.values()):
        ip.register_magics(JitlabMagics)
    register_formatters(ip)


def unload_ipython_extension(ip: Any) -> None:
    """``%unload_ext jitlab``: every watch the magics started ends (``jax.jit`` is JAX's own
    again), and the magics and the rich display go (``%load_ext jitlab`` brings them back)."""
    from jitlab.notebook.magics import JitlabMagics

    manager = ip.magics_manager
    for key, magics in list(manager.registry.items()):
        if isinstance(magics, JitlabMagics):
            magics.stop_watching()
            del manager.registry[key]
    for kind, names in (("cell", ("jitlab",)), ("line", ("jitlab_watch",))):
        table = manager.magics[kind]
        for name in names:
            bound = table.get(name)
            if isinstance(getattr(bound, "__self__", None), JitlabMagics):
                del table[name]
    formatters = ip.display_formatter.formatters
    for module, name in FORMATTERS:
        for mime in ("text/html", "text/plain"):
            formatters[mime].pop(f"{module}.{name}", None)


def _register_in_running_shell() -> None:
    try:
        from IPython import get_ipython
    except ImportError:  # not in IPython: nothing to register with
        return
    ip = get_ipython()
    if ip is not None and hasattr(ip, "display_formatter"):
        load_ipython_extension(ip)


_register_in_running_shell()
