"""JAX's examples/differentially_private_sgd.py (jax-ml/jax), shrunk: a small stax MLP on
synthetic 8x8 images, per-example gradients clipped under vmap inside a jitted
private_update, noise from a key folded with the step; 2 epochs of 48 samples in batches of
16 (whole batches: the one compile of private_update is served 5 more times; the MNIST
classifier program has the partial batch). No dp_accounting, no absl flags, no timing."""

import itertools

import jax.numpy as jnp
import numpy.random as npr
from jax import grad, jit, random, vmap
from jax.example_libraries import optimizers, stax
from jax.tree_util import tree_flatten, tree_unflatten

LEARNING_RATE, NOISE_MULTIPLIER, L2_NORM_CLIP, BATCH_SIZE, EPOCHS, SEED = 0.15, 1.1, 1.0, 16, 2, 0

# The example's two-conv CNN, cut to one dense hidden layer: compiling the per-example
# gradient of convolutions under vmap took most of this test's time.
init_random_params, predict = stax.serial(stax.Flatten, stax.Dense(16), stax.Relu, stax.Dense(10))


def loss(params, batch):
    inputs, targets = batch
    logits = stax.logsoftmax(predict(params, inputs))
    return -jnp.mean(jnp.sum(logits * targets, axis=1))


def accuracy(params, batch):
    inputs, targets = batch
    return jnp.mean(jnp.argmax(predict(params, inputs), axis=1) == jnp.argmax(targets, axis=1))


def clipped_grad(params, l2_norm_clip, single_example_batch):
    grads = grad(loss)(params, single_example_batch)
    nonempty_grads, tree_def = tree_flatten(grads)
    total_grad_norm = jnp.linalg.norm(
        jnp.array([jnp.linalg.norm(neg.ravel()) for neg in nonempty_grads])
    )
    divisor = jnp.maximum(total_grad_norm / l2_norm_clip, 1.0)
    return tree_unflatten(tree_def, [g / divisor for g in nonempty_grads])


def private_grad(params, batch, rng, l2_norm_clip, noise_multiplier, batch_size):
    clipped_grads = vmap(clipped_grad, (None, None, 0))(params, l2_norm_clip, batch)
    clipped_grads_flat, grads_treedef = tree_flatten(clipped_grads)
    aggregated = [g.sum(0) for g in clipped_grads_flat]
    rngs = random.split(rng, len(aggregated))
    noised = [
        g + l2_norm_clip * noise_multiplier * random.normal(r, g.shape)
        for r, g in zip(rngs, aggregated, strict=True)
    ]
    return tree_unflatten(grads_treedef, [g / batch_size for g in noised])


def shape_as_image(images, labels, dummy_dim=False):
    target_shape = (-1, 1, 8, 8, 1) if dummy_dim else (-1, 8, 8, 1)
    return jnp.reshape(images, target_shape), labels


def main():
    data = npr.RandomState(1)
    train_images = data.rand(48, 64).astype("float32")
    train_labels = jnp.eye(10)[data.randint(0, 10, 48)]
    test_images = data.rand(20, 64).astype("float32")
    test_labels = jnp.eye(10)[data.randint(0, 10, 20)]
    num_train = train_images.shape[0]
    num_complete_batches, leftover = divmod(num_train, BATCH_SIZE)
    num_batches = num_complete_batches + bool(leftover)
    key = random.key(SEED)

    def data_stream():
        rng = npr.RandomState(SEED)
        while True:
            perm = rng.permutation(num_train)
            for i in range(num_batches):
                batch_idx = perm[i * BATCH_SIZE : (i + 1) * BATCH_SIZE]
                yield train_images[batch_idx], train_labels[batch_idx]

    batches = data_stream()
    opt_init, opt_update, get_params = optimizers.sgd(LEARNING_RATE)

    @jit
    def private_update(rng, i, opt_state, batch):
        params = get_params(opt_state)
        rng = random.fold_in(rng, i)
        grads = private_grad(params, batch, rng, L2_NORM_CLIP, NOISE_MULTIPLIER, BATCH_SIZE)
        return opt_update(i, grads, opt_state)

    _, init_params = init_random_params(key, (-1, 8, 8, 1))
    opt_state = opt_init(init_params)
    itercount = itertools.count()
    print("\nStarting training...")
    for epoch in range(1, EPOCHS + 1):
        for _ in range(num_batches):
            batch = shape_as_image(*next(batches), dummy_dim=True)
            opt_state = private_update(key, next(itercount), opt_state, batch)
        params = get_params(opt_state)
        test_acc = accuracy(params, shape_as_image(test_images, test_labels))
        test_loss = loss(params, shape_as_image(test_images, test_labels))
        print(
            f"Epoch {epoch}: test set loss, accuracy (%): ({test_loss:.2f}, {100 * test_acc:.2f})"
        )


if __name__ == "__main__":
    main()
