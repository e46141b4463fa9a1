"""One process of the 2-process ``jax.distributed`` job of ``distributed.py``
(gloo collectives on CPU), which then waits, so that a test can scrape it while it runs.

    python fleet_job.py INDEX COUNT COORDINATOR_PORT READY GO
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import distributed

if __name__ == "__main__":
    index, count, port, ready, go = sys.argv[1:6]
    distributed.main(int(index), int(count), int(port))
    Path(ready).touch()
    deadline = time.monotonic() + 300
    while not Path(go).exists() and time.monotonic() < deadline:
        time.sleep(0.05)
