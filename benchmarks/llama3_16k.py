"""ETTR of the two baselines for the ``llama3`` profile at 16,384 accelerators, by the first-order formula.

A full campaign at 43 pods does not fit this machine, so the ETTR is computed with the first-order formula that
docs/validation.md (campaign validation 2) checks against simulated runs to within 0.4 percentage points:
``ETTR = 1 - w/D - lambda (u0 + D/2)``, with

- lambda: the profile's unexpected-interruption rate (Llama 3: 419 in 54 days on 16,384 accelerators);
- u0: the mean downtime per interruption under the policy, from the simulator's and the policy's own draws: the
  policy's detection path for each fault class of the profile (weighted by the profile's category counts and
  kind weights), then a job-level restart of a 16,384-rank job (``faultlib.workloads.training.restart_stages_s``,
  with a node swap where the policy swaps one) and the persistent-checkpoint load; a link flap the CANN retry
  rides out costs nothing (generous to the baselines);
- w: the persistent-checkpoint write stall, D: the checkpoint interval the job runs with.

Rows: the shipped defaults; then one change at a time, each named with its source; then the fitted rows: an
assumed stage's parameter solved by bisection (the largest value at which vendor-default, the better baseline,
reaches 0.90; the bound of the range when no value does), the next one only if still short. Nothing here
changes the shipped defaults.

    .venv/bin/python benchmarks/llama3_16k.py [--draws 4000]
"""

from __future__ import annotations

import argparse
import math
import sys
from typing import Any

import numpy as np

ACCELERATORS = 16_384
DAYS = 54.0
INTERRUPTIONS = 419


def class_shares() -> dict[str, float]:
    """Fault class -> share of the profile's unexpected interruptions (category counts x kind weights)."""
    from faultlib.injection.profiles import LLAMA3_CATEGORIES, kind_weights

    total = sum(c.count for c in LLAMA3_CATEGORIES)
    out: dict[str, float] = {}
    for cat in LLAMA3_CATEGORIES:
        kinds, w = kind_weights(cat)
        for k, wk in zip(kinds, w, strict=True):
            out[k] = out.get(k, 0.0) + cat.count / total * float(wk)
    return out


def _lognormal_mean(median: float, sigma: float, z: np.ndarray) -> np.ndarray:
    return median * np.exp(sigma * z)


def mean_detection_s(policy: str, cls: str, hang_timeout_s: float, rng: np.random.Generator, n: int) -> float:
    """Mean seconds from the fault to the policy's restart decision (its own detection model, no controller)."""
    from opsbrain.recovery.params import ManualParams, VendorParams
    from opsbrain.recovery.vendor import CODELESS

    z = rng.standard_normal((3, n))
    if policy == "vendor-default":
        vp = VendorParams()
        if cls in ("node_crash", "node_hang"):
            return vp.heartbeat_lost_s + float(np.mean([vp.node_lost_s.quantile(x) for x in z[0]]))
        if cls in CODELESS:
            return hang_timeout_s
        return float(np.mean([vp.fault_report_s.quantile(x) for x in z[0]]))
    mp = ManualParams()
    triage = float(np.mean(_lognormal_mean(mp.diagnosis_median_s, mp.diagnosis_sigma, z[1])))
    if cls in CODELESS or cls in ("node_hang", "aicore_hang"):  # a hang: the timeout or a person, first
        notice = _lognormal_mean(mp.hang_notice_median_s, mp.hang_notice_sigma, z[2])
        return float(np.mean(np.minimum(notice, hang_timeout_s))) + triage
    return float(np.mean(_lognormal_mean(mp.page_response_median_s, mp.page_response_sigma, z[0]))) + triage


def ettr(policy: str, over: dict[str, Any], draws: int, seed: int = 1) -> dict[str, float]:
    from faultlib.engine import Simulation
    from faultlib.params import apply_overrides
    from faultlib.simparams import SimParams
    from faultlib.workloads.training import restart_stages_s
    from opsbrain.recovery.manual import REPLACE_NODE

    params = apply_overrides(SimParams(), over) if over else SimParams()
    tp = params.training
    sim = Simulation(params, seed=seed)
    nodes = ACCELERATORS // sim.topology.params.npus_per_node
    storage = min(nodes * params.fabric.vpc_gbits_s / 8 * tp.storage_efficiency, tp.storage_aggregate_gbytes_s)
    w = tp.total_params_b * 1e9 * tp.state_bytes_per_param / (storage * 1e9)
    rng = np.random.default_rng([seed, 16384])
    u0 = 0.0
    for cls, share in class_shares().items():
        if cls == "link_flap":
            continue  # the CANN operator retry rides most flaps out: no restart (generous to the baselines)
        replaced = cls in REPLACE_NODE
        stages = float(np.mean([restart_stages_s(sim, tp, ACCELERATORS, nodes, "job", replaced)
                                for _ in range(draws)]))
        u0 += share * (mean_detection_s(policy, cls, tp.hang_timeout_s, rng, draws) + stages + w)
    lam = INTERRUPTIONS / (DAYS * 86400.0)
    d = tp.ckpt_interval_s
    return {"w": w, "u0": u0, "D": d, "lambda_per_h": lam * 3600, "ettr": 1 - w / d - lam * (u0 + d / 2)}


TARGET = 0.90
FITS = (  # (label, parameter, low, high, value at x): the assumed stages that dominate a 16k-rank restart
    ("training.launch_s p90 (shipped 180 s, median 90 s)", "training.launch_s", 1.0, 2.0,
     lambda x: {"median": 90.0, "p90": round(90.0 * x, 1)}),
    ("training.rank_table_scale_exp (shipped 1.0)", "training.rank_table_scale_exp", 0.0, 1.0,
     lambda x: round(x, 3)),
)


def young_daly(w: float) -> float:
    return math.sqrt(2 * (DAYS * 86400.0 / INTERRUPTIONS) * w)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--draws", type=int, default=4000)
    args = ap.parse_args()
    rows: list[tuple[str, dict[str, Any]]] = [("shipped defaults (hourly checkpoint, 200 GB/s storage)", {})]
    storage: dict[str, Any] = {"training.storage_aggregate_gbytes_s": 2000.0}
    w_llama = ettr("vendor-default", storage, 200)["w"]
    yd: dict[str, Any] = {**storage, "training.ckpt_interval_s": round(young_daly(w_llama))}
    rows.append(("+ Llama 3's storage: 2 TB/s sustained (Llama 3 paper arXiv 2407.21783, Tectonic)", storage))
    rows.append((f"+ checkpoint every sqrt(2 M w) = {yd['training.ckpt_interval_s']} s (Young/Daly, M = 54 d / 419)",
                 yd))
    fit: dict[str, Any] = dict(yd)
    for label, key, lo, hi, make in FITS:  # fitted one after the other, each only if still short of the target
        if ettr("vendor-default", fit, 300)["ettr"] >= TARGET:
            break
        for _ in range(8):  # the largest value that still reaches TARGET (the restart slows as it grows)
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if ettr("vendor-default", {**fit, key: make(mid)}, 300)["ettr"] >= TARGET else (lo, mid)
        fit = {**fit, key: make(lo)}
        rows.append((f"+ **fitted** {label}: {make(lo)}", dict(fit)))
    print(f"ETTR at {ACCELERATORS:,} accelerators, llama3 profile ({INTERRUPTIONS} unexpected interruptions in "
          f"{DAYS:g} days), first-order formula, `python benchmarks/llama3_16k.py --draws {args.draws}`:\n")
    print("| set-up | w (s) | D (s) | vendor-default u0 (s) | vendor-default ETTR | manual u0 (s) | manual ETTR |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for label, over in rows:
        v, m = ettr("vendor-default", over, args.draws), ettr("manual", over, args.draws)
        print(f"| {label} | {v['w']:.1f} | {v['D']:.0f} | {v['u0']:.0f} | {v['ettr']:.3f} | {m['u0']:.0f} | "
              f"{m['ettr']:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
