"""docs/operations.md and the Grafana dashboard beside it agree: the dashboard is JSON Grafana
imports (panels with their queries, on a data source chosen at import), every metric its
queries and the page's alert rules name is one the page lists, and every metric the page lists
is one the bot serves."""

from __future__ import annotations

import importlib
import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
#: A metric's name in a query or on the page; a histogram's series end in _bucket/_count/_sum.
METRIC = re.compile(r"\b((?:tictactoe|process)_[a-z_]+|up)\b(?!\s*\()")
SERIES = re.compile(r"_(bucket|count|sum)$")


@cache
def page() -> str:
    return (DOCS / "operations.md").read_text(encoding="utf-8")


@cache
def dashboard() -> dict[str, Any]:
    return json.loads((DOCS / "grafana-dashboard.json").read_text(encoding="utf-8"))


def listed() -> set[str]:
    """The metrics the page names, in backquotes."""
    return {name for name in re.findall(r"`([a-z_]+)`", page()) if METRIC.fullmatch(name)}


def metrics_in(query: str) -> set[str]:
    """The metrics a PromQL query reads (its label names and functions aside)."""
    without_labels = re.sub(r"\{[^}]*\}", "", query)
    without_clauses = re.sub(r"\b(by|without)\s*\([^)]*\)", "", without_labels)
    return {SERIES.sub("", name) for name in METRIC.findall(without_clauses)}


def panels() -> list[dict[str, Any]]:
    return [panel for panel in dashboard()["panels"] if panel["type"] != "row"]


def test_the_dashboard_is_a_grafana_dashboard_on_a_chosen_prometheus() -> None:
    board = dashboard()
    assert board["title"] and board["uid"] and board["schemaVersion"] >= 36
    variables = {v["name"]: v for v in board["templating"]["list"]}
    assert variables["datasource"]["type"] == "datasource"
    assert variables["datasource"]["query"] == "prometheus"
    ids = [panel["id"] for panel in board["panels"]]
    assert len(ids) == len(set(ids))
    for panel in panels():
        assert panel["title"] and panel["targets"], panel["title"]
        assert panel["datasource"] == {"type": "prometheus", "uid": "${datasource}"}
        box = panel["gridPos"]
        assert box["x"] + box["w"] <= 24 and box["h"] > 0
        for target in panel["targets"]:
            assert target["expr"].count("(") == target["expr"].count(")"), target["expr"]
            assert metrics_in(target["expr"]), target["expr"]


def test_the_five_to_watch_come_first() -> None:
    titles = [panel["title"] for panel in panels()]
    numbered = [title for title in titles if re.match(r"[1-5]\. ", title)]
    assert [title[0] for title in numbered] == list("12345")
    rows = re.findall(r"^\| ([1-5]) \| `([a-z_]+)`", page(), re.MULTILINE)
    assert [number for number, _ in rows] == list("12345")
    shown = set().union(*(metrics_in(t["expr"]) for p in panels() for t in p["targets"]))
    assert {metric for _, metric in rows} <= shown


def test_every_metric_the_dashboard_and_the_rules_name_is_listed_on_the_page() -> None:
    queries = [target["expr"] for panel in panels() for target in panel["targets"]]
    queries += [v["query"] for v in dashboard()["templating"]["list"] if v["type"] == "query"]
    [rules_text] = re.findall(r"```yaml\n(.*?)```", page(), re.DOTALL)
    rules = yaml.safe_load(rules_text)["groups"][0]["rules"]
    assert len(rules) >= 5 and all(rule["alert"] and rule["expr"] for rule in rules)
    queries += [rule["expr"] for rule in rules]
    named = set().union(*(metrics_in(query) for query in queries))
    assert named - listed() == set()
    assert len(named) >= 15


def test_every_metric_the_page_lists_is_one_the_bot_serves() -> None:
    # bot.telemetry.metrics comes with the metrics (issue 53): until it is there, nothing to
    # hold the page against.
    try:
        metrics = importlib.import_module("bot.telemetry.metrics")
    except ModuleNotFoundError:
        pytest.skip("no bot.telemetry.metrics in this tree")
    served = {
        family.name + ("_total" if family.type == "counter" else "")
        for family in metrics.Metrics().registry.collect()
    }
    own = {name for name in listed() if name.startswith(("tictactoe_", "process_"))}
    assert own - served == set()
