"""The exercises of the dynamic-shapes lesson, which ``scenarios/dynamic_shapes.py`` declares.

Predict what jax.jit does, then a real run settles it (`jitlab quiz`). Each snippet is
what the learner reads; the answer is read off the run, and ``expected`` is what its
author expects from this JAX (the tests and `jitlab check` compare the two)."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from jitlab.lab.scenario import (
    AnswerKind,
    Exercise,
    Text,
    compile_answer,
    error_answer,
    error_options,
)


def shapes_from_the_guide(lab):
    @lab.jit
    def total(x):
        return jnp.sum(x)

    for n in (8, 8, 16, 8, 32, 8):
        total(np.ones(n, np.float32))


def nonzero_inside_jit(lab):
    @lab.jit
    def positive_positions(x):
        return jnp.nonzero(x > 0)  # how many? only the values can tell

    positive_positions(np.array([1.0, -2.0, 3.0], np.float32))


def pad_to_buckets(lab):
    @lab.jit
    def mean_of_real_rows(batch, mask):
        return jnp.sum(batch * mask) / jnp.sum(mask)

    for rows in (3, 5, 9, 12, 16, 17):
        bucket = 1 << (rows - 1).bit_length()  # the next power of two
        batch = np.zeros(bucket, np.float32)
        batch[:rows] = 1.0
        mask = (np.arange(bucket) < rows).astype(np.float32)
        mean_of_real_rows(batch, mask)


def dtypes_at_the_door(lab):
    @lab.jit
    def double(x):
        return x * 2

    double(jnp.ones(4))  # float32
    double(np.ones(4))  # numpy float64
    double(jnp.ones(4, jnp.int32))
    double(np.ones(4, np.float32))


# One fact, said in one wording wherever the lab says it (the exercise, Complete's note).
ALREADY_BUCKETS = Text(
    "8, 16 and 32 are already buckets (powers of two), so padding to buckets changes "
    "nothing on these sizes: one compile per bucket, 3 in all. Buckets save compiles when the "
    "sizes fall between them (5, 13, 29, … pad to 8, 16, 32).",
    "8、16、32 本身就是桶（2 的幂），所以补齐到桶对这组大小毫无改变：每个桶编译一次，"
    "一共 3 次。只有大小落在桶与桶之间时（5、13、29……补齐到 8、16、32），分桶才省得下编译。",
)

EXERCISES = (
    Exercise(
        id="shape-sequence",
        title=Text("Sizes 8, 8, 16, 8, 32, 8", "长度 8、8、16、8、32、8"),
        question=Text(
            "total(x) sums x, and is called with arrays of 8, 8, 16, 8, 32 and 8 elements. "
            "How many compiles?",
            "total(x) 对 x 求和，依次用 8、8、16、8、32、8 个元素的数组调用。编译几次？",
        ),
        explanation=Text(
            "One program per shape: 8 compiles first, 16 and 32 compile once each, and every "
            "return to 8 is a cache hit. " + ALREADY_BUCKETS.en,
            "每种形状一个程序：8 先编译一次，16 和 32 各编译一次，每次回到 8 都命中缓存。"
            + ALREADY_BUCKETS.zh,
        ),
        kind=AnswerKind.NUMBER,
        expected=3,
        snippet=shapes_from_the_guide,
        settle=compile_answer,
    ),
    Exercise(
        id="nonzero-in-jit",
        title=Text("jnp.nonzero inside jit", "jit 里的 jnp.nonzero"),
        question=Text(
            "positive_positions(x) returns jnp.nonzero(x > 0). Does it raise under jit, and "
            "which error?",
            "positive_positions(x) 返回 jnp.nonzero(x > 0)。在 jit 下会报错吗？是哪种错误？",
        ),
        explanation=Text(
            "How many positions come back depends on the values, but a compiled program "
            "needs its output shapes while tracing: ConcretizationTypeError. Give a fixed "
            "size (jnp.nonzero(..., size=n, fill_value=...)) or use a mask.",
            "返回多少个位置取决于数值，而编译程序在追踪时就必须知道输出形状："
            "ConcretizationTypeError。给一个固定的 size（jnp.nonzero(..., size=n, "
            "fill_value=...)），或者改用掩码。",
        ),
        kind=AnswerKind.ERROR,
        expected="ConcretizationTypeError",
        snippet=nonzero_inside_jit,
        code_comments=(Text("how many? only the values can tell", "有几个？只有看到值才知道"),),
        settle=error_answer,
        options=error_options("ConcretizationTypeError", "IndexError", "ValueError"),
        variant="nonzero",
    ),
    Exercise(
        id="bucket-count",
        title=Text("Padding to power-of-two buckets", "按 2 的幂分桶填充"),
        question=Text(
            "Batches of 3, 5, 9, 12, 16 and 17 rows are each padded to the next power of two "
            "(with a mask) before the call. How many compiles?",
            "3、5、9、12、16、17 行的批次，调用前各自填充到下一个 2 的幂（配合掩码）。编译几次？",
        ),
        explanation=Text(
            "Padding turns six sizes into four buckets, 4, 8, 16 and 32, and only buckets "
            "reach jit. Fewer distinct shapes means fewer compiles; the mask keeps the "
            "padding out of the result.",
            "填充把六种长度变成四个桶：4、8、16、32，到达 jit 的只有桶的大小。形状种类越少，"
            "编译越少；掩码保证填充的部分不影响结果。",
        ),
        kind=AnswerKind.NUMBER,
        expected=4,
        snippet=pad_to_buckets,
        code_comments=(Text("the next power of two", "向上取到下一个 2 的幂"),),
        settle=compile_answer,
        variant="sequences-bucket",
    ),
    Exercise(
        id="dtype-door",
        title=Text("Four arrays of four ones", "四个全是 1 的四元素数组"),
        question=Text(
            "double(x) is called with jnp.ones(4), np.ones(4) (float64), jnp.ones(4, int32) "
            "and np.ones(4, float32). How many compiles?",
            "double(x) 依次用 jnp.ones(4)、np.ones(4)（float64）、jnp.ones(4, int32)、"
            "np.ones(4, float32) 调用。编译几次？",
        ),
        explanation=Text(
            "The dtype is part of the signature, but JAX first converts inputs to its own "
            "types: with 64-bit mode off (the default), numpy float64 becomes float32 and "
            "matches the first call. Only the int32 array is new.",
            "dtype 属于签名，但 JAX 会先把输入转换成自己的类型：在默认关闭 64 位模式时，numpy "
            "的 float64 会变成 float32，和第一次调用一样。只有 int32 数组是新的。",
        ),
        kind=AnswerKind.NUMBER,
        expected=2,
        snippet=dtypes_at_the_door,
        code_comments=(
            Text("float32", "float32 类型"),
            Text("numpy float64", "numpy 的 float64 类型"),
        ),
        settle=compile_answer,
    ),
)
