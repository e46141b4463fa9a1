"""Contract: JAX's persistent-cache log lines, read once at capture into typed fields
(``_jax_programs.PERSISTENT_LOGS``, ``persistent_log``, ``module_name``; run on 0.6.2,
0.10.2, 0.11.2 and 0.12.0.1). After a JAX upgrade that rewords them, these fail by name."""

from __future__ import annotations

import ast
import inspect
import subprocess
import sys

import pytest

from jitlab.probe import _jax, _jax_programs

pytestmark = pytest.mark.slow

JAX = _jax.VERSION


def _log_formats() -> set[str]:
    """Every string constant of compiler.py and compilation_cache.py (implicit
    concatenation already joined by the parser): where JAX's log formats live."""
    from jax._src import compilation_cache, compiler

    found = set()
    for module in (compiler, compilation_cache):
        for node in ast.walk(ast.parse(inspect.getsource(module))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                found.add(node.value)
    return found


@pytest.mark.parametrize("text", sorted(_jax_programs.PERSISTENT_LOGS))
def test_each_persistent_cache_format_is_one_jax_logs(text) -> None:
    _, why, names = _jax_programs.PERSISTENT_LOGS[text]
    if why == "host_callbacks" and JAX >= (0, 11, 0):
        # 0.11 stores programs with host callbacks: JAX no longer says it will not.
        assert text not in _log_formats()
        return
    assert text in _log_formats()
    assert text.count("%") == len(names.split())


def test_persistent_log_reads_the_record_arguments_not_the_words() -> None:
    text = (
        "Not writing persistent cache entry for '%s' because it took < %.2f "
        "seconds to compile (%.2fs)"
    )
    assert _jax_programs.persistent_log(text, ("jit_f", 1.0, 0.21)) == (
        "not_written",
        "min_compile_time",
        {"module": "jit_f", "min_compile_s": 1.0, "compile_s": 0.21},
    )
    size = (
        "Not writing persistent cache entry with key %r since its size"
        " (%d bytes) is less than threshold (%d bytes)"
    )
    assert _jax_programs.persistent_log(size, ("jit_g-ab12", 10, 20)) == (
        "not_written",
        "min_entry_size",
        {"key": "jit_g-ab12", "size": 10, "min_size": 20, "module": "jit_g"},
    )
    assert _jax_programs.persistent_log("TRACING CACHE MISS for '%s'", ("f",)) is None
    assert _jax_programs.persistent_log(text, ("jit_f",)) is None  # not the arguments JAX passes


MODULE_NAMES = """
import functools, logging, sys
import jax, jax.numpy as jnp
from jitlab.probe import _jax, _jax_programs
jax.config.update("jax_compilation_cache_dir", sys.argv[1])
seen = []
class Keep(logging.Handler):
    def emit(self, record):
        line = _jax_programs.persistent_log(record.msg, record.args)
        if line is not None and line[0] == "missed":
            seen.append(line[2]["module"])
logger = logging.getLogger("jax._src.compiler")
logger.setLevel(logging.DEBUG)
logger.addHandler(Keep())
class Scaler:
    def __call__(self, x):
        return x * 3
def plain(x):
    return x + 1
def add(a, x):
    return x + a
funs = [plain, lambda x: x - 1, functools.partial(add, 2.0), Scaler()]
for fun in funs:
    seen.clear()
    jax.jit(fun)(jnp.ones(3))
    assert seen[-1] == _jax_programs.module_name(_jax.fun_name(fun)), (seen, _jax.fun_name(fun))
print("ok")
"""


def test_module_name_is_the_name_jaxs_persistent_cache_lines_give(tmp_path) -> None:
    script = tmp_path / "names.py"
    script.write_text(MODULE_NAMES)
    done = subprocess.run(
        [sys.executable, str(script), str(tmp_path / "cache")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_persistent_settings_and_key_parts_read_jaxs_config() -> None:
    import jax

    on, min_s, min_size = _jax_programs.persistent_settings()
    assert min_s == jax.config.jax_persistent_cache_min_compile_time_secs
    assert min_size == jax.config.jax_persistent_cache_min_entry_size_bytes
    assert on == bool(jax.config.jax_compilation_cache_dir)
    parts = _jax_programs.persistent_key_parts()
    from jax._src.lib import version_str

    assert parts["jaxlib"] == version_str
    assert parts["backend"].split()[0] == jax.default_backend()
