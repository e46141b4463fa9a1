"""`%%jitlab` in a terminal IPython (issue 54): with no HTML to show, its text says what
changed between the cell's compiles, not only how many there were."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

SESSION = """%load_ext jitlab
import jax, jax.numpy as jnp

%%jitlab
f = jax.jit(lambda x: x * 2)
for n in (8, 8, 16, 32):
    f(jnp.ones(n))


exit
"""


@pytest.mark.parametrize(
    ("lang", "head", "x"), [("en", "what differed:", "x: "), ("zh", "哪里不同：", "x 的形状变了：")]
)
def test_terminal_ipython_shows_what_changed_between_compiles(tmp_path, lang, head, x) -> None:
    ipython = Path(sys.executable).with_name("ipython")
    session = SESSION.replace("%%jitlab", "%%jitlab" + (" --lang zh" if lang == "zh" else ""))
    done = subprocess.run(
        [str(ipython), "--no-banner", "--simple-prompt", "--colors=NoColor", "--quick"],
        input=session,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    assert head in out, out[-2000:]
    after = out[out.index(head) :].splitlines()
    assert after[1].strip() == f"{x}f32[16] ← f32[8] ×1", after[:4]
    assert after[2].strip() == f"{x}f32[32] ← f32[16] ×1", after[:4]
