"""Watching a whole program: the recorder behind ``jitlab.watch`` and ``jitlab.budget``,
the ``jax.jit`` stand-in, events-only functions and per-process recording files."""
