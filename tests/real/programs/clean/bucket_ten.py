"""Sequence bucketing with ten buckets: each sentence is padded to the next bucket length,
so the jitted encoder compiles once per bucket and every later batch reuses one (the way
T5X and fairseq batch text: sentences of similar length together). The batches come in
any order."""

import jax
import jax.numpy as jnp
import numpy as np

BUCKETS = (8, 12, 16, 24, 32, 48, 64, 96, 128, 192)


@jax.jit
def encode(emb, tokens, mask):
    h = emb[tokens] * mask[..., None]
    return jnp.tanh(h).sum(1) / jnp.maximum(mask.sum(1, keepdims=True), 1.0)


def pad(batch):
    longest = max(len(s) for s in batch)
    size = next(b for b in BUCKETS if b >= longest)
    tokens = np.zeros((len(batch), size), np.int32)
    mask = np.zeros((len(batch), size), np.float32)
    for i, s in enumerate(batch):
        tokens[i, : len(s)] = s
        mask[i, : len(s)] = 1.0
    return tokens, mask


rng = np.random.default_rng(0)
emb = jax.random.normal(jax.random.PRNGKey(0), (500, 16))
total = 0.0
for _ in range(200):
    center = int(rng.integers(4, 190))  # a batch of sentences of similar length
    lengths = np.clip(rng.integers(center - 3, center + 1, size=8), 1, 190)
    batch = [rng.integers(1, 500, size=n) for n in lengths]
    total += float(encode(emb, *pad(batch)).sum())
print(total)
