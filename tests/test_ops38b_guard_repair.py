"""Session 38 (ops38b): two operations defects the replay of the InfiniteHBD trace showed.

1. The blast-radius guardrail counted the isolation of a chip that was already dead as capacity taken away: on a pod
   at its cap it held the isolation, and the training job stayed unplaceable until the chip's repair (days). Only
   parts still in service count now.
2. A node reboot that failed ("the host did not come back") left the host dead for the rest of the run. Such a host
   now goes to a field repair (a ticket, ``control.part_replacement_s``) and rejoins the pool once it is back.
"""

from __future__ import annotations

import pytest

from faultlib.engine import Simulation
from faultlib.health import Health
from faultlib.injection.spec import FaultSpec
from faultlib.params import apply_overrides
from faultlib.simparams import SimParams
from faultlib.topology import Topology
from opsbrain.recovery import Guardrails, Orchestrator, RecoveryParams, RunbookSet, load_runbooks
from opsbrain.verdict import Diagnosis
from tests.test_orchestrator import training


@pytest.fixture(scope="module")
def rbs() -> RunbookSet:
    return load_runbooks()


def _pod_at_cap(sim: Simulation, nodes: list[str]) -> None:
    """Six free nodes isolated: 48 of 384 NPUs (and 6 of 48 nodes), the 12.5% cap of the pod."""
    for n in nodes:
        sim.state.set_health(n, Health.ISOLATED)


def test_a_dead_chip_on_a_pod_at_its_cap_is_isolated_and_the_job_placed(topo1: Topology, rbs: RunbookSet) -> None:
    sim, job = training(topo1, spares=2)
    _pod_at_cap(sim, sim.topology.nodes()[20:26])
    chip = f"{job.nodes[3]}/npu2"
    sim.inject(FaultSpec(at_s=100, kind="npu_off_bus", target=chip))
    sim.run(130)
    assert sim.state.health(chip) == Health.FAILED and job.state != "running"
    orch = Orchestrator(sim, rbs)
    orch.handle("off", Diagnosis("npu_off_bus", chip, 0.9))
    sim.run(sim.now + 3600)
    inc = orch.incident("off")
    assert not [a for a in inc["actions"] if a["kind"] == "guardrail"], inc["actions"]  # was: blast_radius, held
    assert inc["outcome"] == "completed" and sim.state.health(chip) == Health.ISOLATED
    assert job.state == "running" and job.nodes[3] != chip.rsplit("/", 1)[0]  # placed on a spare


def test_a_live_part_on_a_pod_at_its_cap_is_still_held(topo1: Topology) -> None:
    sim, _job = training(topo1, spares=2)
    nodes = sim.topology.nodes()
    _pod_at_cap(sim, nodes[20:26])
    g = Guardrails(RecoveryParams())
    live = g.check_isolation(sim, "isolate", f"{nodes[30]}/npu1", sim.now)
    assert not live.allowed and live.rule == "blast_radius" and live.detail["after"] == 49
    sim.state.set_health(f"{nodes[31]}/npu1", Health.FAILED)
    assert g.check_isolation(sim, "isolate", f"{nodes[31]}/npu1", sim.now).allowed  # dead: takes nothing away
    sim.state.set_health(nodes[32], Health.FAILED)  # a crashed host: neither it nor its chips serve
    assert g.check_isolation(sim, "isolate", nodes[32], sim.now).allowed
    assert g.check_isolation(sim, "isolate", f"{nodes[32]}/npu0", sim.now).allowed


def test_a_host_its_reboots_did_not_bring_back_is_repaired_and_rejoins_the_pool(topo1: Topology,
                                                                                rbs: RunbookSet) -> None:
    params = apply_overrides(SimParams(), {"control.reset_failure_prob": 1.0})  # every reboot fails
    sim, job = training(topo1, spares=2, params=params)
    node = job.nodes[4]
    sim.inject(FaultSpec(at_s=100, kind="node_crash", target=node))
    sim.run(110)
    orch = Orchestrator(sim, rbs)
    orch.handle("crash", Diagnosis("node_crash", node, 0.9))
    c = sim.params.control
    sim.run(110 + 3 * c.node_reboot_s.median + 600)  # the follow-up's reboot and its retry: both fail
    reboots = [a for a in orch.actions_for("crash") if a["action"] == "reboot_node"]
    assert [a["status"] for a in reboots] == ["failed", "failed"], reboots
    assert reboots[-1]["detail"]["reason"] == "the host did not come back"
    assert sim.state.health(node) == Health.ISOLATED and sim.state.host_down(node) and job.state == "running"
    ticket = next(f for f in orch.follow_ups("crash") if f["type"] == "ticket" and f["component"] == node)
    assert ticket["kind"] == "inspect" and ticket["closed_at_s"] is None and "did not come back" in ticket["reason"]
    sim.run(sim.now + c.part_replacement_s.median + 60)  # at its median: the field repair is done
    repair = next(a for a in orch.actions_for("crash") if a["action"] == "replace_part")
    assert (repair["kind"], repair["status"], repair["step"]) == ("followup", "succeeded", "host_not_back")
    assert repair["end_s"] - repair["start_s"] == pytest.approx(c.part_replacement_s.median)
    assert sim.state.health(node) == Health.HEALTHY and not sim.state.host_down(node)
    ticket = next(f for f in orch.follow_ups("crash") if f["type"] == "ticket" and f["component"] == node)
    assert node in sim.control.spares and ticket["closed_at_s"] == pytest.approx(repair["end_s"])
    back = [f for f in orch.follow_ups("crash") if f["type"] == "returned_to_spares" and f["component"] == node]
    assert len(back) == 1, back  # returned once (by the orchestrator: the node it took out is back)


def test_a_dead_node_of_a_tenant_at_its_cap_is_not_held() -> None:
    """The tenant slices' own blast radius (superpod-ops.md, tenant slices) takes the same rule."""
    from opsbrain.ops.tenant_run import build

    sim, _orch, guard, _ems, _ctl = build(0)
    guard.open("i1", "a")
    a_nodes = sorted(guard.map.tenants["a"].nodes, key=lambda n: int(n.rsplit("node", 1)[1]))
    allowed = int(guard.p.max_isolated_node_share * len(a_nodes))
    for n in a_nodes[:allowed]:
        sim.state.set_health(n, Health.ISOLATED, "test")
    live, dead = a_nodes[allowed], a_nodes[allowed + 1]
    assert "tenant blast radius" in (guard.refuse("i1", "isolate", [live]) or "")
    sim.state.set_health(dead, Health.FAILED, "test")
    assert guard.refuse("i1", "isolate", [dead]) is None


def test_a_reboot_that_outlived_its_step_and_failed_sends_the_host_to_repair(topo1: Topology,
                                                                            rbs: RunbookSet) -> None:
    """The replay's case: the trace holds the crashed host for hours, so the follow-up reboot outlives both its
    attempts' timeouts (the retry joins it in flight); it fails at its end, after the step gave up."""
    params = apply_overrides(SimParams(), {"control.reset_failure_prob": 1.0})
    sim, job = training(topo1, spares=2, params=params)
    node = job.nodes[4]
    sim.inject(FaultSpec(at_s=100, kind="node_crash", target=node))
    sim.run(110)
    sim.control.hold_for_repair(node, 110 + 6 * 3600.0)  # the trace's repair time: 6 h
    orch = Orchestrator(sim, rbs)
    orch.handle("crash", Diagnosis("node_crash", node, 0.9))
    sim.run(110 + 3 * 3600.0)
    reboots = [a for a in orch.actions_for("crash") if a["action"] == "reboot_node"]
    assert [a["status"] for a in reboots] == ["failed", "failed"] and "timed out" in reboots[-1]["detail"]["reason"]
    assert not [f for f in orch.follow_ups("crash") if f["type"] == "ticket"]  # the reboot is still under way
    c = sim.params.control
    sim.run(110 + 6 * 3600.0 + c.node_reboot_s.median + 60)  # the reboot ended: failed, the host did not come back
    ticket = next(f for f in orch.follow_ups("crash") if f["type"] == "ticket" and f["component"] == node)
    assert ticket["kind"] == "inspect" and ticket["closed_at_s"] is None
    sim.run(sim.now + c.part_replacement_s.median + 60)
    assert sim.state.health(node) == Health.HEALTHY and node in sim.control.spares
