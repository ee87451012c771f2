"""What a Prometheus query API answers, as a sweep reads it (session 33): an element that is not the API's
``{"metric": ..., "value": [t, "v"]}`` is one line and exit 2 (was exit 70), a server holding no npu-exporter series
is exit 2 (was a healthy cluster), and a node whose series stopped is a stale node, a chip no longer on its node's page
a lost chip (both were dropped from the sweep)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from opsbrain.errors import InputError
from opsbrain.sources.base import PrometheusSource, sweep_source
from opsbrain.sources.promapi import PrometheusQuerySource
from tests.test_sources_http import reply, serving

STEP_S = 30.0
LOOKBACK_S = 300.0  # Prometheus's default look-back for instant queries


def _labels(node: str, npu: int) -> dict[str, str]:
    """npu-exporter's card labels (collector/common CardLabel) plus what a Kubernetes scrape adds."""
    return {"container_name": "", "id": str(npu), "model_name": "Ascend910B3", "namespace": "",
            "pcie_bus_info": f"0000:C{npu}:00.0", "pod_name": "", "vdie_id": f"185011D4-{node[-1]}{npu:07X}",
            "instance": f"10.0.0.{ord(node[-1]) - 96}:8082", "job": "npu-exporter", "node": node}


def tsdb(stopped: dict[str, float]) -> Callable[[BaseHTTPRequestHandler], None]:
    """A query API over npu-exporter series of nodes worker-a and worker-d (8 NPUs each), scraped every 30 s with the
    exporter's own time stamps; a node in ``stopped`` has no sample after that Unix time (its exporter stopped). An
    instant query returns each series' last sample within the look-back, as Prometheus does for stamped samples."""
    def handle(h: BaseHTTPRequestHandler) -> None:
        q = parse_qs(urlsplit(h.path).query)
        expr, t = q["query"][0], float(q["time"][0])
        result: list[dict[str, Any]] = []
        for node in ("worker-a", "worker-d"):
            last = min(math.floor(t / STEP_S) * STEP_S, stopped.get(node, math.inf))
            if expr.startswith("last_over_time(timestamp("):  # the newest sample a 1-min step of the window saw
                window = float(expr.split("[", 1)[1].split("s:", 1)[0])
                seen = min(math.floor(math.floor(t / 60) * 60 / STEP_S) * STEP_S, stopped.get(node, math.inf))
                result += [{"metric": _labels(node, npu), "value": [t, f"{seen + 0.35 * npu:.3f}"]}
                           for npu in range(8) if seen >= t - window]
                continue
            if t - last >= LOOKBACK_S:
                continue
            for npu in range(8):
                stamp = last + 0.35 * npu
                if expr.startswith("timestamp("):
                    result.append({"metric": _labels(node, npu), "value": [t, f"{stamp:.3f}"]})
                elif expr.startswith("{__name__"):
                    for name, v in (("npu_chip_info_temperature", "44"), ("npu_chip_info_health_status", "1"),
                                    ("npu_chip_info_hbm_ecc_total_double_bit_error_cnt", "0")):
                        result.append({"metric": {"__name__": name, **_labels(node, npu)}, "value": [t, v]})
        reply(json.dumps({"status": "success", "data": {"resultType": "vector", "result": result}}).encode())(h)
    return handle


def test_a_node_whose_series_stopped_is_a_stale_node_and_the_live_one_is_quiet() -> None:
    with serving(tsdb({"worker-d": time.time() - 900})) as url:  # type: ignore[arg-type]
        rep = sweep_source(PrometheusQuerySource(url))
    got = [(f.component, f.check, f.severity) for f in rep.findings]
    assert got == [("worker-d", "heartbeat", "Alarm")], got
    stale = rep.findings[0]
    # aged from its last sample as the server holds it, 900 s ago (a scrape every 30 s; beyond 60 s of scrape skew and
    # a 5-s refresh): before, from the last of the sweep's query times (20 min apart) that saw it, up to 20 min more
    assert stale.data["no_series"] is True and 900 - STEP_S <= stale.data["age_s"] + 65 <= 900, stale.data
    assert "no series of it in this collection" in stale.evidence


def test_every_node_answering_gives_no_finding() -> None:
    with serving(tsdb({})) as url:  # type: ignore[arg-type]
        rep = sweep_source(PrometheusQuerySource(url))
    assert rep.findings == [] and rep.checked["heartbeat"] == 18


def test_a_chip_gone_from_its_nodes_page_is_lost_not_dropped() -> None:
    """npu-exporter pages (one URL per node) swept twice: the second no longer lists NPU 7."""
    now = time.time()
    pages = [(now - 120, range(8)), (now, range(7))]

    def handle(h: BaseHTTPRequestHandler) -> None:
        stamp, npus = pages[0] if len(h.server.seen) == 1 else pages[1]  # type: ignore[attr-defined]
        text = "".join("npu_chip_info_temperature{" + ",".join(f'{k}="{v}"' for k, v in _labels("w1", i).items())
                       + f"}} 44 {int((stamp + 0.35 * i) * 1000)}\n" for i in npus)
        reply(text.encode())(h)

    with serving(handle) as url:
        src = PrometheusSource([url + "/metrics"])
        sweep_source(src)
        rep = sweep_source(src)
    got = [(f.component, f.check, f.severity, f.data.get("no_series")) for f in rep.findings]
    assert got == [("w1/npu7", "heartbeat", "Critical", True)], got


@pytest.mark.parametrize("element", [
    {"metric": {"__name__": "npu_chip_info_temperature", "id": "0"}},  # no value
    {"metric": None, "value": [1, "4"]},
    {"metric": {"__name__": "npu_chip_info_temperature", "id": "0"}, "value": [1]},
    {"metric": {"__name__": "npu_chip_info_temperature", "id": "0"}, "value": [1, "abc"]},
])
def test_an_element_that_is_no_sample_is_one_line(element: dict[str, Any]) -> None:
    body = {"status": "success", "data": {"resultType": "vector", "result": [element]}}
    with serving(reply(json.dumps(body).encode())) as url, pytest.raises(InputError) as err:
        sweep_source(PrometheusQuerySource(url))
    assert "not a Prometheus query answer: a vector element that is not" in str(err.value)
    assert "\n" not in str(err.value)


def test_a_server_without_exporter_series_is_bad_input_not_a_healthy_cluster(tmp_path: Path) -> None:
    empty = {"status": "success", "data": {"resultType": "vector", "result": []}}
    with serving(reply(json.dumps(empty).encode())) as url:
        got = subprocess.run([sys.executable, "-m", "opsbrain", "sweep", "once", "--source", "prometheus-api",
                              "--url", url, "--data-dir", str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert got.returncode == 2, got.stdout + got.stderr
    assert got.stderr.count("\n") == 1 and "holds no npu-exporter series" in got.stderr


def test_what_the_answer_held_but_was_not_used_is_said() -> None:
    """coverage.dropped was always empty for this source: a NaN or a 300 C temperature went unsaid."""
    def handle(h: BaseHTTPRequestHandler) -> None:
        q = parse_qs(urlsplit(h.path).query)
        t = float(q["time"][0])
        result: list[dict[str, Any]] = []
        for npu, v in enumerate(("44", "NaN", "300")):
            lab = _labels("worker-a", npu)
            result.append({"metric": lab, "value": [t, f"{t - 2:.3f}"]} if q["query"][0].startswith("timestamp(")
                          else {"metric": {"__name__": "npu_chip_info_temperature", **lab}, "value": [t, v]})
        reply(json.dumps({"status": "success", "data": {"resultType": "vector", "result": result}}).encode())(h)

    with serving(handle) as url:  # type: ignore[arg-type]
        src = PrometheusQuerySource(url)
        sweep_source(src)
    dropped = "\n".join(src.coverage()["dropped"])
    assert "npu_chip_info_temperature series read NaN: no reading, not checked (first: worker-a/npu1)" in dropped
    assert "npu_chip_info_temperature outside -40 .. 150, not used (first: worker-a/npu2 300)" in dropped


def test_a_node_renamed_by_its_exporters_restart_is_not_stale() -> None:
    """A scrape that names nodes by the exporter pod's address (no node label): the DaemonSet pod on the node restarted
    15 min ago on 10.0.0.9 (was 10.0.0.4). Its dies (vdie_id) are read under the new name: no stale node."""
    now = time.time()

    def handle(h: BaseHTTPRequestHandler) -> None:
        q = parse_qs(urlsplit(h.path).query)
        expr, t = q["query"][0], float(q["time"][0])
        result: list[dict[str, Any]] = []
        for ip, lo, hi in (("10.0.0.4", 0.0, now - 900), ("10.0.0.9", now - 880, math.inf)):
            last = min(math.floor(t / STEP_S) * STEP_S, hi)
            if t - last >= LOOKBACK_S or last < lo:
                continue
            for npu in range(8):
                lab = {**_labels("worker-d", npu), "instance": f"{ip}:8082"}
                del lab["node"]
                result.append({"metric": lab, "value": [t, f"{last + 0.35 * npu:.3f}"]} if expr.startswith("time")
                              else {"metric": {"__name__": "npu_chip_info_temperature", **lab}, "value": [t, "44"]})
        reply(json.dumps({"status": "success", "data": {"resultType": "vector", "result": result}}).encode())(h)

    with serving(handle) as url:  # type: ignore[arg-type]
        rep = sweep_source(PrometheusQuerySource(url))
    assert rep.findings == [] and rep.checked["npu_temp"] == 8


def test_a_chip_gone_between_two_sweep_once_runs_is_lost(tmp_path: Path) -> None:
    """``sweep once --name N`` from cron: the NPUs' last samples are kept with the schedule's collections."""
    now = time.time()
    pages = [(now - 120, range(8)), (now, range(7))]

    def handle(h: BaseHTTPRequestHandler) -> None:
        stamp, npus = pages[min(len(h.server.seen), 2) - 1]  # type: ignore[attr-defined]
        text = "".join("npu_chip_info_temperature{" + ",".join(f'{k}="{v}"' for k, v in _labels("w1", i).items())
                       + f"}} 44 {int((stamp + 0.35 * i) * 1000)}\n" for i in npus)
        reply(text.encode())(h)

    with serving(handle) as url:
        for _ in range(2):
            got = subprocess.run([sys.executable, "-m", "opsbrain", "sweep", "once", "--source", "prometheus", "--url",
                                  f"{url}/metrics", "--data-dir", str(tmp_path), "--name", "cron", "--json"],
                                 capture_output=True, text=True, timeout=120)
    found = [(f["component"], f["check"], f["severity"]) for f in json.loads(got.stdout)["findings"]]
    assert found == [("w1/npu7", "heartbeat", "Critical")], got.stderr
