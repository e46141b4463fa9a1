"""The HTML report of a recording (JAX-free, Qt-free)."""
