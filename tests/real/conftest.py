"""Real programs with real JAX libraries, compared with JAX's own ``jax_log_compiles`` log."""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager

import jax
import pytest

from jitlab.records.change_words import reason_words

# "Finished XLA compilation of jit(step) in 0.05 sec": one line per backend compile.
_COMPILED = re.compile(r"Finished XLA compilation of jit\((?P<name>[^)]*)\)")
_PERSISTENT = re.compile(r"Persistent compilation cache hit for '(?:jit_)?(?P<name>[^']*)'")


def compiles_logged(text: str) -> Counter[str]:
    """What JAX logged with ``jax_log_compiles`` in ``text`` (a process's stderr, run with
    ``JAX_LOG_COMPILES=1``): executables built, per function name."""
    counts: Counter[str] = Counter()
    for line in text.splitlines():
        match = _COMPILED.search(line) or _PERSISTENT.search(line)
        if match:
            counts[match["name"]] += 1
    return counts


class JaxCompileLog(logging.Handler):
    """What JAX itself logs with ``jax_log_compiles``: executables built, per function name."""

    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.counts: Counter[str] = Counter()
        self.messages: list[str] = []
        self.misses: list[str] = []  # JAX's "TRACING CACHE MISS" explanations, in order

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        self.messages.append(message)
        match = _COMPILED.search(message) or _PERSISTENT.search(message)
        if match:
            self.counts[match["name"]] += 1
        if "TRACING CACHE MISS" in message:
            self.misses.append(message)

    def misses_of(self, name: str) -> list[str]:
        """JAX's explanations of the misses of the function called ``name``."""
        return [m for m in self.misses if f"for {name} defined at" in m or f" {name} id=" in m]


@contextmanager
def jax_compile_log() -> Iterator[JaxCompileLog]:
    """Switch on ``jax_log_compiles`` for the block and capture the ``jax`` logger."""
    handler = JaxCompileLog()
    logger = logging.getLogger("jax")
    before = jax.config.jax_log_compiles
    logger.addHandler(handler)
    jax.config.update("jax_log_compiles", True)
    try:
        yield handler
    finally:
        jax.config.update("jax_log_compiles", before)
        logger.removeHandler(handler)


@contextmanager
def jax_account() -> Iterator[JaxCompileLog]:
    """JAX's whole account of the block: ``jax_log_compiles`` and ``jax_explain_cache_misses``
    both on (the user asked for explanations, so jitlab lets them through)."""
    before = jax.config.jax_explain_cache_misses
    jax.config.update("jax_explain_cache_misses", True)
    try:
        with jax_compile_log() as log:
            yield log
    finally:
        jax.config.update("jax_explain_cache_misses", before)


@pytest.fixture
def compile_log() -> Iterator[JaxCompileLog]:
    with jax_compile_log() as log:
        yield log


def compiled(records) -> int:
    """How many executables a probe's records say were built (compile, recompile, load)."""
    return sum(1 for r in records if r.kind.compiled)


def line_of(function, marker: str = "def ") -> str:
    """``file:line`` of the first source line of ``function`` containing ``marker``."""
    import inspect

    lines, first = inspect.getsourcelines(function)
    for offset, text in enumerate(lines):
        if marker in text:
            return f"{inspect.getsourcefile(function)}:{first + offset}"
    raise AssertionError(f"{marker!r} not in {function}")


def change_paths(reason) -> set[str]:
    """The argument paths a reason names (structured changes, or older plain texts)."""
    return {
        c.path if hasattr(c, "path") else str(c).split(":")[0].removeprefix("static ")
        for c in reason_words(reason)
    }
