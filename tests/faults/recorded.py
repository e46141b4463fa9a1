"""A recording's call line as the tests write it by hand (one compile of ``x: f32[...]``)."""

from __future__ import annotations


def call_line(
    function: str, shape: list[int], t: float, kind: str = "compile", defined_at: str = "train.py:3"
) -> dict:
    text = f"x: f32[{','.join(map(str, shape))}]"
    leaf = {"path": "x", "shape": shape, "dtype": "float32", "weak_type": False}
    return {
        "type": "call",
        "function": function,
        "kind": kind,
        "signature": {"args": [leaf], "static": {}, "tree": "[*]", "text": text},
        "defined_at": defined_at,
        "called_from": "train.py:9",
        "t": t,
    }
