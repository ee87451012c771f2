"""Benchmark: the published InfiniteHBD trace (400 servers, 348 days; SIGCOMM'25) replayed end to end with a run.

The same path as ``opsbrain chaos replay TRACE --time-unit days --run``: the trace read and mapped (the shipped
table opsbrain/scenario/replay_mapping.yaml), servers 1:1 onto the training job's nodes of enough pods, the run
(faults, detector, diagnosis, runbooks, scoring, journal; no noise, as the command's default). Printed: wall and
CPU time of the whole (the CPU figure is the program's own use of the cores: on a shared machine the wall time
also counts other programs), mapped / unmapped counts, the trace's interruptions per node-day beside the replay's,
the training job's ETTR and goodput, the journal's false positives, how many recoveries were to full size and how
many onto a scaled-in job, and the share of the run it ran scaled in. Without ../shared the generated trace of the
same shape and size is used (tests/data/traces/infinitehbd_like.json).

Goals (issue 17): <= 120 s wall on the 2-core machine; interruptions per node-day within 10% of the trace's own.
Printed, never asserted.

    .venv/bin/python benchmarks/bench_replay.py            # the published trace (or the generated one)
    .venv/bin/python benchmarks/bench_replay.py --trace FILE --time-unit days --json
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PUBLISHED = ROOT.parent / "shared" / "reference" / "traces" / "infinitehbd" / "fault_trace.json"
GENERATED = ROOT / "tests" / "data" / "traces" / "infinitehbd_like.json"
GOAL_S, GOAL_REL = 120.0, 0.10


def bench(trace: str, time_unit: str, seed: int) -> dict[str, Any]:
    t0, c0 = time.perf_counter(), time.process_time()
    from opsbrain import chaos as lib
    from opsbrain.scenario import replay as rp

    plan, rep = rp.replay_plan(trace, time_unit=time_unit, seed=seed)
    t_plan = time.perf_counter() - t0
    journal = lib.run(plan, None, say=lambda _m: None)
    stats = rp.replay_statistics(plan, rep, journal)
    tr = rep.trace.statistics()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    rel = (stats["interruptions_per_node_day"] / tr["interruptions_per_node_day"] - 1
           if stats["interruptions_per_node_day"] and tr["interruptions_per_node_day"] else None)
    return {"trace": trace, "events": rep.events, "faults": len(rep.trace.faults), "mapped": rep.mapped_total,
            "unmapped": rep.unmapped_total, "pods": plan.topology.pods, "days": tr["days"],
            "trace_interruptions_per_node_day": tr["interruptions_per_node_day"],
            "replay_interruptions_per_node_day": stats["interruptions_per_node_day"], "relative_diff": rel,
            "ettr": stats["ettr"], "goodput": stats["goodput"], "verdict": stats["verdict"],
            "abort_reason": stats["abort_reason"], "detected": stats["detected"], "recovered": stats["recovered"],
            "false_positives": journal["summary"]["false_positives"],
            "recovered_full": stats["recovered_full"], "recovered_degraded": stats["recovered_degraded"],
            "degraded_share": stats["degraded_share"], "degraded_days": (stats["degraded_s"] or 0.0) / 86400,
            "scale_ins": stats["scale_ins"], "scale_outs": stats["scale_outs"], "plan_s": t_plan, "wall_s": wall,
            "cpu_s": cpu, "load_avg_1min": os.getloadavg()[0],
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trace", default=str(PUBLISHED if PUBLISHED.is_file() else GENERATED))
    ap.add_argument("--time-unit", default="days")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    r = bench(args.trace, args.time_unit, args.seed)
    if args.json:
        print(json.dumps(r, indent=2))
        return
    print(f"trace {r['trace']}: {r['events']} events, {r['faults']} faults -> {r['mapped']} mapped, "
          f"{r['unmapped']} unmapped; {r['pods']} pods, {r['days']:g} days")
    print(f"interruptions per node-day: trace {r['trace_interruptions_per_node_day']}, replay "
          f"{r['replay_interruptions_per_node_day']} ({100 * (r['relative_diff'] or 0):+.1f}%) "
          f"{'PASS' if r['relative_diff'] is not None and abs(r['relative_diff']) <= GOAL_REL else 'SHORT'}")
    print(f"ETTR {r['ettr']}, goodput {r['goodput']}, verdict {r['verdict']}, {r['detected']} detected, "
          f"{r['recovered']} recovered ({r['recovered_full']} to full size, {r['recovered_degraded']} scaled in), "
          f"{r['false_positives']} false positives; "
          f"ran scaled in {100 * (r['degraded_share'] or 0):.0f}% of the run ({r['degraded_days']:.1f} days; "
          f"{r['scale_ins']} scale-ins, {r['scale_outs']} scale-outs)")
    print(f"wall {r['wall_s']:.1f} s (plan {r['plan_s']:.1f} s), cpu {r['cpu_s']:.1f} s, load average "
          f"{r['load_avg_1min']:.1f}, peak RSS {r['peak_rss_mb']:.0f} MiB: "
          f"{'PASS' if r['wall_s'] <= GOAL_S else 'SHORT'} (goal <= {GOAL_S:.0f} s wall)")


if __name__ == "__main__":
    main()
