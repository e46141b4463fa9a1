"""Generated programs under transformations: around the jitted call (vmap, with a named axis
too; grad; jvp; linearize and its application; scan; checkpoint) and inside its body."""

from __future__ import annotations

from .conftest import Generated
from .strategies import VIA, Dims


def test_transformations_around_and_inside(generated: Generated) -> None:
    dims = Dims(
        via=(None, None, *VIA),
        bodies=("sum", "vmap", "scan", "remat", "grad", "named"),
        max_calls=4,
    )
    generated(dims, 50)
