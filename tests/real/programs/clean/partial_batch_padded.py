"""A numpy data pipeline whose last batch is short: padded to the batch size with a mask,
so the jitted step sees one shape (the pattern of Flax's and Optax's examples)."""

import jax
import jax.numpy as jnp
import numpy as np

BATCH = 32


def batches(x, y):
    for start in range(0, len(x), BATCH):
        xb, yb = x[start : start + BATCH], y[start : start + BATCH]
        n = len(xb)
        mask = np.zeros(BATCH, np.float32)
        mask[:n] = 1.0
        if n < BATCH:  # the final partial batch
            xb = np.pad(xb, ((0, BATCH - n), (0, 0)))
            yb = np.pad(yb, ((0, BATCH - n), (0, 0)))
        yield xb, yb, mask


@jax.jit
def step(w, x, y, mask):
    def loss(w):
        err = ((x @ w - y) ** 2).sum(1) * mask
        return err.sum() / mask.sum()

    value, g = jax.value_and_grad(loss)(w)
    return w - 0.05 * g, value


rng = np.random.default_rng(0)
x = rng.normal(size=(1000, 10)).astype(np.float32)  # 1000 = 31 * 32 + 8
y = (x @ rng.normal(size=(10, 1))).astype(np.float32)
w = jnp.zeros((10, 1))
for epoch in range(4):
    perm = rng.permutation(len(x))
    for xb, yb, mask in batches(x[perm], y[perm]):
        w, value = step(w, xb, yb, mask)
    print(epoch, float(value))
