"""Session 42 (orch42): two link faults of one training job, handled by two responses a few seconds apart, restart
the job once. Both links died together; the first response re-routed its node and recovered the job in place (the
in-place recovery re-forms communication around every dead path it finds); the second's re-route failed and its
ladder's online-recovery rung recovered the job again although it ran: a checkpoint write under way was aborted and
the step redone. Now that rung joins the first response's restart (``joined``, ``covered_by``), logged in the second
incident's own record; a restart that began before the part went down does not cover it."""

from __future__ import annotations

from typing import Any

import simpy

from faultlib.durations import at_medians
from faultlib.engine import Simulation
from faultlib.injection.spec import FaultSpec
from faultlib.simparams import SimParams
from faultlib.topology import Topology
from faultlib.workloads.training import TrainingJob
from opsbrain.recovery import Orchestrator, RecoveryParams, load_runbooks
from opsbrain.verdict import Diagnosis


def _two_links(topo: Topology, second_at_s: float, second_fault_s: float = 100.0
               ) -> tuple[Simulation, Orchestrator, TrainingJob, list[tuple[float, str]]]:
    sim = Simulation(params=at_medians(SimParams()), seed=4, topology=topo)
    nodes = sim.topology.nodes()
    launch = {**RecoveryParams().job_launch_overrides(), "ckpt_interval_s": 60.0}  # a write soon after a restart
    job = TrainingJob("llm", nodes[:8], sim.params.training.model_copy(update=launch))
    sim.add_workload(job)
    sim.control.set_spares(nodes[-2:])
    links = [sim.fabric.node_uplinks(job.nodes[3])[2], sim.fabric.node_uplinks(job.nodes[5])[7]]
    sim.inject(FaultSpec(at_s=100, kind="link_down", target=links[0]))
    sim.inject(FaultSpec(at_s=second_fault_s, kind="link_down", target=links[1]))
    c, reroute = sim.control, sim.control.reroute
    bad = job.nodes[5]

    def reroute_or_fail(ns: list[str]) -> simpy.Process:  # the second node's route push is refused
        return reroute(ns) if bad not in ns else c._action("reroute", bad, 4.0, 1.0, lambda: None)

    c.reroute = reroute_or_fail  # type: ignore[method-assign]
    orch = Orchestrator(sim, load_runbooks())
    states: list[tuple[float, str]] = []
    sim.run(200)  # the job went down: its operator retries ran out on the dead paths
    orch.handle("i1", Diagnosis("link_down", links[0], 0.9))
    sim.run(second_at_s)
    orch.handle("i2", Diagnosis("link_down", links[1], 0.9))
    for t in range(int(second_at_s) + 1, 600):
        sim.run(t)
        if not states or states[-1][1] != job.state:
            states.append((t, job.state))
    return sim, orch, job, states


def _restarts(orch: Orchestrator, inc: str) -> list[dict[str, Any]]:
    return [a for a in orch.incident(inc)["actions"] if a["action"] == "restart_process" and a["status"] != "skipped"]


def test_the_job_is_recovered_once(topo1: Topology) -> None:
    _sim, orch, job, states = _two_links(topo1, 230.0)
    first, second = _restarts(orch, "i1"), _restarts(orch, "i2")
    assert first and first[0]["status"] == "succeeded" and not first[0]["detail"].get("joined")
    assert second and second[-1]["status"] == "succeeded", second  # its own record: the restart it relied on
    assert second[-1]["detail"].get("joined") and second[-1]["detail"].get("covered_by") == "i1", second[-1]
    assert ("recovering" not in [s for t, s in states if t > second[-1]["start_s"]]), states  # before: recovered again
    assert job.state in ("running", "checkpointing")


def test_a_restart_before_the_part_went_down_does_not_cover_it(topo1: Topology) -> None:
    """The second link dies during the first response's recovery: that recovery did not see it."""
    _sim, orch, _job, _states = _two_links(topo1, 230.0, second_fault_s=215.0)
    second = _restarts(orch, "i2")
    assert second and not second[-1]["detail"].get("covered_by")
