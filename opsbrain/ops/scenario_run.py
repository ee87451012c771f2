"""Run a scenario's ``spec.superpod`` block over seeds, optionally over a grid of demand scales and tenant fault
counts (the campaign option); summarise each experiment as p50/p90 over seeds."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any

import numpy as np

from faultlib import ids
from opsbrain.ops.elastic_run import ElasticSetup, LayoutError, check_layouts, run_elastic
from opsbrain.ops.schedule import OVERLAPPED, MidSwitchFault, SwitchOps
from opsbrain.ops.schedule_run import ScheduleSetup, run_schedule
from opsbrain.ops.setup import ops_params
from opsbrain.ops.tenant_run import TENANT_NODES, CampaignItem, run_campaign
from opsbrain.scenario.superpod import ElasticBlock, ScheduleBlock, SuperpodSpec, TenantsBlock

RANDOM_KINDS = ("node_crash", "hbm_uce", "npu_off_bus", "node_hang")


def _pct(vals: list[float]) -> dict[str, float | None]:
    if not vals:
        return {"n": 0, "p50": None, "p90": None, "p99": None, "min": None, "max": None}
    a = np.asarray(vals, dtype=float)
    return {"n": len(a), "p50": float(np.percentile(a, 50)), "p90": float(np.percentile(a, 90)),
            "p99": float(np.percentile(a, 99)), "min": float(a.min()), "max": float(a.max())}


def elastic_setup(b: ElasticBlock, demand_scale: float = 1.0) -> ElasticSetup:
    return ElasticSetup(duration_s=b.duration, pods=b.pods, peak_tokens_per_s=b.peak_tokens_per_s * demand_scale,
                        budget_npus=b.budget_npus, start_hour=b.start_hour,
                        faults=tuple((f.at, f.role) for f in b.faults), spare_nodes=b.spare_nodes,
                        params=dict(b.params))


def run_elastic_block(b: ElasticBlock, seeds: list[int], demand_scale: float = 1.0) -> dict[str, Any]:
    setup = elastic_setup(b, demand_scale)
    out: dict[str, Any] = {"demand_scale": demand_scale, "peak_tokens_per_s": setup.peak_tokens_per_s}
    for policy in b.policies:
        rows = [run_elastic(setup, policy, s) for s in seeds]
        out[policy] = {
            "slo_attainment": _pct([r["slo_attainment"] for r in rows]),
            "time_to_slo_after_fault_s": _pct([t for r in rows for t in r["time_to_slo_after_fault_s"]]),
            "tokens_per_s_per_npu": _pct([r["tokens_per_s_per_npu"] for r in rows]),
            "npu_hours_allocated": _pct([r["npu_hours_allocated"] for r in rows]),
            "npu_hours_idle": _pct([r["npu_hours_idle"] for r in rows]),
            # each run of refused scale-ups, with its seed (session 37: counted in scale events, never shown)
            "refusals": [{"seed": s, **x} for s, r in zip(seeds, rows, strict=True) for x in r["refusals"]],
        }
        out["decode_tokens_per_s_per_npu_at_slo_bound"] = rows[0]["decode_tokens_per_s_per_npu_at_slo_bound"]
    return out


def switch_ops(operation: str, launch_spares: int) -> SwitchOps:
    """The plan's way of operating a switch: sequential, or overlapped with ``launch_spares`` spares (N + k)."""
    if operation == "sequential":
        return SwitchOps()
    return SwitchOps(per_node=True, stop_grace=OVERLAPPED.stop_grace,
                     prestage_checkpoint=OVERLAPPED.prestage_checkpoint, launch_spares=launch_spares)


def run_schedule_block(b: ScheduleBlock, seeds: list[int], demand_scale: float = 1.0) -> dict[str, Any]:
    setup = ScheduleSetup(duration_s=b.duration, dusk=b.dusk, dawn=b.dawn, peak_load=b.peak_load * demand_scale,
                          handback_deadline_s=b.handback_deadline_s,
                          faults=tuple(MidSwitchFault(f.switch, f.after, f.node, f.kind) for f in b.faults),
                          params=dict(b.params), handback_checkpoint=b.handback_checkpoint,
                          ops=switch_ops(b.operation, b.launch_spares), weights_source=b.weights_from,
                          dusk_inflight=b.dusk_inflight)
    rows = [run_schedule(setup, s) for s in seeds]
    start = datetime.fromisoformat(ops_params(setup.params).telemetry.epoch)
    plan = {"dusk": b.dusk, "dawn": b.dawn, "duration_s": b.duration,
            "starts": f"{start:%A %Y-%m-%d %H:%M}", "switches": sum(r["switches"] for r in rows),
            "skipped": sum(r["skipped"] for r in rows), "waited": sum(r["waited"] for r in rows),
            "waited_max_s": max([w for r in rows for w in r["waited_s"]], default=0.0)}
    every = [v for r in rows for d in ("training", "inference") for v in r["node_switch_s"][d]]
    whole = [v for r in rows for d in ("training", "inference") for v in r["whole_switch_s"][d]]
    out: dict[str, Any] = {}
    if setup.faults:  # the same seeds without the faults: the switch itself, apart from the repairs
        clean = [run_schedule(replace(setup, faults=()), s) for s in seeds]
        out["fault_free_node_switch_s"] = _pct([v for r in clean for v in r["fault_free_node_switch_s"]])
        out["faulted"] = faulted_summary(rows)
        out["fault_free_failed_switches"] = [f for r in clean for f in r["failed"]]
    return {"demand_scale": demand_scale, "operation": setup.ops.name, "plan": plan, **out,
            "node_switch_s": _pct(every),
            "whole_switch_s": _pct(whole),
            "training_node_ready_s": _pct([v for r in rows for v in r["node_ready_s"]]),
            "set_aside": sum(r["set_aside"] for r in rows),
            "to_training_s": _pct([v for r in rows for v in r["node_switch_s"]["training"]]),
            "to_inference_s": _pct([v for r in rows for v in r["node_switch_s"]["inference"]]),
            "handbacks_on_time": sum(r["handbacks_on_time"] for r in rows),
            "handbacks": sum(r["handbacks"] for r in rows),
            "late": [h["why_late"] for r in rows for h in r["handback_detail"] if not h["on_time"]],
            "failed_switches": [f for r in rows for f in r["failed"]],
            "retries": sum(r["attempts"] for r in rows),
            "peer_fallbacks": sum(r["peer_fallbacks"] for r in rows),
            "slo_attainment": _pct([r["slo_attainment"] for r in rows])}


def faulted_summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The mid-switch faults over seeds (:mod:`opsbrain.ops.switch_faults`): per-node switch seconds of the faulted
    node's fault domain and of the rest of those switches; seconds from the fault to its slot working again."""
    faults = [f for r in rows for f in r["faulted"]["faults"]]
    hit = [f for f in faults if not f["switched_before_fault"]]
    return {"faults": len(faults), "switched_before_fault": len(faults) - len(hit),
            "slots_never_working": sum(f["slot_working_after_fault_s"] is None for f in hit),
            "fault_domain_node_switch_s": _pct([v for r in rows for v in r["faulted"]["domain_s"]]),
            "outside_domain_node_switch_s": _pct([v for r in rows for v in r["faulted"]["outside_s"]]),
            "slot_working_after_fault_s": _pct([f["slot_working_after_fault_s"] for f in hit
                                                if f["slot_working_after_fault_s"] is not None])}


def random_items(seed: int, n: int, wrong_share: float) -> list[CampaignItem]:
    """``n`` random faults on tenant a's slice; a share of them diagnosed on the same part of a node of b."""
    rng = np.random.default_rng([seed, 21])
    out = []
    for _ in range(n):
        kind = str(rng.choice(RANDOM_KINDS))
        node = ids.node(0, int(rng.choice(list(TENANT_NODES["a"]))))
        npu = int(rng.integers(0, 8))
        comp = {"hbm_uce": f"{node}/npu{npu}/hbm", "npu_off_bus": f"{node}/npu{npu}"}.get(kind, node)
        diag = comp
        if rng.random() < wrong_share:
            other = ids.node(0, int(rng.choice(list(TENANT_NODES["b"]))))
            diag = comp.replace(node, other, 1)
        out.append(CampaignItem(float(rng.uniform(0, 1800)), kind, comp, diag))
    return out


def run_tenants_block(b: TenantsBlock, seeds: list[int], random_faults: int | None = None) -> dict[str, Any]:
    n = b.random_faults if random_faults is None else random_faults
    totals = {"actions_on_b": 0, "ems_reads_b": 0, "blast_b": 0, "actions_on_a": 0, "refusals": 0, "incidents": 0}
    runs: list[dict[str, Any]] = []
    for s in seeds:
        items = [CampaignItem(i.at, i.kind, i.target, i.diagnosed or i.target) for i in b.campaign]
        items += random_items(s, n, b.wrong_share)
        if not items:
            continue
        r = run_campaign(items, s)
        totals["actions_on_b"] += len(r["actions_on_b"])
        totals["ems_reads_b"] += r["ems_reads"]["b"]
        totals["blast_b"] += r["blast_b"]
        totals["actions_on_a"] += r["actions"]["a"]
        totals["refusals"] += len(r["refusals"])
        totals["incidents"] += r["incidents"]
        runs.append({"seed": s, **{k: r[k] for k in ("faults", "incident_log", "slo_attainment", "out_of_service",
                                                      "ems_reads", "actions", "refusals")}})
    return {"random_faults": n, **totals, "runs": runs}


class OptionError(ValueError):
    """A campaign option's value the block cannot run (``option``: the CLI's name of it)."""

    def __init__(self, option: str, reason: str) -> None:
        super().__init__(reason)
        self.option = option


def check_scales(b: ElasticBlock, seeds: list[int], scales: list[float]) -> None:
    """Every policy's opening layout at every demand scale and seed, before any runs (session 35: a scale that did not
    fit was refused only after the earlier ones had run): :class:`OptionError` naming ``--demand-scale`` (a
    :class:`LayoutError` at scale 1: the block's own)."""
    for k in scales:
        for s in seeds:
            try:
                check_layouts(elastic_setup(b, k), b.policies, s)
            except LayoutError as exc:
                if k == 1.0:
                    raise
                raise OptionError("--demand-scale", f"{k:g}: {exc}; give a smaller scale, or more pods in the "
                                  "scenario's superpod.elastic") from None


def run_superpod(sp: SuperpodSpec, seed: int, demand_scales: list[float] | None = None,
                 tenant_faults: list[int] | None = None) -> dict[str, Any]:
    """Every experiment of the block over ``sp.seeds`` seeds from ``seed``; a grid over the campaign options."""
    seeds = list(range(seed, seed + sp.seeds))
    out: dict[str, Any] = {"seeds": seeds}
    scales = demand_scales or [1.0]
    if sp.elastic is not None:
        check_scales(sp.elastic, seeds, scales)
        out["elastic"] = [run_elastic_block(sp.elastic, seeds, k) for k in scales]
    if sp.schedule is not None:
        out["schedule"] = [run_schedule_block(sp.schedule, seeds, k) for k in scales]
    if sp.tenants is not None:
        counts: list[int | None] = list(tenant_faults) if tenant_faults else [None]
        out["tenants"] = [run_tenants_block(sp.tenants, seeds, c) for c in counts]
    return out

