"""The two baselines beside the auto policy: ``manual`` (a person with a pager) and ``vendor-default``
(MindCluster's out-of-the-box handling: machine detection, job-level reschedule from the persistent checkpoint)."""

from __future__ import annotations

import pytest

from faultlib.durations import Dist, at_medians
from faultlib.engine import Simulation
from faultlib.injection.spec import FaultSpec
from faultlib.simparams import SimParams
from faultlib.topology import Topology
from faultlib.workloads.training import TrainingJob
from opsbrain.recovery import Orchestrator
from opsbrain.recovery.loader import load_runbooks
from opsbrain.recovery.manual import ManualPolicy
from opsbrain.recovery.orchestrator import POLICIES
from opsbrain.recovery.params import VendorParams
from opsbrain.recovery.record import IncidentRecord
from opsbrain.recovery.schema import Step
from opsbrain.recovery.targets import Context
from opsbrain.recovery.vendor import VendorDefaultPolicy
from opsbrain.verdict import Diagnosis


def job_sim(topo: Topology, seed: int = 1) -> tuple[Simulation, TrainingJob]:
    """A training job launched with the CANN defaults (as a baseline launches it), stages at their medians."""
    sim = Simulation(params=at_medians(SimParams()), seed=seed, topology=topo)
    nodes = sim.topology.nodes()
    job = TrainingJob("llm", nodes[:8], sim.params.training)
    sim.add_workload(job)
    sim.control.set_spares(nodes[-2:])
    return sim, job


def test_vendor_default_detects_a_crashed_host_by_heartbeat_and_reschedules_the_whole_job(topo1: Topology) -> None:
    sim, job = job_sim(topo1)
    node = job.nodes[4]
    sim.inject(FaultSpec(at_s=100, kind="node_crash", target=node))
    sim.run(100)
    fixed = VendorParams(node_lost_s=Dist(median=40.0, p90=40.0))
    policy = VendorDefaultPolicy(sim, fixed)
    proc = policy.handle("v", Diagnosis("node_crash", node, 0.9))
    sim.run(20000)
    inc = proc.value
    assert inc["policy"] == "vendor-default" and inc["outcome"] == "completed"
    detect = inc["actions"][0]
    assert detect["detail"]["via"] == "node_heartbeat"
    assert inc["detected_at_s"] == pytest.approx(100 + fixed.heartbeat_lost_s + 40.0)
    assert inc["diagnosed_at_s"] == inc["detected_at_s"]  # no person triages: the fault's level decides
    restart = next(a for a in inc["actions"] if a["action"] == "restart_job")
    assert restart["status"] == "succeeded" and job.state == "running" and node not in job.nodes
    assert restart["detail"]["checkpoint"]["source"] == "persistent"  # the job-level reschedule: last saved step
    assert restart["end_s"] - restart["start_s"] > 200  # a full job launch
    # only the field repair of the dead host is a person's work: its ticket and the replacement that carries it out
    # are one human step
    repairs = [a["action"] for a in inc["actions"] if a["action"] in ("ticket", "replace_part")]
    assert sorted(repairs) == ["replace_part", "ticket"] and inc["human_steps"] == 1


def test_vendor_default_acts_on_a_fault_code_in_seconds_and_never_on_a_hang_before_the_timeout(
        topo1: Topology) -> None:
    sim, job = job_sim(topo1, seed=3)
    hbm = sim.topology.npus_of(job.nodes[2])[0] + "/hbm"
    policy = VendorDefaultPolicy(sim)
    proc = policy.handle("h", {"fault_class": "hbm_uce", "component": hbm})
    sim.run(50)
    assert proc.value["actions"][0]["detail"]["via"] == "fault_code"
    assert proc.value["detected_at_s"] < 60  # the fault-code path, p99 well under a minute

    sim2, job2 = job_sim(topo1, seed=3)
    sim2.run(10)
    sim2.inject(FaultSpec(at_s=10, kind="collective_timeout_sw", target=job2.nodes[1]))
    sim2.run(20)
    assert job2.state == "stalled"
    proc2 = VendorDefaultPolicy(sim2).handle("c", {"fault_class": "collective_timeout_sw", "component": job2.nodes[1]})
    sim2.run(4000)
    assert proc2.value["actions"][0]["detail"]["via"] == "collective_timeout"
    assert proc2.value["detected_at_s"] - 20 == pytest.approx(job2.p.hang_timeout_s)


def test_every_policy_is_accepted_and_a_wrong_one_refused(topo1: Topology) -> None:
    sim, _job = job_sim(topo1)
    rbs = load_runbooks()
    for p in POLICIES:
        assert Orchestrator(sim, rbs, policy=p).policy == p  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="vendor-default"):
        Orchestrator(sim, rbs, policy="vendor")  # type: ignore[arg-type]


def test_a_campaign_compares_the_auto_policy_with_each_baseline_on_the_same_seeds() -> None:
    from opsbrain.campaign.summary import compare

    def rec(seed: int, policy: str, ettr: float, lost: float, ttr: float) -> dict[str, object]:
        return {"seed": seed, "policy": policy,
                "workloads": [{"name": "train", "kind": "training", "ettr": ettr, "lost_npu_s": lost}],
                "faults": [{"kind": "node_crash", "component": "pod0/node3", "at_s": 100.0, "ttr_s": ttr}]}

    auto = [rec(1, "auto", 0.97, 100.0, 60.0), rec(2, "auto", 0.95, 300.0, 90.0)]
    vendor = [rec(1, "vendor-default", 0.90, 1000.0, 600.0), rec(3, "vendor-default", 0.5, 1.0, 1.0)]
    out = compare(auto, vendor, "vendor-default")
    assert out["seeds"] == [1]  # only the seeds both ran
    job = out["jobs"]["train"]
    assert job["ettr_auto"] == pytest.approx(0.97) and job["ettr_vendor-default"] == pytest.approx(0.90)
    assert job["per_seed"] == [{"seed": 1, "auto": 0.97, "vendor-default": 0.90}]
    assert job["lost_npu_s_reduction"] == pytest.approx(0.9)
    assert out["ttr_s"]["pairs"] == 1 and out["ttr_s"]["median_reduction"] == pytest.approx(0.9)


def test_vendor_default_leaves_a_flap_the_job_rode_out_as_a_report(topo1: Topology) -> None:
    sim, job = job_sim(topo1)
    link = sim.fabric.node_uplinks(job.nodes[2])[9]
    sim.inject(FaultSpec(at_s=100, kind="link_flap", target=link, params={"flaps": 2}))
    sim.run(100.5)
    proc = VendorDefaultPolicy(sim).handle("f", {"fault_class": "link_flap", "component": link})
    sim.env.run(until=proc)
    inc = proc.value
    assert job.state == "running" and job.accounting()["restarts"] == 0  # CANN's operator retry resumed it
    assert [a["action"] for a in inc["actions"] if a["kind"] == "step"] == []  # no ticket, no restart
    assert inc["human_steps"] == 0


def test_vendor_default_reschedules_a_job_a_dark_link_took_down(topo1: Topology) -> None:
    sim, job = job_sim(topo1)
    link = sim.fabric.node_uplinks(job.nodes[2])[9]
    sim.inject(FaultSpec(at_s=100, kind="link_down", target=link))
    sim.run(101)
    proc = VendorDefaultPolicy(sim).handle("d", {"fault_class": "link_down", "component": link})
    sim.run(20000)
    acts = [a["action"] for a in proc.value["actions"] if a["kind"] == "step"]
    assert "restart_job" in acts and job.state == "running" and job.accounting()["restarts"] == 1


@pytest.mark.parametrize("policy_name", ["vendor-default", "manual"])
def test_a_replacement_that_carries_out_its_ticket_is_not_a_second_human_step(topo1: Topology,
                                                                               policy_name: str) -> None:
    """A dead link's field repair is one person's work: the replacement ticket and the ``replace_part`` it sends
    are one human step, not two (vendor-default counted 2 for a link down with nobody else in the loop)."""
    sim, job = job_sim(topo1)
    link = sim.fabric.node_uplinks(job.nodes[2])[9]
    sim.inject(FaultSpec(at_s=100, kind="link_down", target=link))
    sim.run(101)
    policy = VendorDefaultPolicy(sim) if policy_name == "vendor-default" else ManualPolicy(sim)
    proc = policy.handle("d", {"fault_class": "link_down", "component": link})
    sim.run(200000)  # the replacement done (optics replacement: hours), after the response ended
    assert proc.triggered
    inc = policy.records["d"].as_dict(sim.now)
    steps = [(a["action"], a["status"]) for a in inc["actions"] if a["kind"] == "step"]
    assert ("ticket", "succeeded") in steps and ("replace_part", "succeeded") in steps
    assert ("restart_job", "succeeded") in steps
    if policy_name == "vendor-default":  # machine detection and reschedule: the field repair is the one step
        assert inc["human_steps"] == 1
    else:  # the person: noticing it (a page), triage, the field repair (ticket + replacement), the restart
        people = [a for a in inc["actions"] if a["kind"] == "manual" and a["detail"].get("via") == "person"]
        assert inc["human_steps"] == len(people) + 1 + 1 + 1


def test_a_replacement_without_a_ticket_is_still_a_human_step(topo1: Topology) -> None:
    """A node replaced in line (no spare left) under a ticket for another part, or with no ticket at all, is
    still a person's step: only the replacement of the part its own ticket names is folded into the ticket."""
    sim, _job = job_sim(topo1)
    rec = IncidentRecord("x", "vendor-default", False, 0.0, None)
    policy = VendorDefaultPolicy(sim)
    node = sim.topology.nodes()[3]
    ctx = Context(sim, node)
    step = Step.model_validate({"action": "replace_part", "target": "node_of(component)"})
    assert policy._human_step(rec, ctx, step)
    rec.follow_up("ticket", sim.topology.nodes()[4], 0.0, kind="replace")  # another node's ticket
    assert policy._human_step(rec, ctx, step)
    rec.follow_up("ticket", node, 0.0, kind="inspect")  # not a replacement ticket
    assert policy._human_step(rec, ctx, step)
    rec.follow_up("ticket", node, 0.0, kind="replace")
    assert not policy._human_step(rec, ctx, step)


@pytest.mark.parametrize("policy_name", ["vendor-default", "manual"])
def test_a_baseline_restart_swaps_every_job_node_with_a_dead_device_not_only_the_diagnosed_one(
        topo1: Topology, policy_name: str) -> None:
    """A device an earlier fault left dead (its part waiting for repair) does not fail every later restart: the
    baseline's reschedule leaves out every node marked faulty, as MindCluster's does (and a person's)."""
    from opsbrain.recovery.manual import ManualPolicy

    sim, job = job_sim(topo1, seed=5)
    dead_npu_node, crashed = job.nodes[2], job.nodes[4]
    sim.inject(FaultSpec(at_s=50, kind="npu_off_bus", target=sim.topology.npus_of(dead_npu_node)[1]))
    sim.inject(FaultSpec(at_s=100, kind="node_crash", target=crashed))
    sim.run(100)
    policy = VendorDefaultPolicy(sim) if policy_name == "vendor-default" else ManualPolicy(sim)
    proc = policy.handle("b", Diagnosis("node_crash", crashed, 0.9))
    sim.run(30000)
    inc = proc.value
    assert inc["outcome"] == "completed", inc["actions"]
    assert job.state in ("running", "checkpointing")
    assert crashed not in job.nodes and dead_npu_node not in job.nodes
    swaps = [a for a in inc["actions"] if a["action"] == "swap_spare" and a["status"] == "succeeded"]
    assert {a["target"] for a in swaps} == {crashed, dead_npu_node}
    assert not [a for a in inc["actions"] if a["action"] == "restart_job" and a["status"] == "failed"]
    # the crashed host, replaced by its ticket, is a free node again (the one with the dead NPU is not repaired)
    assert crashed in sim.control.spares and dead_npu_node not in sim.control.spares
    later = policy.records["b"].as_dict(sim.now)["follow_ups"]
    assert [f["component"] for f in later if f["type"] == "returned_to_spares"] == [crashed]


@pytest.mark.parametrize("policy_name", ["vendor-default", "manual"])
def test_a_baseline_restarts_a_job_a_connector_flap_took_down(topo1: Topology, policy_name: str) -> None:
    """A dirty-connector flap longer than CANN's default retry (HoldTime 5 s, MaxCnt 1) crashes the job; the class
    itself needs no repair, but the crashed job is rescheduled (MindCluster) or restarted by the person paged."""
    from faultlib.health import Health
    from opsbrain.recovery.manual import ManualPolicy

    sim, job = job_sim(topo1, seed=4)
    link = sim.fabric.node_uplinks(job.nodes[2])[9]
    sim.run(100)
    sim.state.set_health(link, Health.FAILED)
    sim.run(108)
    sim.state.set_health(link, Health.HEALTHY)  # back after the one re-execution at 105 found it dark
    assert job.state == "down"
    policy = VendorDefaultPolicy(sim) if policy_name == "vendor-default" else ManualPolicy(sim)
    proc = policy.handle("d", {"fault_class": "dirty_connector", "component": link})
    sim.run(30000)
    inc = proc.value
    assert inc["outcome"] == "completed" and job.state in ("running", "checkpointing")
    assert job.accounting()["restarts"] == 1
    assert [a["action"] for a in inc["actions"] if a["action"] == "restart_job"] == ["restart_job"]


@pytest.mark.parametrize("policy_name", ["vendor-default", "manual"])
def test_a_watch_only_incident_leaves_a_job_to_the_incident_already_restarting_it(
        topo1: Topology, policy_name: str) -> None:
    """A node crash takes the job down and a connector on another of its nodes flaps at the same time: two open
    incidents on one job. The crash's own ladder restarts the job; the watch-only connector incident waits for it
    and restarts nothing (one restart for one outage, not two)."""
    from faultlib.health import Health
    from opsbrain.recovery.manual import ManualPolicy

    sim, job = job_sim(topo1, seed=6)
    crashed = job.nodes[4]
    link = sim.fabric.node_uplinks(job.nodes[2])[9]
    sim.inject(FaultSpec(at_s=100, kind="node_crash", target=crashed))
    sim.run(100)
    sim.state.set_health(link, Health.FAILED)
    sim.run(101)
    sim.state.set_health(link, Health.HEALTHY)
    assert job.state in ("stalled", "down")
    policy = (VendorDefaultPolicy(sim, VendorParams(node_lost_s=Dist(median=40.0, p90=40.0)))
              if policy_name == "vendor-default" else ManualPolicy(sim))
    crash = policy.handle("crash", Diagnosis("node_crash", crashed, 0.9))
    flap = policy.handle("flap", {"fault_class": "dirty_connector", "component": link})
    sim.run(40000)
    assert crash.value["outcome"] == "completed" and flap.value["outcome"] == "completed"
    assert job.state in ("running", "checkpointing") and crashed not in job.nodes
    assert job.accounting()["restarts"] == 1
    restarts = {i["id"]: [a for a in i["actions"] if a["action"] == "restart_job"] for i in (crash.value, flap.value)}
    assert len(restarts["crash"]) == 1 and restarts["flap"] == []


def test_two_watch_only_incidents_on_one_downed_job_restart_it_once(topo1: Topology) -> None:
    """Two connectors of one job flap past CANN's default retry together: the first incident to act restarts the
    job, the second waits for it and finds the job running."""
    from faultlib.health import Health

    sim, job = job_sim(topo1, seed=4)
    links = [sim.fabric.node_uplinks(job.nodes[2])[9], sim.fabric.node_uplinks(job.nodes[5])[3]]
    sim.run(100)
    for link in links:
        sim.state.set_health(link, Health.FAILED)
    sim.run(108)
    for link in links:
        sim.state.set_health(link, Health.HEALTHY)
    assert job.state == "down"
    policy = VendorDefaultPolicy(sim)
    procs = [policy.handle(f"d{k}", {"fault_class": "dirty_connector", "component": lk}) for k, lk in enumerate(links)]
    sim.run(30000)
    assert all(p.value["outcome"] == "completed" for p in procs)
    assert job.state in ("running", "checkpointing") and job.accounting()["restarts"] == 1
    assert sum(a["action"] == "restart_job" for p in procs for a in p.value["actions"]) == 1


def test_a_watch_only_incident_does_not_restart_a_job_another_flap_stalls_for_a_moment(topo1: Topology) -> None:
    """The person paged for a connector flap the job rode out finds the job stalled by another link's flap at that
    moment: the collective retry decides, and resumes it; nothing is restarted (the eager rule restarted it)."""
    from faultlib.health import Health
    from opsbrain.recovery.manual import ManualPolicy
    from opsbrain.recovery.params import ManualParams

    sim, job = job_sim(topo1, seed=7)
    flapped, other = sim.fabric.node_uplinks(job.nodes[2])[9], sim.fabric.node_uplinks(job.nodes[6])[4]
    sim.run(100)
    people = ManualParams(page_response_median_s=600.0, page_response_sigma=0.0, diagnosis_median_s=600.0,
                          diagnosis_sigma=0.0)
    proc = ManualPolicy(sim, people).handle("d", {"fault_class": "dirty_connector", "component": flapped})
    sim.run(1299)
    sim.state.set_health(other, Health.FAILED)
    sim.run(1302)
    sim.state.set_health(other, Health.HEALTHY)  # back before CANN's re-execution at HoldTime 5 s
    assert job.state == "stalled"  # what the person sees when their triage ends at 1300
    sim.run(5000)
    assert proc.value["outcome"] == "completed" and job.state in ("running", "checkpointing")
    assert job.accounting()["restarts"] == 0
    assert not [a for a in proc.value["actions"] if a["action"] == "restart_job"]


@pytest.mark.parametrize("policy_name", ["vendor-default", "manual"])
def test_with_no_spare_left_the_replaced_chip_lets_the_job_restart_and_a_swapped_node_rejoins_the_pool(
        topo1: Topology, policy_name: str) -> None:
    """Issue 16, the ETTR trap of manual / vendor-default seed 4: a hung AI Core (no repair time: its die stays
    failed until a person acts) on a pod with no warm spare left. The baseline replaces the chip and restarts the
    job on it; a second hang, on a pod that still had a spare, swaps its node out, and once the chip's replacement
    is in, that node is a free spare again. Before the fix the new chip's die stayed failed: every restart of the
    job failed on it and the swapped node never came back."""
    from opsbrain.recovery.manual import ManualPolicy

    sim, job = job_sim(topo1, seed=6)
    sim.control.set_spares([])  # the pod's warm spares are used up
    first = sim.topology.npus_of(job.nodes[2])[4]
    sim.inject(FaultSpec(at_s=100, kind="aicore_hang", target=f"{first}/die0"))
    sim.run(100)
    policy = VendorDefaultPolicy(sim) if policy_name == "vendor-default" else ManualPolicy(sim)
    proc = policy.handle("a", Diagnosis("aicore_hang", first, 0.9))
    sim.run(4 * 86400)
    inc = proc.value
    restarts = [a for a in inc["actions"] if a["action"] == "restart_job"]
    assert inc["outcome"] == "completed", inc["actions"]
    assert [a["status"] for a in restarts][-1] == "succeeded" and job.state in ("running", "checkpointing")
    assert not [a for a in restarts if a["detail"].get("reason") == "the workload did not come back"]
    assert job.nodes[2] == topo1.nodes()[2]  # restarted where it was, on the new chip

    spare = topo1.nodes()[-1]
    sim.control.set_spares([spare])
    second = sim.topology.npus_of(job.nodes[5])[1]
    swapped = job.nodes[5]
    sim.inject(FaultSpec(at_s=sim.now + 10, kind="aicore_hang", target=f"{second}/die1"))
    sim.run(sim.now + 10)
    proc2 = policy.handle("b", Diagnosis("aicore_hang", second, 0.9))
    sim.run(sim.now + 4 * 86400)
    assert proc2.value["outcome"] == "completed" and spare in job.nodes and swapped not in job.nodes
    now = policy.records["b"].as_dict(sim.now)  # the replacement runs on after the response ended
    assert [a["status"] for a in now["actions"] if a["action"] == "replace_part"] == ["succeeded"]
    assert sim.control.spares == [swapped]  # the swapped node, its chip replaced, is a warm spare again
    assert [f["component"] for f in now["follow_ups"] if f["type"] == "returned_to_spares"] == [swapped]


@pytest.mark.parametrize("policy_name", ["vendor-default", "manual"])
def test_a_restart_re_run_leaves_out_a_node_whose_device_died_during_the_failed_attempt(
        topo1: Topology, policy_name: str) -> None:
    """Issue 16 (ETTR trace, manual seed 4): a chip went off the bus while a restart was under way; the restart
    failed on it and the person re-ran the same restart, with the dead chip, twice more. A re-run now first swaps
    out the node whose device died (its rank's error names it; MindCluster reschedules away from it)."""
    from opsbrain.recovery.manual import ManualPolicy

    sim, job = job_sim(topo1, seed=2)
    sim.inject(FaultSpec(at_s=100, kind="collective_timeout_sw", target=job.nodes[1]))
    sim.run(110)
    policy = VendorDefaultPolicy(sim) if policy_name == "vendor-default" else ManualPolicy(sim)
    proc = policy.handle("c", {"fault_class": "collective_timeout_sw", "component": job.nodes[1]})
    while job.state != "restarting":
        sim.run(sim.now + 1)
    dying = job.nodes[6]
    sim.inject(FaultSpec(at_s=sim.now + 5, kind="npu_off_bus", target=sim.topology.npus_of(dying)[2]))
    sim.run(sim.now + 86400)
    inc = proc.value
    restarts = [a for a in inc["actions"] if a["action"] == "restart_job"]
    assert restarts[0]["status"] == "failed" and restarts[-1]["status"] == "succeeded", restarts
    assert len(restarts) == 2 and inc["outcome"] == "completed"
    swaps = [a for a in inc["actions"] if a["action"] == "swap_spare"]
    assert [(a["target"], a["status"]) for a in swaps] == [(dying, "succeeded")]
    assert swaps[0]["start_s"] >= restarts[0]["end_s"] and dying not in job.nodes
    assert job.state in ("running", "checkpointing")


@pytest.mark.parametrize("policy_name", ["vendor-default", "manual"])
def test_a_baseline_does_not_restart_a_job_another_restart_brought_back_during_its_repair(
        topo1: Topology, policy_name: str) -> None:
    """Issue 16 (ETTR trace, manual seed 4): with no spare left the baseline replaces the hung chip first (hours);
    when another incident's restart has brought the job back meanwhile (without that node), the replacement ends
    the response: restarting the running job again would throw away the work since the last persistent
    checkpoint."""
    from opsbrain.recovery.manual import ManualPolicy

    sim, job = job_sim(topo1, seed=6)
    sim.control.set_spares([])
    node = job.nodes[2]
    npu = sim.topology.npus_of(node)[4]
    sim.inject(FaultSpec(at_s=100, kind="aicore_hang", target=f"{npu}/die0"))
    sim.run(100)
    policy = VendorDefaultPolicy(sim) if policy_name == "vendor-default" else ManualPolicy(sim)
    proc = policy.handle("a", Diagnosis("aicore_hang", npu, 0.9))
    while not any(a["action"] == "replace_part" for a in policy.records["a"].as_dict(sim.now)["actions"]):
        sim.run(sim.now + 10)
    sim.control.p = sim.control.p.model_copy(update={"restart_failure_prob": 0.0})
    other = sim.control.restart_job("llm", "persistent", replace={node: topo1.nodes()[-1]})  # someone else's
    sim.run(4 * 86400)
    assert other.value.status == "succeeded" and job.state in ("running", "checkpointing")
    inc = proc.value
    assert inc["outcome"] == "completed" and node not in job.nodes
    assert [a for a in inc["actions"] if a["action"] == "replace_part"][0]["status"] == "succeeded"
    assert not [a for a in inc["actions"] if a["action"] == "restart_job"]
    assert job.accounting()["restarts"] == 1


def test_a_baseline_gives_back_a_spare_its_joined_restart_did_not_use(topo1: Topology) -> None:
    """Two incidents of one job: a hang's reschedule (b) leaves out a node whose chip hung meanwhile, with the first
    spare; the chip's own response (a), diagnosed while b's restart is under way, takes the second spare and joins
    b's restart, which brings the job back without it. The second spare then goes back to the pool (as under the
    auto policy) instead of being lost to it: before, the pool shrank by one spare for every such pair, which is how
    long runs ran out of spares."""
    sim, job = job_sim(topo1, seed=2)
    first, second = sim.control.spares
    sim.inject(FaultSpec(at_s=100, kind="collective_timeout_sw", target=job.nodes[1]))
    sim.run(110)
    policy = VendorDefaultPolicy(sim)
    b = policy.handle("b", {"fault_class": "collective_timeout_sw", "component": job.nodes[1]})
    node = job.nodes[5]
    npu = sim.topology.npus_of(node)[2]
    sim.inject(FaultSpec(at_s=1850, kind="aicore_hang", target=f"{npu}/die0"))
    sim.run(1909)  # b's reschedule starts at ~1910 (the 1800 s collective timeout), a's lands a few seconds later
    a = policy.handle("a", Diagnosis("aicore_hang", npu, 0.9))
    sim.run(sim.now + 3 * 86400)
    assert b.value["outcome"] == "completed" and job.state in ("running", "checkpointing")
    took = [x["detail"].get("spare") for x in a.value["actions"] if x["action"] == "swap_spare"]
    joined = [x for x in a.value["actions"] if x["action"] == "restart_job" and x["detail"].get("joined")]
    assert took == [second] and joined and first in job.nodes and node not in job.nodes  # the shape traced
    assert second in sim.control.spares and second not in job.nodes  # given back, not lost
    returned = [f["component"] for f in policy.records["a"].as_dict(sim.now)["follow_ups"]
                if f["type"] == "returned_to_spares"]
    assert second in returned
