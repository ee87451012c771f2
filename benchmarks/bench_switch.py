"""Day inference / night training: per-node switch time over seeds, a fault mid-switch, on-time hand-back (issue 21).

    python benchmarks/bench_switch.py --seeds 20 [--operation sequential|overlapped] [--fault]
                                      [--handback-checkpoint storage|memory] [--breakdown] [--ablation]
                                      [--json out.json]

Runs the built-in day/night plan (flexible group of 22 nodes trains 22:00-06:00) once per seed and prints p50/p90
of the per-node switch time by direction and by role switched into, the hand-backs on time, and the switches that
needed a retry. With ``--fault`` a node of the group crashes 100 s into each switch (kernel panic).
With a fault, the benchmark also prints what it cost apart from the switch: seconds from the fault to a spare working in
the crashed node's slot, and the per-node switch time of the fault domain (the job at dusk, the instance at dawn).
``--handback-checkpoint memory``: the dawn hand-back stops at the step's in-memory checkpoint and persists it to
storage afterwards (MindIO ACP, see faultlib.workloads.switch). ``--breakdown``: per stage, its share of the mean
per-node switch time and the parameters behind it, each with its value and the kind of its source (published,
assumed, reason) as docs/parameters.md states it.
``--operation overlapped`` (the hand-back then defaults to memory): each node moves on when it is free, SIGKILL
after the grace period, the checkpoint pre-staged into host memory during the drain, training launched on N + k nodes
(``--launch-spares``, default 2 = the plan's spares); see opsbrain.ops.schedule.SwitchOps. ``--ablation`` adds one
change at a time from sequential to overlapped and prints the per-node p50/p90/p99 of each step.
``--sensitivity`` re-runs the same seeds under the other readings of the paper's weight cold-start figure
(``unique``, ``instance``: faultlib.workloads.weight_load) and with part of the serving relaunch moved beside the weight
load (``--relaunch-overlap`` 0.5, 1: a what-if, no published split of the relaunch) and with the weights read from
object storage (the model not in the EMS pool at dawn); the twin's figures are the first row.
``--weights-accounting`` / ``--relaunch-overlap`` run one of those settings in full.
``--dusk-inflight migrate``: the decode instances' in-flight sequences move with their KV cache to the instances that
stay (Llumnix's live migration, ``switch.kv_migrate_s_per_gb``) instead of the drain waiting for the longest output.
``--set PARAM=JSON`` overrides a parameter for a what-if (printed in the header; never the twin's figure).
``--weights-from peer`` (an operator's choice, not a reading): the dawn's instances copy their weights from an instance
of the same role that serves (checkpoint-engine's P2P mode, ``inference.peer_load_s``) instead of the EMS pool.
"Per-node switch time" is from the rule firing (the node stops new work) to the node working in its new role; a
training node works when the job runs, so every node of the job gets the same time (the job needs all its ranks).
Beside it: the whole switch (rule firing -> last node in its new role) and, for training, when each node's own
stages were done (its processes launched and registered).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from faultlib.params import iter_params  # noqa: E402
from faultlib.simparams import SimParams  # noqa: E402
from faultlib.workloads.weight_load import ACCOUNTINGS  # noqa: E402
from opsbrain.ops.scenario_run import switch_ops  # noqa: E402
from opsbrain.ops.schedule import MidSwitchFault, SwitchOps  # noqa: E402
from opsbrain.ops.schedule_run import ScheduleSetup, run_schedule  # noqa: E402
from opsbrain.ops.setup import ops_params  # noqa: E402

STAGE_PARAMS = {  # the parameters each stage's duration is drawn from or computed with
    "drain": ("inference.output_tokens", "inference.tpot_tight_ms", "switch.drain_timeout_s",
              "switch.kv_migrate_s_per_gb", "switch.kv_migrate_downtime_s"),
    "stop": ("switch.process_stop_s", "switch.stop_grace_s", "switch.kill_release_s"),
    "nodes_ready": ("inference.output_tokens", "switch.kv_migrate_s_per_gb", "switch.process_stop_s",
                    "switch.stop_grace_s", "training.launch_s"),
    "job_start": ("training.rank_table_s", "training.hccl_init_s", "training.storage_aggregate_gbytes_s",
                  "fabric.ub_link_gbytes_s", "fabric.vpc_gbits_s"),
    "training_start": ("training.launch_s", "training.rank_table_s", "training.hccl_init_s",
                       "training.storage_aggregate_gbytes_s", "training.storage_efficiency"),
    "checkpoint": ("training.state_bytes_per_param", "training.storage_aggregate_gbytes_s",
                   "training.mem_ckpt_every_steps"),
    "relaunch": ("inference.process_relaunch_s",),
    "weights": ("inference.ems_cold_start_s", "inference.peer_load_s"),
}
PATH = {"to training": ("drain", "stop", "training_start"),
        "to decode": ("checkpoint", "stop", "decode_relaunch", "decode_weights"),
        "to prefill": ("checkpoint", "stop", "prefill_relaunch", "prefill_weights")}
OVERLAPPED_PATH = {**PATH, "to training": ("nodes_ready", "job_start")}  # the stages overlap: the critical path
ABLATION: tuple[tuple[str, SwitchOps, str, dict], ...] = (
    ("sequential", SwitchOps(), "storage", {}),
    ("+ per node", SwitchOps(per_node=True), "storage", {}),
    ("+ SIGKILL after grace", SwitchOps(per_node=True, stop_grace=True), "storage", {}),
    ("+ checkpoint pre-staged", SwitchOps(per_node=True, stop_grace=True, prestage_checkpoint=True), "storage", {}),
    ("+ N+2 launch", SwitchOps(True, True, True, 2), "storage", {}),
    ("+ memory hand-back", SwitchOps(True, True, True, 2), "memory", {}),
    ("+ stop mid-step", SwitchOps(True, True, True, 2), "memory-last-step", {}),
    ("+ weights from a peer", SwitchOps(True, True, True, 2), "memory-last-step", {"weights_source": "peer"}),
    ("+ live migration at dusk", SwitchOps(True, True, True, 2), "memory-last-step",
     {"weights_source": "peer", "dusk_inflight": "migrate"}))


def source_kind(text: str) -> str:
    """What a parameter's source text rests on: cited (a paper, facts.md, vendor docs), reason, assumed -- all
    that apply, so a median from a paper with an assumed spread reads cited+assumed."""
    low = text.lower()
    cited = r"arxiv|facts\.md|paper|cann|mindcluster|sosp|kubernetes\.io|github\.com"
    kinds = [k for k, pattern in (("cited", cited), ("reason", r"\breason\b"), ("assumed", r"\bassumed\b"))
             if re.search(pattern, low)]
    return "+".join(kinds) or "definition"


def breakdown(rows: list[dict], direction_of: dict[str, str], paths: dict[str, tuple[str, ...]]) -> None:
    """Mean stage seconds on each path (the group's slowest part per switch), share of the path's sum, sources."""
    info = {path: (default, unit, src) for path, default, unit, src, _d in iter_params(SimParams)}
    print("breakdown: mean seconds per switch on each node's path, share of the path, and the sources")
    for path, stages in paths.items():
        d = direction_of[path]
        means = {st: float(np.mean([r["stages_s"].get(f"to {d}: {st}", [0.0])[0] if r["stages_s"].get(
            f"to {d}: {st}") else 0.0 for r in rows])) for st in stages}
        total = sum(means.values()) or 1.0
        print(f"  {path}: sum of stage means {total:.0f} s")
        for st, v in means.items():
            print(f"    {st:18s} {v:6.0f} s  {v / total:5.0%}")
            for par in STAGE_PARAMS[st.split("_", 1)[1] if st.startswith(("decode_", "prefill_")) else st]:
                default, unit, src = info[par]
                print(f"        {par:40s} {default} {unit}  [{source_kind(src)}] {src[:90]}")


def pct(vals: list[float]) -> str:
    a = np.array(vals)
    return (f"n {len(a):4d}  p50 {np.percentile(a, 50):6.0f} s  p90 {np.percentile(a, 90):6.0f} s  "
            f"p99 {np.percentile(a, 99):6.0f} s  max {a.max():6.0f} s  share < 300 s {np.mean(a < 300.0):.2f}")


def every_node(rows: list[dict]) -> list[float]:
    return [v for r in rows for d in ("training", "inference") for v in r["node_switch_s"][d]]


def ablation(seeds: range, faults: tuple) -> None:
    print(f"ablation: one change at a time, seeds {seeds.start}..{seeds.stop - 1}"
          f"{', a node crash 100 s into each switch' if faults else ''}")
    for label, ops, hb, extra in ABLATION:
        rows = [run_schedule(ScheduleSetup(faults=faults, handback_checkpoint=hb, ops=ops, **extra), s) for s in seeds]
        ok = sum(r["handbacks_on_time"] for r in rows)
        print(f"  {label:26s} all {pct(every_node(rows))}  hand-backs on time {ok}/{sum(r['handbacks'] for r in rows)}")


SENSITIVITY = (("resident", 0.0, "ems", "the twin's model"),
               ("unique", 0.0, "ems", "each distinct byte fetched once per node (optimistic bound)"),
               ("instance", 0.0, "ems", "the figure is a whole instance's load (pessimistic bound)"),
               ("resident", 0.5, "ems", "what-if: half of the relaunch beside the weight load"),
               ("resident", 1.0, "ems", "what-if: all of the relaunch beside the weight load"),
               ("resident", 0.0, "obs", "the model not in the EMS pool at dawn: object storage"))


OBS_EXTRA_S = 4 * 3600.0  # reason: the object-storage rows run 4 h longer: 2,560 s x 1.5 (p90) + relaunch < 4 h


def sensitivity(seeds: range, base: ScheduleSetup) -> None:
    print(f"sensitivity: the same seeds {seeds.start}..{seeds.stop - 1}, operation {base.ops.name}, hand-back "
          f"checkpoint to {base.handback_checkpoint}; per-node p90 (and share < 300 s of all nodes)")
    print(f"  {'weights':9s} {'overlap':>7s} {'from':4s}  {'all':>6s} {'share':>5s}  {'to training':>11s} "
          f"{'to decode':>9s} {'to prefill':>10s}  reading")
    for acc, over, src, label in SENSITIVITY:
        longer = OBS_EXTRA_S if src == "obs" else 0.0  # run on until every node works again (no censoring)
        setup = replace(base, weights_accounting=acc, relaunch_overlap=over, weights_source=src,
                        duration_s=base.duration_s + longer)
        rows = [run_schedule(setup, s) for s in seeds]
        a = np.array(every_node(rows))
        if len(a) < sum(2 * len(r["node_switch_s"]["training"]) for r in rows):
            label += " (some nodes not switched by the end of the run)"

        def p90(role: str, rows: list[dict] = rows) -> str:
            vals = [v for r in rows for v in r["node_switch_s_by_role"].get(role, [])]
            return f"{np.percentile(vals, 90):.0f} s" if vals else "none"

        print(f"  {acc:9s} {over:7.1f} {src:4s}  {np.percentile(a, 90):4.0f} s {np.mean(a < 300.0):5.2f}  "
              f"{p90('to training'):>11s} {p90('to decode'):>9s} {p90('to prefill'):>10s}  {label}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--first-seed", type=int, default=0, help="run seeds first-seed .. first-seed + seeds - 1")
    ap.add_argument("--operation", choices=("sequential", "overlapped"), default="sequential")
    ap.add_argument("--launch-spares", type=int, default=2, help="overlapped: spares launched beside the group")
    ap.add_argument("--fault", action="store_true", help="crash a node of the group 100 s into each switch")
    ap.add_argument("--handback-checkpoint", choices=("storage", "memory", "memory-last-step"),
                    default=None,
                    help="default: storage when sequential, memory when overlapped")
    ap.add_argument("--breakdown", action="store_true", help="stage shares and the sources of their parameters")
    ap.add_argument("--ablation", action="store_true", help="sequential -> overlapped one change at a time")
    ap.add_argument("--sensitivity", action="store_true",
                    help="other readings of the weight cold-start figure and relaunch overlaps, same seeds")
    ap.add_argument("--weights-accounting", choices=ACCOUNTINGS, default="resident",
                    help="how a node reads the paper's weight cold-start figure (faultlib.workloads.weight_load)")
    ap.add_argument("--dusk-inflight", choices=("drain", "migrate"), default="drain",
                    help="dusk: wait for in-flight sequences (drain) or live-migrate them with their KV (Llumnix)")
    ap.add_argument("--weights-from", choices=("ems", "peer"), default="ems",
                    help="dawn weights: ems (the paper's pool figure) or peer (P2P from a serving instance of the "
                         "same role, checkpoint-engine)")
    ap.add_argument("--relaunch-overlap", type=float, default=0.0,
                    help="what-if: share (0..1) of the serving relaunch run beside the weight load")
    ap.add_argument("--set", action="append", default=[], metavar="PARAM=JSON",
                    help="what-if: override a parameter (inference.peer_load_s='{\"median\": 66.6, \"p90\": 100}')")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    overrides = {}
    for item in args.set:
        key, sep, value = item.partition("=")
        try:
            overrides[key] = json.loads(value)
        except json.JSONDecodeError:
            sep = ""
        if not sep:
            ap.error(f"--set wants PARAM=JSON, got {item!r}")
    try:
        ops_params(overrides)
    except ValueError as exc:
        ap.error(f"--set: {str(exc).splitlines()[0]}")
    if not 0.0 <= args.relaunch_overlap <= 1.0:
        ap.error("--relaunch-overlap must be between 0 and 1")
    faults = (MidSwitchFault(0, 100.0, 3), MidSwitchFault(1, 100.0, 3)) if args.fault else ()
    if args.ablation:
        ablation(range(args.first_seed, args.first_seed + args.seeds), faults)
        return 0
    ops = switch_ops(args.operation, args.launch_spares)
    hb_to = args.handback_checkpoint or ("memory" if args.operation == "overlapped" else "storage")
    setup = ScheduleSetup(faults=faults, handback_checkpoint=hb_to, ops=ops,
                          weights_accounting=args.weights_accounting, relaunch_overlap=args.relaunch_overlap,
                          weights_source=args.weights_from, params=overrides,
                          dusk_inflight=args.dusk_inflight)
    if args.sensitivity:
        sensitivity(range(args.first_seed, args.first_seed + args.seeds), setup)
        return 0
    rows = [run_schedule(setup, seed) for seed in range(args.first_seed, args.first_seed + args.seeds)]
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1, default=str))
    last = args.first_seed + args.seeds - 1
    print(f"day/night switch, seeds {args.first_seed}..{last}, dusk {setup.dusk!r}, dawn {setup.dawn!r}"
          f", operation {ops.name}"
          f"{f', weights read as {args.weights_accounting}' if args.weights_accounting != 'resident' else ''}"
          f"{f', relaunch overlap {args.relaunch_overlap:g} (what-if)' if args.relaunch_overlap else ''}"
          f"{f', weights from {args.weights_from}' if args.weights_from != 'ems' else ''}"
          f"{', in-flight sequences migrated at dusk' if args.dusk_inflight == 'migrate' else ''}"
          f"{f', what-if {overrides}' if overrides else ''}"
          f"{', a node crash 100 s into each switch' if args.fault else ''}, hand-back checkpoint to {hb_to}")

    def show(label: str, vals: list[float]) -> None:
        print(f"  {label:24s} {pct(vals)}")

    print("per-node switch time (rule firing -> the node works in its new role)")
    for d in ("training", "inference"):
        show(f"to {d}", [v for r in rows for v in r["node_switch_s"][d]])
    for role in sorted({k for r in rows for k in r["node_switch_s_by_role"]} - {"to training"}):
        show(role, [v for r in rows for v in r["node_switch_s_by_role"][role]])
    show("all", every_node(rows))
    print("whole switch (rule firing -> the last node in its new role), one per switch")
    for d in ("training", "inference"):
        show(f"to {d}", [v for r in rows for v in r["whole_switch_s"][d]])
    ready = [v for r in rows for v in r["node_ready_s"]]
    if ready:
        print("training nodes' own stages done (drain, stop, launch; the job then waits for its last rank)")
        show("node ready", ready)
    print("stages (the group's slowest part per switch)")
    for key in sorted({k for r in rows for k in r["stages_s"]}):
        show(key, [v for r in rows for v in r["stages_s"].get(key, [])])
    hb = sum(r["handbacks"] for r in rows)
    print(f"hand-backs on time: {sum(r['handbacks_on_time'] for r in rows)} of {hb} (deadline "
          f"{setup.handback_deadline_s:.0f} s)")
    lost = [h["abandoned_step_s"] for r in rows for h in r["handback_detail"] if "abandoned_step_s" in h]
    if lost:
        print(f"  training work abandoned mid-step at the hand-back: p50 {np.percentile(lost, 50):.0f} s, max "
              f"{max(lost):.0f} s of the job's time per hand-back")
    late = [h.get("why_late") for r in rows for h in r["handback_detail"] if not h["on_time"]]
    if late:
        print(f"  late because: {late[0]}")
    fs = [f for r in rows for f in r["faulted"]["faults"]]
    if fs:  # what the mid-switch faults cost, apart from the switch (opsbrain.ops.switch_faults)
        hit = [f for f in fs if not f["switched_before_fault"]]
        back = [f["slot_working_after_fault_s"] for f in hit if f["slot_working_after_fault_s"] is not None]
        print(f"faulted switches: {len(fs)} faults, {len(fs) - len(hit)} after the node had switched, "
              f"{len(hit) - len(back)} slots never working again")
        for d in ("training", "inference"):
            sub = [f["slot_working_after_fault_s"] for f in hit if f["to"] == d
                   and f["slot_working_after_fault_s"] is not None]
            if sub:
                show(f"slot back, to {d}", sub)
        show("fault domain", [v for r in rows for v in r["faulted"]["domain_s"]])
        outside = [v for r in rows for v in r["faulted"]["outside_s"]]
        if outside:
            show("rest of those switches", outside)
        print("  (slot back: seconds from the fault to a spare working in the crashed node's slot; fault domain: "
              "the per-node switch time of the job or instance that waited for it)")
    print(f"switches failed: {sum(len(r['failed']) for r in rows)}; start retries: {sum(r['attempts'] for r in rows)}; "
          f"nodes replaced by spares: {sum(len(x) for r in rows for x in r['replaced'])}; group nodes left out by "
          f"an N + k launch (spares for the night): {sum(r['set_aside'] for r in rows)}")
    if args.weights_from == "peer":
        print(f"peer loads without a serving peer (read from the EMS pool instead): "
              f"{sum(r['peer_fallbacks'] for r in rows)}")
    print(f"SLO attainment (TPOT 15 ms): p50 {np.percentile([r['slo_attainment'] for r in rows], 50):.4f}  "
          f"min {min(r['slo_attainment'] for r in rows):.4f}")
    if args.breakdown:
        breakdown(rows, {"to training": "training", "to decode": "inference", "to prefill": "inference"},
                  OVERLAPPED_PATH if ops.per_node else PATH)
    return 0


if __name__ == "__main__":
    sys.exit(main())
