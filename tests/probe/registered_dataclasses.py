"""Classes registered by ``jax.tree_util.register_dataclass`` in each of its forms, with the
(data fields, meta fields) JAX flattens them by: lists in another order than the class
declares, the decorator form (meta fields marked ``static``), a class that is no dataclass.
Each is made ``Cls(tag=, w=, n=)``."""

from __future__ import annotations

import dataclasses

import jax


@dataclasses.dataclass(frozen=True)
class Listed:
    tag: str
    w: jax.Array
    n: int


jax.tree_util.register_dataclass(Listed, data_fields=["w"], meta_fields=["n", "tag"])


@jax.tree_util.register_dataclass
@dataclasses.dataclass(frozen=True)
class Decorated:
    tag: str = dataclasses.field(metadata={"static": True})
    w: jax.Array | None = None
    n: int = dataclasses.field(default=0, metadata={"static": True})


class Plain:
    def __init__(self, w: jax.Array, n: int, tag: str) -> None:
        self.w, self.n, self.tag = w, n, tag


jax.tree_util.register_dataclass(Plain, data_fields=["w"], meta_fields=["tag", "n"])

FIELDS: dict[type, tuple[tuple[str, ...], tuple[str, ...]]] = {
    Listed: (("w",), ("n", "tag")),
    Decorated: (("w",), ("tag", "n")),
    Plain: (("w",), ("tag", "n")),
}
