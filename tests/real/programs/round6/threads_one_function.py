"""Four threads call one jitted function, two shapes each, then the main thread again."""

import threading

import jax
import jax.numpy as jnp


@jax.jit
def work(x):
    return jnp.sum(jnp.sin(x))


sizes = {0: (3, 4), 1: (3, 5), 2: (4, 6), 3: (5, 6)}
results = {}


def worker(n):
    results[n] = [round(float(work(jnp.ones(s))), 3) for s in sizes[n]]


threads = [threading.Thread(target=worker, args=(n,)) for n in sizes]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(sorted(results.items()))
print(round(float(work(jnp.ones(3))), 3))
