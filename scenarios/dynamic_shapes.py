"""Pitfall 4: every new batch size is a new signature, so jit traces and compiles again."""

from __future__ import annotations

import itertools
from collections import deque
from typing import Any

import jax.numpy as jnp
import numpy as np

from jitlab.lab.scenario import (
    AutoplayStep,
    CardRef,
    Comparison,
    Lab,
    Lesson,
    Measure,
    Param,
    Pitfall,
    QuestionRun,
    Scenario,
    ScriptLesson,
    Text,
    Variant,
)

from ._dynamic_shapes_data import FEATURES, VOCAB, make_batch, make_embedding, make_params
from ._dynamic_shapes_exercises import ALREADY_BUCKETS, EXERCISES  # the quiz's questions

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


# --- a training epoch whose last batch is short --------------------------------------------
def epoch_batches(dataset_size, batch_size, drop_last=False):
    """(start, stop) of each batch in one epoch; the last is short unless it is dropped."""
    batches = [(i, min(i + batch_size, dataset_size)) for i in range(0, dataset_size, batch_size)]
    if drop_last and batches[-1][1] - batches[-1][0] < batch_size:
        batches.pop()  # drop_last: these rows are not seen this epoch
    return batches


def train_step_raw(loss, params, x, y, batch_size):
    return loss(params, x, y)  # a short last batch is a new shape: it compiles again


def train_step_pad(loss, params, x, y, batch_size):
    n = x.shape[0]
    x_padded = np.zeros((batch_size, x.shape[1]), x.dtype)
    y_padded = np.zeros((batch_size,), y.dtype)
    mask = np.zeros((batch_size,), np.float32)
    x_padded[:n], y_padded[:n], mask[:n] = x, y, 1.0
    return loss(params, x_padded, y_padded, mask)  # every batch has the same shape


# --- an inference server: a queue of requests served in a few fixed batch sizes ------------
SERVE_SIZES = (4, 16, 64)


def serve_one_batch(predict, params, queue):
    """Take up to 64 waiting requests, pad them to the smallest serving size that holds them."""
    take = min(len(queue), SERVE_SIZES[-1])
    size = next(s for s in SERVE_SIZES if s >= take)
    batch = np.zeros((size, FEATURES), np.float32)
    for row in range(take):
        batch[row] = queue.popleft()
    scores = predict(params, batch)  # one of three shapes, whatever the traffic
    return scores[:take]  # answers for the real requests only


def mlp_predict(params, x):
    h = x
    for w, b in params[:-1]:
        h = jnp.tanh(h @ w + b)
    w, b = params[-1]
    return (h @ w + b)[:, 0]


# --- variable-length sequences: pad to a length bucket, mask the padding ------------------
SEQ_BATCH = 8


def length_bucket(n):
    """16, 32, 64, 128 or 256: a handful of lengths instead of every length."""
    return max(16, 1 << max(n - 1, 0).bit_length())


def pad_sequences(sequences, length):
    tokens = np.zeros((len(sequences), length), np.int32)
    mask = np.zeros((len(sequences), length), np.float32)
    for row, seq in enumerate(sequences):
        tokens[row, : len(seq)] = seq
        mask[row, : len(seq)] = 1.0
    return tokens, mask


def encode(embedding, tokens, mask):
    vectors = embedding[tokens]  # [batch, length, features]
    # Mean over real tokens only: padding tokens have mask 0 and change nothing.
    summed = jnp.sum(vectors * mask[:, :, None], axis=1)
    return summed / jnp.maximum(jnp.sum(mask, axis=1, keepdims=True), 1.0)


def encode_batch_raw(encoder, embedding, sequences):
    longest = max(len(seq) for seq in sequences)
    tokens, mask = pad_sequences(sequences, longest)  # each new longest length compiles
    return encoder(embedding, tokens, mask)


def encode_batch_bucket(encoder, embedding, sequences):
    longest = max(len(seq) for seq in sequences)
    tokens, mask = pad_sequences(sequences, length_bucket(longest))  # one compile per bucket
    return encoder(embedding, tokens, mask)


# --- shapes that depend on values: jnp.nonzero ------------------------------------------
def positive_rows(x):
    # How many rows are positive is only known at run time: the output shape is unknown.
    return jnp.nonzero(x[:, 0] > 0)[0]


def positive_rows_sized(x):
    # size= fixes the output shape; missing entries are filled with -1.
    return jnp.nonzero(x[:, 0] > 0, size=x.shape[0], fill_value=-1)[0]


class DynamicShapes(Scenario):
    id = "dynamic-shapes"
    pitfall = Pitfall.DYNAMIC_SHAPES
    icon = "scale"
    exercises = EXERCISES
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
            "masked loss equals the unpadded loss, and 1…1024 rows need at most 11 compiles. "
            "The same idea has several faces. Training: drop the short last batch (one shape, "
            "but rows go unseen) or pad it and mask it (one shape, every row used). Serving: "
            "queue requests and serve them in a few fixed batch sizes. Text: pad sentences to "
            "a length bucket, not to the longest one of each batch, and mask the padding. "
            "Never let a data-dependent size reach jit: jnp.nonzero needs size= (and "
            "fill_value) inside jit, so its output has a fixed shape.",
            "在数据进入 jit 之前把形状固定下来：把每个批次补齐到某个桶的大小（这里用 2 的幂），"
            "再传入掩码，让补齐的行不计入损失。带掩码的损失与不补齐时完全相同，而 1 到 1024 "
            "行最多只需编译 11 次。同一个思路有好几副面孔。训练：丢掉最后那个不满的批次"
            "（形状统一，但有些行没被训练到），或者补齐再加掩码（形状统一，每一行都用上）。"
            "推理服务：请求先排队，再按几种固定批次大小出餐。文本：句子补齐到长度桶，而不是"
            "各批自己最长的那句，并用掩码屏蔽补齐的词元。不要让取决于数据的大小流进 jit："
            "在 jit 里用 jnp.nonzero 必须给出 size=（以及 fill_value），输出形状才是固定的。",
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
                "Rows in the batch passed to the jitted loss. A value not seen before compiles. "
                "In serve-queue: requests arriving before the next batch is served.",
                "传给 jit 损失函数的批次行数。没出现过的值会触发编译。"
                "在 serve-queue 中：下一批出餐前新到的请求数。",
            ),
            minimum=1,
            maximum=MAX_BATCH,
            log_scale=True,
            variants=(
                "pitfall",
                "fix",
                "last-batch-raw",
                "last-batch-drop",
                "last-batch-pad",
                "serve-queue",
                "nonzero",
                "nonzero-size",
            ),
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
            variants=(
                "pitfall",
                "fix",
                "last-batch-raw",
                "last-batch-drop",
                "last-batch-pad",
                "serve-queue",
            ),
        ),
        Param(
            "dataset_size",
            100,
            Text("Dataset rows", "数据集行数"),
            Text(
                "Rows in one training epoch (last-batch variants). When the batch size does "
                "not divide it, the last batch of every epoch is short.",
                "一个训练轮次（epoch）的总行数（最后一批相关的变体）。批次大小除不尽时，"
                "每轮最后一批都是不满的。",
            ),
            minimum=1,
            maximum=4096,
            variants=("last-batch-raw", "last-batch-drop", "last-batch-pad"),
        ),
        Param(
            "seq_len",
            20,
            Text("Longest sentence", "最长句子长度"),
            Text(
                "Tokens in the longest of the 8 sentences of this batch (sequence variants).",
                "本批 8 个句子中最长那句的词元数（变长序列变体）。",
            ),
            minimum=1,
            maximum=256,
            log_scale=True,
            variants=("sequences-raw", "sequences-bucket"),
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
        Variant(
            "last-batch-raw",
            Text("Epoch, short last batch as is", "按轮训练：最后一批原样"),
            Text(
                "A training epoch in fixed batches; the short last batch goes to jit as it is.",
                "按固定批次训练一轮；最后那个不满的批次原样送进 jit。",
            ),
        ),
        Variant(
            "last-batch-drop",
            Text("Epoch, drop the last batch", "按轮训练：丢弃最后一批"),
            Text(
                "drop_last: the short batch is skipped. One shape, but those rows are never "
                "trained on in that epoch.",
                "drop_last：跳过不满的那批。形状只有一种，但这些行在本轮里没被训练到。",
            ),
        ),
        Variant(
            "last-batch-pad",
            Text("Epoch, pad the last batch + mask", "按轮训练：最后一批补齐 + 掩码"),
            Text(
                "The short batch is padded to the full batch size; a mask keeps the padding "
                "out of the loss. One shape, every row used.",
                "不满的批次补齐到完整大小，用掩码把补齐行排除在损失之外。形状只有一种，"
                "每一行都用上。",
            ),
        ),
        Variant(
            "serve-queue",
            Text("Inference queue, fixed batch sizes", "推理队列：固定批次大小"),
            Text(
                "Requests wait in a queue; the server takes up to 64 and pads them to 4, 16 "
                "or 64 rows. At most three compiles, whatever the traffic.",
                "请求先进队列；服务器每次最多取 64 个，补齐到 4、16 或 64 行。无论流量"
                "怎么变，最多编译三次。",
            ),
        ),
        Variant(
            "sequences-raw",
            Text("Sentences padded to the longest", "句子补齐到本批最长"),
            Text(
                "Each batch is padded to its own longest sentence: every new longest length "
                "compiles again.",
                "每批只补齐到本批最长的句子：每出现一个新的最长长度就重新编译。",
            ),
        ),
        Variant(
            "sequences-bucket",
            Text("Sentences padded to a bucket + mask", "句子补齐到长度桶 + 掩码"),
            Text(
                "Lengths are rounded up to 16, 32, 64, 128 or 256; a mask keeps padding out "
                "of the mean.",
                "长度向上取整到 16、32、64、128 或 256；掩码让补齐的词元不参与平均。",
            ),
        ),
        Variant(
            "nonzero",
            Text("jnp.nonzero without size", "不带 size 的 jnp.nonzero"),
            Text(
                "The number of matches depends on the data, so the output shape is unknown "
                "while tracing: jit refuses.",
                "匹配的个数取决于数据，追踪时输出形状未知：jit 直接报错。",
            ),
        ),
        Variant(
            "nonzero-size",
            Text("jnp.nonzero with size and fill_value", "带 size 与 fill_value 的 jnp.nonzero"),
            Text(
                "size= fixes the output shape; unused slots hold fill_value (-1). One compile, "
                "then hits, whatever the data.",
                "size= 固定输出形状，多出来的位置填 fill_value（-1）。编译一次，之后无论数据"
                "如何都命中缓存。",
            ),
        ),
    )
    autoplay = (
        *(AutoplayStep({"batch_size": n}) for n in (8, 8, 16, 8, 32, 8)),
        *(AutoplayStep({"batch_size": n}) for n in (12, 20, 27, 33, 41, 50, 64, 100, 128, 8)),
        # One epoch of 100 rows in batches of 32 is 32, 32, 32, then 4; then the next epoch.
        *(
            AutoplayStep({"batch_size": 32, "dataset_size": 100}, variant=v)
            for v in ("last-batch-raw", "last-batch-drop", "last-batch-pad")
            for _ in range(6)
        ),
        *(
            AutoplayStep({"batch_size": n}, variant="serve-queue")
            for n in (3, 1, 12, 40, 90, 2, 7, 16)
        ),
        *(
            AutoplayStep({"seq_len": n}, variant=v)
            for v in ("sequences-raw", "sequences-bucket")
            for n in (13, 17, 21, 30, 33, 40, 64, 9)
        ),
        *(
            AutoplayStep({"batch_size": 8}, variant=v)
            for v in ("nonzero", "nonzero-size")
            for _ in range(3)
        ),
    )

    scripts = ScriptLesson(
        Text(
            "Fed raw, every batch size gets its own script. Compare batch 8 with batch 16: "
            "the same 24 equations, differing only in the batch dimension of the shapes, "
            "and XLA compiled each from scratch. With buckets, batches 9 to 16 are all "
            "padded to 16 and read one script (three more equations, for the mask), so the "
            "number of scripts is the number of buckets, not of batch sizes.",
            "原样喂入时，每个批次大小都有自己的脚本。对比批次 8 和批次 16：同样的 24 条"
            "等式，只有形状里的批次维不同，XLA 却各自从头编译了一遍。用桶时，9 到 16 的"
            "批次都补齐到 16，读的是同一份脚本（多三条等式，用于掩码），所以脚本的数量等于"
            "桶的数量，而不是批次大小的数量。",
        ),
        compare=(
            CardRef("pitfall", {"batch_size": 8}),
            CardRef("pitfall", {"batch_size": 16}),
        ),
    )

    # The comments of the shown code (code_objects), in Chinese for the code view.
    code_comments = (
        Text("batch of any size: a new shape compiles again", "批次大小任意：新形状就要重新编译"),
        Text(
            "Padded rows carry mask 0: they cost compute but never touch the loss.",
            "填充行的 mask 为 0：它们耗费算力，但不影响损失。",
        ),
        Text(
            "The smallest power of two that holds n rows: at most 11 shapes for 1…1024.",
            "能容纳 n 行的最小的 2 的幂：1…1024 最多只有 11 种形状。",
        ),
        Text("one compile per bucket", "每个桶编译一次"),
        Text(
            "(start, stop) of each batch in one epoch; the last is short unless it is dropped.",
            "一个 epoch 中每个批次的 (start, stop)；最后一批不足额，除非丢弃它。",
        ),
        Text("drop_last: these rows are not seen this epoch", "drop_last：这些行本轮 epoch 用不到"),
        Text(
            "a short last batch is a new shape: it compiles again",
            "不足额的最后一批是新形状：会再编译一次",
        ),
        Text("every batch has the same shape", "每个批次形状都相同"),
        Text(
            "Take up to 64 waiting requests, pad them to the smallest serving size"
            " that holds them.",
            "取最多 64 个排队的请求，填充到能容纳它们的最小服务尺寸。",
        ),
        Text("one of three shapes, whatever the traffic", "不管流量如何，形状只有三种"),
        Text("answers for the real requests only", "只返回真实请求的结果"),
        Text("[batch, length, features]", "[批次, 长度, 特征]"),
        Text(
            "Mean over real tokens only: padding tokens have mask 0 and change nothing.",
            "只对真实 token 求平均：填充 token 的 mask 为 0，不产生影响。",
        ),
        Text("each new longest length compiles", "每出现一个新的最长长度就编译一次"),
        Text(
            "16, 32, 64, 128 or 256: a handful of lengths instead of every length.",
            "16、32、64、128 或 256：只有几种长度，而不是每种长度各一个。",
        ),
        Text(
            "How many rows are positive is only known at run time: the output shape is unknown.",
            "有多少行为正要到运行时才知道：输出形状未知。",
        ),
        Text(
            "size= fixes the output shape; missing entries are filled with -1.",
            "size= 固定了输出形状；不足的位置用 -1 填充。",
        ),
    )

    # The verdicts: the fix compiles fewer times on the same calls (issue 21).
    # The question, settled on its own calls (the comparison below is a second finding).
    question_run = QuestionRun("pitfall", tuple({"batch_size": n} for n in (8, 8, 16, 8, 32, 8)))
    comparisons = (
        Comparison(
            Measure.COMPILES,
            tuple({"batch_size": n} for n in (5, 8, 13, 16, 7, 29, 32, 8, 12)),
            note=Text(
                "Once per bucket: buckets 8, 16 and 32 hold all nine sizes. The question's "
                "sizes are another matter: " + ALREADY_BUCKETS.en,
                "每个桶编译一次：8、16、32 三个桶装下了全部九种大小。题目里那组大小则不同："
                + ALREADY_BUCKETS.zh,
            ),
        ),
        Comparison(
            Measure.COMPILES,
            tuple({"batch_size": 32, "dataset_size": 100} for _ in range(6)),
            "last-batch-raw",
            "last-batch-pad",
        ),
        Comparison(
            Measure.COMPILES,
            tuple({"seq_len": n} for n in (13, 17, 21, 30, 33, 40, 64, 9)),
            "sequences-raw",
            "sequences-bucket",
        ),
        Comparison(
            Measure.ERRORS, tuple({"batch_size": 8} for _ in range(3)), "nonzero", "nonzero-size"
        ),
    )

    def setup(self, lab: Lab, variant: str):
        self._facts: dict[str, Any] = {}
        if variant in ("pitfall", "fix"):
            return self._setup_batches(lab, variant)
        if variant.startswith("last-batch"):
            return self._setup_epoch(lab, variant)
        if variant == "serve-queue":
            return self._setup_queue(lab)
        if variant.startswith("sequences"):
            return self._setup_sequences(lab, variant)
        return self._setup_nonzero(lab, variant)

    def facts(self) -> dict[str, Any]:
        """What the last call did beyond the record: rows dropped or padded, queue length…"""
        return dict(getattr(self, "_facts", {}))

    def _setup_batches(self, lab: Lab, variant: str):
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

    def _setup_epoch(self, lab: Lab, variant: str):
        pad = variant == "last-batch-pad"
        loss = lab.probe(masked_mlp_loss if pad else mlp_loss)
        train_step = train_step_pad if pad else train_step_raw
        state = {"epoch": 0, "position": 0}

        def run(values):
            size, batch_size = values["dataset_size"], values["batch_size"]
            batches = epoch_batches(size, batch_size, drop_last=variant == "last-batch-drop")
            if not batches:
                raise ValueError(
                    f"drop_last leaves nothing to train on: {size} rows are fewer than one "
                    f"batch of {batch_size}"
                )
            if state["position"] >= len(batches):
                state["epoch"] += 1
                state["position"] = 0
            start, stop = batches[state["position"]]
            x_all, y_all = make_batch(size)
            seen = sum(b - a for a, b in batches)
            self._facts = {
                "epoch": state["epoch"],
                "batch": state["position"],
                "batches_per_epoch": len(batches),
                "rows": stop - start,
                "padded_rows": batch_size - (stop - start) if pad else 0,
                "rows_dropped_per_epoch": size - seen,
            }
            state["position"] += 1
            params = make_params(values["depth"])
            return train_step(loss, params, x_all[start:stop], y_all[start:stop], batch_size)

        return run

    def _setup_queue(self, lab: Lab):
        predict = lab.probe(mlp_predict)
        queue: deque = deque()
        arrived = itertools.count()

        def run(values):
            for _ in range(values["batch_size"]):
                rng = np.random.default_rng(next(arrived))
                queue.append(rng.normal(size=FEATURES).astype(np.float32))
            waiting = len(queue)
            answers = serve_one_batch(predict, make_params(values["depth"]), queue)
            size = next(s for s in SERVE_SIZES if s >= len(answers))
            self._facts = {
                "arrived": values["batch_size"],
                "waiting_before": waiting,
                "served": len(answers),
                "serving_size": size,
                "padded_rows": size - len(answers),
                "still_waiting": len(queue),
            }
            return answers

        return run

    def _setup_sequences(self, lab: Lab, variant: str):
        encoder = lab.probe(encode)
        encode_batch = encode_batch_bucket if variant == "sequences-bucket" else encode_batch_raw
        batches = itertools.count()

        def run(values):
            rng = np.random.default_rng(next(batches))
            longest = values["seq_len"]
            lengths = [longest, *rng.integers(1, longest + 1, SEQ_BATCH - 1)]
            sequences = [rng.integers(1, VOCAB, n).tolist() for n in lengths]
            padded = length_bucket(longest) if variant == "sequences-bucket" else longest
            self._facts = {
                "lengths": [int(n) for n in lengths],
                "padded_length": padded,
                "padding_tokens": padded * SEQ_BATCH - int(sum(lengths)),
            }
            return encode_batch(encoder, make_embedding(), sequences)

        return run

    def _setup_nonzero(self, lab: Lab, variant: str):
        find = lab.probe(positive_rows_sized if variant == "nonzero-size" else positive_rows)
        batches = itertools.count()

        def run(values):
            x, _ = make_batch(values["batch_size"], seed=next(batches))
            return find(x)

        return run

    def code_objects(self, variant: str):
        if variant == "fix":
            return (masked_mlp_loss, bucket_size, pad_to_bucket, step_fix)
        if variant == "pitfall":
            return (mlp_loss, step_pitfall)
        if variant == "last-batch-pad":
            return (masked_mlp_loss, epoch_batches, train_step_pad)
        if variant.startswith("last-batch"):
            return (mlp_loss, epoch_batches, train_step_raw)
        if variant == "serve-queue":
            return (mlp_predict, serve_one_batch)
        if variant == "sequences-bucket":
            return (encode, length_bucket, pad_sequences, encode_batch_bucket)
        if variant == "sequences-raw":
            return (encode, pad_sequences, encode_batch_raw)
        if variant == "nonzero-size":
            return (positive_rows_sized,)
        return (positive_rows,)
