"""Benchmark: 7 simulated days of a 27-pod cluster (10,368 NPUs) under the llama3 profile.

One training job spans nodes 0-45 of every pod (9,936 NPUs; its data-parallel traffic between pods crosses the
RDMA plane), nodes 46-47 of every pod are warm spares, background noise runs in every pod. Two modes:

- ``full`` (default): the campaign run itself (``opsbrain.campaign.runner.run_task``): faults, noise, detector,
  diagnosis of every incident, runbooks, scoring and the journal; the job's ETTR is printed for the policy.
- ``plant``: faultlib only (no controller): topology, job, noise, fault timeline and the run. With nobody to
  restart it, the job stays down after its first crash, so this mode measures the plant's event cost.

Noise: ``--noise cheap`` (default) is the campaign's ``cheap_noise`` option: every noise family runs in every pod;
only chip temperatures are re-drawn every 48 h instead of 12 h (``opsbrain.campaign.spec.CHEAP_NOISE``).
``--noise full`` keeps the simulator default.

Goal (issue 10): <= 60 s wall and <= 2 GB peak RSS for the 7 days. Printed, never asserted.

    .venv/bin/python benchmarks/bench_cluster_7d.py                   # full, auto policy, seed 1, cheap noise
    .venv/bin/python benchmarks/bench_cluster_7d.py --noise full
    .venv/bin/python benchmarks/bench_cluster_7d.py --policy manual
    .venv/bin/python benchmarks/bench_cluster_7d.py --mode plant --json
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from typing import Any

_T0 = time.perf_counter()

from faultlib import ids  # noqa: E402
from faultlib.engine import Simulation  # noqa: E402
from faultlib.injection.profiles import draw_timeline  # noqa: E402
from faultlib.telemetry.noise import start_background_noise  # noqa: E402
from faultlib.topology import Topology  # noqa: E402
from faultlib.workloads.training import TrainingJob  # noqa: E402
from opsbrain.campaign.runner import run_task  # noqa: E402
from opsbrain.campaign.spec import CampaignSpec, sim_params  # noqa: E402

_T_IMPORTED = time.perf_counter()
GOAL_S, GOAL_MB = 60.0, 2048.0


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def simpy_events(sim: Simulation) -> int | None:
    eid = getattr(sim.env, "_eid", None)
    try:
        return int(next(eid)) if eid is not None else None
    except TypeError:
        return None


def plant(pods: int, days: float, seed: int, cheap: bool) -> dict[str, Any]:
    t0 = time.perf_counter()
    topo = Topology.build(pods=pods)
    t1 = time.perf_counter()
    sim = Simulation(sim_params(CampaignSpec(pods=pods, cheap_noise=cheap)), seed=seed, topology=topo)
    sim.add_workload(TrainingJob("train", [ids.node(p, n) for p in range(pods) for n in range(46)]))
    start_background_noise(sim)
    tl = draw_timeline("llama3", topo, days, sim.rng("injection"))
    for s in tl:
        sim.inject(s)
    t2 = time.perf_counter()
    sim.run(days * 86400.0)
    t3 = time.perf_counter()
    acc = sim.workloads["train"].accounting()
    return {"topology_s": t1 - t0, "setup_s": t2 - t1, "run_s": t3 - t2, "wall_s": t3 - t0,
            "trace_events": len(sim.trace), "simpy_events": simpy_events(sim), "faults": len(tl),
            "log_lines": len(sim.telemetry.logs), "ettr": acc["ettr"], "npus": acc["npus"]}


def full(pods: int, days: float, seed: int, policy: str, cheap: bool) -> dict[str, Any]:
    spec = CampaignSpec(pods=pods, days=days, seeds=1, first_seed=seed, policies=(policy,), cheap_noise=cheap)
    t0 = time.perf_counter()
    res = run_task(spec.model_dump_json(), seed, policy)
    wall = time.perf_counter() - t0
    rec, j = res["record"], res["journal"]
    train = next(w for w in rec["workloads"] if w["name"] == "train")
    return {"wall_s": wall, "setup_s": rec["setup_s"], "run_s": wall - rec["setup_s"],
            "trace_events": j["summary"]["events"], "faults": len(rec["faults"]),
            "noise_incidents": rec["noise_incidents"], "diagnosis_ms_mean": rec["diagnosis_ms_mean"],
            "ettr": train["ettr"], "goodput": train["goodput"], "npus": train["npus"],
            "downtime_s": train["downtime_s"], "stalled_s": train["stalled_s"], "ckpt_stall_s": train["ckpt_stall_s"],
            "redone_s": train["redone_s"], "restarts": train["restarts"], "stalls": train.get("stalls"),
            "journal_mb": len(json.dumps(j)) / 1e6}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mode", choices=["full", "plant"], default="full")
    ap.add_argument("--pods", type=int, default=27)
    ap.add_argument("--days", type=float, default=7.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--policy", choices=["auto", "manual", "vendor-default"], default="auto")
    ap.add_argument("--noise", choices=["cheap", "full"], default="cheap")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    c0 = time.process_time()
    cheap = args.noise == "cheap"
    r = plant(args.pods, args.days, args.seed, cheap) if args.mode == "plant" else full(
        args.pods, args.days, args.seed, args.policy, cheap)
    out = {"benchmark": "bench_cluster_7d", "mode": args.mode, "noise": args.noise, "pods": args.pods,
           "days": args.days,
           "seed": args.seed, "policy": args.policy if args.mode == "full" else None, **r,
           "cpu_s": time.process_time() - c0, "import_s": _T_IMPORTED - _T0, "peak_rss_mb": rss_mb(),
           "events_per_s": r["trace_events"] / r["run_s"] if r["run_s"] > 0 else None,
           "load_avg": os.getloadavg()[0], "cpus": os.cpu_count()}
    out["verdict"] = "PASS" if out["wall_s"] <= GOAL_S and out["peak_rss_mb"] <= GOAL_MB else "SHORT"
    if args.json:
        print(json.dumps(out, sort_keys=True))
        return 0
    print(f"bench_cluster_7d ({args.mode}): {args.pods} pods, {r['npus']:,} NPUs in the training job, "
          f"{args.days:g} days, llama3, seed {args.seed}, {args.noise} noise"
          + (f", policy {args.policy}" if args.mode == "full" else ""))
    print(f"  wall            {out['wall_s']:.1f} s (setup {r['setup_s']:.1f} s, run {r['run_s']:.1f} s); "
          f"CPU {out['cpu_s']:.1f} s; imports {out['import_s']:.1f} s; load avg {out['load_avg']:.1f} on "
          f"{out['cpus']} CPUs")
    print(f"  events          {r['trace_events']:,} trace events ({out['events_per_s']:,.0f}/s of run time); "
          f"{r['faults']} faults")
    print(f"  peak RSS        {out['peak_rss_mb']:.0f} MiB")
    if args.mode == "full":
        print(f"  training job    ETTR {r['ettr']:.4f}, goodput {r['goodput']:.4f}; downtime {r['downtime_s']:.0f} s, "
              f"stalled {r['stalled_s']:.0f} s ({r['stalls']} stalls), checkpoint stalls {r['ckpt_stall_s']:.0f} s, "
              f"redone {r['redone_s']:.0f} s, {r['restarts']} restarts")
        print(f"  controller      {r['noise_incidents']} noise incidents, diagnosis {r['diagnosis_ms_mean']:.2f} ms "
              f"mean; journal {r['journal_mb']:.1f} MB")
    else:
        print(f"  training job    ETTR {r['ettr']:.4f} (no controller: nobody restarts it)")
    print(f"  goal            wall <= {GOAL_S:g} s and peak RSS <= {GOAL_MB:g} MiB: {out['verdict']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
