"""Recovery targets of issue 6, measured: median over seeds of ttr per fault class under the auto policy, the manual
policy's figures on the same seeds, impact reduction, and the share of incidents handled with no human step.

    .venv/bin/python benchmarks/recovery_targets.py [--seeds 20] [--workers 2] [--out docs/recovery-results.md]

Every figure comes from chaos-run journals (opsbrain.runner.run.run_plan) of the built-in scenarios; both policies
run the same seeds for the same simulated duration (3 h, so the manual policy's recovery fits in the window).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

SCENARIOS = {  # scenario -> (fault class, target ttr in s, impact measure)
    "link-down-training": ("link_down", 10.0, "lost_npu_s"),
    "link-down-inference": ("link_down", 10.0, "lost_tokens"),
    "link-flap-training": ("link_flap", 10.0, "lost_npu_s"),
    "hbm-uce-training": ("hbm_uce", 30.0, "lost_npu_s"),
    "l2-switch-failure": ("l2_switch_failure", 30.0, "lost_npu_s"),
    "node-crash-training": ("node_crash", 180.0, "lost_npu_s"),
}
DURATION_S = 3 * 3600.0


def one(args: tuple[str, int, str]) -> dict[str, Any]:
    from opsbrain import chaos
    from opsbrain.kb.training import load_engine
    from opsbrain.runner.run import run_plan

    name, seed, policy = args
    plan = chaos.plan(name, seed=seed, policy=policy)
    plan.scenario = plan.scenario.model_copy(update={"spec": plan.scenario.spec.model_copy(
        update={"duration": DURATION_S})})
    j = run_plan(plan, load_engine())
    f = next(i for i in j["incidents"] if i["injected"])
    measure = SCENARIOS[name][2]
    impact = sum(v.get(measure, 0.0) or 0.0 for v in f["impact"].values())
    restarts = sum(1 for a in f["actions"] if a["action"] in ("restart_job", "restart_instance")
                   and a["status"] == "succeeded")
    return {"scenario": name, "seed": seed, "policy": policy, "ttr": f["ttr_s"], "correct": f["correct"],
            "human": f.get("human_steps", 0), "impact": impact, "restarts": restarts}


def optical_pooled(rows: list[dict[str, Any]]) -> list[float]:
    """Per seed: 1 - (auto link-down + auto link-flap impact) / (the manual policy's on the same seeds)."""
    names = ("link-down-training", "link-flap-training")
    by = {(r["scenario"], r["seed"], r["policy"]): r["impact"] for r in rows if r["scenario"] in names}
    seeds = sorted({s for (_n, s, _p) in by})
    out = []
    for s in seeds:
        auto = sum(by.get((n, s, "auto"), 0.0) for n in names)
        man = sum(by.get((n, s, "manual"), 0.0) for n in names)
        if man > 0:
            out.append(1 - auto / man)
    return out


def med(xs: list[float]) -> float | None:
    return statistics.median(xs) if xs else None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    jobs = [(n, 1000 + s, p) for n in SCENARIOS for s in range(args.seeds) for p in ("auto", "manual")]
    t0 = time.perf_counter()
    with ProcessPoolExecutor(args.workers) as ex:
        rows = list(ex.map(one, jobs, chunksize=2))
    wall = time.perf_counter() - t0
    lines = [f"Measured by `python benchmarks/recovery_targets.py --seeds {args.seeds}` ({len(rows)} runs, "
             f"{wall:.0f} s wall); seeds 1000..{1000 + args.seeds - 1}, both policies, {DURATION_S / 3600:.0f} h "
             "simulated each.", "",
             "| scenario | class | auto ttr median (s) | target (s) | auto ttr p90 (s) | manual ttr median (s) | "
             "impact reduction median | min | job restarts (auto) | correct (auto) | no human step (auto) |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, (cls, target, _m) in SCENARIOS.items():
        auto = [r for r in rows if r["scenario"] == name and r["policy"] == "auto"]
        man = {r["seed"]: r for r in rows if r["scenario"] == name and r["policy"] == "manual"}
        at = sorted(r["ttr"] for r in auto if r["ttr"] is not None)
        mt = [r["ttr"] for r in man.values() if r["ttr"] is not None]
        red = [1 - r["impact"] / man[r["seed"]]["impact"] for r in auto if man[r["seed"]]["impact"] > 0]
        p90 = at[int(0.9 * (len(at) - 1))] if at else None
        m = med(at)
        lines.append(f"| {name} | {cls} | {m:.1f} {'PASS' if m is not None and m <= target else 'SHORT'} | "
                     f"{target:.0f} | {p90:.1f} | {f'{med(mt):.0f}' if mt else 'not within 3 h'} | "
                     f"{(med(red) or 0) * 100:.2f}% | {min(red or [0]) * 100:.2f}% | "
                     f"{sum(r['restarts'] for r in auto)} | {sum(r['correct'] for r in auto)}/{len(auto)} | "
                     f"{sum(r['human'] == 0 for r in auto)}/{len(auto)} |" if m is not None else
                     f"| {name} | {cls} | none recovered | {target:.0f} | | | | | | | |")
    pooled = optical_pooled(rows)
    lines += ["", "Optical faults pooled (link down + link flap on training, same seeds; Huawei: -96%, target -98%): "
              f"impact reduction 1 - sum(auto) / sum(manual) median {med(pooled) * 100:.2f}%, min "
              f"{min(pooled) * 100:.2f}% {'PASS' if med(pooled) >= 0.98 else 'SHORT'}. The flap alone: the first "
              "flap's stall (its dark time, rounded up to the 1 s HCCL re-execution grid) cannot be avoided, the "
              "later ones hit a drained link; the manual policy pays every flap at the 5 s CANN HoldTime."
              if pooled else "", ""]
    auto_all = [r for r in rows if r["policy"] == "auto"]
    lines += ["", f"Incidents handled with no human step (auto): {sum(r['human'] == 0 for r in auto_all)}/"
              f"{len(auto_all)} = {sum(r['human'] == 0 for r in auto_all) / len(auto_all):.1%}."]
    text = "\n".join(lines)
    print(text)
    if args.out:
        from pathlib import Path

        Path(args.out).write_text("# Recovery targets (issue 6)\n\n" + text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
