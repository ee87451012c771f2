"""One simulated day of the day/night plan: a serving pod whose flexible group trains at night.

Layout on one pod (48 nodes): a base group that always serves (decode x 20 nodes, 2 prefill x 2 nodes), a flexible
group (decode x 20 nodes, 1 prefill x 2 nodes) that trains from 22:00 to 06:00, two spare nodes. Demand follows the
diurnal curve, its peak at ``peak_load`` of the day layout's decode capacity at the 15 ms TPOT bound (the SLO).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from faultlib import ids
from faultlib.engine import Simulation
from faultlib.workloads.demand import curve_for, drive_demand
from faultlib.workloads.elastic import ElasticInferenceService, WeightsFrom
from faultlib.workloads.switch import HandbackCheckpoint, Inflight
from faultlib.workloads.weight_load import WeightAccounting
from opsbrain.ops.schedule import (
    Group,
    MidSwitchFault,
    Rule,
    SchedulePlan,
    ScheduleRunner,
    SwitchOps,
    switch_stats,
)
from opsbrain.ops.setup import ops_params


@dataclass(frozen=True)
class ScheduleSetup:
    duration_s: float = 86400.0 + 7 * 3600.0  # one night and the next morning's hand-back: 00:00 to 07:00 next day
    dusk: str = "0 22 * * *"
    dawn: str = "0 6 * * *"
    peak_load: float = 0.7
    handback_deadline_s: float = 120.0
    faults: tuple[MidSwitchFault, ...] = ()
    params: dict[str, Any] = field(default_factory=dict)
    handback_checkpoint: HandbackCheckpoint = "storage"
    ops: SwitchOps = SwitchOps()
    dusk_inflight: Inflight = "drain"
    # sensitivity only (benchmarks/bench_switch.py --sensitivity); the defaults are the twin's model
    weights_accounting: WeightAccounting = "resident"
    relaunch_overlap: float = 0.0
    weights_source: WeightsFrom = "ems"  # "peer": an operator's choice (checkpoint-engine P2P), not sensitivity


def default_plan(sim: Simulation, setup: ScheduleSetup) -> tuple[list[Group], list[str]]:
    """(groups, spares) of the built-in layout on pod 0."""
    n = [ids.node(0, i) for i in range(sim.topology.params.nodes_per_pod)]
    ip = sim.params.inference
    d, k = ip.decode_nodes, ip.prefill_nodes_per_instance
    base = Group("base", (("decode", tuple(n[:d])), ("prefill", tuple(n[d:d + k])),
                          ("prefill", tuple(n[d + k:d + 2 * k]))))
    o = d + 2 * k
    flex = Group("flex", (("decode", tuple(n[o:o + d])), ("prefill", tuple(n[o + d:o + d + k]))))
    return [base, flex], n[o + d + k:]


def stats_handbacks(runner: ScheduleRunner) -> list[dict[str, Any]]:
    return [r.handback for r in runner.records if r.handback]


def run_schedule(setup: ScheduleSetup, seed: int) -> dict[str, Any]:
    params = ops_params(setup.params)
    sim = Simulation(params, seed=seed, pods=1)
    groups, spares = default_plan(sim, setup)
    pre = [list(ns) for g in groups for r, ns in g.instances if r == "prefill"]
    dec = [list(ns) for g in groups for r, ns in g.instances if r == "decode"]
    svc = ElasticInferenceService("serve", pre, dec[0], sim.params.inference, extra_decode=dec[1:])
    svc.weights_accounting, svc.relaunch_overlap = setup.weights_accounting, setup.relaunch_overlap
    svc.weights_source = setup.weights_source
    sim.add_workload(svc)
    cap = (svc.capacity_per_npu()["decode_tokens_per_s_per_npu_tight"] * len(dec[0])
           * sim.topology.params.npus_per_node * len(dec))
    curve = curve_for(sim, setup.peak_load * cap, setup.duration_s)
    sim.env.process(drive_demand(sim, svc, curve))
    plan = SchedulePlan(tuple(groups), (Rule(setup.dusk, "flex", "training"), Rule(setup.dawn, "flex", "inference")),
                        tuple(spares), setup.handback_deadline_s, setup.faults, setup.handback_checkpoint,
                        setup.ops, setup.dusk_inflight)
    runner = ScheduleRunner(sim, svc, plan)
    runner.start(setup.duration_s)
    sim.run(setup.duration_s)
    stats = switch_stats(runner.records)
    stats.update(seed=seed, operation=setup.ops.name, switches=len(runner.records), skipped=len(runner.skipped),
                 slo_attainment=svc.slo_attainment(), peer_fallbacks=svc.peer_fallbacks,
                 replaced=[r.replaced for r in runner.records if r.replaced],
                 handback_detail=[r.handback for r in runner.records if r.handback],
                 training={h["job"]: h["trained"] for h in stats_handbacks(runner)},
                 waited_s=[r.waited_s for r in runner.records + runner.skipped if r.waited_s > 0],
                 switch_spans=[(r.start_s, r.end_s) for r in runner.records])
    stats["waited"] = len(stats["waited_s"])
    return stats
