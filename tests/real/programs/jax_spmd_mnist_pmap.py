"""JAX's examples/spmd_mnist_classifier_fromscratch.py as it was before it moved to jit and
shardings (jax-ml/jax at 218107864d): ``spmd_update`` is a ``pmap`` with ``lax.psum`` over
8 CPU devices, the parameters replicated by hand, ``accuracy`` a jit. Shrunk: synthetic
data, 2 epochs, and a last batch of another per-device size (``spmd_update`` compiles
again, as JAX's log shows; pmap compiles under the name ``_fun`` there)."""

import itertools
import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
import numpy.random as npr
from jax import grad, jit, lax, pmap
from jax.scipy.special import logsumexp
from jax.tree_util import tree_map


def init_random_params(scale, layer_sizes, rng=npr.RandomState(0)):  # noqa: B008 - as the example
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


@jit
def accuracy(params, batch):
    inputs, targets = batch
    target_class = jnp.argmax(targets, axis=1)
    predicted_class = jnp.argmax(predict(params, inputs), axis=1)
    return jnp.mean(predicted_class == target_class)


if __name__ == "__main__":
    layer_sizes, param_scale, step_size, num_epochs, batch_size = [16, 32, 10], 0.1, 0.01, 2, 32
    data = npr.RandomState(1)
    train_images = data.rand(80, 16).astype(np.float32)  # 2 batches of 32, then one of 16
    train_labels = np.eye(10, dtype=np.float32)[data.randint(0, 10, 80)]
    num_train = train_images.shape[0]
    num_complete_batches, leftover = divmod(num_train, batch_size)
    num_batches = num_complete_batches + bool(leftover)
    num_devices = jax.device_count()

    def data_stream():
        rng = npr.RandomState(0)
        while True:
            perm = rng.permutation(num_train)
            for i in range(num_batches):
                batch_idx = perm[i * batch_size : (i + 1) * batch_size]
                images, labels = train_images[batch_idx], train_labels[batch_idx]
                per_device, ragged = divmod(images.shape[0], num_devices)
                if ragged:
                    raise ValueError(f"batch size {images.shape[0]} vs {num_devices} devices")
                shape_prefix = (num_devices, per_device)
                yield (
                    images.reshape(shape_prefix + images.shape[1:]),
                    labels.reshape(shape_prefix + labels.shape[1:]),
                )

    batches = data_stream()

    @partial(pmap, axis_name="batch")
    def spmd_update(params, batch):
        grads = grad(loss)(params, batch)
        grads = [(lax.psum(dw, "batch"), lax.psum(db, "batch")) for dw, db in grads]
        return [
            (w - step_size * dw, b - step_size * db)
            for (w, b), (dw, db) in zip(params, grads, strict=True)
        ]

    init_params = init_random_params(param_scale, layer_sizes)
    replicated_params = tree_map(lambda x: np.broadcast_to(x, (num_devices, *x.shape)), init_params)
    for epoch in range(num_epochs):
        for _ in range(num_batches):
            replicated_params = spmd_update(replicated_params, next(batches))
        params = tree_map(lambda x: x[0], replicated_params)
        train_acc = accuracy(params, (train_images, train_labels))
        print(f"Epoch {epoch}")
        print(f"Training set accuracy {train_acc:.4f}")
