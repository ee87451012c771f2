"""Day inference / night training: per-node switch time over seeds, a fault mid-switch, on-time hand-back (issue 21).

    python benchmarks/bench_switch.py --seeds 20 [--fault] [--json out.json]

Runs the built-in day/night plan (flexible group of 22 nodes trains 22:00-06:00) once per seed and prints p50/p90
of the per-node switch time by direction and by role switched into, the hand-backs on time, and the switches that
needed a retry. With ``--fault`` a node of the group crashes 100 s into each switch (kernel panic).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from opsbrain.ops.schedule import MidSwitchFault  # noqa: E402
from opsbrain.ops.schedule_run import ScheduleSetup, run_schedule  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--fault", action="store_true", help="crash a node of the group 100 s into each switch")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    faults = (MidSwitchFault(0, 100.0, 3), MidSwitchFault(1, 100.0, 3)) if args.fault else ()
    setup = ScheduleSetup(faults=faults)
    rows = [run_schedule(setup, seed) for seed in range(args.seeds)]
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1, default=str))
    print(f"day/night switch, {args.seeds} seeds, dusk {setup.dusk!r}, dawn {setup.dawn!r}"
          f"{', a node crash 100 s into each switch' if args.fault else ''}")

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
    return 0


if __name__ == "__main__":
    sys.exit(main())
