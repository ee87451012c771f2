"""Benchmark: a sweep of a CloudMatrix384 pod's telemetry read from an npu-exporter page over HTTP (issue 20).

The twin's pod (384 NPUs, background noise for an hour) is rendered as npu-exporter pages and served by the
small exporter of ``opsbrain.sources.serve`` on 127.0.0.1; ``PrometheusSource`` fetches, parses
(prometheus_client's text parser for every label set; see ``opsbrain.sources.pagetext.PageParser``), builds the
snapshot and runs the covered checks. Two pages:

- ``npus``: the 384 NPUs' own series (temperature, HBM temperature, ECC counter, isolated pages; since session 35
  their RoCE FCS and HCCS CRC counters), the issue's
  "sweep of 384 NPUs' metrics" (goal <= 200 ms);
- ``pod``: the same plus the 10,752 switch-port optical modules (8 power series each) and 5,376 CRC counters.

The first sweep of a source parses every label set (cold); later sweeps of the same series reuse the parsed
label sets (steady, what a scheduled service sees). The verdict is printed, never asserted. The host is shared:
the load average is printed with the figures.

    .venv/bin/python benchmarks/bench_sweep_exporter.py [--sweeps 10] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import time
from typing import Any

from faultlib.engine import Simulation
from faultlib.simparams import SimParams
from faultlib.telemetry.noise import start_background_noise
from opsbrain import stats
from opsbrain.sources import PrometheusSource, sweep_source
from opsbrain.sources.exporter import render_twin_page
from opsbrain.sources.serve import PageServer
from opsbrain.sweeps import SweepParams

GOAL_MS = 200.0


def bench_page(page: str, sweeps: int) -> dict[str, Any]:
    with PageServer(lambda: page) as srv:
        src = PrometheusSource([srv.url])
        p = SweepParams()
        t0 = time.perf_counter()
        first = sweep_source(src, p)
        cold = (time.perf_counter() - t0) * 1e3
        times = []
        for _ in range(sweeps):
            t0 = time.perf_counter()
            rep = sweep_source(src, p)
            times.append((time.perf_counter() - t0) * 1e3)
    return {"page_bytes": len(page), "samples": sum(1 for ln in page.splitlines() if ln and ln[0] != "#"),
            "cold_ms": round(cold, 1), "steady_median_ms": round(stats.median(times), 1),
            "steady_max_ms": round(max(times), 1), "findings": len(rep.findings), "first_findings": len(first.findings),
            "checked": sum(rep.checked.values())}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sweeps", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    sim = Simulation(SimParams(), seed=args.seed)
    start_background_noise(sim)
    sim.run(3600.0)
    out = {"npus": bench_page(render_twin_page(sim, optics=False), args.sweeps),
           "pod": bench_page(render_twin_page(sim), max(2, args.sweeps // 3)),
           "npus_in_pod": len(sim.topology.by_kind["npu"]), "loadavg_1m": round(os.getloadavg()[0], 2),
           "goal_ms": GOAL_MS}
    out["verdict"] = "PASS" if out["npus"]["steady_median_ms"] <= GOAL_MS else "SHORT"
    if args.json:
        print(json.dumps(out))
        return
    for name in ("npus", "pod"):
        d = out[name]
        print(f"{name:>5}: {d['samples']:>7,} samples ({d['page_bytes'] / 1e6:.1f} MB): cold {d['cold_ms']:.0f} ms, "
              f"steady median {d['steady_median_ms']:.0f} ms (max {d['steady_max_ms']:.0f} ms); "
              f"{d['checked']:,} component-checks, {d['findings']} findings")
    print(f"384-NPU sweep from the exporter, steady: {out['npus']['steady_median_ms']:.0f} ms vs goal {GOAL_MS:.0f} ms "
          f"-> {out['verdict']} (cold first sweep {out['npus']['cold_ms']:.0f} ms; load average "
          f"{out['loadavg_1m']} on {os.cpu_count()} CPUs)")


if __name__ == "__main__":
    main()
