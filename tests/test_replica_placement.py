"""Where a training node's in-memory checkpoint replica lives (``training.mem_ckpt_peer``): by default half the job
away (MindIO TTP's replica data-parallel halves), so a rack is no longer a place where both copies die together;
``next`` keeps the adjacent-node placement (DLRover's consecutive backup groups), where they do."""

from __future__ import annotations

import pytest

from faultlib.engine import Simulation
from faultlib.health import Health
from faultlib.topology import Topology
from faultlib.workloads.training import TrainingJob, TrainingParams


def job_on(topo: Topology, n: int, **over: object) -> tuple[Simulation, TrainingJob]:
    sim = Simulation(seed=3, topology=topo)
    job = TrainingJob("llm", sim.topology.nodes()[:n], TrainingParams().model_copy(update=over))
    sim.add_workload(job)
    return sim, job


def restart_source(sim: Simulation, job: TrainingJob, lost: list[str]) -> str:
    sim.run(1500)
    for nd in lost:
        sim.state.set_health(nd, Health.FAILED)
    spares = [n for n in sim.topology.nodes() if n not in job.nodes][:len(lost)]
    job.restart("memory", replace=dict(zip(lost, spares, strict=True)))
    return str(job.last_restart["source"] if job.last_restart else "")


def test_every_peer_is_half_the_job_away_in_another_rack(topo1: Topology) -> None:
    _sim, job = job_on(topo1, 46)
    peers = job.replica_peers()
    rack = topo1.rack_of
    assert peers[job.nodes[8]] == job.nodes[31] and peers[job.nodes[31]] == job.nodes[8]  # pairs for an even count
    assert all(rack[nd] != rack[p] for nd, p in peers.items())
    _sim, odd = job_on(topo1, 45)  # a scale-in can leave an odd count: a ring, every shard still copied once
    assert sorted(odd.replica_peers().values()) == sorted(odd.nodes)


@pytest.mark.parametrize("lost, source", [
    ([8, 9], "memory"),             # two adjacent nodes of one rack (rack 2)
    ([8, 9, 10, 11], "memory"),     # the whole rack loses power
    ([8, 28], "persistent"),        # a node and its replica peer: both copies gone
])
def test_a_rack_loss_keeps_the_in_memory_checkpoint(topo1: Topology, lost: list[int], source: str) -> None:
    sim, job = job_on(topo1, 40)  # 8 free nodes of the pod stand in for the lost ones
    assert restart_source(sim, job, [job.nodes[i] for i in lost]) == source


def test_next_placement_loses_both_copies_with_two_adjacent_nodes(topo1: Topology) -> None:
    sim, job = job_on(topo1, 46, mem_ckpt_peer="next")
    assert job.replica_peers()[job.nodes[8]] == job.nodes[9]
    assert restart_source(sim, job, [job.nodes[8], job.nodes[9]]) == "persistent"
