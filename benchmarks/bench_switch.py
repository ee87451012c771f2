"""Day inference / night training: per-node switch time over seeds, a fault mid-switch, on-time hand-back (issue 21).

    python benchmarks/bench_switch.py --seeds 20 [--fault] [--handback-checkpoint memory] [--breakdown]
                                      [--json out.json]

Runs the built-in day/night plan (flexible group of 22 nodes trains 22:00-06:00) once per seed and prints p50/p90
of the per-node switch time by direction and by role switched into, the hand-backs on time, and the switches that
needed a retry. With ``--fault`` a node of the group crashes 100 s into each switch (kernel panic).
``--handback-checkpoint memory``: the dawn hand-back stops at the step's in-memory checkpoint and persists it to
storage afterwards (MindIO ACP, see faultlib.workloads.switch). ``--breakdown``: per stage, its share of the mean
per-node switch time and the parameters behind it, each with its value and the kind of its source (published,
assumed, reason) as docs/parameters.md states it.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from faultlib.params import iter_params  # noqa: E402
from faultlib.simparams import SimParams  # noqa: E402
from opsbrain.ops.schedule import MidSwitchFault  # noqa: E402
from opsbrain.ops.schedule_run import ScheduleSetup, run_schedule  # noqa: E402

STAGE_PARAMS = {  # the parameters each stage's duration is drawn from or computed with
    "drain": ("inference.output_tokens", "inference.tpot_tight_ms", "switch.drain_timeout_s"),
    "stop": ("switch.process_stop_s",),
    "training_start": ("training.launch_s", "training.rank_table_s", "training.hccl_init_s",
                       "training.storage_aggregate_gbytes_s", "training.storage_efficiency"),
    "checkpoint": ("training.state_bytes_per_param", "training.storage_aggregate_gbytes_s",
                   "training.mem_ckpt_every_steps"),
    "relaunch": ("inference.process_relaunch_s",),
    "weights": ("inference.ems_cold_start_s",),
}
PATH = {"to training": ("drain", "stop", "training_start"),
        "to decode": ("checkpoint", "stop", "decode_relaunch", "decode_weights"),
        "to prefill": ("checkpoint", "stop", "prefill_relaunch", "prefill_weights")}


def source_kind(text: str) -> str:
    """What a parameter's source text rests on: cited (a paper, facts.md, vendor docs), reason, assumed -- all
    that apply, so a median from a paper with an assumed spread reads cited+assumed."""
    low = text.lower()
    kinds = [k for k, pattern in (("cited", r"arxiv|facts\.md|paper|cann|mindcluster|sosp"), ("reason", r"\breason\b"),
                                  ("assumed", r"\bassumed\b")) if re.search(pattern, low)]
    return "+".join(kinds) or "definition"


def breakdown(rows: list[dict], direction_of: dict[str, str]) -> None:
    """Mean stage seconds on each path (the group's slowest part per switch), share of the path's sum, sources."""
    info = {path: (default, unit, src) for path, default, unit, src, _d in iter_params(SimParams)}
    print("breakdown: mean seconds per switch on each node's path, share of the path, and the sources")
    for path, stages in PATH.items():
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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--fault", action="store_true", help="crash a node of the group 100 s into each switch")
    ap.add_argument("--handback-checkpoint", choices=("storage", "memory"), default="storage")
    ap.add_argument("--breakdown", action="store_true", help="stage shares and the sources of their parameters")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    faults = (MidSwitchFault(0, 100.0, 3), MidSwitchFault(1, 100.0, 3)) if args.fault else ()
    setup = ScheduleSetup(faults=faults, handback_checkpoint=args.handback_checkpoint)
    rows = [run_schedule(setup, seed) for seed in range(args.seeds)]
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1, default=str))
    print(f"day/night switch, {args.seeds} seeds, dusk {setup.dusk!r}, dawn {setup.dawn!r}"
          f"{', a node crash 100 s into each switch' if args.fault else ''}, hand-back checkpoint to "
          f"{args.handback_checkpoint}")

    def show(label: str, vals: list[float]) -> None:
        a = np.array(vals)
        print(f"  {label:24s} n {len(a):4d}  p50 {np.percentile(a, 50):6.0f} s  p90 {np.percentile(a, 90):6.0f} s  "
              f"max {a.max():6.0f} s  share < 300 s {np.mean(a < 300.0):.2f}")

    print("per-node switch time")
    for d in ("training", "inference"):
        show(f"to {d}", [v for r in rows for v in r["node_switch_s"][d]])
    for role in sorted({k for r in rows for k in r["node_switch_s_by_role"]} - {"to training"}):
        show(role, [v for r in rows for v in r["node_switch_s_by_role"][role]])
    show("all", [v for r in rows for d in ("training", "inference") for v in r["node_switch_s"][d]])
    print("stages (the group's slowest part per switch)")
    for key in sorted({k for r in rows for k in r["stages_s"]}):
        show(key, [v for r in rows for v in r["stages_s"].get(key, [])])
    hb = sum(r["handbacks"] for r in rows)
    print(f"hand-backs on time: {sum(r['handbacks_on_time'] for r in rows)} of {hb} (deadline "
          f"{setup.handback_deadline_s:.0f} s)")
    late = [h.get("why_late") for r in rows for h in r["handback_detail"] if not h["on_time"]]
    if late:
        print(f"  late because: {late[0]}")
    print(f"switches failed: {sum(len(r['failed']) for r in rows)}; start retries: {sum(r['attempts'] for r in rows)}; "
          f"nodes replaced by spares: {sum(len(x) for r in rows for x in r['replaced'])}")
    print(f"SLO attainment (TPOT 15 ms): p50 {np.percentile([r['slo_attainment'] for r in rows], 50):.4f}  "
          f"min {min(r['slo_attainment'] for r in rows):.4f}")
    if args.breakdown:
        breakdown(rows, {"to training": "training", "to decode": "inference", "to prefill": "inference"})
    return 0


if __name__ == "__main__":
    sys.exit(main())
