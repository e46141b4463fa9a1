"""examples/fleet: the Grafana dashboard and the Prometheus alerting rules read only the
metrics the fleet view serves, by their names and labels (a renamed metric breaks this, not
an operator's dashboard at night). ``promtool`` checks them where it is installed
(``test_fleet_promtool.py``)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

from jitlab.watching.fleet import METRICS

EXAMPLES = Path(__file__).parents[2] / "examples" / "fleet"
SERIES = {m.exposed for m in METRICS if m.type != "histogram"} | {
    f"{m.exposed}_{part}"
    for m in METRICS
    if m.type == "histogram"
    for part in ("sum", "count", "bucket")
}
LABELS = {label for m in METRICS for label in m.labels} | {"job", "instance", "le"}
PANELS = (
    "Recompiles per minute by function",
    "Compile time share",
    "Top reasons (recompiles in range)",
    "Diagnoses (in range)",
)


def dashboard_expressions() -> list[str]:
    dashboard = json.loads((EXAMPLES / "grafana-dashboard.json").read_text(encoding="utf-8"))
    return [t["expr"] for p in dashboard["panels"] for t in p["targets"]]


def rule_expressions() -> list[str]:
    rules = yaml.safe_load((EXAMPLES / "prometheus-rules.yml").read_text(encoding="utf-8"))
    return [rule["expr"] for group in rules["groups"] for rule in group["rules"]]


def names_and_labels(expr: str) -> tuple[set[str], set[str]]:
    names = set(re.findall(r"\bjitlab_\w+", expr))
    labels = set(re.findall(r"(\w+)\s*(?:=~|!=|=)\s*\"", expr))
    labels |= {
        label.strip()
        for group in re.findall(r"\bby\s*\(([^)]*)\)", expr)
        for label in group.split(",")
    }
    return names, labels


def test_the_dashboard_has_the_operators_panels_and_reads_only_served_metrics() -> None:
    dashboard = json.loads((EXAMPLES / "grafana-dashboard.json").read_text(encoding="utf-8"))
    titles = [panel["title"] for panel in dashboard["panels"]]
    assert set(PANELS) <= set(titles)
    assert len({panel["id"] for panel in dashboard["panels"]}) == len(titles)
    for expr in dashboard_expressions():
        names, labels = names_and_labels(expr)
        assert names and names <= SERIES, expr
        assert labels <= LABELS, expr


def test_the_alerting_rules_are_well_formed_and_read_only_served_metrics() -> None:
    rules = yaml.safe_load((EXAMPLES / "prometheus-rules.yml").read_text(encoding="utf-8"))
    [group] = rules["groups"]
    alerts = {rule["alert"]: rule for rule in group["rules"]}
    assert "JitlabRecompileStorm" in alerts
    for rule in alerts.values():
        assert set(rule) == {"alert", "expr", "for", "labels", "annotations"}
        assert re.fullmatch(r"\d+[smh]", rule["for"])
        assert rule["labels"]["severity"] and rule["annotations"]["summary"]
    storm = alerts["JitlabRecompileStorm"]["expr"]
    assert 'kind="recompile"' in storm  # first compiles are never a storm
    for expr in rule_expressions():
        names, labels = names_and_labels(expr)
        assert names and names <= SERIES, expr
        assert labels <= LABELS, expr
