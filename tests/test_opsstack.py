"""At home in an ops stack (issue 19): log levels and JSON lines, metrics of runs and diagnoses, ``--bind``, the
shipped Grafana dashboard (every metric its queries name exists), Alertmanager-format webhooks posted to a local
test server (127.0.0.1 only)."""

from __future__ import annotations

import io
import json
import logging
import re
import subprocess
import sys
import threading
import time
import urllib.request
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from prometheus_client import CollectorRegistry, generate_latest

from faultlib.telemetry import formats as fmt
from opsbrain.cli import cli
from opsbrain.logs import JsonLines, configure, level_from
from opsbrain.service.alerts import ZERO_TIME, body_for, post_json
from opsbrain.service.metrics import DiagnosisMetrics, RunStoreCollector, SweepMetrics, serve
from opsbrain.service.scheduler import SweepService, TriggerSpec
from opsbrain.store import RunStore
from opsbrain.sweeps.checks import Finding
from opsbrain.sweeps.sweep import SweepReport

DT = datetime(2025, 3, 1, 10, 3, 20)
UCE = [fmt.device_os_event(DT, 3, "80E01801"), fmt.device_plugin_fault(DT, 3, "80E01801", "RestartBusiness")]
METRIC = re.compile(r"\b(opsbrain_[a-zA-Z0-9_:]+)")


# ---- a local webhook receiver ---------------------------------------------------------------------------------
class _Hook(BaseHTTPRequestHandler):
    posts: list[dict[str, Any]] = []

    def do_POST(self) -> None:  # noqa: N802
        n = int(self.headers["Content-Length"])
        type(self).posts.append(json.loads(self.rfile.read(n)))
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture()
def hook() -> Any:
    handler = type("Hook", (_Hook,), {"posts": []})
    srv = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{srv.server_address[1]}/alert", handler.posts
    srv.shutdown()
    srv.server_close()


def _check_alertmanager_body(body: dict[str, Any], alertname: str) -> dict[str, Any]:
    """The fields Alertmanager's webhook receiver payload (version 4) carries; returns the one alert."""
    assert body["version"] == "4" and body["status"] == "firing" and body["receiver"]
    keys = {"groupKey", "truncatedAlerts", "groupLabels", "commonLabels", "commonAnnotations", "externalURL"}
    assert keys <= set(body)
    assert body["groupLabels"] == {"alertname": alertname} and len(body["alerts"]) == 1
    alert = body["alerts"][0]
    assert alert["labels"]["alertname"] == alertname and alert["endsAt"] == ZERO_TIME
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", alert["startsAt"])
    assert re.fullmatch(r"[0-9a-f]{16}", alert["fingerprint"]) and alert["labels"]["severity"] in (
        "critical", "warning", "info")
    assert body["commonLabels"] == alert["labels"]
    return alert


# ---- logging --------------------------------------------------------------------------------------------------
def test_levels_from_options_and_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPSBRAIN_LOG_LEVEL", raising=False)
    assert [level_from(v, q) for v, q in ((0, 0), (1, 0), (2, 0), (5, 0), (0, 1), (0, 2), (0, 9))] == [
        logging.WARNING, logging.INFO, logging.DEBUG, logging.DEBUG, logging.ERROR, logging.CRITICAL,
        logging.CRITICAL]
    monkeypatch.setenv("OPSBRAIN_LOG_LEVEL", "debug")
    assert level_from() == logging.DEBUG and level_from(0, 1) == logging.INFO


def test_json_lines_carry_the_extra_fields() -> None:
    buf = io.StringIO()
    configure(logging.INFO, json_lines=True, stream=buf)
    log = logging.getLogger("opsbrain.test")
    log.debug("hidden")
    log.info("sweep", extra={"t_s": 60.0, "counts": {"OK": 3}})
    lines = [json.loads(x) for x in buf.getvalue().splitlines()]
    assert len(lines) == 1 and lines[0]["msg"] == "sweep" and lines[0]["level"] == "INFO"
    assert lines[0]["t_s"] == 60.0 and lines[0]["counts"] == {"OK": 3} and lines[0]["logger"] == "opsbrain.test"
    assert JsonLines().format(logging.makeLogRecord({"msg": "x"})).startswith("{")


def test_cli_verbose_shows_info_and_a_bad_level_is_one_line(tmp_path: Path) -> None:
    logs = tmp_path / "device.log"
    logs.write_text("\n".join(UCE) + "\n")
    env = {"OPSBRAIN_HOME": str(tmp_path)}
    quiet = CliRunner().invoke(cli, ["diagnose", "--logs", str(logs), "--json"], env=env)
    loud = CliRunner().invoke(cli, ["-v", "diagnose", "--logs", str(logs), "--json"], env=env)
    assert quiet.exit_code == loud.exit_code == 0
    assert "diagnosis model" not in quiet.stderr and "opsbrain: info: diagnosis model" in loud.stderr
    assert json.loads(loud.stdout) == json.loads(quiet.stdout)  # logs never reach stdout
    bad = CliRunner().invoke(cli, ["runs", "list"], env=env | {"OPSBRAIN_LOG_LEVEL": "chatty"})
    lines = [x for x in bad.stderr.splitlines() if x.strip()]
    assert bad.exit_code == 2 and len(lines) == 1 and "OPSBRAIN_LOG_LEVEL" in lines[0]


def test_sweep_service_logs_json_lines(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "opsbrain", "sweep", "run", "--scenario", "noise-only-day",
                           "--interval", "0.3s", "--speed", "100", "--max-runtime", "2", "--json",
                           "--data-dir", str(tmp_path)], capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(x) for x in proc.stderr.splitlines() if x.startswith("{")]
    sweeps = [r for r in records if r["msg"] == "sweep"]
    assert sweeps and all(r["level"] == "INFO" and "counts" in r and "t_s" in r for r in sweeps)
    assert {"sweep service started", "sweep service stopped"} <= {r["msg"] for r in records}
    assert json.loads(proc.stdout)["sweeps"] >= len(sweeps)


# ---- metrics ----------------------------------------------------------------------------------------------------
def _store_with_a_run(home: Path) -> RunStore:
    store = RunStore(home)
    rid = store.begin_run("hbm-uce-training", 1, "auto")
    store.finish(rid, {"verdict": "passed", "incidents": [
        {"id": "f1", "injected": {"kind": "hbm_uce", "component": "pod0/node3/npu1", "at_s": 100.0},
         "diagnosis": {"fault_class": "hbm_uce"}, "correct": True, "ttr_s": 40.0, "actions": []},
        {"id": "f2", "injected": {"kind": "link_down", "component": "l", "at_s": 200.0}, "diagnosis": None,
         "correct": False, "ttr_s": None, "actions": []},
        {"id": "i3", "injected": None, "diagnosis": {"fault_class": "node_crash"}, "false_positive": True,
         "actions": [{"action": "cordon", "status": "succeeded"}]}]})
    return store


def test_run_store_metrics(tmp_path: Path) -> None:
    reg = CollectorRegistry()
    reg.register(RunStoreCollector(_store_with_a_run(tmp_path)))
    val = reg.get_sample_value
    assert val("opsbrain_runs", {"status": "finished", "verdict": "passed", "policy": "auto"}) == 1
    assert val("opsbrain_run_faults", {"outcome": "diagnosed_correctly"}) == 1
    assert val("opsbrain_run_faults", {"outcome": "missed"}) == 1
    assert val("opsbrain_run_noise_incidents", {"false_positive": "true"}) == 1
    assert val("opsbrain_run_diagnoses", {"fault_class": "node_crash"}) == 1
    assert val("opsbrain_run_ttr_seconds_count", {"fault_class": "hbm_uce"}) == 1
    assert val("opsbrain_run_ttr_seconds_sum", {"fault_class": "hbm_uce"}) == 40.0
    assert abs(val("opsbrain_run_last_finished_timestamp_seconds") - time.time()) < 120
    assert val("opsbrain_campaigns") == 0


def _registry_names(store: RunStore) -> set[str]:
    """Every sample name the service registries can expose (families by type: counters _total, histograms
    _bucket/_count/_sum, summaries _count/_sum)."""
    reg = CollectorRegistry()
    SweepMetrics(reg)
    DiagnosisMetrics(reg)
    reg.register(RunStoreCollector(store))
    suffixes = {"counter": ("_total", "_created"), "histogram": ("_bucket", "_count", "_sum", "_created"),
                "summary": ("_count", "_sum", "_created"), "gauge": ("",)}
    return {fam.name + s for fam in reg.collect() for s in suffixes.get(fam.type, ("",))}


def _dashboard() -> dict[str, Any]:
    path = resources.files("opsbrain") / "service" / "grafana" / "opsbrain.json"
    return dict(json.loads(path.read_text()))


def _queried_metrics(dash: dict[str, Any]) -> set[str]:
    return {m for p in dash["panels"] for t in p.get("targets", []) for m in METRIC.findall(t["expr"])}


def test_the_grafana_dashboard_queries_only_metrics_that_exist(tmp_path: Path) -> None:
    dash = _dashboard()
    names = _registry_names(_store_with_a_run(tmp_path))
    used = _queried_metrics(dash)
    assert len(used) >= 15, used
    assert used <= names, sorted(used - names)
    # and the check catches a misspelt metric
    assert not _queried_metrics({"panels": [{"targets": [{"expr": "rate(opsbrain_sweep_duration_secs_bucket[5m])"}]}]}
                                ) <= names
    for p in dash["panels"]:
        g = p["gridPos"]
        assert g["x"] + g["w"] <= 24 and g["h"] > 0, p["title"]
        for t in p.get("targets", []):
            assert t["expr"].count("(") == t["expr"].count(")"), t["expr"]
            assert t["datasource"]["uid"] == "${datasource}" and t["refId"]
    assert [v["name"] for v in dash["templating"]["list"]] == ["datasource"]


def test_diagnosis_metrics_over_http_on_loopback() -> None:
    m = DiagnosisMetrics()
    m.observe("hbm_uce", 0.93, 0.004, "watch")
    m.webhook("alertmanager", ok=False)
    server = serve(m.registry, 0, "127.0.0.1")
    try:
        assert server.url.startswith("http://127.0.0.1:")
        body = urllib.request.urlopen(server.url, timeout=5).read().decode()
    finally:
        server.close()
    assert 'opsbrain_diagnoses_total{fault_class="hbm_uce",severity="critical",source="watch"} 1.0' in body
    assert 'opsbrain_webhook_posts_total{format="alertmanager",result="failed"} 1.0' in body
    assert "opsbrain_diagnosis_confidence_bucket" in body and generate_latest(m.registry)


def test_bind_refuses_an_address_it_cannot_listen_on(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    res = CliRunner().invoke(cli, ["watch", "--logs", str(logs), "--metrics-port", "0", "--bind", "256.0.0.1",
                                   "--max-runtime", "1"], env={"OPSBRAIN_HOME": str(tmp_path)})
    lines = [x for x in res.stderr.splitlines() if x.strip() and "watching" not in x]
    assert res.exit_code == 2 and len(lines) == 1 and "256.0.0.1" in lines[0], res.stderr


# ---- Alertmanager webhooks -------------------------------------------------------------------------------------
class _AlarmPod:
    name, speed = "alarm-pod", 1.0

    def __init__(self) -> None:
        self.n = 0

    def sweep(self) -> tuple[SweepReport, list[Any]]:
        self.n += 1
        f = Finding("pod0/l2plane2/sw05/osfp36", "dom_trend", "Alarm", "rx power falling 0.4 dB/h", "drain the link",
                    600.0, {})
        return SweepReport(float(self.n), [f], {"OK": 10, "Warning": 0, "Alarm": 1, "Critical": 0}, 2.0,
                           {f.component: "Alarm"}, {"dom_trend": 1}), []


def test_sweep_service_posts_each_new_alarm_as_an_alertmanager_notification(hook: Any, tmp_path: Path) -> None:
    url, posts = hook
    pod: Any = _AlarmPod()
    svc = SweepService(pod, RunStore(tmp_path), TriggerSpec.from_options("0.2s", None), webhook=url)
    svc.start()
    try:
        deadline = time.monotonic() + 15
        while svc.pod.n < 3:
            assert time.monotonic() < deadline
            time.sleep(0.05)
    finally:
        svc.stop()
    assert len(posts) == 1 and not svc.webhook_errors  # the same finding again is not a new alert
    alert = _check_alertmanager_body(posts[0], "OpsbrainSweepFinding")
    assert alert["labels"]["check"] == "dom_trend" and alert["labels"]["severity"] == "critical"
    assert alert["annotations"]["description"] == "rx power falling 0.4 dB/h"


def test_watch_posts_incidents_in_alertmanager_format(hook: Any, tmp_path: Path) -> None:
    from opsbrain.kb.training import load_engine
    from opsbrain.sources.watch import Watcher

    url, posts = hook
    logs = tmp_path / "logs"
    (logs / "worker-7").mkdir(parents=True)
    (logs / "worker-7" / "device.log").write_text("\n".join(UCE) + "\n")
    metrics = DiagnosisMetrics()
    seen: list[dict[str, Any]] = []
    w = Watcher(logs, load_engine(tmp_path), seen.append, webhook=url, webhook_format="alertmanager", poll_s=0.05,
                from_start=True, metrics=metrics)
    stop = threading.Event()
    threading.Timer(20, stop.set).start()
    t = threading.Thread(target=w.run, args=(stop, 20))
    t.start()
    deadline = time.monotonic() + 20
    while not posts and time.monotonic() < deadline:
        time.sleep(0.05)
    stop.set()
    t.join(10)
    assert posts and seen, "no incident posted"
    alert = _check_alertmanager_body(posts[0], "OpsbrainIncident")
    assert alert["labels"]["fault_class"] == seen[0]["fault_class"] == "hbm_uce"
    assert alert["labels"]["node"] == "worker-7" and alert["labels"]["severity"] == "critical"
    assert "device.log" in alert["annotations"]["evidence_lines"]
    assert metrics.registry.get_sample_value("opsbrain_diagnoses_total", {
        "fault_class": "hbm_uce", "severity": "critical", "source": "watch"}) >= 1
    assert metrics.registry.get_sample_value("opsbrain_webhook_posts_total", {
        "format": "alertmanager", "result": "delivered"}) >= 1


def test_a_refused_post_is_a_reason_not_an_exception(hook: Any) -> None:
    url, _ = hook
    dead = url.rsplit(":", 1)[0] + ":1/alert"  # nothing listens on port 1 of loopback
    assert post_json(dead, {"x": 1}, timeout_s=2) is not None
    assert post_json(url, body_for({"finding": {"severity": "Alarm", "check": "c", "component": "x"},
                                    "source": "s"}, "alertmanager")) is None
