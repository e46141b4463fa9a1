"""Records as data: calls, reasons and their words, signatures, scripts, the paths of
built-in files (JAX-free, Qt-free; every other package reads them)."""
