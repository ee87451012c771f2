"""Elastic prefill/decode over a day: autoscaler vs static layouts on the same seeds (issue 21, must-show 1).

    python benchmarks/bench_elastic.py --seeds 10 [--policies autoscale,static-peak,static-paper] [--json out.json]

Prints, per policy over the seeds, p50/p90 (and min) of the day's SLO attainment (TPOT <= 15 ms, TTFT <= 2 s, no
shed demand), the time until the SLO holds again after the decode-node crash at 14:00, tokens/s per NPU and
NPU-hours allocated and idle. The decode capacity at the TPOT bound comes from the calibrated roofline.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from opsbrain.ops.elastic_run import POLICIES, ElasticSetup, Policy, run_elastic  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--policies", default=",".join(POLICIES))
    ap.add_argument("--json", type=Path, default=None, help="write every run's metrics here")
    args = ap.parse_args(argv)
    setup = ElasticSetup()
    rows = []
    chosen: list[Policy] = [p for p in POLICIES if p in args.policies.split(",")]
    for policy in chosen:
        for seed in range(args.seeds):
            rows.append(run_elastic(setup, policy, seed))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    print(f"elastic serving, {setup.duration_s / 3600:.0f} h, peak {setup.peak_tokens_per_s:,.0f} tok/s, "
          f"budget {setup.budget_npus} NPUs, {args.seeds} seeds; decode capacity at the 15 ms TPOT bound: "
          f"{rows[0]['decode_tokens_per_s_per_npu_at_slo_bound']:.1f} tok/s/NPU")
    keys = [("slo_attainment", "SLO attainment", "{:.4f}"), ("time_to_slo", "time to SLO after fault s", "{:.0f}"),
            ("tokens_per_s_per_npu", "tok/s per allocated NPU", "{:.1f}"),
            ("decode_tokens_per_s_per_decode_npu", "tok/s per decode NPU", "{:.1f}"),
            ("npu_hours_allocated", "NPU-hours allocated", "{:.0f}"), ("npu_hours_idle", "NPU-hours idle", "{:.0f}")]
    for policy in args.policies.split(","):
        mine = [r for r in rows if r["policy"] == policy]
        print(f"\n{policy}")
        for key, label, fmt in keys:
            vals = np.array([max(r["time_to_slo_after_fault_s"] or [0.0]) if key == "time_to_slo" else r[key]
                             for r in mine])
            print(f"  {label:28s} p50 {fmt.format(np.percentile(vals, 50))}  p90 {fmt.format(np.percentile(vals, 90))}"
                  f"  min {fmt.format(vals.min())}  max {fmt.format(vals.max())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
