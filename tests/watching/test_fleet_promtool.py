"""examples/fleet checked by Prometheus's own ``promtool`` (where it is installed: Debian's
``prometheus`` package): the rules load, their unit tests pass (a storm fires, a warm-up does
not), and every expression of the Grafana dashboard parses as PromQL."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("promtool") is None, reason="promtool is not installed"),
]

EXAMPLES = Path(__file__).parents[2] / "examples" / "fleet"
# Grafana's variables, as Grafana would fill them in.
GRAFANA = {"$__rate_interval": "1m", "$__range": "3h", "$job": ".*", "$instance": ".*"}


def promtool(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["promtool", *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def test_the_rules_load_and_their_unit_tests_pass() -> None:
    checked = promtool("check", "rules", "prometheus-rules.yml", cwd=EXAMPLES)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    tested = promtool("test", "rules", "prometheus-rules.test.yml", cwd=EXAMPLES)
    assert tested.returncode == 0, tested.stdout + tested.stderr


def test_every_dashboard_expression_is_promql(tmp_path: Path) -> None:
    dashboard = json.loads((EXAMPLES / "grafana-dashboard.json").read_text(encoding="utf-8"))
    rules = []
    for panel in dashboard["panels"]:
        for target in panel["targets"]:
            expr = target["expr"]
            for variable, value in GRAFANA.items():
                expr = expr.replace(variable, value)
            rules.append({"record": f"jitlab:panel_{panel['id']}_{target['refId']}", "expr": expr})
    path = tmp_path / "dashboard-rules.yml"
    path.write_text(yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rules}]}))
    checked = promtool("check", "rules", str(path), cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
