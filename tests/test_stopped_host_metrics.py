"""A stopped host's exporters serve nothing (session 33, after twin33): a crashed host stopped writing log lines, but
its npu-exporter series (chip temperatures, HBM counters, its L1 ports' optics) kept being published as if the host
ran. A scrape of a powered-off host gets nothing: its series are absent until it is back, its chips aged from their
last sample (the heartbeat check's 'no series' finding), and the crash is still detected from that absence, the
L2 side's ports and the peers' reports."""

from __future__ import annotations

import math

import numpy as np

from faultlib.engine import Simulation
from faultlib.health import Health
from faultlib.injection.spec import FaultSpec
from faultlib.telemetry.noise import start_background_noise
from faultlib.topology import Topology
from opsbrain.sources.twinpage import render_twin_page
from opsbrain.sweeps.heartbeat import check_heartbeat
from opsbrain.sweeps.params import SweepParams
from opsbrain.sweeps.snapshot import take_snapshot

NODE = "pod0/node35"
HOST = 'instance="pod0-node35"'
BOARD = 'instance="pod0-node35-l1sw'


def _crashed(topo: Topology, at: float = 100.0, until: float = 400.0) -> Simulation:
    sim = Simulation(seed=5, topology=topo)
    start_background_noise(sim)
    sim.inject(FaultSpec(at_s=at, kind="node_crash", target=NODE, params={}, duration_s=None))
    sim.run(until)
    return sim


def test_a_crashed_hosts_series_are_absent_until_it_is_back(topo1: Topology) -> None:
    sim = _crashed(topo1)
    view, npu = sim.telemetry.scraped, f"{NODE}/npu3"
    assert view.read("npu_temp_c", npu, 400.0) is None and view.read("hbm_ce_total", npu + "/hbm", 400.0) is None
    assert view.read("npu_temp_c", npu, 50.0) is not None  # its history before the crash is kept
    assert view.read("npu_temp_c", "pod0/node3/npu3", 400.0) is not None  # a live peer is served
    assert sim.telemetry.read("npu_temp_c", npu) is not None  # the plant's own store is untouched
    page = render_twin_page(sim)
    assert HOST not in page and BOARD not in page and 'instance="pod0-node3"' in page
    before = render_twin_page(sim, 50.0)
    assert HOST in before and BOARD in before
    sim.state.set_health(NODE, Health.HEALTHY, cause="reboot")  # back in service: served again
    sim.run(500)
    assert view.read("npu_temp_c", npu, 500.0) is not None and HOST in render_twin_page(sim)
    assert HOST not in render_twin_page(sim, 300.0)  # a past scrape while it was down still had nothing


def test_the_sweep_sees_no_series_and_ages_the_chips_from_the_stop(topo1: Topology) -> None:
    sim = _crashed(topo1)
    p = SweepParams()
    snap = take_snapshot(sim, params=p)
    i = snap.npus.index(f"{NODE}/npu3")
    assert math.isnan(snap.npu_temp_c[i]) and snap.npus_unseen and f"{NODE}/npu3" in snap.npus_unseen
    assert snap.heartbeat_age_s[i] >= 300.0 - 1.0
    assert not math.isnan(snap.npu_temp_c[snap.npus.index("pod0/node3/npu3")])
    rows = [j for j, m in enumerate(snap.modules) if m.startswith(NODE + "/")]
    assert rows and np.isnan(snap.dom["rx_dbm"][rows]).all()
    found = {f.component: f for f in check_heartbeat(snap, p)}
    assert found[f"{NODE}/npu3"].severity == "Critical" and found[f"{NODE}/npu3"].data.get("no_series")


def test_an_isolated_crashed_host_still_serves_nothing(topo1: Topology) -> None:
    """An operator isolating the crashed node does not bring it back: its chips do not beat, it serves nothing."""
    sim = _crashed(topo1, until=200.0)
    sim.state.set_health(NODE, Health.ISOLATED, cause="operator")
    sim.run(400)
    view = sim.telemetry.scraped
    assert view.read("npu_heartbeat_age_s", f"{NODE}/npu0", 400.0) >= 299.0  # type: ignore[operator]
    assert view.read("npu_temp_c", f"{NODE}/npu0", 400.0) is None
