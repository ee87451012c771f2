"""Session 39: a pool node whose chip comes back in service wakes a repair step waiting for a spare of its pod.

A pod's only warm spare has a chip isolated (its replacement ticket open): a node crash with a long repair finds no
schedulable spare (ops39b: a chip out of service keeps a pool node unschedulable) and waits at ``wait_for_repair``
with ``take_returning_spare``. When the spare's chip is back, the node is schedulable again and the waiting response
takes it at once, as it takes a node returned to the pool. Before, only a node returned to the pool woke the waiter:
the response waited for the crashed node's own repair (10 h here), the job down.
"""

from __future__ import annotations

from faultlib.health import Health
from faultlib.injection.spec import FaultSpec
from opsbrain.recovery import Orchestrator, load_runbooks
from opsbrain.verdict import Diagnosis
from tests.test_returning_spare import NO_SCALE_IN, _world


def test_a_spare_whose_chip_is_back_is_taken_by_the_waiting_response(topo1) -> None:  # type: ignore[no-untyped-def]
    sim, job, spare = _world(topo1)
    chip = f"{spare}/npu1"
    sim.state.set_health(chip, Health.ISOLATED, cause="isolate")  # a replacement ticket still open
    crashed = job.nodes[4]
    sim.inject(FaultSpec(at_s=100, kind="node_crash", target=crashed, duration_s=36000.0))
    orch = Orchestrator(sim, load_runbooks(), params=NO_SCALE_IN)
    sim.run(110)
    orch.handle("crash", Diagnosis("node_crash", crashed, 0.95))
    sim.run(2000)
    assert spare in sim.control.spares and spare not in job.nodes  # unschedulable: not taken
    sim.state.set_health(chip, Health.HEALTHY, cause="replaced")  # the chip is back at 2,000 s
    sim.run(4 * 3600)
    inc = orch.incident("crash")
    took = [a for a in inc["actions"] if (a.get("detail") or {}).get("took_returning_spare")]
    assert took and took[-1]["detail"]["spare"] == spare, inc["actions"]
    assert 2000 <= took[-1]["end_s"] < 2001  # at once: before, it waited for the crashed node's 10 h repair
    assert spare in job.nodes and crashed not in job.nodes and job.state in ("running", "checkpointing")
    used = [f for f in orch.follow_ups("crash") if f["type"] == "spare_used" and f["component"] == spare]
    assert used and used[0]["returned"] is True
