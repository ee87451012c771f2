"""A chip whose series stopped, read through a Prometheus server (``--source prometheus-api``), is aged from its last
sample as the server holds it (opsbrain/sources/promapi.py ``last_seen_query``), not from the last of the sweep's
query times (20 min apart) that still saw it: that read a stopped exporter up to 20 min too old. The query's meaning
is checked against a real Prometheus engine where ``promtool`` is installed (Debian's ``prometheus`` package)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from opsbrain.sources.promapi import AGE_QUERY, last_seen_query

PROMTOOL = shutil.which("promtool")


@pytest.mark.skipif(PROMTOOL is None, reason="promtool (Debian package prometheus) not installed")
def test_the_query_gives_each_series_last_sample_time_to_the_second(tmp_path: Path) -> None:
    """Scraped every 15 s: chip 0's exporter stops after its sample at 10 min 15 s, chip 1's at 47 min 45 s (between
    two 1-min subquery steps), chip 2 answers on; at 60 min, the plain age query no longer sees the stopped ones
    (Prometheus's 5-min look-back), the last-seen query gives each one's last sample time exactly. A chip last seen
    before the window (chip 3, 60 s, at 130 min: the window starts at 10 min) is not given."""
    series = {'npu_chip_info_temperature{id="0",instance="w"}': "44+0x41",       # samples at 0 .. 615 s
              'npu_chip_info_temperature{id="1",instance="w"}': "44+0x191",      # .. 2865 s
              'npu_chip_info_temperature{id="2",instance="w"}': "44+0x760",      # .. 11400 s
              'npu_chip_info_temperature{id="3",instance="w"}': "44+0x4"}        # .. 60 s
    (tmp_path / "rules.yml").write_text("groups: []\n")
    (tmp_path / "t.yml").write_text(
        "rule_files: [rules.yml]\nevaluation_interval: 1m\ntests:\n  - interval: 15s\n    input_series:\n"
        + "".join(f"      - series: '{s}'\n        values: '{v}'\n" for s, v in series.items())
        + "    promql_expr_test:\n"
        + f"      - expr: '{last_seen_query(7200)}'\n        eval_time: 60m\n        exp_samples:\n"
        + "          - labels: '{id=\"0\",instance=\"w\"}'\n            value: 615\n"
        + "          - labels: '{id=\"1\",instance=\"w\"}'\n            value: 2865\n"
        + "          - labels: '{id=\"2\",instance=\"w\"}'\n            value: 3600\n"
        + "          - labels: '{id=\"3\",instance=\"w\"}'\n            value: 60\n"
        + f"      - expr: '{AGE_QUERY}'\n        eval_time: 60m\n        exp_samples:\n"
        + "          - labels: '{id=\"2\",instance=\"w\"}'\n            value: 3600\n"
        + f"      - expr: '{last_seen_query(7200)}'\n        eval_time: 130m\n        exp_samples:\n"
        + "          - labels: '{id=\"0\",instance=\"w\"}'\n            value: 615\n"
        + "          - labels: '{id=\"1\",instance=\"w\"}'\n            value: 2865\n"
        + "          - labels: '{id=\"2\",instance=\"w\"}'\n            value: 7800\n")
    got = subprocess.run([str(PROMTOOL), "test", "rules", "t.yml"], cwd=tmp_path, capture_output=True, text=True,
                         timeout=60)
    assert got.returncode == 0, got.stdout + got.stderr


def test_a_server_without_last_over_time_falls_back_to_the_query_times_and_says_so() -> None:
    """A Prometheus before 2.26 answers the query with an error (HTTP 400, ``"status": "error"``): the stopped node is
    still found, aged from the sweep's query times, and the sweep says why its age may be up to 20 min too old."""
    import json
    import time
    from http.server import BaseHTTPRequestHandler

    from opsbrain.sources.base import sweep_source
    from opsbrain.sources.promapi import PrometheusQuerySource
    from tests.test_promapi_answers import tsdb
    from tests.test_sources_http import reply, serving

    inner = tsdb({"worker-d": time.time() - 900})

    def handle(h: BaseHTTPRequestHandler) -> None:
        if "last_over_time" in h.path:
            body = {"status": "error", "errorType": "bad_data", "error": 'unknown function with name "last_over_time"'}
            reply(json.dumps(body).encode())(h)
        else:
            inner(h)

    with serving(handle) as url:
        src = PrometheusQuerySource(url)
        rep = sweep_source(src)
    assert [(f.component, f.check) for f in rep.findings] == [("worker-d", "heartbeat")]
    # the node's newest sample is its last chip's: tsdb stamps chip k at ``last + 0.35 * k``, so up to 2.45 s after the
    # stop when a query time falls within the look-back just after it (a lower bound of 900 failed once by 2.45 s)
    assert 900 - 0.35 * 7 <= rep.findings[0].data["age_s"] + 65 <= 900 + 1200 + 30
    note = [x for x in src.coverage()["dropped"] if "last sample times" in x]
    assert note and "unknown function" in note[0] and "up to 20 min too old" in note[0], src.coverage()["dropped"]
