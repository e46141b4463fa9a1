"""The signature ledger puts the columns that changed first: what made JAX compile again is
never behind a sideways scroll past a model's unchanged parameters (issue 42). The app's
ledgers, the report and the notebook all take this order from ``signature_columns``."""

from __future__ import annotations

from jitlab.recordings.ledger import ledger_rows, signature_columns
from jitlab.records.calls import CallKind, CallRecord, LeafSpec, Signature
from jitlab.records.lines import RecordedCall


def _compile(index: int, batch: int, kind: CallKind) -> RecordedCall:
    params = tuple(
        LeafSpec(f"params[{i}][{j}]", (8, 8) if j == 0 else (8,), "float32", False)
        for i in range(4)
        for j in range(2)
    )
    x = LeafSpec("x", (batch, 8), "float32", False)
    y = LeafSpec("y", (batch,), "float32", False)
    signature = Signature(leaves=(*params, x, y), statics=(), tree="PyTreeDef(...)")
    return RecordedCall(CallRecord(index, "step", kind, 5.0, signature=signature, card=index))


def test_the_changed_columns_come_first_then_the_rest_in_order() -> None:
    rows = ledger_rows([_compile(0, 8, CallKind.COMPILE), _compile(1, 16, CallKind.RECOMPILE)])
    keys = signature_columns(rows)
    assert keys[:2] == ["x", "y"]
    assert keys[2:] == [f"params[{i}][{j}]" for i in range(4) for j in range(2)]


def test_with_nothing_changed_the_order_is_the_arguments_own() -> None:
    keys = signature_columns(ledger_rows([_compile(0, 8, CallKind.COMPILE)]))
    assert keys[0] == "params[0][0]" and keys[-2:] == ["x", "y"]
