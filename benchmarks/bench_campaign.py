"""Benchmark: campaign speed. Two figures, each printed (never asserted):

1. one campaign run: 30 days of one pod under the llama3 profile with both workloads (inference on nodes 0-31,
   training on 32-45), background noise and the whole controller (detector, diagnosis per incident, runbooks,
   scoring, journal). Goal: <= 5 s wall (the plant alone: ``bench_sim_30d.py --profile llama3``).
2. campaign throughput with 1 and 2 worker processes (``--scaling-runs`` runs of ``--scaling-days`` days each):
   runs per minute and the speed-up. On a shared machine the load average (printed) limits the speed-up.

Diagnosis in batch (>= 2,000 incidents/s) is ``bench_diagnosis.py``.

    .venv/bin/python benchmarks/bench_campaign.py
    .venv/bin/python benchmarks/bench_campaign.py --json
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from opsbrain.campaign.runner import Options, _engine, run_campaign, run_task
from opsbrain.campaign.spec import CampaignSpec
from opsbrain.store import RunStore

GOAL_RUN_S = 5.0


def one_run(days: float, seed: int, cheap: bool) -> dict[str, Any]:
    spec = CampaignSpec(pods=1, days=days, seeds=1, first_seed=seed, cheap_noise=cheap)
    _engine(None)  # loaded once per process, outside the timed part (as in a worker)
    t0, c0 = time.perf_counter(), time.process_time()
    res = run_task(spec.model_dump_json(), seed, "auto")
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    rec = res["record"]
    train = next(w for w in rec["workloads"] if w["name"] == "train")
    return {"days": days, "seed": seed, "wall_s": wall, "cpu_s": cpu, "faults": len(rec["faults"]),
            "noise_incidents": rec["noise_incidents"], "events": rec["events"],
            "diagnosis_ms_mean": rec["diagnosis_ms_mean"], "training_ettr": train["ettr"],
            "verdict": "PASS" if wall <= GOAL_RUN_S else "SHORT"}


def scaling(runs: int, days: float) -> dict[str, Any]:
    out: dict[str, Any] = {"runs": runs, "days": days}
    for workers in (1, 2):
        with tempfile.TemporaryDirectory() as home:
            spec = CampaignSpec(pods=1, days=days, seeds=runs, first_seed=100)
            t0 = time.perf_counter()
            res = run_campaign(spec, RunStore(Path(home)), Options(workers=workers), home=None)
            wall = time.perf_counter() - t0
        out[f"w{workers}_wall_s"] = wall
        out[f"w{workers}_runs_per_min"] = 60 * res["runs"]["ran_now"] / wall
    out["speedup"] = out["w1_wall_s"] / out["w2_wall_s"]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--days", type=float, default=30.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--scaling-runs", type=int, default=4)
    ap.add_argument("--scaling-days", type=float, default=15.0)
    ap.add_argument("--cheap-noise", action="store_true", help="the campaign's cheap_noise option for run 1")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    run = one_run(args.days, args.seed, args.cheap_noise)
    scale = scaling(args.scaling_runs, args.scaling_days)
    out = {"benchmark": "bench_campaign", "run": run, "scaling": scale,
           "cpus": os.cpu_count(), "load_avg": os.getloadavg()[0],
           "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
    if args.json:
        print(json.dumps(out, sort_keys=True))
        return 0
    print(f"bench_campaign ({out['cpus']} CPUs, load average {out['load_avg']:.1f})")
    noise = "cheap noise" if args.cheap_noise else "full noise"
    print(f"  1. campaign run, 1 pod x {run['days']:g} days, llama3, both workloads, {noise}, controller: "
          f"{run['wall_s']:.2f} s "
          f"wall, {run['cpu_s']:.2f} s CPU ({run['faults']} faults, {run['noise_incidents']} noise incidents, "
          f"diagnosis {run['diagnosis_ms_mean']:.2f} ms mean; training ETTR {run['training_ettr']:.4f}); goal <= "
          f"{GOAL_RUN_S:g} s: {run['verdict']}")
    print(f"  2. throughput, {scale['runs']} runs x {scale['days']:g} days: 1 worker {scale['w1_runs_per_min']:.1f} "
          f"runs/min, 2 workers {scale['w2_runs_per_min']:.1f} runs/min (speed-up {scale['speedup']:.2f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
