"""The diagnosed program's recording (:mod:`diagnosed_run`), made once per session."""

from __future__ import annotations

import pytest
from diagnosed_run import Watched, watch


@pytest.fixture(scope="session")
def watched(tmp_path_factory: pytest.TempPathFactory) -> Watched:
    return watch(tmp_path_factory.mktemp("diagnosed"))
