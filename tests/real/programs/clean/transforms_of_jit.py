"""A jitted energy function used under many transformations, as a physics or optimisation
script does: its gradient, Hessian, Jacobians both ways, JVP, VJP, linearisation and a
vmap of its gradient, each called many times in a Newton loop on the same shapes (JAX
compiles one program per transformation, once)."""

import jax
import jax.numpy as jnp


@jax.jit
def energy(x, k):
    return jnp.sum(k * (x[1:] - x[:-1]) ** 2) + jnp.sum(x**4) / 4


grad = jax.grad(energy)
grad_k = jax.grad(energy, argnums=1)
hess = jax.hessian(energy)
jac_fwd = jax.jacfwd(grad)
jac_rev = jax.jacrev(grad)
batched = jax.vmap(grad, in_axes=(0, None))
x = jnp.linspace(-1.0, 1.0, 6)
k = jnp.float32(0.5)
for i in range(15):
    g = grad(x, k)
    x = x - jnp.linalg.solve(hess(x, k) + jnp.eye(6), g)
    _, tangent = jax.jvp(lambda x: energy(x, k), (x,), (g,))
    _, pullback = jax.vjp(lambda x: energy(x, k), x)
    _, linear = jax.linearize(lambda x: energy(x, k), x)
    checks = jac_fwd(x, k) - jac_rev(x, k), pullback(1.0)[0], linear(g), grad_k(x, k)
    spread = batched(x[None] + jnp.arange(3.0)[:, None], k)
    print(i, float(energy(x, k)), float(tangent), float(spread.sum()), len(checks))
