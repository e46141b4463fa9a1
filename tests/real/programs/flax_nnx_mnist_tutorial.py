"""Flax's NNX MNIST tutorial (google/flax: docs_nnx/mnist_tutorial), shrunk: a small CNN
(nnx.Conv, avg_pool, nnx.Linear), nnx.Optimizer with optax.adamw, an nnx.MultiMetric of
accuracy and average loss, nnx.jit train_step and eval_step; synthetic 8x8 images instead of
the MNIST download, 2 epochs, and a test set whose last batch is partial (eval_step compiles
again)."""

from functools import partial

import jax.numpy as jnp
import numpy as np
import optax
from flax import nnx


class CNN(nnx.Module):
    def __init__(self, *, rngs: nnx.Rngs):
        self.conv1 = nnx.Conv(1, 4, kernel_size=(3, 3), rngs=rngs)
        self.avg_pool = partial(nnx.avg_pool, window_shape=(2, 2), strides=(2, 2))
        self.linear1 = nnx.Linear(4 * 4 * 4, 16, rngs=rngs)
        self.linear2 = nnx.Linear(16, 10, rngs=rngs)

    def __call__(self, x):
        x = self.avg_pool(nnx.relu(self.conv1(x)))
        x = x.reshape(x.shape[0], -1)
        return self.linear2(nnx.relu(self.linear1(x)))


def loss_fn(model: CNN, batch):
    logits = model(batch["image"])
    loss = optax.softmax_cross_entropy_with_integer_labels(
        logits=logits, labels=batch["label"]
    ).mean()
    return loss, logits


@nnx.jit
def train_step(model: CNN, optimizer: nnx.Optimizer, metrics: nnx.MultiMetric, batch):
    grad_fn = nnx.value_and_grad(loss_fn, has_aux=True)
    (loss, logits), grads = grad_fn(model, batch)
    metrics.update(loss=loss, logits=logits, labels=batch["label"])
    optimizer.update(model, grads)


@nnx.jit
def eval_step(model: CNN, metrics: nnx.MultiMetric, batch):
    loss, logits = loss_fn(model, batch)
    metrics.update(loss=loss, logits=logits, labels=batch["label"])


def batches(images, labels, size):
    for start in range(0, len(images), size):
        yield {"image": images[start : start + size], "label": labels[start : start + size]}


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    train_x = rng.random((64, 8, 8, 1), dtype=np.float32)
    train_y = (train_x.sum(axis=(1, 2, 3)) * 3).astype(np.int32) % 10
    test_x = rng.random((40, 8, 8, 1), dtype=np.float32)  # batches of 32 and 8
    test_y = (test_x.sum(axis=(1, 2, 3)) * 3).astype(np.int32) % 10

    model = CNN(rngs=nnx.Rngs(0))
    optimizer = nnx.Optimizer(model, optax.adamw(0.005, 0.9), wrt=nnx.Param)
    metrics = nnx.MultiMetric(accuracy=nnx.metrics.Accuracy(), loss=nnx.metrics.Average("loss"))
    for epoch in range(2):
        model.train()
        for batch in batches(jnp.asarray(train_x), jnp.asarray(train_y), 32):
            train_step(model, optimizer, metrics, batch)
        train = {k: float(v) for k, v in metrics.compute().items()}
        metrics.reset()
        model.eval()
        for batch in batches(jnp.asarray(test_x), jnp.asarray(test_y), 32):
            eval_step(model, metrics, batch)
        test = {k: float(v) for k, v in metrics.compute().items()}
        metrics.reset()
        print(f"epoch {epoch}: train loss {train['loss']:.4f} accuracy {train['accuracy']:.4f}")
        print(f"epoch {epoch}: test loss {test['loss']:.4f} accuracy {test['accuracy']:.4f}")
