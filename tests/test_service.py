"""The sweep service (issue 7): a live pod that follows the wall clock, APScheduler jobs with deliberate misfire and
coalescing settings, a schedule store that survives a restart, Prometheus metrics scraped over loopback HTTP, a
clean stop on SIGTERM, and the proactive incidents that sweep alarms open."""

from __future__ import annotations

import math
import os
import signal
import threading
import time
import urllib.error
import urllib.request
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from opsbrain.errors import InputError
from opsbrain.service.live import LivePod
from opsbrain.service.metrics import SweepMetrics
from opsbrain.service.scheduler import ServiceParams, SweepService, TriggerSpec, parse_interval, run_service
from opsbrain.store import RunStore
from opsbrain.sweeps.checks import Finding
from opsbrain.sweeps.inrun import ProactiveResponder
from opsbrain.sweeps.sweep import SweepReport
from opsbrain.verdict import Diagnosis

LINK = "pod0/node36/l1sw2~pod0/l2plane2/sw05"
MODULE = "pod0/l2plane2/sw05/osfp36"


def report(t: float, *findings: Finding) -> SweepReport:
    counts = {"OK": 100, "Warning": 0, "Alarm": 0, "Critical": 0}
    worst: dict[str, str] = {}
    for f in findings:
        counts[f.severity] += 1
        if f.level > {"OK": 0, "Warning": 1, "Alarm": 2, "Critical": 3}[worst.get(f.component, "OK")]:
            worst[f.component] = f.severity
    return SweepReport(t, list(findings), counts, 3.0, worst, {"dom_trend": 100})


def finding(check: str, severity: str, component: str = MODULE, link: str | None = LINK) -> Finding:
    return Finding(component, check, severity, "evidence", "action", 600.0 if check == "dom_trend" else None,
                   {"link": link} if link else {})


class FakePod:
    """Stands in for a LivePod where only the scheduling is under test."""

    def __init__(self, name: str = "fake") -> None:
        self.name = name
        self.speed = 1.0
        self.sweeps = 0

    def sweep(self) -> tuple[SweepReport, list[Any]]:
        self.sweeps += 1
        return report(float(self.sweeps), finding("dom_snr", "Warning")), []


def wait_for(cond: Any, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def scrape(url: str) -> dict[str, float]:
    body = urllib.request.urlopen(url, timeout=5).read().decode()
    out = {}
    for line in body.splitlines():
        if line and not line.startswith("#"):
            key, _, value = line.rpartition(" ")
            out[key] = float(value)
    return out


@pytest.fixture(scope="module")
def live_pod() -> LivePod:
    """The optical-degradation world, live at 3,000 simulated seconds per wall second."""
    return LivePod.from_scenario("optical-degradation", speed=3000.0)


# ---- proactive incidents --------------------------------------------------------------------------------------
def test_only_alarms_that_predict_an_optical_failure_open_one_incident_per_link() -> None:
    opened: list[tuple[str, Diagnosis, str]] = []
    resp = ProactiveResponder(lambda i, d, c: opened.append((i, d, c)))
    assert resp.consider(report(100.0, finding("dom_trend", "Warning"), finding("dom_snr", "Alarm"),
                                finding("link_light", "Alarm", component=LINK, link=None))) == []
    new = resp.consider(report(400.0, finding("dom_trend", "Alarm"), finding("dom_rx", "Warning")))
    assert [i.id for i in new] == ["sweep-1"] and new[0].check == "dom_trend" and new[0].predicted_failure_s == 600
    (inc_id, diag, comp), = opened
    assert (inc_id, comp, diag.fault_class, diag.component, diag.at_s) == ("sweep-1", LINK, "optical_degradation",
                                                                          LINK, 400.0)
    assert 0.5 <= diag.confidence <= 1 and "dom_trend Alarm" in diag.evidence[0]
    assert resp.consider(report(700.0, finding("dom_rx", "Alarm"))) == []  # the link has its incident
    other = "pod0/node1/l1sw0~pod0/l2plane0/sw01"
    assert [i.id for i in resp.consider(report(1000.0, finding("dom_rx", "Critical", "m2", other)))] == ["sweep-2"]


# ---- live pod -------------------------------------------------------------------------------------------------
def test_live_pod_follows_the_wall_clock_times_speed(live_pod: LivePod) -> None:
    wall = [0.0]
    pod = LivePod(live_pod.world, speed=120.0, clock=lambda: wall[0])
    t0 = live_pod.world.sim.now
    wall[0] = 10.0
    assert pod.advance() == pytest.approx(t0 + 1200.0)
    assert pod.advance() == pytest.approx(t0 + 1200.0)  # no wall time passed: no simulated time either
    with pytest.raises(InputError, match="--speed"):
        LivePod(live_pod.world, speed=0.0)


# ---- triggers -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("text,seconds", [("5m", 300.0), ("30s", 30.0), ("1h", 3600.0), ("300", 300.0),
                                          ("0.5s", 0.5), ("2d", 172800.0)])
def test_interval_parsing(text: str, seconds: float) -> None:
    assert parse_interval(text) == seconds


@pytest.mark.parametrize("interval,cron,match", [("0s", None, "> 0"), ("5 minutes", None, "duration"),
                                                 (None, "* * *", "crontab"), ("5m", "* * * * *", "at most one")])
def test_bad_triggers_are_input_errors(interval: str | None, cron: str | None, match: str) -> None:
    with pytest.raises(InputError, match=match):
        TriggerSpec.from_options(interval, cron)


def test_jobs_coalesce_never_overlap_and_tolerate_half_a_period_late(tmp_path: Path) -> None:
    svc = SweepService(FakePod(), RunStore(tmp_path), TriggerSpec.from_options("10s", None))  # type: ignore[arg-type]
    svc.start()
    try:
        (job,) = svc.scheduler.get_jobs()
        assert job.coalesce is True and job.max_instances == 1
        assert job.misfire_grace_time == math.ceil(ServiceParams().misfire_grace_share * 10)
    finally:
        svc.stop()
    cron = TriggerSpec.from_options(None, "*/5 * * * *")
    assert cron is not None and cron.period_s(datetime(2025, 1, 1, 0, 1, tzinfo=UTC)) == 300.0


def test_schedule_survives_a_restart(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    pod = FakePod("pod-a")
    first = SweepService(pod, store, TriggerSpec.from_options(None, "*/5 * * * *"))  # type: ignore[arg-type]
    first.start()
    wait_for(lambda: pod.sweeps >= 1)  # a new schedule sweeps at once, then on its trigger
    first.stop()
    saved = store.get_schedule("sweep-pod-a")
    assert saved is not None and saved["trigger"] == "cron:*/5 * * * *" and saved["last_run"]
    nxt = datetime.fromisoformat(saved["next_run"])
    assert nxt > datetime.now(UTC) and nxt.minute % 5 == 0

    again = SweepService(FakePod("pod-a"), RunStore(tmp_path))  # type: ignore[arg-type]  # no trigger given
    again.start()
    try:
        (job,) = again.jobs()
        assert job["id"] == "sweep-pod-a" and job["trigger"] == "cron:*/5 * * * *"
        assert datetime.fromisoformat(job["next_run"]) == nxt  # resumed, not restarted
        assert "minute='*/5'" in str(again.scheduler.get_job("sweep-pod-a").trigger)
    finally:
        again.stop()
    third = SweepService(FakePod("pod-a"), RunStore(tmp_path), TriggerSpec.from_options("2m", None))  # type: ignore
    assert third.trigger.encode() == "interval:120.0"  # a new trigger replaces the stored one
    assert store.get_schedule("sweep-pod-a")["trigger"] == "interval:120.0"  # type: ignore[index]


# ---- metrics -----------------------------------------------------------------------------------------------------
def test_private_registries_and_health_series_follow_the_last_sweep() -> None:
    a, b = SweepMetrics(), SweepMetrics()  # two services in one process: no duplicate registration
    a.observe(report(10.0, finding("dom_trend", "Alarm"), finding("dom_snr", "Warning", "m2")), proactive=1)
    val = a.registry.get_sample_value
    assert val("opsbrain_sweep_component_health", {"component": MODULE}) == 2
    assert val("opsbrain_sweep_component_health", {"component": "m2"}) == 1
    assert val("opsbrain_sweep_last_findings", {"severity": "Alarm"}) == 1
    assert val("opsbrain_sweep_proactive_incidents_total") == 1
    a.observe(report(20.0, finding("dom_snr", "Critical", "m2")))
    assert val("opsbrain_sweep_component_health", {"component": MODULE}) is None  # cleared: series dropped
    assert val("opsbrain_sweep_component_health", {"component": "m2"}) == 3
    assert val("opsbrain_sweep_findings_total", {"severity": "Alarm"}) == 1
    assert val("opsbrain_sweep_last_findings", {"severity": "Alarm"}) == 0
    assert val("opsbrain_sweep_last_sim_time_seconds") == 20.0 and val("opsbrain_sweeps_total") == 2
    assert b.registry.get_sample_value("opsbrain_sweeps_total") == 0


def test_service_sweeps_a_live_pod_serves_metrics_on_loopback_and_stops(live_pod: LivePod, tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    svc = SweepService(live_pod, store, TriggerSpec.from_options("0.5s", None))
    svc.start(metrics_port=0)
    try:
        assert svc.server is not None and svc.server.url.startswith("http://127.0.0.1:")
        url = svc.server.url
        wait_for(lambda: len(store.list_sweeps()) >= 2)
        m = scrape(url)
    finally:
        svc.stop()
    assert not svc.scheduler.running and not svc.errors
    assert m["opsbrain_sweeps_total"] >= 2 and m["opsbrain_sweep_duration_seconds_count"] >= 2
    assert abs(m["opsbrain_sweep_last_timestamp_seconds"] - time.time()) < 60
    assert m["opsbrain_sweep_last_sim_time_seconds"] > 0
    health = {k: v for k, v in m.items() if k.startswith("opsbrain_sweep_component_health{")}
    assert health and set(health.values()) <= {1.0, 2.0, 3.0}
    for sev in ("Warning", "Alarm", "Critical"):
        assert f'opsbrain_sweep_last_findings{{severity="{sev}"}}' in m
    rows = store.list_sweeps()
    assert rows[0]["scenario"] == "optical-degradation" and rows[0]["schedule_id"] == "sweep-optical-degradation"
    assert rows[0]["t_s"] > rows[-1]["t_s"] and "OK" in rows[0]["counts"]
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(url, timeout=2)  # the endpoint is closed with the service


def test_live_service_drains_the_degrading_link_before_it_fails(live_pod: LivePod, tmp_path: Path) -> None:
    """At 3,000x the module's trend alarm comes within a few wall seconds; the controller drains the link."""
    svc = SweepService(live_pod, RunStore(tmp_path), TriggerSpec.from_options("0.5s", None))
    svc.start()
    try:
        wait_for(lambda: live_pod.proactive.incidents, timeout=20)
    finally:
        svc.stop()
    inc = live_pod.proactive.incidents[0]
    assert inc.component == LINK and inc.check in ("dom_trend", "dom_rx")
    live_pod.advance()
    assert live_pod.world.sim.state.health(LINK).value == "isolated"
    assert [a["action"] for a in live_pod.world.orchestrator.actions_for(inc.id)][:2] == ["isolate_link", "reroute"]


def test_run_service_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    def on_start(svc: SweepService) -> None:
        threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGTERM)).start()

    before = signal.getsignal(signal.SIGTERM)
    out = run_service("noise-only-day", TriggerSpec.from_options("0.2s", None), speed=100.0, home=tmp_path,
                      max_runtime_s=30, on_start=on_start)
    assert out["stopped_by"] == "SIGTERM" and out["wall_s"] < 20 and out["sweeps"] >= 1 and not out["errors"]
    assert signal.getsignal(signal.SIGTERM) == before  # the handler is put back
    assert out["jobs"][0]["trigger"] == "interval:0.2" and out["jobs"][0]["last_run"]


def test_service_and_proactive_parameters_are_sourced_and_documented(repo_root: Path) -> None:
    from faultlib.params import iter_params
    from opsbrain.sweeps.inrun import ProactiveParams

    doc = (repo_root / "docs" / "sweeps.md").read_text()
    for prefix, model in (("proactive.", ProactiveParams), ("service.", ServiceParams)):
        for path, default, unit, source, _ in iter_params(model, prefix):
            assert unit and source, path
            assert f"| `{path}` | {default} | {unit} |" in doc, path
