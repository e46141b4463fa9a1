"""A factory of jitted metrics, built once at start-up (one closure per metric, each its
own program), all of them computed after every epoch: ten jit objects of one function
definition, each compiled once and called again and again."""

import jax
import jax.numpy as jnp

KINDS = ("mse", "mae", "max", "rmse", "bias", "huber", "logcosh", "cosine", "r2", "hinge")


def make_metric(kind):
    def metric(pred, y):
        err = pred - y
        if kind == "mse":
            return jnp.mean(err**2)
        if kind == "mae":
            return jnp.mean(jnp.abs(err))
        if kind == "max":
            return jnp.max(jnp.abs(err))
        if kind == "rmse":
            return jnp.sqrt(jnp.mean(err**2))
        if kind == "bias":
            return jnp.mean(err)
        if kind == "huber":
            return jnp.mean(jnp.where(jnp.abs(err) < 1, 0.5 * err**2, jnp.abs(err) - 0.5))
        if kind == "logcosh":
            return jnp.mean(jnp.log(jnp.cosh(err)))
        if kind == "cosine":
            return jnp.vdot(pred, y) / (jnp.linalg.norm(pred) * jnp.linalg.norm(y))
        if kind == "r2":
            return 1 - jnp.sum(err**2) / jnp.sum((y - y.mean()) ** 2)
        return jnp.mean(jnp.maximum(0.0, 1 - pred * y))

    return jax.jit(metric)


METRICS = {kind: make_metric(kind) for kind in KINDS}


@jax.jit
def step(w, x, y):
    return w - 0.05 * jax.grad(lambda w: jnp.mean((x @ w - y) ** 2))(w)


x = jnp.linspace(-1, 1, 96).reshape(32, 3)
y = x @ jnp.array([[0.5], [-1.0], [2.0]])
w = jnp.zeros((3, 1))
for epoch in range(6):
    for _ in range(20):
        w = step(w, x, y)
    scores = {kind: float(metric(x @ w, y)) for kind, metric in METRICS.items()}
    print(epoch, scores)
