"""Issue 17: a spare that returns to the pool while a restart waits for a repair is taken by that restart.

Two node crashes with trace repair times on a pod with one warm spare and no training scale-in: the first crash
takes the spare, its node is rebooted once repaired (1 h) and returns to the pool; the second crash (repair 10 h)
finds no spare, climbs to ``wait_for_repair`` and waits for its reboot. The node that comes back after 1 h is taken
by that waiting response, the job restarts on it, and the journal says which incident took it. Before issue 17's
change the wait timed out (3 x 1800 s) and the incident went to a human, the job down for hours.
"""

from __future__ import annotations

from typing import Any

import pytest

from faultlib.durations import at_medians
from faultlib.engine import Simulation
from faultlib.health import Health
from faultlib.injection.spec import FaultSpec
from faultlib.simparams import SimParams
from faultlib.topology import Topology
from faultlib.workloads.training import TrainingJob
from opsbrain.recovery import Orchestrator, RecoveryParams, load_runbooks
from opsbrain.verdict import Diagnosis

NO_SCALE_IN = RecoveryParams(training_scale_in_max_share=0.0)


def _world(topo: Topology) -> tuple[Simulation, TrainingJob, str]:
    sim = Simulation(params=at_medians(SimParams()), seed=2, topology=topo)
    nodes = sim.topology.nodes()
    job = TrainingJob("llm", nodes[:8], sim.params.training.model_copy(update=NO_SCALE_IN.job_launch_overrides()))
    sim.add_workload(job)
    sim.control.set_spares([nodes[-1]])
    return sim, job, nodes[-1]


@pytest.fixture(scope="module")
def crashed_twice(topo1: Topology) -> dict[str, Any]:
    sim, job, spare = _world(topo1)
    first, second = job.nodes[2], job.nodes[5]
    sim.inject(FaultSpec(at_s=100, kind="node_crash", target=first, duration_s=3600.0))
    sim.inject(FaultSpec(at_s=400, kind="node_crash", target=second, duration_s=36000.0))
    orch = Orchestrator(sim, load_runbooks(), params=NO_SCALE_IN)
    sim.run(110)
    orch.handle("first", Diagnosis("node_crash", first, 0.95))
    sim.run(410)
    orch.handle("second", Diagnosis("node_crash", second, 0.95))
    sim.run(4 * 3600)
    return {"sim": sim, "job": job, "orch": orch, "first": first, "second": second, "spare": spare}


def test_the_waiting_restart_takes_the_first_returning_spare(crashed_twice: dict[str, Any]) -> None:
    w = crashed_twice
    job, orch, first, second = w["job"], w["orch"], w["first"], w["second"]
    took = [f for f in orch.follow_ups("first") if f["type"] == "spare_used"]
    assert [f["component"] for f in took] == [w["spare"]] and w["spare"] in job.nodes  # the first crash took it
    inc = orch.incident("second")
    assert inc["rung"] == "wait_for_repair" and inc["outcome"] == "completed"
    reboots = [a for a in inc["actions"] if a["action"] == "reboot_node" and a["rung"] == "wait_for_repair"]
    reboot = reboots[-1]  # earlier attempts time out (step_timeout_s) while the repair lasts; each one waits too
    assert all("timed out" in a["detail"]["reason"] for a in reboots[:-1])
    assert reboot["status"] == "succeeded" and reboot["detail"]["took_returning_spare"] is True
    assert reboot["detail"]["spare"] == first
    assert reboot["end_s"] >= 100 + 3600.0  # the first node came back once its repair was done
    assert reboot["end_s"] < 400 + 36000.0  # long before the second node's own repair
    # the job runs again with the returned node in place of the second crashed one
    assert job.state in ("running", "checkpointing") and first in job.nodes and second not in job.nodes
    restart = [a for a in inc["actions"] if a["action"] == "restart_job" and a["rung"] == "wait_for_repair"]
    assert [a["status"] for a in restart] == ["succeeded", "skipped"]  # the in-place restart's condition fails


def test_the_journal_says_who_took_the_returning_spare(crashed_twice: dict[str, Any]) -> None:
    w = crashed_twice
    orch, first = w["orch"], w["first"]
    back = [f for f in orch.follow_ups("first") if f["type"] == "returned_to_spares" and f["component"] == first]
    assert back and back[0]["taken_by"] == "second"
    used = [f for f in orch.follow_ups("second") if f["type"] == "spare_used" and f["component"] == first]
    assert used and used[0]["returned"] is True and used[0]["replaces"] == w["second"]
    assert "returned to the pool" in used[0]["note"]


def test_the_second_node_rejoins_the_pool_after_its_own_repair(crashed_twice: dict[str, Any]) -> None:
    w = crashed_twice
    sim, orch, second = w["sim"], w["orch"], w["second"]
    assert second not in sim.control.spares  # still under repair at 4 h
    sim.run(400 + 36000.0 + 3600)
    assert sim.state.health(second) == Health.HEALTHY and second in sim.control.spares
    back = [f for f in orch.follow_ups("second") if f["type"] == "returned_to_spares" and f["component"] == second]
    assert len(back) == 1 and "taken_by" not in back[0]


def test_a_spare_returning_with_nobody_waiting_stays_in_the_pool(topo1: Topology) -> None:
    sim, job, spare = _world(topo1)
    orch = Orchestrator(sim, load_runbooks(), params=NO_SCALE_IN)
    sim.control.set_spares([])
    from opsbrain.recovery.record import IncidentRecord

    rec = IncidentRecord("x", "auto", False, 0.0, None)
    assert orch.exec.return_spare(spare, rec) is None
    assert sim.control.spares == [spare] and rec.follow_ups[-1]["type"] == "returned_to_spares"


def test_a_spare_a_failed_response_took_but_never_used_goes_back_to_the_pool(topo1: Topology) -> None:
    """Every restart fails (restart_failure_prob 1): the spare the ladder took is not lost to the pool."""
    params = at_medians(SimParams())
    params = params.model_copy(update={"control": params.control.model_copy(update={"restart_failure_prob": 1.0})})
    sim = Simulation(params=params, seed=2, topology=topo1)
    nodes = sim.topology.nodes()
    job = TrainingJob("llm", nodes[:8], sim.params.training.model_copy(update=NO_SCALE_IN.job_launch_overrides()))
    sim.add_workload(job)
    spare = nodes[-1]
    sim.control.set_spares([spare])
    sim.inject(FaultSpec(at_s=100, kind="node_crash", target=job.nodes[3]))
    orch = Orchestrator(sim, load_runbooks(), params=NO_SCALE_IN)
    sim.run(110)
    orch.handle("crash", Diagnosis("node_crash", job.nodes[3], 0.95))
    sim.run(6 * 3600)
    inc = orch.incident("crash")
    assert inc["outcome"] == "escalated_to_human" and spare not in job.nodes
    assert spare in sim.control.spares
    back = [f for f in orch.follow_ups("crash") if f["type"] == "returned_to_spares" and f["component"] == spare]
    assert back and back[0]["how"] == "taken but not used by the response"


def test_a_node_whose_chip_was_isolated_rejoins_the_pool_once_the_chip_is_back(topo1: Topology) -> None:
    """An AI Core hang with a 2 h repair: the job moves to the spare; the follow-up chip reset outlasts its step
    timeout, yet once the reset completes the node (no workload on it) is back in the pool."""
    sim, job, spare = _world(topo1)
    node = job.nodes[4]
    die = f"{sim.topology.npus_of(node)[6]}/die1"
    sim.inject(FaultSpec(at_s=100, kind="aicore_hang", target=die, duration_s=7200.0))
    orch = Orchestrator(sim, load_runbooks(), params=NO_SCALE_IN)
    sim.run(102)
    orch.handle("hang", Diagnosis("aicore_hang", die, 0.95))
    sim.run(3600)
    assert spare in job.nodes and node not in job.nodes and node not in sim.control.spares
    sim.run(100 + 7200 + 3600)
    assert sim.state.health(die) == Health.HEALTHY and node in sim.control.spares
    back = [f for f in orch.follow_ups("hang") if f["type"] == "returned_to_spares" and f["component"] == node]
    assert back and back[0]["how"] == "back in service"


def test_the_built_in_scenario_meets_its_expectations() -> None:
    """Built-in spare-returns-during-repair-wait: the third crash takes the first crashed node when it is back, the
    job ran scaled in meanwhile; the run's expectations (report text included) are met."""
    from opsbrain import chaos
    from opsbrain.scenario.loader import load_scenario
    from opsbrain.scenario.plan import build_plan

    sc, path = load_scenario("spare-returns-during-repair-wait")
    j = chaos.run(build_plan(sc, str(path)))
    assert j["verdict"] == "passed", j["expectations"]
    third = next(i for i in j["incidents"] if (i["injected"] or {}).get("component") == "pod0/node42")
    took = [a for a in third["actions"] if (a.get("detail") or {}).get("took_returning_spare")]
    assert took and took[0]["detail"]["spare"] == "pod0/node38"
    assert j["summary"]["recovered_degraded"] == 1
