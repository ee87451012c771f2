"""Benchmark: :func:`opsbrain.sources.portreadings.port_state` over a full kept history (session 35).

A real source's history at its cap (``MAX_KEPT`` = 1,500 collections over 24 h) of a 48-node pod: 3,840 UB ports
with a link speed, 384 RoCE optical modules with a presence flag and 48 NPU counts per collection. Each timed call
is one sweep: a new collection is added to the history (the oldest expires) and the port state is built, whose
"before" values (highest speed / NPU count, module seen present) reach back over the kept collections. The first
call (the history as loaded) is printed apart from the steady ones. Figures are printed, never asserted. The
collections of a healthy pod read the same from one to the next; ``--changing`` makes one port's speed differ in
each (no two consecutive collections equal: the first call's worst case).

    .venv/bin/python benchmarks/bench_port_state.py [--sweeps 20] [--changing] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import time

from opsbrain import stats
from opsbrain.sources.portreadings import port_state
from opsbrain.sources.readings import MAX_KEPT, CollectionHistory, Readings
from opsbrain.sweeps import SweepParams

NODES, NPUS, UB_PORTS = 48, 8, 10


def collection(t: float, changing: bool = False) -> Readings:
    """One collection of the pod: every port at 400 G, every module present, 8 NPUs per node (``changing``: one
    port, chosen by ``t``, at 200 G)."""
    r = Readings(t=t)
    for n in range(NODES):
        node = f"node{n:02d}"
        r.node_npu_count[node] = float(NPUS)
        for c in range(NPUS):
            for u in range(UB_PORTS):
                r.link_speed[f"{node}/npu{c}/udie{u // 5}/port{u % 5}"] = 400.0
            r.optics_present[f"{node}/npu{c}/port/xcvr"] = True
    if changing:
        r.link_speed[sorted(r.link_speed)[int(t) % len(r.link_speed)]] = 200.0
    return r


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sweeps", type=int, default=20)
    ap.add_argument("--changing", action="store_true")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    p = SweepParams()
    step = p.link_down_window_s / MAX_KEPT
    hist = CollectionHistory(p.link_down_window_s)
    t = 1.8e9
    for _ in range(MAX_KEPT):
        t += step
        hist.add(collection(t, args.changing))
    npus = tuple(f"node{n:02d}/npu{c}" for n in range(NODES) for c in range(NPUS))
    times = []
    for _ in range(args.sweeps + 1):
        t += step
        cur = collection(t, args.changing)
        hist.add(cur)
        t0 = time.perf_counter()
        ps = port_state(cur, hist, p, npus)
        times.append((time.perf_counter() - t0) * 1e3)
    assert ps is not None
    out = {"kept": len(hist.items), "ub_ports": len(ps.speed_links), "modules": len(ps.modules),
           "nodes": len(ps.nodes), "first_ms": round(times[0], 1),
           "steady_median_ms": round(stats.median(times[1:]), 1),
           "steady_max_ms": round(max(times[1:]), 1), "loadavg_1m": round(os.getloadavg()[0], 2)}
    if args.json:
        print(json.dumps(out))
        return
    print(f"port_state over {out['kept']:,} kept collections ({out['ub_ports']:,} UB ports, {out['modules']} modules, "
          f"{out['nodes']} nodes): first {out['first_ms']:.0f} ms, steady median {out['steady_median_ms']:.1f} ms "
          f"(max {out['steady_max_ms']:.1f} ms); load average {out['loadavg_1m']}")


if __name__ == "__main__":
    main()
