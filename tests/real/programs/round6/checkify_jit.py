"""checkify around a jitted function (the checkify guide's "jit inside checkify"), with
two error sets, and jit around checkify called with two shapes."""

import jax
import jax.numpy as jnp
from jax.experimental import checkify


@jax.jit
def safe_log(x):
    checkify.check(jnp.all(x > 0), "x must be positive")
    return jnp.log(x)


checked = checkify.checkify(safe_log)
err, y = checked(jnp.ones(3))
print(err.get(), y.tolist())
err, y = checked(-jnp.ones(3))
print(err.get())
err, y = checkify.checkify(safe_log, errors=checkify.all_checks)(jnp.ones(3))
print(err.get())


def divide(x, y):
    return x / y


checked_div = jax.jit(checkify.checkify(divide, errors=checkify.float_checks))
err, _ = checked_div(jnp.ones(2), jnp.zeros(2))
print(err.get() is not None)
err, _ = checked_div(jnp.ones(5), jnp.ones(5))
print(err.get())
