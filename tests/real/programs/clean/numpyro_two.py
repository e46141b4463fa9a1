"""NumPyro NUTS on a linear regression, run on two dataset sizes."""

import jax
import jax.numpy as jnp
import numpyro
import numpyro.distributions as dist
from numpyro.infer import MCMC, NUTS


def model(x, y=None):
    w = numpyro.sample("w", dist.Normal(0, 1))
    b = numpyro.sample("b", dist.Normal(0, 1))
    numpyro.sample("y", dist.Normal(w * x + b, 0.5), obs=y)


for n in (50, 200):
    x = jnp.linspace(0, 1, n)
    y = 2 * x + 0.5 + 0.1 * jax.random.normal(jax.random.PRNGKey(n), (n,))
    mcmc = MCMC(NUTS(model), num_warmup=100, num_samples=100, progress_bar=False)
    mcmc.run(jax.random.PRNGKey(0), x, y)
    print(n, float(mcmc.get_samples()["w"].mean()))
