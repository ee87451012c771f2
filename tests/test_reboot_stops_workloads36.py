"""A host reboot kills every process on the host, whatever its health was (session 36, branch twin36).

Before: ``control.reboot_node`` of a HEALTHY node (an operator's reboot, a reboot chosen for a hang that was
elsewhere) stopped the host's log lines and exporters (session 35) but left its health HEALTHY, and workloads learn
of an outage only from health changes: the training ranks and inference replicas on it ran through the reboot
window (ETTR 1.0, no stall, no peer report). Now the node is RESETTING from the reboot's start until it is back
(HEALTHY) or the reboot failed (FAILED), the way a chip reset already shows: the job's ranks there die and the
peers stall and report as for a crashed node, the replica there hangs and goes down; both come back through the
existing restarts. A node already out of service (a crashed, hung or isolated host) keeps its state."""

from __future__ import annotations

from typing import Any

from faultlib.durations import at_medians
from faultlib.engine import Simulation
from faultlib.health import Health
from faultlib.injection.spec import FaultSpec
from faultlib.params import apply_overrides
from faultlib.simparams import SimParams
from faultlib.telemetry import formats as fmt
from faultlib.topology import Topology
from faultlib.workloads.inference import InferenceService, paper_layout
from faultlib.workloads.training import TrainingJob

T0 = 600.0  # the reboot's start


def _world(topo: Topology, fail_reboot: bool = False) -> tuple[Simulation, TrainingJob, InferenceService]:
    """Inference on nodes 0-31 (the paper's layout), an 8-node training job on nodes 32-39, two spares; durations
    at their medians (a reboot takes control.node_reboot_s's median, 600 s)."""
    over: dict[str, Any] = {"control.reset_failure_prob": 1.0 if fail_reboot else 0.0,
                            "control.restart_failure_prob": 0.0}
    sim = Simulation(at_medians(apply_overrides(SimParams(), over)), seed=3, topology=topo)
    pre, dec = paper_layout(sim.topology)
    nodes = sim.topology.nodes()
    svc, job = InferenceService("serve", pre, dec), TrainingJob("train", nodes[32:40])
    sim.add_workload(svc)
    sim.add_workload(job)
    sim.control.set_spares(nodes[-2:])
    return sim, job, svc


def _health_changes(sim: Simulation, node: str) -> list[tuple[float, str, str]]:
    return [(e.t, str(e.detail["new"]), str(e.detail["cause"])) for e in sim.trace.of_kind("health")
            if e.subject == node]


def test_reboot_of_a_healthy_node_kills_its_training_ranks(topo1: Topology) -> None:
    sim, job, _svc = _world(topo1)
    node = job.nodes[3]
    sim.run(T0)
    base = job.throughput_at(T0 - 1)
    reboot = sim.control.reboot_node(node)
    sim.run(T0 + 1)
    assert sim.state.health(node) == Health.RESETTING
    assert job.state == "stalled" and job.throughput_at(T0 + 1) == 0.0  # its ranks died with the host
    sim.run(T0 + sim.params.faults.peer_timeout_report_s + 1)
    # the peers print the notify-wait timeouts they print for a crashed node, naming the rebooted host
    waits = [ln for ln in sim.telemetry.logs if ln.t >= T0 and ln.source == "plog"]
    assert waits and all(fmt.host_ip(node) in ln.text for ln in waits)
    assert {ln.origin for ln in waits} == set(job.nodes) - {node}
    sim.run(T0 + 700)
    assert reboot.value.status == "succeeded" and sim.state.health(node) == Health.HEALTHY
    assert [h[1] for h in _health_changes(sim, node)] == ["resetting", "healthy"]
    assert job.state == "stalled"  # a dead rank does not come back with its host: the stall runs to the timeout
    sim.run(T0 + job.p.hang_timeout_s + 10)
    assert job.state == "down" and job.accounting()["timeouts"] == 1
    restart = sim.control.restart_job("train", source="persistent")  # the restart a node crash gets
    sim.run(sim.now + 3600)
    assert restart.value.status == "succeeded" and job.state == "running"
    assert job.throughput_at(sim.now) >= 0.99 * base
    acc = job.accounting()
    assert acc["ettr"] < 0.9 and acc["lost_npu_s"] > 0


def test_reboot_of_a_healthy_node_takes_its_inference_replica_down(topo1: Topology) -> None:
    sim, _job, svc = _world(topo1)
    pre, dec = paper_layout(sim.topology)
    node = dec[2]
    inst = svc.instance_of(node)
    assert inst is not None
    sim.run(T0)
    base = svc.throughput_at(T0 - 1)
    sim.control.reboot_node(node)
    sim.run(T0 + 1)
    assert svc.instances()[inst]["state"] == "hung"
    sim.run(T0 + svc.p.hang_timeout_s + 1)
    assert svc.instances()[inst]["state"] == "down"
    assert svc.throughput_at(sim.now) < 0.5 * base
    sim.run(T0 + 700)
    assert sim.state.health(node) == Health.HEALTHY
    restart = sim.control.restart_instance("serve", inst)
    sim.run(sim.now + 3600)
    assert restart.value.status == "succeeded" and svc.instances()[inst]["state"] == "running"
    assert svc.throughput_at(sim.now) >= 0.95 * base
    assert svc.accounting()["lost_tokens"] > 0


def test_failed_reboot_of_a_healthy_node_leaves_it_failed_for_its_workloads(topo1: Topology) -> None:
    sim, job, svc = _world(topo1, fail_reboot=True)
    node, inode = job.nodes[3], paper_layout(sim.topology)[1][2]
    sim.run(T0)
    sim.control.reboot_node(node)
    sim.control.reboot_node(inode)
    sim.run(T0 + 700)
    assert [h[1] for h in _health_changes(sim, node)] == ["resetting", "failed"]
    assert sim.state.host_down(node)  # the host did not come back: it writes nothing yet
    assert job.state == "stalled" and job.throughput_at(T0 + 1) == 0.0
    inst = svc.instance_of(inode)
    assert inst is not None and svc.instances()[inst]["state"] == "down"
    restart = sim.control.restart_job("train", source="persistent")  # in place: its node is still failed
    sim.run(sim.now + 3600)
    assert job.state != "running" and restart.value.status == "failed"


def test_reboot_of_a_crashed_node_keeps_it_failed_until_it_is_back(topo1: Topology) -> None:
    """A host that is already down (crashed) shows no RESETTING: its workloads already saw it fail."""
    sim, job, _svc = _world(topo1)
    node = job.nodes[3]
    sim.inject(FaultSpec(at_s=100, kind="node_crash", target=node, params={}, duration_s=None))
    sim.run(T0)
    sim.control.reboot_node(node)
    sim.run(T0 + 700)
    assert [h[1] for h in _health_changes(sim, node)] == ["failed", "healthy"]
