"""Where a training restart's time goes, by job size: p50 / p90 of each drawn stage of a process-level reschedule
(the auto policy's node-crash rung) and of a job-level restart (the vendor-default and manual policies'), from the
simulator's own stage functions and parameters (``faultlib.workloads.training.restart_stages_s``); and the HBM UCE
online recovery's stages (``online_recovery_stages_s``) with the spread of its total over blocks of consecutive
seeds, as a benchmark of that many seeds sees it.

    .venv/bin/python benchmarks/restart_stages.py [--draws 2000] [--sizes 14,48,336,1188] [--block 20]

Each draw is one seed's stage durations (the same named streams a run draws from); the checkpoint load, the
detection path and the control actions around the restart are not included (see docs/recovery-results.md for
whole-incident ttr from chaos runs).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass

import numpy as np

from faultlib.durations import Durations
from faultlib.workloads.training import (
    TrainingParams,
    online_recovery_stages,
    online_recovery_stages_s,
    restart_stages_s,
    stage_s,
)
from opsbrain.detection import DetectorParams


@dataclass
class _Seeded:
    """The part of a simulation that stage draws read: its seed and its duration streams."""

    seed: int

    def __post_init__(self) -> None:
        self.durations = Durations(self)  # type: ignore[arg-type]


def process_stages(seed: int, p: TrainingParams, ranks: int, nodes: int) -> dict[str, float]:
    sim = _Seeded(seed)
    stages = {"warm_attach": stage_s(sim, p, "warm_attach_s"),  # type: ignore[arg-type]
              "rank_table_read": sim.durations.draw_max("training.rank_table_read_s", p.rank_table_read_s, nodes),
              "comm_reform": stage_s(sim, p, "comm_reform_s", ranks, p.comm_reform_scale_exp)}  # type: ignore[arg-type]
    total = restart_stages_s(_Seeded(seed), p, ranks, nodes, "process", True)  # type: ignore[arg-type]
    assert abs(total - sum(stages.values())) < 1e-9, "stage breakdown out of step with restart_stages_s"
    return {**stages, "total": total}


def job_stages(seed: int, p: TrainingParams, ranks: int, nodes: int) -> dict[str, float]:
    sim = _Seeded(seed)
    stages = {"replace_node": stage_s(sim, p, "replace_node_s"),  # type: ignore[arg-type]
              "launch": sim.durations.draw_max("training.launch_s", p.launch_s, nodes),
              "rank_table": stage_s(sim, p, "rank_table_s", ranks, p.rank_table_scale_exp),  # type: ignore[arg-type]
              "hccl_init": stage_s(sim, p, "hccl_init_s", ranks, p.hccl_init_scale_exp)}  # type: ignore[arg-type]
    total = restart_stages_s(_Seeded(seed), p, ranks, nodes, "job", True)  # type: ignore[arg-type]
    assert abs(total - sum(stages.values())) < 1e-9, "stage breakdown out of step with restart_stages_s"
    return {**stages, "total": total}


def online_stages(seed: int, p: TrainingParams, ranks: int, nodes: int) -> dict[str, float]:
    stages = online_recovery_stages(_Seeded(seed), p, ranks)  # type: ignore[arg-type]
    return {**stages, "total": sum(stages.values())}


def block_spread(p: TrainingParams, ranks: int, draws: int, block: int) -> list[str]:
    """p90/p50 of the online recovery plus the auto policy's fixed time to its diagnosis (detector watermark +
    collect), over all draws and over disjoint blocks of ``block`` consecutive seeds."""
    d = DetectorParams()
    fixed = d.reorder_s + d.collect_s
    tot = fixed + np.array([online_recovery_stages_s(_Seeded(seed), p, ranks)  # type: ignore[arg-type]
                            for seed in range(draws)])

    def ratio(a: np.ndarray) -> float:
        return float(np.percentile(a, 90) / np.percentile(a, 50))
    blocks = [ratio(tot[k:k + block]) for k in range(0, draws - block + 1, block)]
    qs = np.percentile(blocks, [5, 50, 95])
    return [f"Online recovery at {ranks:,} ranks + {fixed:.0f} s to the diagnosis (seeds 0..{draws - 1}): p10 / p50 / "
            f"p90 / p99 {' / '.join(f'{np.percentile(tot, q):.1f}' for q in (10, 50, 90, 99))} s, p90/p50 "
            f"{ratio(tot):.2f}; over {len(blocks)} disjoint blocks of {block} consecutive seeds p90/p50 is "
            f"{qs[0]:.2f} / {qs[1]:.2f} / {qs[2]:.2f} (5th / 50th / 95th percentile), below 1.2 in "
            f"{sum(b < 1.2 for b in blocks)} of {len(blocks)}"]


def table(title: str, fn: object, sizes: list[int], draws: int, p: TrainingParams) -> list[str]:
    rows: list[str] = []
    for nodes in sizes:
        ranks = nodes * 8
        got = [fn(seed, p, ranks, nodes) for seed in range(draws)]  # type: ignore[operator]
        names = list(got[0])
        if not rows:
            rows = [f"{title} (p50 / p90 s over {draws} draws):", "",
                    "| NPUs | " + " | ".join(names) + " |", "|---:|" + "---:|" * len(names)]
        cells = [f"{np.percentile([g[n] for g in got], 50):.1f} / {np.percentile([g[n] for g in got], 90):.1f}"
                 for n in names]
        rows.append(f"| {ranks:,} | " + " | ".join(cells) + " |")
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--draws", type=int, default=2000)
    ap.add_argument("--sizes", default="14,48,336,1188", help="job sizes in nodes of 8 NPUs")
    ap.add_argument("--block", type=int, default=20, help="seeds per block for the online recovery's spread")
    args = ap.parse_args(argv)
    if args.draws < 1 or not 1 <= args.block <= args.draws:
        ap.error(f"need --draws >= 1 and 1 <= --block <= --draws (got --draws {args.draws}, --block {args.block})")
    try:
        sizes = [int(k) for k in args.sizes.split(",") if k]
    except ValueError:
        ap.error(f"--sizes: a comma-separated list of node counts, not {args.sizes!r}")
    p = TrainingParams()
    lines = table("Process-level reschedule onto a warm spare (auto)", process_stages, sizes, args.draws, p)
    lines += ["", *table("Job-level restart with one node replaced (baselines)", job_stages, sizes, args.draws, p)]
    lines += ["", *table("HBM UCE process-level online recovery (auto), without the shard reload", online_stages,
                         sizes, args.draws, p)]
    lines += ["", *block_spread(p, 112, args.draws, args.block)]  # hbm-uce-training's job: 14 nodes
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
