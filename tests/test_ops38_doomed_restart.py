"""Session 38 (ops38): a restart that another response's isolation (or a host going down) dooms is stopped at once.

Two chips of one training job fail in the same second (the published InfiniteHBD trace's first two faults, day
3.8955). The first response swaps a spare and restarts the job; the second isolates its chip ~2 s into that restart.
Before session 38 the restart ran its ~8 min and failed at its end on the isolated chip (507033, device set-up
failed). Now the twin's control stops it (``ControlAPI.stop``, a SimPy interrupt of the action's process) the moment
the chip is isolated: the action is journaled ``cancelled`` with its reason, and the job's recovery is the isolating
response's (its incident ``handed_to`` it; the controller joins the two).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from faultlib.engine import Simulation
from faultlib.injection.spec import FaultSpec
from faultlib.topology import Topology
from opsbrain import chaos
from opsbrain.recovery import Orchestrator, RunbookSet, load_runbooks
from opsbrain.recovery.record import STATUSES
from opsbrain.scenario import replay as rp
from opsbrain.verdict import Diagnosis
from tests.test_orchestrator import training
from tests.test_replay import ev, write

DBE = ("fault_start", "Hardware Failure", "GPU", "GPU DBE(Double Bit ECC) > Threshold")


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPSBRAIN_HOME", str(tmp_path / "home"))


def _complete(actions: list[dict]) -> None:
    """Every action the journal lists ended with an outcome (none left in flight by a stop)."""
    for a in actions:
        assert a["status"] in STATUSES and a["end_s"] is not None, a
        if a["status"] == "skipped":
            assert not a["detail"].get("in_flight") or a["kind"] == "followup", a  # a repair still under way at the end


@pytest.mark.parametrize("seed", [0, 1])
def test_a_restart_doomed_by_another_responses_isolation_stops_at_once_and_hands_over(tmp_path: Path,
                                                                                     seed: int) -> None:
    events = [ev("srv0", 0.5, *DBE), ev("srv1", 0.5, *DBE), ev("srv2", 0.6, *DBE)]
    plan, _rep = rp.replay_plan(str(write(tmp_path, events)), time_unit="days", seed=seed)
    j = chaos.run(plan, None, say=lambda _m: None)
    faults = [i for i in j["incidents"] if i["injected"] is not None]
    stopped = [(f, a) for f in faults for a in f["actions"] if a["status"] == "cancelled"]
    assert len(stopped) == 1, [(f["id"], a["action"], a["status"]) for f in faults for a in f["actions"]]
    mine, act = stopped[0]
    assert act["action"] == "restart_job" and act["kind"] == "step"
    holder = next(f for f in faults if mine["handed_to"] in f["incident_ids"])
    isolate = next(a for a in holder["actions"] if a["action"] == "isolate")
    assert act["end_s"] == isolate["end_s"]  # stopped the moment the chip went out (was ~480 s later)
    assert isolate["target"] in act["detail"]["reason"] and "cannot succeed" in act["detail"]["reason"]
    assert act["detail"]["workload_stopped"] is True and act["detail"]["handed_to"] == mine["handed_to"]
    assert not any(a["action"] == "restart_job" and a["kind"] == "retry" for a in mine["actions"])  # not retried
    assert any(a["action"] == "ticket" and a["status"] == "succeeded" for a in mine["actions"])  # its rung went on
    assert not any("507033" in s["text"] for i in j["incidents"] for s in i.get("signals", []))  # no doomed end
    for i in j["incidents"]:
        _complete(i["actions"])
    assert j["summary"]["false_positives"] == 0 and j["summary"]["recovered"] == len(faults), j["summary"]


@pytest.fixture(scope="module")
def rbs() -> RunbookSet:
    return load_runbooks()


def test_a_restart_whose_host_goes_down_stops_at_once_and_is_retried_once_placeable(topo1: Topology,
                                                                                      rbs: RunbookSet) -> None:
    sim, job = training(topo1, spares=2)
    first, second = job.nodes[4], job.nodes[2]
    sim.inject(FaultSpec(at_s=100, kind="node_crash", target=first))
    sim.run(110)
    orch = Orchestrator(sim, rbs)
    orch.handle("crash", Diagnosis("node_crash", first, 0.9))
    sim.run(sim.now + 3)  # the spare swapped, the restart placing ranks on it under way
    start = next(a for a in orch.actions_for("crash") if a["action"] == "restart_job")
    assert start["detail"].get("in_flight") and job.state == "restarting"
    sim.inject(FaultSpec(at_s=sim.now, kind="node_crash", target=second))
    sim.run(sim.now + 0.001)
    act = next(a for a in orch.actions_for("crash") if a["action"] == "restart_job")
    assert act["status"] == "cancelled" and act["end_s"] == pytest.approx(sim.now, abs=0.01), act
    assert f"{second} down (no response holds it yet)" in act["detail"]["reason"] and job.state == "down"
    assert "handed_to" not in act["detail"]
    orch.handle("crash2", Diagnosis("node_crash", second, 0.9))
    sim.run(sim.now + 1500)
    assert job.state == "running" and second not in job.nodes and first not in job.nodes
    retry = [a for a in orch.actions_for("crash") if a["action"] == "restart_job" and a["kind"] == "retry"]
    assert retry and retry[-1]["status"] == "succeeded", orch.actions_for("crash")
    for inc in ("crash", "crash2"):
        _complete(orch.actions_for(inc))


def test_stop_is_refused_when_nothing_stoppable_runs(topo1: Topology) -> None:
    sim = Simulation(seed=1, topology=topo1)
    assert sim.control.stop("nothing", "why") is False
