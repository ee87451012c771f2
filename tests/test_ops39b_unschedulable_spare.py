"""Session 39 (ops39b): a pool node with a chip out of service is not taken, and a chip that fails dooms a restart.

The replay of the published InfiniteHBD trace (seed 0, day 265.2, ``f0421``): a chip of a warm spare in the pool
(``pod2/node19``, running nothing) had its HBM rows exhausted; its response isolated the chip and opened a
replacement ticket (~19 h), the node staying in its pod's pool. A scale-in elsewhere then ended, and the rescale back
out took that node (the pool check read the host's health only), ran its 66 s and failed at its end; the job stayed
down until the chip was replaced. A scheduler places no rank on a chip its device plugin reports unhealthy
(``huawei.com/Ascend910-Unhealthy``, docs/en/scheduling/api/ascend_device_plugin.md in github.com/Ascend/mind-cluster):
the node stays in the pool, unschedulable until its chip is back. The same holds for a spare swap. And a restart of
ours is stopped when a chip of a node it places ranks on fails, not only when one is isolated.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from faultlib.health import Health
from faultlib.simparams import SimParams
from faultlib.topology import Topology
from opsbrain.recovery import Orchestrator, load_runbooks
from opsbrain.recovery.record import IncidentRecord
from tests.test_ops38_doomed_restart import _complete
from tests.test_ops39_scale_out_stop import _rescaling
from tests.test_orchestrator import diag, training
from tests.test_scale_out import _scaled_in
from tests.test_spare_self_check_repair import RUNBOOK as SWAP


def test_a_scale_out_leaves_a_pool_node_with_a_chip_out_of_service(topo1: Topology) -> None:
    sim, job, dead, _s = _scaled_in(topo1)
    orch = Orchestrator(sim)
    rec = IncidentRecord("i1", "auto", False, sim.now, None)
    orch.records["i1"] = rec
    sim.control.p = sim.control.p.model_copy(update={"restart_failure_prob": 0.0, "spare_failure_prob": 0.0})
    chip = f"{dead}/npu1"
    sim.state.set_health(dead, Health.HEALTHY, cause="repaired")
    sim.state.set_health(chip, Health.ISOLATED, cause="isolate")  # its replacement ticket still open
    orch.scale_out.note_scale_in("llm", rec)
    orch.exec.return_spare(dead, rec, how="back in service")
    sim.run(sim.now + 600)
    # before: the rescale took it and failed at its end ("the workload did not come back"), the job down
    assert not [a for a in rec.actions_view(sim.now) if a["action"] == "scale_out"]
    assert dead in sim.control.spares and job.state == "running" and len(job.nodes) == 7
    sim.state.set_health(chip, Health.HEALTHY, cause="replaced")  # the chip is back: the node is schedulable
    sim.run(sim.now + 1800)
    out = next(a for a in rec.actions_view(sim.now) if a["action"] == "scale_out")
    assert out["status"] == "succeeded" and out["detail"]["add"] == [dead] and len(job.nodes) == 8
    _complete(rec.actions_view(sim.now))


def test_a_spare_swap_skips_a_pool_node_with_a_failed_chip(topo1: Topology, tmp_path: Path) -> None:
    (tmp_path / "rb-swap-once.yaml").write_text(SWAP)
    sim, job = training(topo1, spares=2, params=SimParams())
    bad, good = sim.control.spares[:2]
    sim.run(100)
    sim.state.set_health(f"{bad}/npu0", Health.FAILED, cause="test")
    orch = Orchestrator(sim, load_runbooks([tmp_path]))
    orch.handle("hang", diag("node_hang", job.nodes[3]))
    sim.run(110)
    swap = next(a for a in orch.actions_for("hang") if a["action"] == "swap_spare")
    if swap["status"] == "failed":  # the drawn self-check of the good spare may fail; never the bad one taken
        assert swap["detail"].get("spare") == good
    else:
        assert swap["detail"]["spare"] == good  # before: the first of the pool, its chip dead
    assert bad in sim.control.spares


def test_a_scale_out_is_stopped_when_a_chip_of_its_job_fails(topo1: Topology) -> None:
    orch, rec, job = _rescaling(topo1)
    sim = orch.sim
    chip = f"{job.nodes[2]}/npu1"
    sim.state.set_health(chip, Health.FAILED, cause="fault")  # not isolated: a chip that simply fails
    sim.run(sim.now + 0.001)
    out = next(a for a in rec.actions_view(sim.now) if a["action"] == "scale_out")
    assert out["status"] == "cancelled" and out["end_s"] == pytest.approx(sim.now, abs=0.01), out  # was its end
    assert f"{chip} failed (no response holds it yet)" in out["detail"]["reason"]
    assert out["detail"]["doomed_by"] == chip and job.state == "down"
    _complete(rec.actions_view(sim.now))


def test_a_chip_being_reset_does_not_stop_a_restart(topo1: Topology) -> None:
    orch, rec, job = _rescaling(topo1)
    sim = orch.sim
    sim.state.set_health(f"{job.nodes[2]}/npu1", Health.RESETTING, cause="reset")  # may be back before its end
    sim.run(sim.now + 0.001)
    out = next(a for a in rec.actions_view(sim.now) if a["action"] == "scale_out")
    assert out["detail"].get("in_flight") and job.state == "restarting"
