"""Trace replay (``opsbrain chaos replay``): a published fault trace mapped onto enough pods, run, and compared.

The world is the campaign's cluster layout (opsbrain.campaign.spec): one training job on nodes 0-45 of every pod,
nodes 46-47 of every pod warm spares, so every trace server lands on a node of the job and ETTR says what the
trace's faults cost it. Trace servers map 1:1 onto the job's nodes in natural order; ``pods`` defaults to the
fewest pods that hold every server; folding several servers onto one node happens only with ``fold``.

Choices, with reasons:
- noise off by default (``noise=True`` adds it): the trace is the fault record; background noise would add
  the twin's own benign events to it (and ~800 events per pod-day to a 348-day run).
- guards sized to the trace: at most ``GUARD_NODE_SHARE`` of the nodes isolated at once, or 1.5x the trace's
  own peak share of servers in fault, whichever is larger (the replay must not abort on what the trace did);
  no SLO-breach guard (no inference service in this layout; a one-day scenario's 1 h budget does not scale to
  a year).
- the comparison: the trace's interruptions per node-day (every fault start, per server named in the trace, over
  its window) beside the replay's (faults the twin began whose kind interrupts a job, per mapped node, over the
  same window).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from faultlib import ids
from faultlib.faults.catalog import CATALOG
from faultlib.injection.replay import ReplayReport, replay_table
from faultlib.injection.spec import FaultPlanError
from faultlib.injection.trace_table import TraceTable, read_trace, starts_during_open
from faultlib.simparams import SimParams
from faultlib.topology import Topology
from opsbrain.errors import InputError, ScenarioError
from opsbrain.report.text import count
from opsbrain.report.workloads import training_goodput
from opsbrain.runner.monitor import MonitorParams
from opsbrain.scenario.plan import Plan
from opsbrain.scenario.schema import Guard, Metadata, Scenario, Spec, SweepSpec, TopologySpec, WorkloadSpec
from opsbrain.verdict import ETTR_BAR

MAPPING_TABLE = Path(__file__).with_name("replay_mapping.yaml")
SPARES_PER_POD = 2  # reason: the built-in scenarios' and campaigns' warm spares per pod (noise-only-day, campaign)
GUARD_NODE_SHARE = 0.25  # reason: the built-in scenarios' isolated_node_share guard (scenarios/noise-only-day.yaml)
MAX_PODS = 64  # reason: TopologySpec.pods' bound
GUARD_CHECKS_PER_MEDIAN_FAULT = 100
"""Guards are checked every 1/100 of the trace's median fault duration (at least every 10 s, MonitorParams'
default). Reason: a guard watches outages that last that long (InfiniteHBD: median 20 h, so every ~12 min); a
year checked every 10 s would cost 3 million checks for states that change a few times a day."""
TAIL_S = 3600.0  # reason: one hour after the trace's last event lets the last recoveries finish and be scored


def _wrap(exc: FaultPlanError, trace: str) -> ScenarioError:
    path = (exc.path or "").removeprefix(trace).lstrip(": ") or None  # the error may name the file itself
    return ScenarioError(exc.reason, file=trace, path=path)


MAX_TRACE_BYTES = 64 << 20  # reason: the public InfiniteHBD trace is 0.3 MB; a year of a large cluster is tens of MB


def precheck(file: str, yaml_unless_csv: bool = False) -> None:
    """Refuse a trace or mapping file the one input reader would refuse (not a regular file, too large, not UTF-8,
    nested too deeply, YAML alias bombs, numbers beyond a float or 64 bits) before faultlib parses it; a plain
    syntax error is left to the trace reader, which names where it is. ``yaml_unless_csv``: the file is read as
    YAML whatever its name unless it ends in ``.csv`` (faultlib's mapping loader does so)."""
    import json

    from opsbrain.yamlio import decode, parse_json, parse_yaml, read_bytes

    text = decode(read_bytes(file, ScenarioError, MAX_TRACE_BYTES), file, ScenarioError)
    suffix = Path(file).suffix.lower()
    if suffix == ".json":
        try:
            json.loads(text)
        except json.JSONDecodeError:
            return
        except (RecursionError, ValueError):
            pass
        parse_json(text, file, ScenarioError)
    elif suffix in (".yaml", ".yml") or (yaml_unless_csv and suffix != ".csv"):
        parse_yaml(text, file, ScenarioError)


def check_mapping_patterns(mapping: str) -> None:
    """Refuse a ``--mapping`` whose regular expressions could backtrack for ever on a trace row (``(a+)+$``),
    by the rules ``kb import`` applies to imported patterns (:mod:`opsbrain.kb.saferegex`). A mapping faultlib
    cannot read is left to the replay, which names where it fails."""
    from faultlib.injection.replay import load_mapping
    from opsbrain.kb.saferegex import regex_problem

    try:
        rules = load_mapping(mapping)
    except FaultPlanError:
        return
    for rule in rules:
        where = rule.origin[len(mapping):].lstrip(". ") if rule.origin.startswith(mapping) else rule.origin
        for field in ("pattern", "level", "cls", "desc"):
            rx = getattr(rule, field)
            if rx is not None and (why := regex_problem(rx.pattern)):
                raise ScenarioError(f"regular expression {rx.pattern[:80]!r} {why}; a trace row could stall the "
                                    "replay", file=mapping, path=f"{where}.{'class' if field == 'cls' else field}")


def read(trace: str, time_unit: str, rebase: bool = False) -> TraceTable:
    if not Path(trace).is_file():
        raise InputError("a directory, not a trace file" if Path(trace).is_dir() else "no such file", file=trace)
    precheck(trace)
    try:
        tt = read_trace(trace, time_unit=time_unit, rebase=rebase)
    except FaultPlanError as exc:
        raise _wrap(exc, trace) from None
    if not tt.events:  # a run of nothing would read as ETTR 1.0 and a verdict: refused instead
        raise InputError("the trace has no events: nothing to replay", file=trace)
    return tt


def layout(pods: int, params: SimParams) -> tuple[list[str], list[str]]:
    per_pod = params.topology.nodes_per_pod
    keep = per_pod - SPARES_PER_POD
    return ([ids.node(p, n) for p in range(pods) for n in range(keep)],
            [ids.node(p, n) for p in range(pods) for n in range(keep, per_pod)])


def pods_needed(servers: int, params: SimParams) -> int:
    return max(1, math.ceil(servers / (params.topology.nodes_per_pod - SPARES_PER_POD)))


def map_trace(tt: TraceTable, trace: str, *, mapping: str | None, pods: int | None, fold: bool, seed: int,
              params: SimParams) -> tuple[ReplayReport, Topology, list[str], list[str]]:
    servers = len({f.node for f in tt.faults})
    n_pods = pods if pods is not None else pods_needed(servers, params)
    if not 1 <= n_pods <= MAX_PODS:
        raise ScenarioError(f"--pods must be 1..{MAX_PODS}, got {n_pods}"
                            + (f" ({servers} servers need {n_pods} pods; use fewer pods and --fold)"
                               if pods is None else ""), file=trace)
    topo = Topology.build(params.topology, n_pods)
    train, spares = layout(n_pods, params)
    if servers > len(train) and not fold:
        need = pods_needed(servers, params)
        raise ScenarioError(f"the trace names {servers} servers, {count(n_pods, 'pod')} hold {len(train)} job nodes: "
                            "use "
                            + (f"--pods {need} or --fold" if need <= MAX_PODS else
                               f"--fold (one node per server needs {need} pods, past the {MAX_PODS} allowed)"),
                            file=trace)
    if mapping is not None:
        precheck(mapping, yaml_unless_csv=True)
        check_mapping_patterns(mapping)
    try:
        rep = replay_table(tt, topo, np.random.default_rng([seed, 3]), mapping=mapping, table=MAPPING_TABLE,
                           nodes=train, fold=fold)
    except FaultPlanError as exc:
        raise _wrap(exc, mapping if mapping and str(exc.path or "").startswith(mapping) else trace) from None
    return rep, topo, train, spares


def peak_share(tt: TraceTable) -> float:
    """The largest share of the trace's servers in fault at one moment."""
    servers = {f.node for f in tt.faults}
    edges = sorted([(f.start_s, 1, f.node) for f in tt.faults]
                   + [(f.start_s + f.duration_s, -1, f.node) for f in tt.faults if f.duration_s is not None])
    open_: dict[str, int] = {}
    peak = 0
    for _t, d, n in edges:
        open_[n] = open_.get(n, 0) + d
        peak = max(peak, sum(1 for v in open_.values() if v > 0))
    return peak / len(servers) if servers else 0.0


def guard_interval_s(tt: TraceTable) -> float:
    durs = sorted(f.duration_s for f in tt.faults if f.duration_s is not None)
    median = durs[len(durs) // 2] if durs else 0.0
    return max(MonitorParams().probe_interval_s, median / GUARD_CHECKS_PER_MEDIAN_FAULT)


def replay_plan(trace: str, *, time_unit: str = "s", mapping: str | None = None, seed: int = 0,
                policy: str = "auto", pods: int | None = None, fold: bool = False, noise: bool = False,
                rebase: bool = False) -> tuple[Plan, ReplayReport]:
    params = SimParams()
    tt = read(trace, time_unit, rebase)
    rep, topo, train, spares = map_trace(tt, trace, mapping=mapping, pods=pods, fold=fold, seed=seed, params=params)
    end = max([tt.end_s] + [s.at_s for s in rep.timeline]) + TAIL_S
    share = max(GUARD_NODE_SHARE, min(1.0, 1.5 * peak_share(tt)))
    spec = Spec(duration=TAIL_S, seed=seed, policy=policy,
                topology=TopologySpec(pods=topo.pods, spares=SPARES_PER_POD),
                workloads=[WorkloadSpec(name="train", kind="training", first_node=0, nodes=len(train))],
                noise=noise, guards=[Guard(kind="isolated_node_share", max=share)],
                sweeps=SweepSpec(enabled=False, interval=None))
    spec = spec.model_copy(update={"duration": end})  # past the 90-day bound of scenario files: sized to the trace
    sc = Scenario(apiVersion="opsbrain/v1", kind="ChaosScenario",
                  metadata=Metadata(name="replay", description=f"fault trace {trace} replayed on {topo.pods} pod(s)",
                                    tags=["replay"]), spec=spec)
    plan = Plan(sc, seed, policy, topo, params, {"train": train}, spares, rep.timeline, {"train": params.training},
                monitor_interval_s=guard_interval_s(tt))
    return plan, rep


def replay_statistics(plan: Plan, rep: ReplayReport, journal: dict[str, Any]) -> dict[str, Any]:
    """The replay's figures beside the trace's: interruptions per node-day and ETTR (see the module doc). A run that
    stopped before the trace's end (interrupted, or aborted by a guard) is counted over the days it replayed, with the
    trace's own rate over the same days beside it (``trace_interruptions_per_node_day``; session 36: it was divided
    by the whole trace's days)."""
    nodes = sorted(set(rep.node_map.values()))
    window_s = min(rep.trace.end_s, float(journal["ended_at_s"]))
    early = window_s < rep.trace.end_s
    began = {i["injected"]["component"] + f"@{i['injected']['at_s']}": i for i in journal["incidents"]
             if i["injected"]}
    inter = sum(1 for i in began.values() if CATALOG[i["injected"]["kind"]].interrupts
                and i["injected"]["at_s"] <= window_s and ids.node_of(i["injected"]["component"]) in set(nodes))
    days = window_s / 86400.0
    train: dict[str, Any] = next((w for w in journal["workloads"] if w["name"] == "train"), {})
    s = journal["summary"]
    elapsed = float(train.get("elapsed_s") or 0.0)
    good = training_goodput(train) if train else None
    servers = len({f.node for f in rep.trace.faults})
    trace_in = sum(1 for f in rep.trace.faults if f.start_s <= window_s)
    return {"nodes": len(nodes), "days": round(days, 4), "interruptions": inter,
            "interruptions_per_node_day": round(inter / (len(nodes) * days), 6) if nodes and days > 0 else None,
            "stopped_early": early, "trace_days": round(rep.trace.end_s / 86400.0, 4),
            "trace_interruptions_per_node_day": round(trace_in / (servers * days), 6) if servers and days > 0
            else None,
            "ettr": train.get("ettr"), "goodput": None if good is None else round(good, 6),
            "verdict": journal["verdict"], "abort_reason": journal.get("abort_reason"),
            "ended_at_s": journal["ended_at_s"], "sim_wall_s": s["wall_s"],
            "faults": s["incidents"], "detected": s["detected"], "recovered": s["recovered"],
            # a recovery onto the smaller placement of a scale-in is not one to full size (docs/reports.md)
            "recovered_degraded": s.get("recovered_degraded", 0),
            "recovered_full": s["recovered"] - s.get("recovered_degraded", 0),
            "degraded_s": train.get("degraded_s"),
            "degraded_share": round(float(train.get("degraded_s") or 0.0) / elapsed, 6) if elapsed > 0 else None,
            "scale_ins": train.get("scale_ins"), "scale_outs": train.get("scale_outs")}


def summary(rep: ReplayReport, plan: Plan | None = None, fold: bool = False) -> dict[str, Any]:
    """The JSON object of ``chaos replay --json`` without a run."""
    tt = rep.trace
    return {
        "trace": rep.file, "events": rep.events, "faults": len(tt.faults), "mapped_total": rep.mapped_total,
        "unmapped_total": rep.unmapped_total, "by_kind": rep.kinds, "mapped": rep.mapped, "unmapped": rep.unmapped,
        "unmapped_reasons": {k: v.replace(str(MAPPING_TABLE), MAPPING_TABLE.name)
                             for k, v in rep.unmapped_reasons.items()}, "by_basis": rep.by_basis,
        "zero_length": {"count": tt.zero_length, "min_duration_s": tt.resolution_s},
        "durations": {"used": rep.durations_used, "not_modelled": rep.durations_not_modelled},
        "out_of_order_events": tt.out_of_order, "orphan_ends": rep.orphan_ends, "open_faults": rep.open_faults,
        "pods": plan.topology.pods if plan else None, "nodes_mapped": len(set(rep.node_map.values())),
        "folded": rep.folded, "trace_statistics": tt.statistics(),
        "starts_with_fault_open_on_nodes": starts_during_open(pd.DataFrame(
            [(ids.node_of(s.target or ""), s.at_s, s.duration_s) for s in rep.timeline], columns=["node", "t", "dur"])),
        "timeline": rep.timeline.to_list(), "node_map": rep.node_map,
    }


def notes(rep: ReplayReport) -> list[str]:
    """What the replay changed or could not do, each said once."""
    tt = rep.trace
    out = []
    if tt.out_of_order:
        out.append(f"{tt.out_of_order} of {count(tt.events, 'event')} {'is' if tt.out_of_order == 1 else 'are'} "
                   "earlier than an event before them in the file: all were sorted by time (a start before an end at "
                   "equal times) before pairing")
    if tt.orphan_ends:
        out.append(f"{count(tt.orphan_ends, 'fault_end event')} without a fault_start of the same server and fault "
                   "before them: left out")
    if tt.zero_length:
        out.append(f"{count(tt.zero_length, 'fault')} {'ends' if tt.zero_length == 1 else 'end'} at the instant "
                   f"{'it starts' if tt.zero_length == 1 else 'they start'}: kept with the trace's time resolution "
                   f"{tt.resolution_s:g} s as {'its' if tt.zero_length == 1 else 'their'} duration")
    if rep.folded:
        servers = len(rep.node_map)
        out.append(f"folded {servers} trace servers onto {len(set(rep.node_map.values()))} nodes (--fold)")
    if rep.durations_not_modelled:
        n = sum(rep.durations_not_modelled.values())
        out.append(f"{count(n, 'trace duration')} not applied: the models of "
                   f"{', '.join(sorted(rep.durations_not_modelled))} end as the twin's recovery decides")
    return out


def summary_lines(out: dict[str, Any]) -> list[str]:
    """The summary (``summary`` plus notes, run figures and times) as the text ``chaos replay`` prints."""
    st = out["trace_statistics"]
    lines = [f"{out['trace']}: {count(out['events'], 'event')}, {count(out['faults'], 'fault')} on "
             f"{count(st['servers'], 'server')} over {count(st['days'], 'day', spec='g')} -> "
             f"{out['mapped_total']} mapped, "
             f"{out['unmapped_total']} unmapped; {count(out['nodes_mapped'], 'node')} of {count(out['pods'], 'pod')}"]
    lines += [f"  note: {n}" for n in out.get("notes", [])]
    lines += [f"  {kind:<24} {n}" for kind, n in sorted(out["by_kind"].items())]
    lines += [f"  unmapped: {desc!r} x {n} ({out['unmapped_reasons'][desc]})"
              for desc, n in sorted(out["unmapped"].items(), key=lambda kv: (-kv[1], kv[0]))]
    lines.append(f"trace:  {st['interruptions_per_node_day']} interruptions per node-day")
    if "run" in out:
        r = out["run"]
        ettr = "-" if r["ettr"] is None else f"{r['ettr']:.3f}"  # as goodput: three decimals, never a raw None
        lines.append(f"replay: {r['interruptions_per_node_day']} interruptions per node-day, ETTR {ettr}"
                     + (f" (below the {ETTR_BAR:.2f} bar)" if r["ettr"] is not None and r["ettr"] < ETTR_BAR else "")
                     + (f", goodput {r['goodput']:.3f}" if r.get("goodput") is not None else "")
                     + f", {r['detected']} of {r.get('faults', '?')} faults detected, {r['recovered']} recovered"
                     + (f" ({r['recovered_full']} to full size, {r['recovered_degraded']} scaled in: degraded)"
                        if "recovered_degraded" in r else "") + "; "
                     + (f"verdict {r['verdict']}" if r["verdict"] != "inconclusive" else
                        "no verdict (a replay has no steady-state hypothesis)")
                     + (f" ({r['abort_reason']})" if r.get("abort_reason") else "") + f", run id {r['run_id']}")
        if r.get("stopped_early"):
            lines.append(f"        the run stopped early: the replay's interruptions per node-day are over the first "
                         f"{r['days']:.1f} of the trace's {r['trace_days']:.1f} days; the trace over those days: "
                         f"{r['trace_interruptions_per_node_day']}")
        if r.get("degraded_share") is not None:
            lines.append(f"        the job ran scaled in {100 * r['degraded_share']:.0f}% of the run "
                         f"({r['degraded_s'] / 86400:.1f} days; {r['scale_ins']} scale-ins, {r['scale_outs']} "
                         "scale-outs): ETTR counts that time as useful, goodput counts its slower steps")
    if "wall_s" in out:
        lines.append(f"wall {out['wall_s']:.1f} s, cpu {out['cpu_s']:.1f} s")
    return lines
