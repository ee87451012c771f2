"""A saved Prometheus range answer (``/api/v1/query_range`` output in a file) swept as ``--source prometheus-api
--url file:///path/answer.json`` (session 33, opsbrain/sources/promfile.py): the same findings as the server that
answered it, a node whose series stopped aged from its last point, link-downs counted over every point, an old answer
stale, and a file that is no such answer one line and exit 2 (before: "not an http(s) URL")."""

from __future__ import annotations

import gzip
import json
import math
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from opsbrain.errors import InputError
from opsbrain.sources import open_source
from opsbrain.sources.base import sweep_source
from opsbrain.sources.promapi import PrometheusQuerySource
from tests.test_promapi_answers import STEP_S, _labels, tsdb
from tests.test_sources_http import serving

METRICS = (("npu_chip_info_temperature", 44.0), ("npu_chip_info_health_status", 1.0),
           ("npu_chip_info_hbm_ecc_total_double_bit_error_cnt", 0.0))


def matrix(end: float, stopped: dict[str, float], span_s: float = 7200.0, hot: float | None = None,
           link: list[float] | None = None) -> dict[str, Any]:
    """A query_range answer over the last ``span_s`` at 30-s steps, of the series :func:`tsdb` serves (nodes worker-a
    and worker-d, 8 NPUs each; a node in ``stopped`` has no point after that time). ``hot``: worker-a's NPU 3's
    temperature; ``link``: worker-a NPU 0's link status, spread over the span."""
    steps = [end - span_s + k * STEP_S for k in range(int(span_s / STEP_S) + 1)]
    result = []
    for node in ("worker-a", "worker-d"):
        times = [t for t in steps if t <= stopped.get(node, math.inf)]
        for npu in range(8):
            for name, v in METRICS:
                value = hot if (hot is not None and name == "npu_chip_info_temperature" and node == "worker-a"
                                and npu == 3) else v
                result.append({"metric": {"__name__": name, **_labels(node, npu)},
                               "values": [[t, repr(value)] for t in times]})
    if link is not None:
        per = len(steps) // len(link)
        result.append({"metric": {"__name__": "npu_chip_info_link_status", **_labels("worker-a", 0)},
                       "values": [[t, repr(link[min(k // per, len(link) - 1)])] for k, t in enumerate(steps)]})
    return {"status": "success", "data": {"resultType": "matrix", "result": result}}


def found(rep: Any) -> list[tuple[str, str, str]]:
    return [(f.component, f.check, f.severity) for f in rep.findings]


def test_a_saved_answer_gives_what_the_server_gave(tmp_path: Path) -> None:
    now = time.time()
    stopped = {"worker-d": now - 900}
    path = tmp_path / "range.json"
    path.write_text(json.dumps(matrix(now, stopped)))
    saved = sweep_source(open_source("prometheus-api", [path.as_uri()]))
    with serving(tsdb(stopped)) as url:  # type: ignore[arg-type]
        live = sweep_source(PrometheusQuerySource(url))
    assert found(saved) == found(live) == [("worker-d", "heartbeat", "Alarm")]
    assert abs(saved.findings[0].data["age_s"] - live.findings[0].data["age_s"]) <= STEP_S
    assert saved.checked == live.checked


def test_link_downs_over_every_point_and_a_hot_chip(tmp_path: Path) -> None:
    now = time.time()
    path = tmp_path / "range.json.gz"  # gzip told by its first bytes, as a saved page
    path.write_bytes(gzip.compress(json.dumps(matrix(now, {}, hot=107.0, link=[1, 0, 1, -1, 0, 1, 0, 1])).encode()))
    src = open_source("prometheus-api", [path.as_uri()])
    rep = sweep_source(src)
    got = found(rep)
    assert ("worker-a/npu3", "npu_temp", "Critical") in got, got
    downs = [f.data["downs"] for f in rep.findings if f.check == "link_downs"]
    assert downs == [3], downs  # 1 0 1 -1 0 1 0 1: -1 (not read) neither UP nor DOWN; counting it as a value gives 4
    assert "counted by the Prometheus server" in src.coverage()["link_downs"]


def test_an_old_answer_is_stale(tmp_path: Path) -> None:
    end = time.time() - 86400 * 3
    path = tmp_path / "range.json"
    path.write_text(json.dumps(matrix(end, {}, hot=107.0)))
    src = open_source("prometheus-api", [path.as_uri()])
    rep = sweep_source(src)
    hot = [f for f in rep.findings if f.component == "worker-a/npu3"]
    assert hot and hot[0].severity == "Warning" and hot[0].data.get("stale"), hot
    assert src.coverage()["collected"][0]["from"] == "the saved answer's newest point"


@pytest.mark.parametrize(("body", "says"), [
    (b"not json", "not a saved Prometheus query answer: not JSON"),
    (json.dumps({"status": "error", "error": "query timed out"}).encode(), "query timed out"),
    (json.dumps({"status": "success", "data": {"resultType": "scalar", "result": [1, "2"]}}).encode(), "'scalar'"),
    (json.dumps({"status": "success", "data": {"resultType": "matrix", "result": [
        {"metric": {"__name__": "npu_chip_info_temperature"}, "values": [[1, "x"]]}]}}).encode(), "could not convert"),
    (json.dumps({"status": "success", "data": {"resultType": "matrix", "result": [
        {"metric": {"__name__": "node_load1"}, "values": [[1, "2"]]}]}}).encode(), "no npu-exporter series"),
])
def test_a_file_that_is_no_such_answer_is_one_line_and_exit_2(tmp_path: Path, body: bytes, says: str) -> None:
    path = tmp_path / "a.json"
    path.write_bytes(body)
    with pytest.raises(InputError) as err:
        sweep_source(open_source("prometheus-api", [path.as_uri()]))
    assert says in str(err.value), str(err.value)
    got = subprocess.run([sys.executable, "-m", "opsbrain", "sweep", "once", "--source", "prometheus-api", "--url",
                          path.as_uri(), "--data-dir", str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert got.returncode == 2 and got.stderr.count("\n") == 1 and says in got.stderr, got.stderr
