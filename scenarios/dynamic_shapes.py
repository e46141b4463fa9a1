"""Pitfall 4: every new batch size is a new signature, so jit traces and compiles again."""

from __future__ import annotations

import itertools
from functools import cache

import jax.numpy as jnp
import numpy as np

from jitlab.core.scenario import (
    AutoplayStep,
    Lab,
    Lesson,
    Param,
    Pitfall,
    Scenario,
    Text,
    Variant,
)

FEATURES = 64
MAX_BATCH = 1024


# --- the model: a small MLP regression, forward pass and loss -------------------------------
def mlp_loss(params, x, y):
    h = x
    for w, b in params[:-1]:
        h = jnp.tanh(h @ w + b)
    w, b = params[-1]
    prediction = (h @ w + b)[:, 0]
    return jnp.mean((prediction - y) ** 2)


def masked_mlp_loss(params, x, y, mask):
    h = x
    for w, b in params[:-1]:
        h = jnp.tanh(h @ w + b)
    w, b = params[-1]
    prediction = (h @ w + b)[:, 0]
    squared_error = (prediction - y) ** 2
    # Padded rows carry mask 0: they cost compute but never touch the loss.
    return jnp.sum(squared_error * mask) / jnp.maximum(jnp.sum(mask), 1.0)


# --- the fix: pad each batch up to a bucket, remember which rows are real ----------------
def bucket_size(n, maximum=MAX_BATCH):
    """The smallest power of two that holds n rows: at most 11 shapes for 1…1024."""
    return min(1 << max(n - 1, 0).bit_length(), maximum)


def pad_to_bucket(x, y):
    n = x.shape[0]
    size = bucket_size(n)
    x_padded = np.zeros((size, x.shape[1]), x.dtype)
    y_padded = np.zeros((size,), y.dtype)
    mask = np.zeros((size,), np.float32)
    x_padded[:n], y_padded[:n], mask[:n] = x, y, 1.0
    return x_padded, y_padded, mask


# --- one call per step ---------------------------------------------------------------------
def step_pitfall(loss, params, x, y):
    return loss(params, x, y)  # batch of any size: a new shape compiles again


def step_fix(loss, params, x, y):
    x_padded, y_padded, mask = pad_to_bucket(x, y)
    return loss(params, x_padded, y_padded, mask)  # one compile per bucket


@cache
def make_params(depth, width=FEATURES, seed=0):
    rng = np.random.default_rng(seed)
    sizes = [FEATURES] + [width] * depth + [1]
    return [
        (
            jnp.asarray(rng.normal(0, 1 / np.sqrt(n_in), (n_in, n_out)), jnp.float32),
            jnp.zeros((n_out,), jnp.float32),
        )
        for n_in, n_out in itertools.pairwise(sizes)
    ]


def make_batch(n, seed=0):
    """A deterministic batch of n rows (numpy, so making it compiles nothing)."""
    rng = np.random.default_rng(seed + n)
    x = rng.normal(size=(n, FEATURES)).astype(np.float32)
    y = np.sin(x[:, 0]).astype(np.float32)
    return x, y


class DynamicShapes(Scenario):
    id = "dynamic-shapes"
    pitfall = Pitfall.DYNAMIC_SHAPES
    icon = "scale"
    title = Text("Batch sizes that wobble", "忽大忽小的批次")
    question = Text(
        "The batch sizes will be 8, 8, 16, 8, 32, 8. How many of these six calls compile, "
        "and which ones?",
        "接下来批次大小依次为 8、8、16、8、32、8。这六次调用里有几次会编译？是哪几次？",
    )
    lesson = Lesson(
        what=Text(
            "A jitted function is compiled for one exact input signature: shapes, dtypes and "
            "static values. Feed it a batch of 16 after a batch of 8 and it traces and "
            "compiles all over again. A data pipeline whose last batch is short, or a server "
            "whose request count varies, recompiles again and again.",
            "jit 编译出的程序只对应一种确定的输入签名：形状、dtype 和静态参数的值。先喂 8 行、"
            "再喂 16 行，函数就得重新追踪、重新编译。最后一批不满的训练数据、请求数量起伏的"
            "推理服务，都会因此一次次重编译。",
        ),
        why=Text(
            "XLA produces machine code specialised to every dimension, which is what makes it "
            "fast. The price is that the in-memory cache is keyed on the signature: a shape it "
            "has not seen is a cache miss. On a large model one compile takes seconds to "
            "minutes, while the accelerator waits.",
            "XLA 会针对每个维度生成专门的机器码，这正是它快的原因；代价是内存缓存以签名为键，"
            "没见过的形状就是一次缓存未命中。大模型上一次编译动辄数秒到数分钟，期间加速器只能"
            "空等。",
        ),
        fix=Text(
            "Make shapes stable before they reach jit. Pad each batch up to a bucket (here "
            "powers of two) and pass a mask so padded rows do not count in the loss. The "
            "masked loss equals the unpadded loss, and 1…1024 rows need at most 11 compiles.",
            "在数据进入 jit 之前把形状固定下来：把每个批次补齐到某个桶的大小（这里用 2 的幂），"
            "再传入掩码，让补齐的行不计入损失。带掩码的损失与不补齐时完全相同，而 1 到 1024 "
            "行最多只需编译 11 次。",
        ),
        kitchen=Text(
            "Chef Wang's script says “500 g of rice”. When a table orders 800 g the script no "
            "longer fits, and he must rehearse from scratch. So he puts up a board: rice comes "
            "in a few fixed pot sizes, top up to the next one. He rehearses once per pot size "
            "and never again.",
            "王师傅的脚本写的是“下 500 克米”。客人要 800 克，脚本就不适用了，只好从头再排练"
            "一遍。于是他在门口挂了块小黑板：米只按几种固定锅的分量做，不够就补到下一档。每种"
            "锅排练一次，之后再也不用重排。",
        ),
    )
    params = (
        Param(
            "batch_size",
            8,
            Text("Batch size", "批次大小"),
            Text(
                "Rows in the batch passed to the jitted loss. A value not seen before compiles.",
                "传给 jit 损失函数的批次行数。没出现过的值会触发编译。",
            ),
            minimum=1,
            maximum=MAX_BATCH,
            log_scale=True,
        ),
        Param(
            "depth",
            4,
            Text("Model depth", "模型层数"),
            Text(
                "Hidden layers of the MLP. Deeper models take longer to compile, as large "
                "models do.",
                "MLP 的隐藏层数。层数越多编译越慢，就像大模型一样。",
            ),
            minimum=1,
            maximum=32,
        ),
    )
    variants = (
        Variant(
            "pitfall",
            Text("Raw batches", "原样喂入"),
            Text("Each batch goes to jit at its own size.", "每个批次按原始大小送进 jit。"),
        ),
        Variant(
            "fix",
            Text("Pad to a bucket + mask", "补齐到桶 + 掩码"),
            Text(
                "Batches are padded to the next power of two; a mask hides the padding.",
                "批次补齐到下一个 2 的幂，用掩码屏蔽补齐部分。",
            ),
        ),
    )
    autoplay = (
        *(AutoplayStep({"batch_size": n}) for n in (8, 8, 16, 8, 32, 8)),
        *(AutoplayStep({"batch_size": n}) for n in (12, 20, 27, 33, 41, 50, 64, 100, 128, 8)),
    )

    def setup(self, lab: Lab, variant: str):
        if variant == "fix":
            loss = lab.probe(masked_mlp_loss)
            step = step_fix
        else:
            loss = lab.probe(mlp_loss)
            step = step_pitfall

        def run(values):
            x, y = make_batch(values["batch_size"])
            return step(loss, make_params(values["depth"]), x, y)

        return run

    def code_objects(self, variant: str):
        if variant == "fix":
            return (masked_mlp_loss, bucket_size, pad_to_bucket, step_fix)
        return (mlp_loss, step_pitfall)
