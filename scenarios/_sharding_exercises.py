"""The exercises of the sharding lesson, which ``scenarios/sharding.py`` declares.

Predict what jax.jit does, then a real run settles it (`jitlab quiz`). Each snippet is
what the learner reads; the answer is read off the run, and ``expected`` is what its
author expects from this JAX (the tests and `jitlab check` compare the two)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType, Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

from jitlab.lab.scenario import (
    Answer,
    AnswerKind,
    Evidence,
    Exercise,
    Text,
    calls_text,
    compile_answer,
    error_answer,
    error_options,
    mesh_devices,
    printed_answer,
)


def layouts_over_devices(lab):
    mesh = Mesh(np.array(mesh_devices()[:2]), ("data",), axis_types=(AxisType.Auto,))
    by_rows = NamedSharding(mesh, P("data", None))
    by_columns = NamedSharding(mesh, P(None, "data"))
    everywhere = NamedSharding(mesh, P())

    @lab.jit
    def row_norms(x):
        return jnp.sqrt(jnp.sum(x * x, axis=1))

    batch = np.ones((8, 4), np.float32)
    for layout in (by_rows, by_rows, by_columns, by_rows, everywhere):
        row_norms(jax.device_put(batch, layout))


def traces_over_layouts(lab):
    mesh = Mesh(np.array(mesh_devices()[:2]), ("data",), axis_types=(AxisType.Auto,))

    @lab.jit
    def row_norms(x):
        print("tracing row_norms")
        return jnp.sqrt(jnp.sum(x * x, axis=1))

    batch = np.ones((8, 4), np.float32)
    for spec in (P("data", None), P(None, "data"), P()):
        row_norms(jax.device_put(batch, NamedSharding(mesh, spec)))


def _settle_traces_over_layouts(ev: Evidence) -> Answer:
    printed = printed_answer(ev)
    return Answer(
        printed.value,
        Text(
            f"{printed.detail.en} Compiles: {ev.compiles} ({calls_text(ev).en}).",
            f"{printed.detail.zh} 编译：{ev.compiles} 次（{calls_text(ev).zh}）。",
        ),
    )


def split_rows_unevenly(lab):
    mesh = Mesh(np.array(mesh_devices()[:2]), ("data",), axis_types=(AxisType.Auto,))

    @lab.jit
    def row_norms(x):
        return jnp.sqrt(jnp.sum(x * x, axis=1))

    batch = np.ones((5, 4), np.float32)  # 5 rows over 2 devices
    row_norms(jax.device_put(batch, NamedSharding(mesh, P("data", None))))


EXERCISES = (
    Exercise(
        id="layout-compiles",
        title=Text("Same batch, new layout", "同一批次，不同布局"),
        question=Text(
            "An (8, 4) batch is placed on 2 devices by rows, rows, columns, rows, then "
            "copied to both. How many compiles?",
            "一个 (8, 4) 的批次放到 2 台设备上：按行、按行、按列、按行，最后每台一份完整拷贝。"
            "编译几次？",
        ),
        explanation=Text(
            "jit compiles one program per input sharding: where the data lives decides what "
            "each device computes and which transfers are needed. Three layouts, three "
            "compiles, though shape and dtype never changed. device_put every batch to one "
            "fixed sharding.",
            "jit 为每种输入分片编译一个程序：数据放在哪里，决定了每台设备算什么、要做哪些搬运。"
            "三种布局，编译三次——尽管形状和 dtype 从没变过。把每个批次都 device_put 到同一个"
            "固定的分片上。",
        ),
        kind=AnswerKind.NUMBER,
        expected=3,
        snippet=layouts_over_devices,
        settle=compile_answer,
        min_devices=2,
    ),
    Exercise(
        id="layout-traces",
        title=Text("A silent recompile", "无声的重编译"),
        question=Text(
            "row_norms prints while tracing, and gets the same batch split by rows, by "
            "columns, then copied to both devices. How many lines are printed?",
            "row_norms 在追踪时打印一行，先后收到按行切、按列切、每台一份的同一批次。打印几行？",
        ),
        explanation=Text(
            "With the classic (Auto) mesh, sharding is not part of the traced type: JAX "
            "reuses the trace and only lowers and compiles again. One print for three "
            "compiles, and no cache-miss explanation either; only a signature diff, like "
            "jitlab's, names the cause.",
            "使用经典（Auto）网格时，分片不属于追踪类型：JAX 复用已有的追踪结果，只重新降级和"
            "编译。编译三次却只打印一行，也没有任何缓存未命中的解释；只有像 jitlab 这样比较"
            "签名，才能说出原因。",
        ),
        kind=AnswerKind.NUMBER,
        expected=1,
        snippet=traces_over_layouts,
        settle=_settle_traces_over_layouts,
        min_devices=2,
    ),
    Exercise(
        id="uneven-split",
        title=Text("5 rows over 2 devices", "5 行分给 2 台设备"),
        question=Text(
            "A batch of 5 rows is put on 2 devices split by rows. Does it raise, and which error?",
            "把 5 行的批次按行分到 2 台设备上。会报错吗？是哪种错误？",
        ),
        explanation=Text(
            "A NamedSharding splits a dimension into equal pieces, and 5 rows do not divide "
            "by 2: device_put raises IndivisibleError, a kind of ValueError. Pad the batch "
            "to a multiple of the device count (and mask the padding).",
            "NamedSharding 把一个维度切成相等的份，5 行无法平分给 2 台设备：device_put 抛出 "
            "IndivisibleError（ValueError 的一种）。把批次填充到设备数的整数倍（再用掩码屏蔽"
            "填充部分）。",
        ),
        kind=AnswerKind.ERROR,
        expected="IndivisibleError",
        snippet=split_rows_unevenly,
        code_comments=(Text("5 rows over 2 devices", "5 行分到 2 台设备上"),),
        settle=error_answer,
        options=error_options("ValueError", "TypeError", "IndexError"),
        min_devices=2,
    ),
)
