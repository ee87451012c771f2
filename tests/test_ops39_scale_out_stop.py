"""Session 39 (ops39): a scale-out is stopped like a restart when it becomes doomed.

Session 38 made a training job's restart, in-place recovery and scale-in stoppable (``ControlAPI.stop``, a SimPy
interrupt of the action's process) and the orchestrator stops one the moment a node it places ranks on goes down. A
scale-out (the rescale back to the launch size once a node returns to the pool) was left out: ``stop`` said False
and the doomed rescale ran its stages to its end. Now it ends at once, ``cancelled``, its entry complete.
"""

from __future__ import annotations

import pytest

from faultlib.health import Health
from faultlib.injection.spec import FaultSpec
from faultlib.topology import Topology
from faultlib.workloads.training import TrainingJob
from opsbrain.recovery.orchestrator import Orchestrator
from opsbrain.recovery.record import IncidentRecord
from tests.test_ops38_doomed_restart import _complete
from tests.test_scale_out import _scaled_in


def test_control_stop_stops_a_scale_out_under_way(topo1: Topology) -> None:
    sim, job, dead, _s = _scaled_in(topo1)
    sim.state.set_health(dead, Health.HEALTHY, cause="repaired")
    sim.control.p = sim.control.p.model_copy(update={"restart_failure_prob": 0.0})
    proc = sim.control.scale_out_job("llm", [dead])
    sim.run(sim.now + 1)
    assert job.state == "restarting"
    assert sim.control.stop("llm", {"reason": "test"}) is True  # was False: a scale-out could not be stopped
    sim.run(sim.now + 0.001)
    res = proc.value
    assert res.status == "cancelled" and res.detail["workload_stopped"] is True and res.detail["reason"] == "test"
    assert res.end_s == pytest.approx(res.start_s + 1) and job.state == "down"


def _rescaling(topo: Topology) -> tuple[Orchestrator, IncidentRecord, TrainingJob]:
    sim, job, dead, _s = _scaled_in(topo)
    orch = Orchestrator(sim)
    rec = IncidentRecord("i1", "auto", False, sim.now, None)
    orch.records["i1"] = rec
    sim.control.p = sim.control.p.model_copy(update={"restart_failure_prob": 0.0, "spare_failure_prob": 0.0})
    orch.scale_out.note_scale_in("llm", rec)
    sim.state.set_health(dead, Health.HEALTHY, cause="repaired")
    orch.exec.return_spare(dead, rec, how="back in service")  # the node rejoins the pool: the rescale starts
    sim.run(sim.now + 2)
    out = next(a for a in rec.actions_view(sim.now) if a["action"] == "scale_out")
    assert out["detail"].get("in_flight") and job.state == "restarting"
    return orch, rec, job


def test_a_scale_out_whose_host_goes_down_is_stopped_at_once(topo1: Topology) -> None:
    orch, rec, job = _rescaling(topo1)
    sim = orch.sim
    other = job.nodes[1]
    sim.inject(FaultSpec(at_s=sim.now, kind="node_crash", target=other))
    sim.run(sim.now + 0.001)
    out = next(a for a in rec.actions_view(sim.now) if a["action"] == "scale_out")
    assert out["status"] == "cancelled" and out["end_s"] == pytest.approx(sim.now, abs=0.01), out  # was ~minutes
    assert f"{other} down (no response holds it yet)" in out["detail"]["reason"]
    assert out["detail"]["doomed_by"] == other and out["detail"]["workload_stopped"] is True
    assert job.state == "down" and "llm" not in orch.exec.restart_owner
    _complete(rec.actions_view(sim.now))


def test_a_scale_out_doomed_by_a_held_part_names_the_holder_and_joins_nothing(topo1: Topology) -> None:
    orch, rec, job = _rescaling(topo1)
    sim = orch.sim
    joined: list[tuple[str, str]] = []
    orch.holder_of = lambda part: "i9"
    orch.handed_over = lambda key, holder: joined.append((key, holder))
    chip = f"{job.nodes[2]}/npu1"
    sim.state.set_health(chip, Health.ISOLATED, cause="isolate")
    sim.run(sim.now + 0.001)
    out = next(a for a in rec.actions_view(sim.now) if a["action"] == "scale_out")
    assert out["status"] == "cancelled" and out["detail"]["handed_to"] == "i9"
    assert not joined and "handed_to" not in rec.extra  # the scale-in's incident (recovered then) is not joined
    _complete(rec.actions_view(sim.now))
