"""Beyond the guide: the same function, inputs laid out differently across devices, recompiles.

A sharding is not part of the shape or dtype, yet jit compiles one program per input
layout. With the classic (auto) mesh JAX traces nothing and explains nothing: only
jitlab's own signature diff can name the cause.
"""

from __future__ import annotations

import itertools
from functools import cache
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType, Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

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
    Shown,
    Text,
    Variant,
    devices_text,
    mesh_devices,
)

from ._sharding_exercises import EXERCISES  # the quiz's questions on this lesson

FEATURES = 64
MAX_DEVICES = 8

# How the data loader happened to lay out the batch on the devices.
LAYOUTS = {
    "rows": P("data", None),  # each device holds a slice of the rows (data parallel)
    "features": P(None, "data"),  # each device holds a slice of the columns
    "replicated": P(),  # every device holds the whole batch
    "single": None,  # a plain host array: jit puts it on one device
}


# --- the model: an MLP forward pass, the same function every call ---------------------------
def predict(params, x):
    h = x
    for w, b in params:
        h = jnp.tanh(h @ w + b)
    return jnp.mean(h, axis=1)


# --- the loader decides the layout: the pitfall ---------------------------------------------
def place(batch, mesh, layout):
    spec = LAYOUTS[layout]
    if spec is None:
        return batch
    return jax.device_put(batch, NamedSharding(mesh, spec))


def step_pitfall(model, params, batch, mesh, layout):
    x = place(batch, mesh, layout)
    return model(params, x)  # a layout not seen before compiles again, silently


# --- the fix: one fixed sharding at the door ---------------------------------------------
def step_fix(model, params, batch, mesh, layout):
    x = place(batch, mesh, layout)
    x = jax.device_put(x, NamedSharding(mesh, P("data", None)))  # always rows over devices
    return model(params, x)  # one layout, one compile


def make_mesh(axis_type=AxisType.Auto):
    """A 1-D mesh named "data" over up to 8 devices (a power of two, so shapes divide): the
    accelerators where there are two or more, else simulated CPU devices beside them."""
    devices = mesh_devices()
    if len(devices) < 2:
        raise RuntimeError(
            f"the sharding lesson needs at least 2 devices, but JAX sees {len(devices)}. jitlab "
            "asks XLA for 8 simulated CPU devices at start-up "
            "(XLA_FLAGS=--xla_force_host_platform_device_count=8), which only works before "
            "JAX starts its backend: run it through `jitlab` / `python -m jitlab.cli`, or set "
            "XLA_FLAGS before importing JAX."
        )
    size = 1 << (min(len(devices), MAX_DEVICES).bit_length() - 1)
    return Mesh(np.array(devices[:size]), ("data",), axis_types=(axis_type,))


@cache
def make_params(depth, seed=0):
    rng = np.random.default_rng(seed)
    return [
        (
            jnp.asarray(rng.normal(0, 1 / np.sqrt(FEATURES), (FEATURES, FEATURES)), jnp.float32),
            jnp.zeros((FEATURES,), jnp.float32),
        )
        for _ in range(depth)
    ]


def make_batch(rows, devices, seed=0):
    """A host batch whose row count divides over the devices (rounded up)."""
    rows = -(-rows // devices) * devices
    rng = np.random.default_rng(seed)
    return rng.normal(size=(rows, FEATURES)).astype(np.float32)


def _layout_text(x) -> str:
    sharding = getattr(x, "sharding", None)
    if isinstance(sharding, NamedSharding):
        return str(sharding.spec)
    return "single device"


class Sharding(Scenario):
    id = "sharding"
    pitfall = Pitfall.SHARDING
    icon = "stations"
    exercises = EXERCISES
    title = Text("Same shapes, new layout", "形状没变，布局变了")
    question = Text(
        "The batch keeps the same shape and dtype; only how it is spread over the 8 devices "
        "changes: rows, rows, columns, rows, copied everywhere, rows. How many compiles, and "
        "will JAX tell you why?",
        "批次的形状和 dtype 都不变，变的只是它在 8 个设备上的摆法：按行、按行、按列、按行、"
        "每台一份、按行。会编译几次？JAX 会告诉你原因吗？",
    )
    lesson = Lesson(
        what=Text(
            "When the work outgrows one device, arrays are sharded: split over a mesh of "
            "devices by a PartitionSpec. jit compiles one program per input sharding, because "
            "where the data lives decides which devices compute what and which transfers the "
            "program must contain. Feed the same function a batch split by rows, then by "
            "columns, then copied everywhere, and it compiles three times although no shape "
            "or dtype changed.",
            "当一台设备装不下时，数组会被分片：按 PartitionSpec 切开，分布到一个设备网格（mesh）"
            "上。jit 为每一种输入分片编译一个程序，因为数据放在哪里，决定了哪台设备算哪一块、"
            "程序里要有哪些数据搬运。同一个函数，先喂按行切的批次，再喂按列切的，再喂每台一份"
            "的，就会编译三次——尽管形状和 dtype 一点没变。",
        ),
        why=Text(
            "With the classic mesh (axis type Auto) the sharding is not part of the traced "
            "type, so JAX's tracing cache hits, the jaxpr is reused, and only lowering and the "
            "XLA compile run again. Nothing is traced, so jax_explain_cache_misses logs "
            "nothing: the recompile is silent. (Leaving the mesh for a single device is "
            "different: the type records which mesh an array lives on, so JAX does trace and "
            "explain that one.) jitlab compares each call's signature, shardings "
            "included, with its card holder and names the change itself. With explicit mesh "
            "axes (AxisType.Explicit, the default of jax.make_mesh in recent JAX) the sharding "
            "is part of the type: JAX traces again and its own explanation names it.",
            "用经典网格（轴类型 Auto）时，分片不属于追踪类型：JAX 的追踪缓存命中、jaxpr 被复用，"
            "只有降级（lowering）和 XLA 编译重跑。因为没有重新追踪，jax_explain_cache_misses "
            "什么也不记录——这次重编译是无声的。（离开网格、换成单设备数组则不同：类型里记着数组"
            "所在的网格，所以 JAX 会重新追踪并给出解释。）jitlab 把每次调用的签名（含分片）与"
            "卡夹逐一比对，"
            "自己说出变化在哪。若网格轴是显式的（AxisType.Explicit，新版 jax.make_mesh 的默认"
            "值），分片就是类型的一部分：JAX 会重新追踪，并在它自己的解释里点名。",
        ),
        fix=Text(
            "Decide the layout once and enforce it at the door: jax.device_put every batch to "
            "one fixed NamedSharding (here rows split over the devices) before the call. "
            "Declaring in_shardings on jax.jit also helps: host arrays are placed for you, and "
            "a device array in another layout raises a loud ValueError instead of compiling "
            "silently. One layout, one compile, then cache hits. Watch "
            "for layouts that drift silently: a host numpy array, the output of another jitted "
            "function, a batch resharded by a helper.",
            "布局只定一次，在门口强制执行：调用前用 jax.device_put 把每个批次放到同一个固定的 "
            "NamedSharding 上（这里是按行分到各设备）。在 jax.jit 上声明 in_shardings 也有帮助："
            "主机数组会被自动放好，而布局不同的设备数组会直接抛出 ValueError，而不是悄悄重编译。"
            "一种布局只编译一次，之后全部命中缓存。留心那些悄悄变化的布局：主机上的 numpy 数组、"
            "另一个 jit 函数的输出、被某个辅助函数重新分片过的批次。",
        ),
        kitchen=Text(
            "The restaurant grew to eight stations. Chef Wang's script says who chops what: "
            "for “rice split by tables”, each station cooks for its own tables. One day the "
            "rice arrives split by ingredient instead, the same 500 g, and the script no "
            "longer says who does what: he rewrites it for the stations, without even "
            "re-tasting the recipe, and nobody is told why service stalled. The fix is a "
            "rule at the back door: deliveries are always split by tables.",
            "餐厅扩成了八个灶台。王师傅的脚本写清了谁切什么：“米按桌分”，每个灶台只做自己那几桌。"
            "某天米却按食材分好送来了——还是那 500 克——脚本里的分工就对不上了：他不用重新试菜，"
            "却得为灶台重写一遍分工，而没人知道出餐为什么卡住了。解决办法是在后门立条规矩："
            "送货一律按桌分好。",
        ),
    )
    params = (
        Param(
            "layout",
            "rows",
            Text("Input layout", "输入布局"),
            Text(
                "How the loader spread the batch over the devices: rows (data parallel), "
                "features (columns), replicated (a full copy per device) or single (a host "
                "array on one device).",
                "数据加载器把批次摆到设备上的方式：按行切分（数据并行）、按列切分、复制（每台"
                "设备一份完整拷贝），或单设备（放在一台设备上的主机数组）。",
            ),
            choices=tuple(LAYOUTS),
            choice_labels=(
                Text("rows (data parallel)", "按行切分（数据并行）"),
                Text("features (columns)", "按列切分"),
                Text("replicated (a copy each)", "复制（每台一份）"),
                Text("single (one device)", "单设备（主机数组）"),
            ),
        ),
        Param(
            "rows",
            256,
            Text("Batch rows", "批次行数"),
            Text(
                "Rows in the batch (rounded up to a multiple of the device count).",
                "批次行数（向上取整为设备数的倍数）。",
            ),
            minimum=8,
            maximum=4096,
            log_scale=True,
        ),
        Param(
            "depth",
            4,
            Text("Model depth", "模型层数"),
            Text(
                "Layers of the MLP: deeper models make each silent recompile cost more.",
                "MLP 的层数：层数越多，每次无声重编译的代价越高。",
            ),
            minimum=1,
            maximum=32,
        ),
    )
    variants = (
        Variant(
            "pitfall",
            Text("Layout as it comes", "布局随来随用"),
            Text(
                "The batch reaches jit in whatever layout the loader chose: each new layout "
                "recompiles, and JAX explains nothing.",
                "批次以加载器给的任何布局进入 jit：每种新布局都重编译，而 JAX 什么也不解释。",
            ),
        ),
        Variant(
            "fix",
            Text("One fixed sharding", "固定一种分片"),
            Text(
                "device_put to rows-over-devices before every call: one compile, then hits.",
                "每次调用前 device_put 到“按行分到各设备”：编译一次，之后全部命中。",
            ),
        ),
        Variant(
            "explicit-axes",
            Text("Explicit mesh axes", "显式网格轴"),
            Text(
                "The same pitfall on a mesh with AxisType.Explicit: the sharding is part of "
                "the type, so JAX traces again and explains the miss itself.",
                "同样的陷阱，但网格轴为 AxisType.Explicit：分片是类型的一部分，JAX 会重新追踪"
                "并亲自解释这次未命中。",
            ),
        ),
    )
    autoplay = tuple(
        AutoplayStep({"layout": layout})
        for layout in ("rows", "rows", "features", "rows", "replicated", "rows", "single", "rows")
    )

    scripts = ScriptLesson(
        Text(
            "Compare the rows layout with the features layout. The jaxprs are identical: "
            "jaxpr knows shapes, not where the data sits. The difference is in the optimized "
            "HLO that XLA partitioned for each layout: split by rows, every device works on "
            "its own rows and needs no collective; split by features, each device holds part "
            "of every dot product, so the HLO gains all-reduce operations to sum them across "
            "devices.",
            "对比 rows 布局和 features 布局。两份 jaxpr 完全相同：jaxpr 只知道形状，不知道"
            "数据放在哪里。区别在 XLA 为每种布局切分后的优化 HLO 里：按行切分时，每台设备"
            "只算自己的行，不需要集合通信；按特征切分时，每台设备只持有每个点积的一部分，"
            "所以 HLO 里多出了 all-reduce，用来跨设备求和。",
        ),
        compare=(
            CardRef("pitfall", {"layout": "rows"}),
            CardRef("pitfall", {"layout": "features"}),
        ),
    )

    # The comments of the shown code (code_objects), in Chinese for the code view.
    code_comments = (
        Text("a layout not seen before compiles again, silently", "没见过的布局会悄悄地再编译一次"),
        Text("always rows over devices", "始终按行分到各设备"),
        Text("one layout, one compile", "一种布局，一次编译"),
    )

    # The verdict: one fixed sharding compiles once, whatever the loader's layout (issue 21).
    # The question, settled on its own calls: the six layouts it names.
    question_run = QuestionRun(
        "pitfall",
        tuple(
            {"layout": layout}
            for layout in ("rows", "rows", "features", "rows", "replicated", "rows")
        ),
        shows=(Shown.JAX_EXPLAINED,),  # "and will JAX tell you why?"
    )
    comparisons = (
        Comparison(
            Measure.COMPILES,
            tuple(
                {"layout": layout}
                for layout in (
                    "rows",
                    "rows",
                    "features",
                    "rows",
                    "replicated",
                    "rows",
                    "single",
                    "rows",
                )
            ),
        ),
    )

    def setup(self, lab: Lab, variant: str):
        mesh = make_mesh(AxisType.Explicit if variant == "explicit-axes" else AxisType.Auto)
        model = lab.probe(predict)
        step = step_fix if variant == "fix" else step_pitfall
        seeds = itertools.count()
        # On one GPU the mesh is of CPU devices: the weights and host batches go there too
        # (default_device), so every program of the lesson runs on the mesh's backend.
        home = mesh.devices.flat[0]
        elsewhere = home.platform != jax.default_backend()
        self._facts: dict = {
            "devices": mesh.size,
            "ran_on": devices_text(list(mesh.devices.flat)),
            "mesh": dict(mesh.shape),
        }

        def run(values):
            if not elsewhere:
                return run_on_mesh(values)
            with jax.default_device(home):
                return run_on_mesh(values)

        def run_on_mesh(values):
            batch = make_batch(values["rows"], mesh.size, seed=next(seeds))
            params = make_params(values["depth"])
            if variant == "explicit-axes":
                # Explicit axes need every input on the mesh: weights copied to each device.
                params = jax.device_put(params, NamedSharding(mesh, P()))
            result = step(model, params, batch, mesh, values["layout"])
            arrived = place(batch, mesh, values["layout"])
            self._facts.update(
                layout_arrived=_layout_text(arrived),
                layout_used=_layout_text(arrived) if variant != "fix" else str(P("data", None)),
                shard_shape=list(
                    arrived.addressable_shards[0].data.shape
                    if hasattr(arrived, "addressable_shards")
                    else batch.shape
                ),
                batch_shape=list(batch.shape),
            )
            return result

        return run

    def facts(self) -> dict[str, Any]:
        """Devices, mesh, the layout that arrived and the one jit saw, one device's shard."""
        return dict(getattr(self, "_facts", {}))

    def code_objects(self, variant: str):
        step = step_fix if variant == "fix" else step_pitfall
        return (predict, place, step)
