"""A stopped host writes nothing until it is back (tester CC, session 33): a second crash of a crashed (then
isolated) node printed a second kernel panic from the dead host, and its chips, kernel and peers' plogs kept writing.
A crash stops the host (the panic is its last line, kernel/panic.c); a reboot, repair or replacement that returns the
node to service brings it back. A crash of a host already stopped changes nothing: the scorer censors it (nothing
could have detected it), it is not a miss."""

from __future__ import annotations

from pathlib import Path

import pytest

from faultlib import ids
from faultlib.engine import Simulation
from faultlib.health import Health
from faultlib.injection.spec import FaultSpec
from faultlib.topology import Topology
from faultlib.workloads.training import TrainingJob
from opsbrain import chaos
from opsbrain.scenario.loader import load_scenario
from opsbrain.scenario.plan import build_plan
from opsbrain.verdict import incident_outcome
from tests.test_scoring_censored import _write

NODE = "pod0/node35"
PANIC = "Kernel panic - not syncing"


def _spec(at: float, kind: str, target: str) -> FaultSpec:
    return FaultSpec(at_s=at, kind=kind, target=target, params={}, duration_s=None)


def _lines(sim: Simulation, node: str, since: float = 0.0, until: float = float("inf")) -> list[str]:
    """Every line written by ``node`` or a part on its board between ``since`` and ``until``."""
    return [ln.text for ln in sim.telemetry.logs
            if since <= ln.t <= until and (ln.origin == node or ln.origin.startswith(node + "/"))]


def test_a_crashed_host_and_its_chips_write_nothing_until_it_is_back(topo1: Topology) -> None:
    sim = Simulation(seed=5, topology=topo1)
    for at, kind, target in [(100, "node_crash", NODE), (400, "node_crash", NODE), (500, "node_hang", NODE),
                             (520, "npu_off_bus", f"{NODE}/npu2"), (540, "hbm_uce", f"{NODE}/npu3/hbm")]:
        sim.inject(_spec(at, kind, target))
    sim.run(900)
    assert [t for t in _lines(sim, NODE) if PANIC in t] and len(_lines(sim, NODE)) == 1  # the first panic only
    second = sim.faults[1]
    assert second.ended_at_s == 400 and second.quiet_s == float("inf")
    sim.state.set_health(NODE, Health.HEALTHY, cause="reboot")  # back in service: it writes again
    sim.inject(_spec(1000, "node_crash", NODE))
    sim.run(1100)
    assert [t for t in _lines(sim, NODE, since=950) if PANIC in t]


def test_a_running_host_taken_out_of_service_still_panics(topo1: Topology) -> None:
    sim = Simulation(seed=5, topology=topo1)
    sim.run(50)
    sim.state.set_health(NODE, Health.ISOLATED, cause="operator")  # isolated, not stopped: the kernel runs
    sim.inject(_spec(100, "node_crash", NODE))
    sim.run(200)
    assert any(PANIC in t for t in _lines(sim, NODE))
    assert sim.state.host_down(NODE) and sim.state.host_down(f"{NODE}/npu0") and not sim.state.host_down("pod0/node3")


def test_crashed_peers_report_no_wait_for_each_other(topo1: Topology) -> None:
    sim = Simulation(seed=5, topology=topo1)
    sim.add_workload(TrainingJob("train", [ids.node(0, n) for n in range(32, 46)]))
    sim.run(300)
    for n in (33, 34):
        sim.inject(_spec(300, "node_crash", ids.node(0, n)))
    sim.run(600)
    for n in (33, 34):
        assert [t for t in _lines(sim, ids.node(0, n), since=300) if PANIC not in t] == []
    assert _lines(sim, ids.node(0, 35), since=300)  # a live peer reports the wait


def test_a_crash_of_a_stopped_host_is_censored_not_missed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPSBRAIN_HOME", str(tmp_path / "home"))
    path = _write(tmp_path, 1800, [{"at": 300, "kind": "node_crash", "target": "pod0/node5"},
                                   {"at": 302, "kind": "node_crash", "target": "pod0/node5"}])
    sc, p = load_scenario(str(path))
    j = chaos.run(build_plan(sc, str(p)))
    first, second = (i for i in j["incidents"] if i["injected"])
    assert first["detection"] == "detected" and second["detection"] == "censored"
    assert second["detection_note"].startswith("nothing could have detected it")
    assert incident_outcome(second)[0] == "censored: nothing to detect"
    assert j["summary"]["missed"] == 0 and j["summary"]["censored"] == 1
