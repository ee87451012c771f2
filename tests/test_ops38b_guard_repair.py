"""Session 38 (ops38b): two operations defects the replay of the InfiniteHBD trace showed.

1. The blast-radius guardrail counted the isolation of a chip that was already dead as capacity taken away: on a pod
   at its cap it held the isolation, and the training job stayed unplaceable until the chip's repair (days). Only
   parts still in service count now.
2. A node reboot that failed ("the host did not come back") left the host dead for the rest of the run. Such a host
   now goes to a field repair (a ticket, ``control.part_replacement_s``) and rejoins the pool once it is back.
"""

from __future__ import annotations

import pytest

from faultlib.health import Health
from faultlib.injection.spec import FaultSpec
from faultlib.topology import Topology
from opsbrain.recovery import Guardrails, Orchestrator, RecoveryParams, RunbookSet, load_runbooks
from opsbrain.verdict import Diagnosis
from tests.test_orchestrator import training


@pytest.fixture(scope="module")
def rbs() -> RunbookSet:
    return load_runbooks()


def _pod_at_cap(sim, nodes: list[str]) -> None:  # type: ignore[no-untyped-def]
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
