"""Where the auto policy's ETTR comes from: the 27-pod cluster campaign with one lever of the auto policy off at
a time, same seeds (issue 10).

Variants:
- ``all``: the auto policy as shipped;
- ``no-launch-config``: jobs keep the CANN HCCL retry defaults (HoldTime 5 s) and the hourly persistent checkpoint
  (``RecoveryParams.job_launch_overrides`` returns nothing);
- ``no-watchdog``: the progress watchdog never fires (``recovery.stuck_after_s`` = 10^9 s);
- ``no-damping``: ``rb-dirty-connector`` only watches (a flapped link is not drained for the hold-down).

Each variant patches the one thing it names inside the worker process and runs the campaign task of
``opsbrain.campaign.runner.run_task``; the figures are the runs' own accounting.

    .venv/bin/python benchmarks/ettr_ablation.py [--seeds 2] [--workers 2] [--days 7] [--pods 27]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

VARIANTS = ("all", "no-launch-config", "no-watchdog", "no-damping")


def _patch(variant: str) -> None:
    import opsbrain.runner.world as world
    from opsbrain.recovery.params import RecoveryParams

    if variant == "no-launch-config":
        RecoveryParams.job_launch_overrides = lambda self: {}  # type: ignore[method-assign]
    elif variant == "no-watchdog":
        world.RecoveryParams = lambda: RecoveryParams(stuck_after_s=1e9)  # type: ignore[misc,assignment]
    elif variant == "no-damping":
        from opsbrain.recovery import loader

        original = loader.load_runbooks

        def watch_only(*args: Any, **kwargs: Any) -> Any:
            rbs = original(*args, **kwargs)
            rb = rbs.runbooks["rb-dirty-connector"]
            rbs.runbooks["rb-dirty-connector"] = rb.model_copy(update={
                "steps": [s for s in rb.steps if s.action not in ("drain_link", "wait", "undrain_link")]})
            return rbs

        loader.load_runbooks = watch_only
        import opsbrain.recovery.orchestrator as orch

        orch.load_runbooks = watch_only  # type: ignore[attr-defined]


def one(args: tuple[str, int, int, float]) -> dict[str, Any]:
    variant, seed, pods, days = args
    _patch(variant)
    from opsbrain.campaign.runner import run_task
    from opsbrain.campaign.spec import CampaignSpec

    spec = CampaignSpec(pods=pods, days=days, seeds=1, first_seed=seed, policies=("auto",), cheap_noise=True,
                        spares_per_pod=4)
    res = run_task(spec.model_dump_json(), seed, "auto")
    train = next(w for w in res["record"]["workloads"] if w["name"] == "train")
    elapsed = days * 86400.0
    return {"variant": variant, "seed": seed, "ettr": train["ettr"],
            "stalled": train["stalled_s"] / elapsed, "downtime": train["downtime_s"] / elapsed,
            "ckpt": train["ckpt_stall_s"] / elapsed, "redone": train["redone_s"] / elapsed}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--pods", type=int, default=27)
    ap.add_argument("--days", type=float, default=7.0)
    args = ap.parse_args()
    jobs = [(v, s, args.pods, args.days) for v in VARIANTS for s in range(args.seeds)]
    t0 = time.perf_counter()
    with ProcessPoolExecutor(args.workers, max_tasks_per_child=1) as ex:  # a fresh process per patched run
        rows = list(ex.map(one, jobs))
    print(f"ettr_ablation: {args.pods} pods x {args.days:g} days, llama3, seeds 0..{args.seeds - 1}, auto policy, "
          f"cheap noise, 4 spares/pod ({time.perf_counter() - t0:.0f} s wall)")
    print("| variant | ETTR mean | min | stalled | downtime | checkpoint writes | redone |")
    print("|---|---|---|---|---|---|---|")
    for v in VARIANTS:
        r = [x for x in rows if x["variant"] == v]
        m = {k: statistics.mean(x[k] for x in r) for k in ("ettr", "stalled", "downtime", "ckpt", "redone")}
        print(f"| {v} | {m['ettr']:.4f} | {min(x['ettr'] for x in r):.4f} | {m['stalled']:.2%} | "
              f"{m['downtime']:.2%} | {m['ckpt']:.2%} | {m['redone']:.2%} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
