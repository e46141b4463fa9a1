"""optax#577's shape: the learning rate decays each epoch, and the step is built and jitted
again each epoch around an optimizer made with it, so the rate is captured as a constant
and every epoch compiles a program that differs only in it."""

import jax
import jax.numpy as jnp
import optax


def loss(p, x):
    return jnp.mean((x @ p) ** 2)


def make_step(opt):
    def step(p, state, x):
        grads = jax.grad(loss)(p, x)
        updates, state = opt.update(grads, state, p)
        return optax.apply_updates(p, updates), state

    return step


p = jnp.ones((4, 1))
x = jnp.ones((16, 4))
lr = 0.1
for _epoch in range(5):
    opt = optax.sgd(lr)
    state = opt.init(p)
    step = jax.jit(make_step(opt))  # a new function object each epoch, lr inside
    for _ in range(3):
        p, state = step(p, state, x)
    lr *= 0.5
print(float(loss(p, x)))
