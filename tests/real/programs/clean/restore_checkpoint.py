"""Parameters saved with numpy and restored (np.load gives float64 arrays; JAX without x64
takes them as float32), training resumed with the same jitted step."""

import os
import tempfile

import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def step(w, b, x):
    g = jax.grad(lambda w, b: jnp.mean((x @ w + b) ** 2), argnums=(0, 1))(w, b)
    return w - 0.01 * g[0], b - 0.01 * g[1]


w, b = jnp.ones((6, 2)), jnp.zeros(2)
x = jnp.ones((16, 6))
for _ in range(30):
    w, b = step(w, b, x)
with tempfile.TemporaryDirectory() as folder:
    path = os.path.join(folder, "ckpt.npz")
    np.savez(path, w=np.asarray(w, np.float64), b=np.asarray(b, np.float64))
    saved = np.load(path)
    w, b = saved["w"], saved["b"]
for _ in range(30):
    w, b = step(w, b, x)
print(float(w.sum()), float(b.sum()))
