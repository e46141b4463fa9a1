"""JAX's examples/mnist_classifier.py (jax-ml/jax), shrunk: stax + optimizers.momentum on
synthetic 8x8 "images" (no download), 2 epochs, a partial last batch. No timing printed,
so two runs print the same."""

import itertools

import jax.numpy as jnp
import numpy as np
import numpy.random as npr
from jax import grad, jit, random
from jax.example_libraries import optimizers, stax
from jax.example_libraries.stax import Dense, LogSoftmax, Relu


def synthetic(n, rng):
    images = rng.rand(n, 64).astype(np.float32)
    labels = np.eye(10, dtype=np.float32)[(images.sum(axis=1) * 7).astype(int) % 10]
    return images, labels


def loss(params, batch):
    inputs, targets = batch
    preds = predict(params, inputs)
    return -jnp.mean(jnp.sum(preds * targets, axis=1))


def accuracy(params, batch):
    inputs, targets = batch
    target_class = jnp.argmax(targets, axis=1)
    predicted_class = jnp.argmax(predict(params, inputs), axis=1)
    return jnp.mean(predicted_class == target_class)


init_random_params, predict = stax.serial(Dense(32), Relu, Dense(10), LogSoftmax)

if __name__ == "__main__":
    rng = random.key(0)
    step_size, num_epochs, batch_size, momentum_mass = 0.01, 2, 48, 0.9
    data = npr.RandomState(1)
    train_images, train_labels = synthetic(120, data)
    test_images, test_labels = synthetic(40, data)
    num_train = train_images.shape[0]
    num_complete_batches, leftover = divmod(num_train, batch_size)
    num_batches = num_complete_batches + bool(leftover)

    def data_stream():
        rng = npr.RandomState(0)
        while True:
            perm = rng.permutation(num_train)
            for i in range(num_batches):
                batch_idx = perm[i * batch_size : (i + 1) * batch_size]
                yield train_images[batch_idx], train_labels[batch_idx]

    batches = data_stream()
    opt_init, opt_update, get_params = optimizers.momentum(step_size, mass=momentum_mass)

    @jit
    def update(i, opt_state, batch):
        params = get_params(opt_state)
        return opt_update(i, grad(loss)(params, batch), opt_state)

    _, init_params = init_random_params(rng, (-1, 64))
    opt_state = opt_init(init_params)
    itercount = itertools.count()

    print("\nStarting training...")
    for epoch in range(num_epochs):
        for _ in range(num_batches):
            opt_state = update(next(itercount), opt_state, next(batches))
        params = get_params(opt_state)
        train_acc = accuracy(params, (train_images, train_labels))
        test_acc = accuracy(params, (test_images, test_labels))
        print(f"Epoch {epoch}")
        print(f"Training set accuracy {train_acc:.4f}")
        print(f"Test set accuracy {test_acc:.4f}")
