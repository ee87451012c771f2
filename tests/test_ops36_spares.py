"""Session 36: where the autoscaler, the day/night runner and the static layouts' repairer put new work -- never on a
node that is rebooting (RESETTING), failed, cordoned, or whose chips are down."""

from __future__ import annotations

from faultlib import ids
from faultlib.injection.spec import FaultSpec
from faultlib.workloads.elastic import ElasticInferenceService
from opsbrain.ops import schedule_run as sr
from opsbrain.ops.autoscaler import Autoscaler, AutoscalerParams
from opsbrain.ops.elastic_run import ElasticSetup, _placed, _sized
from opsbrain.ops.schedule import MidSwitchFault


def _scaler() -> Autoscaler:
    setup = ElasticSetup(pods=1, peak_tokens_per_s=60000.0, budget_npus=384, spare_nodes=2, faults=())
    z = _sized(setup, 0, AutoscalerParams())
    pre, dec = _placed(setup, "autoscale", z)
    svc = ElasticInferenceService("serve", pre, dec[0], z.sim.params.inference, extra_decode=dec[1:])
    z.sim.add_workload(svc)
    return Autoscaler(z.sim, svc, 384, z.usable + z.spares)


def test_the_autoscaler_places_on_no_rebooting_failed_cordoned_or_chip_down_node() -> None:
    sc = _scaler()
    sim = sc.sim
    n0, n1, n2, n3, n4 = sc.free_nodes()[:5]
    sim.control.reboot_node(n0)
    sim.inject(FaultSpec(at_s=0, kind="node_hang", target=n1))
    sim.inject(FaultSpec(at_s=0, kind="npu_off_bus", target=ids.npu(0, ids.index(n2, "node"), 0)))
    sim.control.cordon(n3)
    sim.run(30)
    assert str(sim.state.health(n0)) == "resetting"
    free = sc.free_nodes()
    assert n4 in free and not {n0, n1, n2, n3} & set(free)


def test_a_mid_switch_swap_takes_no_spare_whose_chip_is_down(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The first spare's NPU is off the bus; a node crashes mid-switch. Before: the swap took that spare (its node
    was up), the restart died on it and a second retry took the next spare (2 attempts)."""
    start = sr.ScheduleRunner.start

    def broken_first_spare(self: sr.ScheduleRunner, until: float) -> None:
        s = self.plan.spares[0]
        self.sim.inject(FaultSpec(at_s=0, kind="npu_off_bus", target=ids.npu(0, ids.index(s, "node"), 0)))
        start(self, until)

    monkeypatch.setattr(sr.ScheduleRunner, "start", broken_first_spare)
    out = sr.run_schedule(sr.ScheduleSetup(faults=(MidSwitchFault(0, 60, 3),)), 0)
    took = {v for r in out["replaced"] for v in r.values()}
    assert "pod0/node46" not in took and out["attempts"] == 1 and not out["failed"]


def test_the_autoscalers_opening_layout_keeps_to_the_budget() -> None:
    """Starting at the 14:00 peak with a 400-NPU budget: before, the opening layout was the demand's (3 decode + 2
    prefill = 544 NPUs) and the hour allocated 544 NPU-h against a budget of 400 NPU-h."""
    from opsbrain.ops.elastic_run import run_elastic

    setup = ElasticSetup(duration_s=3600.0, start_hour=14.0, budget_npus=400, faults=())
    out = run_elastic(setup, "autoscale", 0)
    assert 0 < out["npu_hours_allocated"] <= 400 * 1.0 + 1e-6
