"""JAX's examples/spmd_mnist_classifier_fromscratch.py (jax-ml/jax), shrunk: 8 CPU devices,
an Explicit mesh, train_step with donate_argnums called inside jax.set_mesh, accuracy
outside it, and the example's extra train_step call between epochs made *outside*
set_mesh (a mesh-context change: JAX compiles train_step again). Synthetic data."""

import itertools
import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")

import jax
import jax.numpy as jnp
import numpy as np
import numpy.random as npr
from jax import NamedSharding, grad, jit
from jax.scipy.special import logsumexp
from jax.sharding import AxisType, reshard
from jax.sharding import PartitionSpec as P


def init_random_params(scale, layer_sizes, rng=npr.RandomState(0)):  # noqa: B008 - as in the example
    return [
        (scale * rng.randn(m, n), scale * rng.randn(n)) for m, n in itertools.pairwise(layer_sizes)
    ]


def predict(params, inputs):
    activations = inputs
    for w, b in params[:-1]:
        activations = jnp.tanh(jnp.dot(activations, w) + b)
    final_w, final_b = params[-1]
    logits = jnp.dot(activations, final_w) + final_b
    return logits - logsumexp(logits, axis=1, keepdims=True)


def loss(params, batch):
    inputs, targets = batch
    return -jnp.mean(jnp.sum(predict(params, inputs) * targets, axis=1))


step_size = 0.01


@jax.jit(donate_argnums=0)
def train_step(params, batch):
    grads = grad(loss)(params, batch)
    return [
        (w - step_size * dw, b - step_size * db)
        for (w, b), (dw, db) in zip(params, grads, strict=True)
    ]


@jit
def accuracy(params, batch):
    inputs, targets = batch
    target_class = jnp.argmax(targets, axis=1)
    predicted_class = jnp.argmax(predict(params, inputs), axis=1)
    return jnp.mean(predicted_class == target_class)


if __name__ == "__main__":
    layer_sizes, param_scale, num_epochs, batch_size = [16, 32, 10], 0.1, 2, 32
    data = npr.RandomState(1)
    train_images = data.rand(96, 16).astype(np.float32)
    train_labels = np.eye(10, dtype=np.float32)[data.randint(0, 10, 96)]
    num_train = train_images.shape[0]
    print(f"Using {jax.device_count()} devices")
    num_batches = num_train // batch_size
    mesh = jax.make_mesh((jax.device_count(),), ("batch",), axis_types=(AxisType.Explicit,))
    replicated_sharding = NamedSharding(mesh, P())
    data_sharding = NamedSharding(mesh, P("batch"))

    def data_stream():
        rng = npr.RandomState(0)
        while True:
            perm = rng.permutation(num_train)
            for i in range(num_batches):
                idx = perm[i * batch_size : (i + 1) * batch_size]
                yield (
                    jax.device_put(train_images[idx], data_sharding),
                    jax.device_put(train_labels[idx], data_sharding),
                )

    batches = data_stream()
    params = jax.device_put(init_random_params(param_scale, layer_sizes), replicated_sharding)
    for epoch in range(num_epochs):
        for i in range(num_batches - 1):
            print(f"Batch no {i + 1} of {num_batches}")
            with jax.set_mesh(mesh):
                params = train_step(params, next(batches))
        sharded_images = reshard(train_images, data_sharding)
        sharded_labels = reshard(train_labels, data_sharding)
        train_acc = accuracy(params, (sharded_images, sharded_labels))
        print(f"Epoch {epoch}")
        print(f"Training set accuracy {train_acc:.4f}")
        if epoch < num_epochs - 1:
            batches = data_stream()
            print(f"Batch no 0 of {num_batches}")
            params = train_step(params, next(batches))
