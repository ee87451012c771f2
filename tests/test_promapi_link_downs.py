"""link_downs from a Prometheus server (``--source prometheus-api``): npu-exporter's ``npu_chip_info_link_status`` is
the state now (1 UP, 0 DOWN, -1 not read), so the source asks the server to count each port's UP->DOWN changes over
every sample it kept in the 24-h window (opsbrain/sources/promapi.py ``link_downs_query``), with -1 and missing
samples neither UP nor DOWN. Before (session 31) the count was the state's changes between the sweep's 9 query
times over 2 h, 20 minutes apart: a port that flapped between two of them showed no finding at all.

The query's meaning is checked against a real Prometheus where ``promtool`` is installed (Debian's ``prometheus``
package); the rest against a fake query API that answers it with given counts."""

from __future__ import annotations

import json
import shutil
import subprocess
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from opsbrain.sources.base import sweep_source
from opsbrain.sources.promapi import PrometheusQuerySource, link_downs_query
from tests.test_sources_http import reply, serving

PROMTOOL = shutil.which("promtool")

# raw samples one minute apart ('_' no sample); the UP->DOWN changes a reader of every sample sees, -1 and gaps unknown
SERIES = {
    'npu_chip_info_link_status{id="0",instance="w"}': ("1 1 0 1 0 1", 2),
    'npu_chip_info_link_status{id="1",instance="w"}': ("1 -1 1 -1 0 0", 1),      # a read that failed is no down
    'npu_chip_info_link_status{id="2",instance="w"}': ("0 -1 0 -1 0", 0),
    'npu_chip_info_link_status{id="3",instance="w"}': ("0 _ _ _ _ _ _ _ _ 0", 0),  # a gap is no change
    'npu_chip_info_link_status{id="4",instance="w"}': ("1 _ _ _ _ _ _ _ _ 0", 1),  # UP, gap, DOWN: it went down
    'npu_chip_info_link_status_0_1{id="0",instance="w"}': ("1 0 1 0", 2),          # legacy names kept apart
    'npu_chip_info_link_status_0_2{id="0",instance="w"}': ("1 1 1 1", 0),
}


@pytest.mark.skipif(PROMTOOL is None, reason="promtool (Debian package prometheus) not installed")
def test_the_query_counts_every_samples_changes_with_unread_ones_unknown(tmp_path: Path) -> None:
    def labels(series: str) -> str:
        name, rest = series.split("{", 1)
        return "{" + rest[:-1] + f',opsbrain_metric="{name}"' + "}"

    want = "\n".join(f"          - labels: '{labels(s)}'\n            value: {n}" for s, (_v, n) in SERIES.items())
    naive = {'{id="1",instance="w"}': 2, '{id="2",instance="w"}': 2}  # unfiltered: -1 taken for downs
    (tmp_path / "rules.yml").write_text("groups: []\n")
    (tmp_path / "t.yml").write_text(
        "rule_files: [rules.yml]\nevaluation_interval: 1m\ntests:\n  - interval: 1m\n    input_series:\n"
        + "".join(f"      - series: '{s}'\n        values: '{v}'\n" for s, (v, _n) in SERIES.items())
        + "    promql_expr_test:\n"
        + f"      - expr: '{link_downs_query(3600)}'\n        eval_time: 12m\n        exp_samples:\n{want}\n"
        + "      - expr: 'resets(npu_chip_info_link_status{id=~\"1|2\"}[1h])'\n        eval_time: 12m\n"
        + "        exp_samples:\n"
        + "\n".join(f"          - labels: '{k}'\n            value: {n}" for k, n in naive.items()) + "\n")
    got = subprocess.run([str(PROMTOOL), "test", "rules", "t.yml"], cwd=tmp_path, capture_output=True, text=True,
                         timeout=60)
    assert got.returncode == 0, got.stdout + got.stderr


def _api(link_answer: dict[str, object]) -> object:
    """A query API: every port UP at every query time; the link-downs query answered with ``link_answer``."""
    def handle(h: BaseHTTPRequestHandler) -> None:
        q = parse_qs(urlsplit(h.path).query)
        expr, t = q["query"][0], float(q["time"][0])
        if expr.startswith("resets("):
            body = link_answer
        elif expr.startswith("last_over_time("):  # each chip's last sample time: no chip series here
            body = {"status": "success", "data": {"resultType": "vector", "result": []}}
        else:
            result = [] if expr.startswith("timestamp(") else [
                {"metric": {"__name__": "npu_chip_info_link_status", "id": "5", "instance": "w:8082"},
                 "value": [t, "1"]},
                {"metric": {"__name__": "npu_chip_info_link_status_0_3", "id": "0", "instance": "w:8082"},
                 "value": [t, "1"]}]
            body = {"status": "success", "data": {"resultType": "vector", "result": result}}
        reply(json.dumps(body).encode())(h)
    return handle


def test_a_port_that_flapped_between_the_query_times_is_counted() -> None:
    counted = {"status": "success", "data": {"resultType": "vector", "result": [
        {"metric": {"opsbrain_metric": "npu_chip_info_link_status", "id": "5", "instance": "w:8082"},
         "value": [0, "5"]},
        {"metric": {"opsbrain_metric": "npu_chip_info_link_status_0_3", "id": "0", "instance": "w:8082"},
         "value": [0, "3"]},
        {"metric": {"opsbrain_metric": "npu_chip_info_temperature", "id": "5"}, "value": [0, "9"]},  # not a port
    ]}}
    with serving(_api(counted)) as url:  # type: ignore[arg-type]
        src = PrometheusQuerySource(url)
        rep = sweep_source(src)
    got = {f.component: f for f in rep.findings if f.check == "link_downs"}
    assert sorted(got) == ["w/npu0/udie0/port3", "w/npu5/port"]  # the ids the exporter's pages give the ports
    five = got["w/npu5/port"]
    assert five.severity == "Alarm" and five.data == {"downs": 5, "lower_bound": True}
    assert five.evidence.startswith("at least 5 link-down events in the last 24.0 h (a lower bound")
    assert "a missing or unread state is neither UP nor DOWN" in five.evidence
    assert got["w/npu0/udie0/port3"].severity == "Warning"
    note = src.coverage()["link_downs"]
    assert "counted by the Prometheus server over every link-state sample" in note and "lower bound" in note


def test_a_server_that_refuses_the_count_leaves_the_query_times_and_says_so() -> None:
    refused = {"status": "error", "errorType": "bad_data", "error": "subqueries not supported"}
    with serving(_api(refused)) as url:  # type: ignore[arg-type]
        src = PrometheusQuerySource(url)
        rep = sweep_source(src)
    assert not [f for f in rep.findings if f.check == "link_downs"]  # UP at every query time: nothing seen
    note = src.coverage()["link_downs"]
    assert "did not count link-state changes" in note and "subqueries not supported" in note
