"""Faults injected on a stopped host's parts (session 33, after twin33): a node_hang, hbm_uce or npu_off_bus injected
while its host was down printed nothing (the host writes nothing) and was scored missed. Nothing on a stopped host
runs for a hang or a memory error to happen to: such a fault changes nothing and is censored (nothing to detect). A
broken part (faultlib.faults.catalog.SURVIVES_STOP: a chip off its bus, a dead switch chip or card) is still
broken when the host is back: it shows then, and the scorer's earliest moment counts the wait."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from faultlib.engine import Simulation
from faultlib.health import Health
from faultlib.injection.spec import FaultSpec
from faultlib.topology import Topology
from opsbrain import chaos
from opsbrain.scenario.loader import load_scenario
from opsbrain.scenario.plan import build_plan
from opsbrain.verdict import incident_outcome
from tests.test_scoring_censored import _write

NODE = "pod0/node35"


def _spec(at: float, kind: str, target: str) -> FaultSpec:
    return FaultSpec(at_s=at, kind=kind, target=target, params={}, duration_s=None)


def _lines(sim: Simulation, since: float) -> list[str]:
    return [ln.text for ln in sim.telemetry.logs if ln.t >= since and (ln.origin == NODE or
                                                                      ln.origin.startswith(NODE + "/"))]


def test_a_running_hosts_fault_on_a_stopped_host_changes_nothing(topo1: Topology) -> None:
    sim = Simulation(seed=5, topology=topo1)
    for at, kind, target in [(100, "node_crash", NODE), (200, "node_hang", NODE),
                             (210, "hbm_uce", f"{NODE}/npu3/hbm"), (220, "aicore_hang", f"{NODE}/npu1/die0")]:
        sim.inject(_spec(at, kind, target))
    sim.run(400)
    for f in sim.faults[1:]:
        assert f.ended_at_s == f.at_s and math.isinf(f.quiet_s) and "nothing runs there" in f.quiet_why
    sim.state.set_health(NODE, Health.HEALTHY, cause="reboot")
    sim.run(600)
    assert _lines(sim, 400) == []  # nothing of them shows after the reboot either
    assert sim.state.health(f"{NODE}/npu1/die0") == Health.HEALTHY


def test_a_chip_off_the_bus_on_a_stopped_host_shows_when_it_is_back(topo1: Topology) -> None:
    sim = Simulation(seed=5, topology=topo1)
    sim.inject(_spec(100, "node_crash", NODE))
    off = sim.inject(_spec(220, "npu_off_bus", f"{NODE}/npu2"))
    sim.run(400)
    assert off.ended_at_s is None and math.isinf(off.quiet_s) and _lines(sim, 101) == []
    sim.state.set_health(NODE, Health.HEALTHY, cause="reboot")
    sim.run(600)
    assert off.quiet_s == pytest.approx(180.0)
    assert any("PCIe Bus Error" in t for t in _lines(sim, 400))
    assert sim.state.health(f"{NODE}/npu2") == Health.FAILED


def test_faults_on_a_stopped_host_are_censored_not_missed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPSBRAIN_HOME", str(tmp_path / "home"))
    path = _write(tmp_path, 1800, [{"at": 300, "kind": "node_crash", "target": "pod0/node5"},
                                   {"at": 400, "kind": "hbm_uce", "target": "pod0/node5/npu3/hbm"},
                                   {"at": 420, "kind": "node_hang", "target": "pod0/node5"},
                                   {"at": 440, "kind": "npu_off_bus", "target": "pod0/node5/npu2"}])
    sc, p = load_scenario(str(path))
    j = chaos.run(build_plan(sc, str(p)))
    crash, uce, hang, off = (i for i in j["incidents"] if i["injected"])
    assert crash["detection"] == "detected"
    for i in (uce, hang):  # not a miss, and no later incident of the node is credited to them
        assert i["detection"] == "censored" and i["detection_note"].startswith("nothing could have detected it")
        assert "had stopped" in i["detection_note"] and incident_outcome(i)[0] == "censored: nothing to detect"
    # the chip off its bus shows once recovery has rebooted the node, and is diagnosed as what it is
    assert off["detection"] == "detected" and off["diagnosis"]["fault_class"] == "npu_off_bus"
    assert off["diagnosis"]["component"] == "pod0/node5/npu2"
    assert j["summary"]["missed"] == 0 and j["summary"]["censored"] == 2


def test_a_broken_part_replaced_while_its_host_is_down_never_shows(topo1: Topology) -> None:
    sim = Simulation(seed=5, topology=topo1)
    sim.inject(_spec(100, "node_crash", NODE))
    off = sim.inject(_spec(220, "npu_off_bus", f"{NODE}/npu2"))
    sim.run(300)
    assert sim.end_faults_of(f"{NODE}/npu2", "replace_part") == [off.id]
    sim.run(301)
    assert off.ended_at_s == 300 and math.isinf(off.quiet_s) and "was replaced" in off.quiet_why
    sim.state.set_health(NODE, Health.HEALTHY, cause="reboot")
    sim.run(400)
    assert not any("PCIe Bus Error" in t for t in _lines(sim, 300))
