"""docs/jit-compilation.md (jax-ml/jax), "Why can't we just JIT everything?", as a script:
it reads a file next to itself after a chdir (as example programs locate their data with
``os.path.dirname(__file__)``), prints what it can see of its own module, then calls
``jax.jit(f)(10)`` on a value-dependent ``if`` and dies of the TracerBoolConversionError:
exit status 1 and a traceback that starts at this file."""

import os
import sys

import jax

here = os.path.dirname(__file__)
os.chdir(os.path.dirname(here) or "/")
with open(os.path.join(here, "jax_jit_docs_error.py"), encoding="utf-8") as f:
    print("read myself:", f.readline().strip()[:30])
print("absolute __file__:", os.path.isabs(__file__))
print("__loader__:", type(__loader__).__name__)  # set by Python for __main__
print("__builtins__ is a module:", type(__builtins__).__name__ == "module")
print("argv[1:]:", sys.argv[1:])


def f(x):
    if x > 0:
        return x
    return 2 * x


print(jax.jit(f, static_argnums=0)(10))
jax.jit(f)(10)  # Raises an error
