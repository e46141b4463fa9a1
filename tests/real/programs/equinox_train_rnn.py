"""Equinox's examples/train_rnn.ipynb (patrick-kidger/equinox), shrunk: a GRU RNN
classifying clockwise vs anticlockwise spirals (the example's own synthetic data),
filter_value_and_grad inside a filter_jit make_step with optax.adam, 12 steps, then the
final accuracy under an eager vmap; the dataloader of its filtered_transformations example,
inlined."""

import math

import equinox as eqx
import jax
import jax.lax as lax
import jax.numpy as jnp
import jax.random as jrandom
import numpy as np
import optax


def dataloader(arrays, batch_size, *, key):
    dataset_size = arrays[0].shape[0]
    indices = np.arange(dataset_size)
    while True:
        perm = jrandom.permutation(key, indices)
        (key,) = jrandom.split(key, 1)
        start, end = 0, batch_size
        while end <= dataset_size:
            batch_perm = perm[start:end]
            yield tuple(array[batch_perm] for array in arrays)
            start, end = end, end + batch_size


def get_data(dataset_size, *, key):
    t = jnp.linspace(0, 2 * math.pi, 16)
    offset = jrandom.uniform(key, (dataset_size, 1), minval=0, maxval=2 * math.pi)
    x1 = jnp.sin(t + offset) / (1 + t)
    x2 = jnp.cos(t + offset) / (1 + t)
    y = jnp.ones((dataset_size, 1))
    half = dataset_size // 2
    x1 = x1.at[:half].multiply(-1)
    y = y.at[:half].set(0)
    return jnp.stack([x1, x2], axis=-1), y


class RNN(eqx.Module):
    hidden_size: int
    cell: eqx.Module
    linear: eqx.nn.Linear

    def __init__(self, in_size, out_size, hidden_size, *, key):
        ckey, lkey = jrandom.split(key)
        self.hidden_size = hidden_size
        self.cell = eqx.nn.GRUCell(in_size, hidden_size, key=ckey)
        self.linear = eqx.nn.Linear(hidden_size, out_size, key=lkey)

    def __call__(self, input):
        hidden = jnp.zeros((self.hidden_size,))

        def f(carry, inp):
            return self.cell(inp, carry), None

        out, _ = lax.scan(f, hidden, input)
        return jax.nn.sigmoid(self.linear(out))


def main(dataset_size=64, batch_size=16, learning_rate=3e-3, steps=12, hidden_size=8, seed=5678):
    data_key, loader_key, model_key = jrandom.split(jrandom.PRNGKey(seed), 3)
    xs, ys = get_data(dataset_size, key=data_key)
    data = dataloader((xs, ys), batch_size=batch_size, key=loader_key)
    model = RNN(in_size=2, out_size=1, hidden_size=hidden_size, key=model_key)

    @eqx.filter_value_and_grad
    def compute_loss(model, x, y):
        pred_y = jax.vmap(model)(x)
        return -jnp.mean(y * jnp.log(pred_y) + (1 - y) * jnp.log(1 - pred_y))

    @eqx.filter_jit
    def make_step(model, x, y, opt_state):
        loss, grads = compute_loss(model, x, y)
        updates, opt_state = optim.update(grads, opt_state)
        model = eqx.apply_updates(model, updates)
        return loss, model, opt_state

    optim = optax.adam(learning_rate)
    opt_state = optim.init(eqx.filter(model, eqx.is_inexact_array))  # optax >= 0.2: arrays only
    for step, (x, y) in zip(range(steps), data, strict=False):
        loss, model, opt_state = make_step(model, x, y, opt_state)
        print(f"step={step}, loss={loss.item():.5f}")
    pred_ys = jax.vmap(model)(xs)
    num_correct = jnp.sum((pred_ys > 0.5) == ys)
    print(f"final_accuracy={(num_correct / dataset_size).item():.4f}")


if __name__ == "__main__":
    main()
