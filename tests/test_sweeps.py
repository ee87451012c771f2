"""Health sweeps: each check flips severity exactly at its thresholds; trend prediction catches a degrading optical
module before its link goes down; a noise-only pod stays (nearly) free of alarms; reports are JSON-safe."""

from __future__ import annotations

import ast
import json
import math
from pathlib import Path

import numpy as np
import pytest

from faultlib.engine import Simulation
from faultlib.health import Health
from faultlib.injection.spec import FaultSpec
from faultlib.params import apply_overrides
from faultlib.simparams import SimParams
from faultlib.telemetry.noise import HEARTBEAT, start_background_noise
from faultlib.telemetry.params import TelemetryParams
from faultlib.topology import Topology
from faultlib.workloads.training import TrainingJob
from opsbrain.sweeps import DomHistory, Finding, SweepHistory, SweepParams, run_sweep, take_snapshot
from opsbrain.sweeps.predict import fit_trend

ROOT = Path(__file__).resolve().parents[1]
P = SweepParams()
QUIET = {"telemetry.dom_noise_rx_db": 0.0, "telemetry.dom_noise_tx_db": 0.0, "telemetry.dom_noise_bias_ma": 0.0,
         "telemetry.dom_noise_snr_db": 0.0}


def _sim(topo: Topology, seed: int = 0, quiet: bool = False) -> Simulation:
    params = apply_overrides(SimParams(), QUIET) if quiet else SimParams()
    return Simulation(params, seed=seed, topology=topo)


def _links(topo: Topology) -> list[str]:
    return sorted(lid for lid, lk in topo.links.items() if lk.kind == "ub_optical")


def _sev(sim: Simulation, component: str, check: str, **kw: object) -> str:
    """The severity ``check`` gives ``component`` in a sweep now (OK when it has no finding)."""
    rep = run_sweep(sim, checks=[check], **kw)  # type: ignore[arg-type]
    found = [f for f in rep.findings if f.component == component and f.check == check]
    assert len(found) <= 1
    return found[0].severity if found else "OK"


def _finding(sim: Simulation, component: str, check: str) -> Finding:
    rep = run_sweep(sim, checks=[check])
    (f,) = [f for f in rep.findings if f.component == component and f.check == check]
    return f


@pytest.fixture(scope="module")
def quiet(topo1: Topology) -> Simulation:
    """One simulation without DOM read noise (exact threshold tests clear their own overrides)."""
    return _sim(topo1, seed=3, quiet=True)


def _set_lanes(sim: Simulation, module: str, field: str, values: list[float], start_t: float | None = None) -> None:
    """Make ``field`` of ``module`` read ``values`` (per lane; exactly, without read noise) from ``start_t`` on."""
    dom = sim.dom
    dom.clear(module)
    base = dom.read_module(module, noise=False)[field]
    for lane, v in enumerate(values):
        dom.set_offset(module, v - float(base[lane]), start_t=start_t, lanes=[lane], field=field)


# ---- parameters --------------------------------------------------------------------------------------------------
def test_dom_thresholds_repeat_the_mindcluster_values_of_the_telemetry_model() -> None:
    tp = TelemetryParams()
    pairs = {"rx_warn_dbm": "dom_rx_warn_dbm", "rx_alarm_dbm": "dom_rx_alarm_dbm", "tx_warn_dbm": "dom_tx_warn_dbm",
             "tx_alarm_dbm": "dom_tx_alarm_dbm", "snr_warn_db": "dom_snr_warn_db", "snr_alarm_db": "dom_snr_alarm_db",
             "power_high_warn_dbm": "dom_power_high_warn_dbm", "power_high_alarm_dbm": "dom_power_high_alarm_dbm",
             "bias_low_ma": "dom_bias_low_ma", "bias_high_ma": "dom_bias_high_ma",
             "lane_spread_alarm_db": "dom_lane_spread_alarm_db"}
    for mine, theirs in pairs.items():
        assert getattr(P, mine) == getattr(tp, theirs), mine
    assert (P.hbm_rows_warn, P.hbm_rows_replace, P.link_down_warn, P.link_down_alarm) == (16, 64, 3, 5)
    for name, field in SweepParams.model_fields.items():
        extra = field.json_schema_extra
        assert isinstance(extra, dict) and extra.get("unit") and extra.get("source"), name
    with pytest.raises(ValueError, match="rx_alarm_dbm"):
        SweepParams(rx_alarm_dbm=-5.0)


# ---- optical DOM thresholds --------------------------------------------------------------------------------------
@pytest.mark.parametrize("field,check,cases", [
    ("rx_dbm", "dom_rx", [(-6.49, "OK"), (-6.51, "Warning"), (-9.99, "Warning"), (-10.01, "Alarm"),
                          (5.49, "OK"), (5.51, "Warning"), (7.01, "Alarm")]),
    ("tx_dbm", "dom_tx", [(-6.99, "OK"), (-7.01, "Warning"), (-9.59, "Warning"), (-9.61, "Alarm"), (5.51, "Warning")]),
    ("snr_db", "dom_snr", [(20.01, "OK"), (19.99, "Warning"), (18.01, "Warning"), (17.99, "Alarm")]),
    ("bias_ma", "dom_bias", [(6.01, "OK"), (5.99, "Warning"), (9.99, "OK"), (10.01, "Warning")]),
])
def test_dom_lane_checks_flip_at_the_mindcluster_thresholds(quiet: Simulation, field: str, check: str,
                                                            cases: list[tuple[float, str]]) -> None:
    mod = quiet.dom.modules[1234]
    try:
        for value, expected in cases:
            healthy = {"rx_dbm": -2.0, "tx_dbm": 1.0, "snr_db": 25.0, "bias_ma": 8.0}[field]
            _set_lanes(quiet, mod, field, [healthy, value, healthy, healthy])
            assert _sev(quiet, mod, check) == expected, (field, value)
        f = _finding(quiet, mod, check)
        assert "lane 1" in f.evidence and f.data["lane"] == 1 and f.predicted_failure_s is None
    finally:
        quiet.dom.clear(mod)


def test_lane_thresholds_must_hold_on_three_consecutive_collections(topo1: Topology) -> None:
    sim = _sim(topo1, seed=5, quiet=True)
    mod = sim.dom.modules[2024]
    hist = SweepHistory()
    sim.run(300.0)
    assert _sev(sim, mod, "dom_rx", history=hist) == "OK"
    sim.run(600.0)
    _set_lanes(sim, mod, "rx_dbm", [-2.0, -10.5, -2.0, -2.0], start_t=600.0)
    seen = [_sev(sim, mod, "dom_rx", history=hist)]
    for t in (900.0, 1200.0):
        sim.run(t)
        seen.append(_sev(sim, mod, "dom_rx", history=hist))
    assert seen == ["OK", "OK", "Alarm"]  # the third collection in a row below -10 dBm confirms it
    sim.run(4000.0)  # a one-off sweep confirms with the two latest reads of the DOM store
    assert _sev(sim, mod, "dom_rx") == "Alarm"
    link = sim.dom.link_of[sim.dom.row[mod]]
    sim.state.set_lanes_down(link, 1)
    assert _sev(sim, link, "link_light", history=hist) == "Alarm"  # lost light is never debounced


def test_lane_spread_alarm_above_3_db(quiet: Simulation) -> None:
    mod = quiet.dom.modules[77]
    try:
        _set_lanes(quiet, mod, "rx_dbm", [-2.0, -2.5, -2.2, -4.99])
        assert _sev(quiet, mod, "dom_spread") == "OK"
        _set_lanes(quiet, mod, "rx_dbm", [-2.0, -2.5, -2.2, -5.01])
        f = _finding(quiet, mod, "dom_spread")
        assert f.severity == "Alarm" and "3.01 dB" in f.evidence
    finally:
        quiet.dom.clear(mod)


def test_link_light_lost_lanes_link_down_and_operator_isolation(topo1: Topology) -> None:
    sim = _sim(topo1)
    link = _links(topo1)[100]
    assert _sev(sim, link, "link_light") == "OK"
    sim.state.set_lanes_down(link, 1)
    f = _finding(sim, link, "link_light")
    assert f.severity == "Alarm" and f.data["lanes_dark"] == 1
    rep = run_sweep(sim, checks=["dom_rx", "dom_snr", "dom_spread"])
    assert not [x for x in rep.findings if x.data.get("link") == link]  # dark lanes are lost lanes, not low power
    sim.state.set_lanes_down(link, 0)
    sim.state.set_health(link, Health.FAILED)
    assert _sev(sim, link, "link_light") == "Critical"
    sim.state.set_health(link, Health.ISOLATED)  # the operator took the port down: no light expected
    assert _sev(sim, link, "link_light") == "OK"


# ---- link counters -----------------------------------------------------------------------------------------------
def test_link_down_counts_over_24_h(topo1: Topology) -> None:
    sim = _sim(topo1)
    link = _links(topo1)[7]
    expected = {1: "OK", 2: "OK", 3: "Warning", 4: "Warning", 5: "Alarm"}
    for n in range(1, 6):
        sim.run(n * 600.0)
        sim.telemetry.count("link_down_total", link)
        assert _sev(sim, link, "link_downs") == expected[n], n
    sim.run(600.0 + 86400.0 + 1.0)  # the first down has left the window
    assert _sev(sim, link, "link_downs") == "Warning"
    sim.run(5 * 600.0 + 86400.0 + 1.0)
    assert _sev(sim, link, "link_downs") == "OK"


def test_crc_errors_in_the_last_hour(topo1: Topology) -> None:
    sim = _sim(topo1)
    link = _links(topo1)[8]
    sim.telemetry.metric("link_crc_total", link, 100.0)
    sim.run(4000.0)
    for total, expected in [(1099.0, "OK"), (1100.0, "Warning"), (10099.0, "Warning"), (10100.0, "Alarm")]:
        sim.telemetry.metric("link_crc_total", link, total)
        assert _sev(sim, link, "link_crc") == expected, total
    sim.run(4000.0 + 3601.0)  # the burst is older than the window
    assert _sev(sim, link, "link_crc") == "OK"


def test_pre_fec_ber(topo1: Topology) -> None:
    sim = _sim(topo1)
    link = _links(topo1)[9]
    line = sim.params.fabric.ub_link_gbytes_s * 8e9
    for ber, expected in [(0.99e-5, "OK"), (1.01e-5, "Warning"), (0.99e-4, "Warning"), (1.01e-4, "Alarm")]:
        t = sim.now
        sim.telemetry.metric("link_fec_corrected_total", link, 0.0, slope=ber * line)
        sim.run(t + P.fec_window_s)
        assert _sev(sim, link, "link_fec") == expected, ber


# ---- HBM -----------------------------------------------------------------------------------------------------------
def test_hbm_correctable_error_rate(topo1: Topology) -> None:
    sim = _sim(topo1)
    hbm = sorted(topo1.by_kind["hbm"])[5]
    sim.run(1000.0)
    sim.telemetry.metric("hbm_ce_total", hbm, 10.0)
    sim.run(1000.0 + P.hbm_ce_window_s)  # window = 600 s: 50 errors = 300/h, 167 = 1,002/h
    for total, expected in [(59.0, "OK"), (60.0, "Warning"), (176.0, "Warning"), (177.0, "Alarm")]:
        sim.telemetry.metric("hbm_ce_total", hbm, total)
        assert _sev(sim, hbm, "hbm_ce") == expected, total


def test_hbm_isolated_rows_headroom_and_projection(topo1: Topology) -> None:
    sim = _sim(topo1)
    hbm = sorted(topo1.by_kind["hbm"])[6]
    for rows, expected in [(15, "OK"), (16, "Warning"), (63, "Warning"), (64, "Critical")]:
        sim.telemetry.metric("hbm_isolated_rows", hbm, float(rows))
        assert _sev(sim, hbm, "hbm_rows") == expected, rows
    f = _finding(sim, hbm, "hbm_rows")
    assert "no headroom" in f.evidence and "replace" in f.suggested_action
    # growth over the last hour projects when 64 is reached
    sim.telemetry.metric("hbm_isolated_rows", hbm, 10.0)
    sim.run(sim.now + 3600.0)
    sim.telemetry.metric("hbm_isolated_rows", hbm, 14.0)  # +4/h: 64 in 12.5 h -> a warning before 16 rows
    f = _finding(sim, hbm, "hbm_rows")
    assert f.severity == "Warning" and f.predicted_failure_s == pytest.approx(12.5 * 3600)
    sim.run(sim.now + 3600.0)
    sim.telemetry.metric("hbm_isolated_rows", hbm, 40.0)  # +26/h: 64 in ~55 min -> act now
    f = _finding(sim, hbm, "hbm_rows")
    assert f.severity == "Alarm" and f.predicted_failure_s == pytest.approx(24 / 26 * 3600)


# ---- NPUs, jobs, spares ----------------------------------------------------------------------------------------------
def test_heartbeat_and_temperatures(topo1: Topology) -> None:
    sim = _sim(topo1)
    npu = sorted(topo1.by_kind["npu"])[9]
    hbm = npu + "/hbm"
    for age, expected in [(2.9, "OK"), (3.0, "Warning"), (10.0, "Alarm"), (29.9, "Alarm"), (30.0, "Critical")]:
        sim.telemetry.metric(HEARTBEAT, npu, age)
        assert _sev(sim, npu, "heartbeat") == expected, age
    for c, metric, check in [(npu, "npu_temp_c", "npu_temp"), (hbm, "hbm_temp_c", "hbm_temp")]:
        for temp, expected in [(84.9, "OK"), (85.0, "Warning"), (95.0, "Alarm"), (105.0, "Critical")]:
            sim.telemetry.metric(metric, c, temp)
            assert _sev(sim, c, check) == expected, (check, temp)


def test_stragglers_against_the_jobs_healthy_step_time(topo1: Topology) -> None:
    sim = _sim(topo1)
    job = sim.add_workload(TrainingJob("train0", [f"pod0/node{i}" for i in range(4)]))
    assert isinstance(job, TrainingJob)
    sim.run(100.0)
    healthy = sim.telemetry.read("step_time_s", "train0")
    npu = job.ranks[3]
    assert run_sweep(sim, checks=["straggler"]).findings == []
    for ratio, expected in [(1.0999, "OK"), (1.1001, "Warning"), (1.2499, "Warning"), (1.2501, "Alarm")]:
        sim.telemetry.metric("rank_step_time_s", npu, healthy * ratio)
        assert _sev(sim, npu, "straggler") == expected, ratio
    # a real fail-slow: the job slows with its slowest rank; the baseline is the job's own healthy pace
    sim.telemetry.metric("rank_step_time_s", npu, healthy)
    job.set_slowdown(job.ranks[5], sim.params.faults.fail_slow_factor)
    sim.run(200.0)
    f = _finding(sim, job.ranks[5], "straggler")
    assert f.severity == "Alarm" and f.data["job"] == "train0" and f.data["ratio"] > 1.25
    assert sim.telemetry.read("step_time_s", "train0") > healthy


def test_spare_capacity(topo1: Topology) -> None:
    sim = _sim(topo1)
    assert _sev(sim, "pod0", "spares") == "Warning"  # no spare pool at all
    sim.control.set_spares(["pod0/node47"])
    assert _sev(sim, "pod0", "spares") == "OK"
    sim.telemetry.metric(HEARTBEAT, topo1.npus_of("pod0/node47")[0], 12.0)  # the spare is not answering
    f = _finding(sim, "pod0", "spares")
    assert f.severity == "Warning" and f.data == {"usable": 0, "pool": 1}


# ---- trend prediction ------------------------------------------------------------------------------------------------
def test_fit_trend_recovers_slope_and_ignores_dark_reads() -> None:
    rng = np.random.default_rng(0)
    t = np.arange(0.0, 7201.0, 300.0)
    slopes = np.array([[0.0, -0.6], [-3.0, 0.2]])  # dB/h per (module, lane)
    rx = -3.0 + slopes[None] * (t - t[-1])[:, None, None] / 3600 + rng.normal(0, 0.1, (len(t), 2, 2))
    rx = rx.astype(np.float32)
    rx[5, 1, 0] = -40.0  # a dark read (loss of signal) must not pull the line down
    fit = fit_trend(t, rx, float(t[-1]), -30.0)
    assert np.allclose(fit.slope_db_per_h, slopes, atol=0.15)
    assert np.allclose(fit.level_now_dbm, -3.0, atol=0.15)
    assert fit.points[1, 0] == len(t) - 1 and fit.points[0, 0] == len(t)
    assert fit.tstat[0, 1] < -8 and fit.tstat[1, 0] < -8 and abs(fit.tstat[0, 0]) < 5


def test_trend_alarm_with_time_to_threshold(topo1: Topology) -> None:
    sim = _sim(topo1, seed=4)
    sim.run(5 * 3600.0)
    mod = sim.dom.modules[4321]
    _set_lanes(sim, mod, "rx_dbm", [-2.0, -2.0, -2.0, -2.0], start_t=0.0)
    sim.dom.set_decay(mod, 2 * 3600.0, 2.0, lanes=[2])  # -2 dBm 3 h ago, falling 2 dB/h: -8 now, -10 in 1 h
    f = _finding(sim, mod, "dom_trend")  # no kept history: the sweep re-reads the DOM store over the window
    assert f.severity == "Alarm" and f.data["lane"] == 2
    assert f.predicted_failure_s == pytest.approx(3600.0, rel=0.1)
    assert f.data["slope_db_per_h"] == pytest.approx(-2.0, rel=0.1)
    assert f.data["link"] in f.suggested_action and "re-route" in f.suggested_action
    _set_lanes(sim, mod, "rx_dbm", [-2.0, -2.0, -2.0, -2.0], start_t=0.0)
    sim.dom.set_decay(mod, 2 * 3600.0, 1.0)  # -2 -> -5 dBm: 5 h to the alarm threshold => a warning
    f = _finding(sim, mod, "dom_trend")
    assert f.severity == "Warning" and f.predicted_failure_s == pytest.approx(5 * 3600, rel=0.15)
    sim.dom.clear(mod)
    assert _sev(sim, mod, "dom_trend") == "OK"


def _lead_time(topo: Topology, seed: int, dbm_per_hour: float) -> tuple[float | None, float]:
    """(first Alarm on the degrading link or its modules, the time its link went down) in sweeps every 5 min."""
    sim = _sim(topo, seed=seed)
    start_background_noise(sim)
    rng = np.random.default_rng(1000 + seed)
    link = _links(topo)[int(rng.integers(len(_links(topo))))]
    onset = float(rng.uniform(1800.0, 5400.0))
    truth = sim.inject(FaultSpec(at_s=onset, kind="optical_degradation", target=link,
                                 params={"dbm_per_hour": dbm_per_hour}))
    watch = {link, *topo.links[link].modules}
    hist = SweepHistory()
    first_alarm = None
    t = 0.0
    while sim.state.health(link) != Health.FAILED:
        t += P.interval_s
        sim.run(t)
        if first_alarm is None and sim.state.health(link) != Health.FAILED:
            rep = run_sweep(sim, history=hist)
            if any(f.component in watch and f.level >= 2 for f in rep.findings):
                first_alarm = t
    down = next(e.t for e in sim.trace.events if e.kind == "health" and e.subject == link
                and e.detail.get("new") == "failed" and e.detail.get("cause") == f"fault:{truth.id}")
    return first_alarm, down


def test_degrading_optics_predicted_10_min_before_the_link_goes_down(topo1: Topology) -> None:
    leads = []
    for seed in range(3):
        alarm, down = _lead_time(topo1, seed, dbm_per_hour=3.0)  # faster than the default: a short test
        leads.append(-math.inf if alarm is None else down - alarm)
    assert sum(lead >= 600.0 for lead in leads) >= 3, leads


# ---- a noise-only pod ------------------------------------------------------------------------------------------------
def test_noise_only_pod_day(topo1: Topology) -> None:
    """Sweeps every 5 min over a simulated day of background noise: at most one component raises an alarm."""
    sim = _sim(topo1, seed=0)
    start_background_noise(sim)
    sim.control.set_spares(["pod0/node47"])
    hist = SweepHistory()
    alarmed: set[tuple[str, str]] = set()
    warned: set[tuple[str, str]] = set()
    t = 0.0
    while t < 86400.0:
        t += P.interval_s
        sim.run(t)
        rep = run_sweep(sim, history=hist)
        alarmed |= {(f.component, f.check) for f in rep.at_least("Alarm")}
        warned |= {(f.component, f.check) for f in rep.findings}
    assert len({c for c, _ in alarmed}) <= 1, alarmed
    assert not any(check == "dom_trend" for _, check in warned)  # noise never looks like a trend
    assert len(warned) < 60, warned  # warnings stay a short list (marginal modules, benign CE bursts)


# ---- the report ------------------------------------------------------------------------------------------------------
def test_report_counts_worst_and_json(topo1: Topology) -> None:
    sim = _sim(topo1)
    link = _links(topo1)[3]
    npu = sorted(topo1.by_kind["npu"])[0]
    sim.state.set_health(link, Health.FAILED)
    sim.telemetry.metric(HEARTBEAT, npu, 4.0)
    sim.telemetry.metric("npu_temp_c", npu, 96.0)
    rep = run_sweep(sim)
    assert rep.worst[link] == "Critical" and rep.worst[npu] == "Alarm" and rep.severity == "Critical"
    assert rep.counts["Critical"] >= 1 and sum(rep.counts.values()) == sum(rep.checked.values())
    assert rep.checked["dom_rx"] == 10752 and rep.checked["link_light"] == 5376 and rep.checked["heartbeat"] == 384
    assert [f.level for f in rep.findings] == sorted((f.level for f in rep.findings), reverse=True)
    d = rep.as_dict()
    text = json.dumps(d, allow_nan=False)
    assert json.loads(text)["counts"] == rep.counts and d["duration_ms"] > 0
    assert {"component", "check", "severity", "evidence", "suggested_action", "predicted_failure_s"} \
        <= set(d["findings"][0])
    with pytest.raises(ValueError, match="unknown checks"):
        run_sweep(sim, checks=["nope"])
    with pytest.raises(ValueError, match="future"):
        take_snapshot(sim, sim.now + 10.0)
    with pytest.raises(ValueError, match="severity"):
        Finding("x", "y", "Bad", "", "")


def test_history_ring_buffer_keeps_the_window() -> None:
    h = DomHistory(max_age_s=600.0)
    for k in range(10):
        h.add(k * 100.0, np.full((2, 4), float(k)))
    t, rx = h.window(300.0, 900.0)
    assert sorted(t) == [300.0, 400.0, 500.0, 600.0, 700.0, 800.0, 900.0] and len(h) == 7
    assert sorted(rx[:, 0, 0]) == [3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]
    h.add(900.0, np.full((2, 4), -1.0))  # same time: replaced
    h.add(100.0, np.full((2, 4), -5.0))  # older than the newest: ignored
    t, rx = h.window(850.0, 950.0)
    assert list(t) == [900.0] and rx[0, 0, 0] == -1.0


def test_dom_history_grows_by_doubling_and_windows_its_kept_readings_as_a_view() -> None:
    """Warm-up doubles the buffer (it grew by one slot, a copy of all readings, per sweep); in steady state expired
    slots are reused and the full window is still a read-only view, with every kept reading and no other."""
    h = DomHistory(max_age_s=1000.0)
    grown = set()
    for k in range(100):
        h.add(k * 30.0, np.full((3, 4), float(k)))
        grown.add(len(h._t))
        t, rx = h.window(-1e9, 1e9)
        want = [float(j) for j in range(100) if k * 30.0 - 1000.0 <= j * 30.0 <= k * 30.0]
        assert sorted(t) == [w * 30.0 for w in want] and sorted(rx[:, 0, 0]) == want
        assert not rx.flags.writeable
    assert grown == {4, 8, 16, 32, 64}


def test_sweeps_read_telemetry_not_ground_truth() -> None:
    for path in sorted((ROOT / "opsbrain" / "sweeps").glob("*.py")):
        src = path.read_text(encoding="utf-8")
        mods = set()
        for node in ast.walk(ast.parse(src)):
            if isinstance(node, ast.ImportFrom) and node.module:
                mods.add(node.module)
            elif isinstance(node, ast.Import):
                mods.update(a.name for a in node.names)
        assert not {m for m in mods if m.startswith(("faultlib.faults", "faultlib.trace", "faultlib.injection"))}, path
        assert "sim.faults" not in src and "sim.trace" not in src and "crossing_time" not in src, path
