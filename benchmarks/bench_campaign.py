"""Benchmark: campaign speed. Three figures, each printed (never asserted):

1. one campaign run: 30 days of one pod under the llama3 profile with both workloads (inference on nodes 0-31,
   training on 32-45), background noise and the whole controller (detector, diagnosis per incident, runbooks,
   scoring, journal). Goal: <= 5 s wall (the plant alone: ``bench_sim_30d.py --profile llama3``).
2. diagnosis in batch: ``DiagnosisModel.predict_proba`` on a batch of case features (the held-out case library
   generator, ``opsbrain.kb.cases.generate``, tiled to ``--batch`` rows), as shipped (scikit-learn) and through
   the campaign's :class:`FastForest`. Goal: >= 2,000 incidents/s.
3. campaign throughput with 1 and 2 worker processes (``--scaling-runs`` runs of ``--scaling-days`` days each):
   runs per minute and the speed-up. On a shared machine the load average (printed) limits the speed-up.

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

from opsbrain.campaign.runner import FastForest, Options, _engine, run_campaign, run_task
from opsbrain.campaign.spec import CampaignSpec
from opsbrain.kb import cases as case_lib
from opsbrain.store import RunStore

GOAL_RUN_S = 5.0
GOAL_DIAG_PER_S = 2000.0


def one_run(days: float, seed: int) -> dict[str, Any]:
    spec = CampaignSpec(pods=1, days=days, seeds=1, first_seed=seed)
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


def diagnosis_batch(batch: int, per_kind: int) -> dict[str, Any]:
    t0 = time.perf_counter()
    cases = case_lib.generate(case_lib.EVAL_SEEDS, per_kind=per_kind, workers=1)
    gen_s = time.perf_counter() - t0
    feats = [c.features for c in cases]
    rows = (feats * (batch // len(feats) + 1))[:batch]
    model = _engine(None).model
    shipped = getattr(model, "model", model)  # the DiagnosisModel under the FastForest wrapper
    out: dict[str, Any] = {"cases": len(cases), "generation_s": gen_s, "batch": len(rows)}
    for name, m in (("sklearn", shipped), ("fast_forest", FastForest(shipped))):
        m.predict_proba(rows[:10])
        t1 = time.perf_counter()
        m.predict_proba(rows)
        out[f"{name}_per_s"] = len(rows) / (time.perf_counter() - t1)
    t2 = time.perf_counter()
    for r in rows[:200]:
        shipped.predict_proba([r])
    out["sklearn_one_by_one_per_s"] = 200 / (time.perf_counter() - t2)
    out["verdict"] = "PASS" if out["sklearn_per_s"] >= GOAL_DIAG_PER_S else "SHORT"
    return out


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
    ap.add_argument("--batch", type=int, default=5000)
    ap.add_argument("--per-kind", type=int, default=1, help="case runs per fault class for the batch features")
    ap.add_argument("--scaling-runs", type=int, default=4)
    ap.add_argument("--scaling-days", type=float, default=7.0)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    run = one_run(args.days, args.seed)
    diag = diagnosis_batch(args.batch, args.per_kind)
    scale = scaling(args.scaling_runs, args.scaling_days)
    out = {"benchmark": "bench_campaign", "run": run, "diagnosis": diag, "scaling": scale,
           "cpus": os.cpu_count(), "load_avg": os.getloadavg()[0],
           "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
    if args.json:
        print(json.dumps(out, sort_keys=True))
        return 0
    print(f"bench_campaign ({out['cpus']} CPUs, load average {out['load_avg']:.1f})")
    print(f"  1. campaign run, 1 pod x {run['days']:g} days, llama3, both workloads, controller: {run['wall_s']:.2f} s "
          f"wall, {run['cpu_s']:.2f} s CPU ({run['faults']} faults, {run['noise_incidents']} noise incidents, "
          f"diagnosis {run['diagnosis_ms_mean']:.2f} ms mean; training ETTR {run['training_ettr']:.4f}); goal <= "
          f"{GOAL_RUN_S:g} s: {run['verdict']}")
    print(f"  2. diagnosis batch of {diag['batch']:,} ({diag['cases']} distinct case features): scikit-learn "
          f"{diag['sklearn_per_s']:,.0f}/s, FastForest {diag['fast_forest_per_s']:,.0f}/s, one at a time "
          f"(scikit-learn) {diag['sklearn_one_by_one_per_s']:,.0f}/s; goal >= {GOAL_DIAG_PER_S:,.0f}/s: "
          f"{diag['verdict']}")
    print(f"  3. throughput, {scale['runs']} runs x {scale['days']:g} days: 1 worker {scale['w1_runs_per_min']:.1f} "
          f"runs/min, 2 workers {scale['w2_runs_per_min']:.1f} runs/min (speed-up {scale['speedup']:.2f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
