"""Training on batches of 64 and evaluating on batches of 250 after every epoch: two
fixed shapes, each compiled once by its own step, alternating for ten epochs."""

import jax
import jax.numpy as jnp


def predict(p, x):
    return jnp.tanh(x @ p["w1"]) @ p["w2"]


@jax.jit
def train_step(p, x, y):
    g = jax.grad(lambda p: jnp.mean((predict(p, x) - y) ** 2))(p)
    return jax.tree.map(lambda a, b: a - 0.05 * b, p, g)


@jax.jit
def evaluate(p, x, y):
    return jnp.mean((predict(p, x) - y) ** 2)


k1, k2, k3 = jax.random.split(jax.random.PRNGKey(0), 3)
p = {"w1": jax.random.normal(k1, (4, 16)) * 0.3, "w2": jax.random.normal(k2, (16, 1)) * 0.3}
x_train = jax.random.normal(k3, (640, 4))
y_train = jnp.sin(x_train.sum(1, keepdims=True))
x_test, y_test = x_train[:500] * 0.9, y_train[:500]
for epoch in range(10):
    for i in range(10):
        p = train_step(p, x_train[i * 64 : (i + 1) * 64], y_train[i * 64 : (i + 1) * 64])
    scores = [evaluate(p, x_test[j : j + 250], y_test[j : j + 250]) for j in (0, 250)]
    print(epoch, float(sum(scores)))
