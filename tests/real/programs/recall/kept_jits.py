"""A per-epoch helper jitted anew each epoch and kept in a history list (for a later
report): the same program compiled again every epoch, and every copy held alive."""

import jax
import jax.numpy as jnp


def make_eval():
    def evaluate(w, x):
        return jnp.mean((x @ w - 1.0) ** 2)

    return jax.jit(evaluate)


history = []
w = jnp.zeros((8, 1))
x = jnp.ones((32, 8))
for epoch in range(12):
    w = w - 0.01 * jax.grad(lambda w: jnp.mean((x @ w - 1.0) ** 2))(w)
    evaluate = make_eval()
    history.append(evaluate)
    print(epoch, float(evaluate(w, x)))
print(len(history))
