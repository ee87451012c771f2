"""Recovery targets, measured as distributions: p50 / p90 / p99 of ttd, ttdiag and ttr per built-in target
scenario over N seeds for the auto policy and the two baselines on the same seeds (``vendor-default``:
MindCluster's out-of-the-box handling; ``manual``: a person with a pager), and node-crash ttr against job size.

    .venv/bin/python benchmarks/recovery_targets.py [--seeds 20] [--size-seeds 10] [--workers 2]
        [--out FILE] [--json ROWS] [--only SCENARIO] [--no-sizes]
    .venv/bin/python benchmarks/recovery_targets.py --from-json ROWS   # the tables again, from a run's rows

Every figure comes from chaos-run journals (opsbrain.runner.run.run_plan). Per seed the fault's onset is drawn
uniformly in [ONSET_S] and its target among the equivalent parts the scenario's workload uses (another node of the
job, another uplink of one of its nodes, another HBM stack, another L2 chip); both policies see the same draws.
The size sweep runs node-crash-training with the job alone on 112 / 384 / 2,688 / 9,504 NPUs (spares kept out of
the job's placement).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np

from opsbrain import stats

POLICIES = ("auto", "vendor-default", "manual")
BASELINES = POLICIES[1:]
HUAWEI = {  # fault class -> Huawei's published recovery figure (facts.md §1, §8; secondary source: press)
    "link_down": "~30 s (link faults)", "link_flap": "~30 s (link faults)", "l2_switch_failure": "~30 s (link faults)",
    "hbm_uce": "~60 s (HBM multi-bit ECC)", "node_crash": "< 10 min (training restart)"}
SCENARIOS = {  # scenario -> (fault class, target p90 ttr in s, impact measure)
    "link-down-training": ("link_down", 30.0, "lost_npu_s"),
    "link-down-inference": ("link_down", 30.0, "lost_tokens"),
    "link-flap-training": ("link_flap", 30.0, "lost_npu_s"),
    "hbm-uce-training": ("hbm_uce", 60.0, "lost_npu_s"),
    "l2-switch-failure": ("l2_switch_failure", 30.0, "lost_npu_s"),
    "node-crash-training": ("node_crash", 180.0, "lost_npu_s"),
}
SIZES = (14, 48, 336, 1188)  # nodes of 8 NPUs: 112 / 384 / 2,688 / 9,504 NPUs
SIZE_TARGETS = {48: 180.0, 1188: 300.0}
SIZE_BASELINES = (48, 1188)
"""Job sizes at which the baselines run too (the two sizes with a target)."""
DURATION_S = 3 * 3600.0
ONSET_S = (300.0, 1500.0)
SIZED_DURATION_S = 3600.0  # the size sweep: the auto policy's node-crash recovery ends well within the hour


def _draw_fault(plan: Any, rng: np.random.Generator) -> None:
    """Redraw the scenario fault's onset and target (same kind of part, on the workload it hits)."""
    from faultlib import ids

    topo = plan.topology
    spec = next(iter(plan.timeline))
    onset = float(rng.uniform(*ONSET_S))
    tgt = spec.target
    if "~" in tgt:  # an L1-L2 link of a node of the same workload
        wl = next(n for n, nodes in plan.placements.items() if ids.node_of(tgt.split("~")[0]) in nodes)
        node = str(rng.choice(plan.placements[wl]))
        links = sorted(k for k, lk in topo.links.items() if lk.node == node and "~" in k and "l2plane" in k)
        tgt = str(rng.choice(links))
    elif "l2plane" in tgt:
        tgt = str(rng.choice(sorted(c for c, k in topo.kind.items() if k == "l2" and ids.pod_of(c) == "pod0")))
    else:
        node = ids.node_of(tgt)
        wl = next((n for n, nodes in plan.placements.items() if node in nodes), "train")  # sized: the job alone
        new = str(rng.choice(plan.placements[wl]))
        tgt = new + tgt[len(node):]
        if "/npu" in tgt:
            npu = int(rng.integers(0, topo.params.npus_per_node))
            tgt = f"{new}/npu{npu}" + tgt.split("/npu", 1)[1][1:]
    _set_fault(plan, spec, onset, tgt)


def _set_fault(plan: Any, spec: Any, onset: float, target: str) -> None:
    from dataclasses import replace

    from faultlib.injection.spec import Timeline

    plan.timeline = Timeline([replace(spec, at_s=onset, target=target), *list(plan.timeline)[1:]])


def _sized(plan: Any, nodes: int) -> Any:
    """node-crash-training with the training job alone on ``nodes`` nodes (spares outside the job)."""
    from faultlib import ids
    from faultlib.topology import Topology

    per_pod, spares = plan.params.topology.nodes_per_pod, plan.scenario.spec.topology.spares
    pods = -(-nodes // (per_pod - spares))
    topo = Topology.build(plan.params.topology, pods)
    free = [ids.node(p, n) for p in range(pods) for n in range(per_pod - spares)]
    plan.topology = topo
    plan.spares = [ids.node(p, n) for p in range(pods) for n in range(per_pod - spares, per_pod)]
    plan.placements = {"train": free[:nodes]}
    spec = plan.scenario.spec
    plan.scenario = plan.scenario.model_copy(update={"spec": spec.model_copy(update={
        "workloads": [w for w in spec.workloads if w.name == "train"],
        "steady_state": spec.steady_state.model_copy(update={"probes": [
            p for p in spec.steady_state.probes if p.workload == "train"]})})})
    return plan


def one(args: tuple[str, int, str, int | None]) -> dict[str, Any]:
    from opsbrain import chaos
    from opsbrain.kb.training import load_engine
    from opsbrain.runner.run import run_plan

    name, seed, policy, nodes = args
    plan = chaos.plan(name, seed=seed, policy=policy)
    plan.scenario = plan.scenario.model_copy(update={"spec": plan.scenario.spec.model_copy(
        update={"duration": DURATION_S if nodes is None else SIZED_DURATION_S})})
    if nodes is not None:
        plan = _sized(plan, nodes)
    _draw_fault(plan, np.random.default_rng([seed, 16]))
    t0 = time.perf_counter()
    j = run_plan(plan, load_engine())
    f = next(i for i in j["incidents"] if i["injected"])
    measure, onset = SCENARIOS[name][2], f["injected"]["at_s"]
    impact = sum(v.get(measure, 0.0) or 0.0 for v in f["impact"].values())
    return {"scenario": name, "seed": seed, "policy": policy, "nodes": nodes, "ttr": f["ttr_s"],
            "recovery": f.get("recovery"),  # before_detection: back before it was detected, out of the ttr figures
            "ttd": f["ttd_s"], "ttdiag": f["ttdiag_s"], "correct": f["correct"], "human": f.get("human_steps", 0),
            "impact": impact, "wall_s": time.perf_counter() - t0,
            "actions": [(a["action"], a["status"], a["start_s"] - onset, a["end_s"] - onset)  # relative to onset
                        for a in f["actions"] if a.get("kind") == "step"]}


def q(xs: list[float], p: float) -> float | None:
    return stats.quantile(xs, p)  # the one quantile of every summary (numpy's linear method)


def fmt(x: float | None, nd: int = 1) -> str:
    return "-" if x is None else f"{x:.{nd}f}"


BOOT_DRAWS = 2000
"""Bootstrap resamples behind a spread's interval (a fixed RNG: the interval is reproducible)."""


def spread_interval(xs: list[float], draws: int = BOOT_DRAWS) -> tuple[float, float] | None:
    """5th and 95th percentile of p90/p50 over ``draws`` bootstrap resamples of ``xs`` (same size, with
    replacement): an estimate, from these values alone, of how far the ratio of this many seeds moves by luck."""
    v = np.asarray([x for x in xs if x is not None], dtype=float)
    if v.size < 2:
        return None
    rs = np.random.default_rng(16).choice(v, size=(draws, v.size), replace=True)
    p50 = np.quantile(rs, 0.5, axis=1, method=stats.METHOD)
    ratio = np.quantile(rs, 0.9, axis=1, method=stats.METHOD) / np.where(p50 > 0, p50, np.nan)
    lo, hi = np.nanquantile(ratio, [0.05, 0.95])
    return float(lo), float(hi)


def early(r: dict[str, Any]) -> bool:
    """The run's fault was back before it was detected (healed by itself, needed no action): not a recovery by the
    response, so not in the ttr distributions (counted apart)."""
    return r.get("recovery") == "before_detection"


def dist(rows: list[dict[str, Any]], key: str) -> tuple[str, float | None, float | None]:
    xs = [r[key] for r in rows if r[key] is not None and not (key == "ttr" and early(r))]
    p50, p90, p99 = q(xs, 0.5), q(xs, 0.9), q(xs, 0.99)
    n = len(xs)  # beside each distribution; a quantile n cannot support is marked (stats.UNSUPPORTED_NOTE)
    return (f"{fmt(p50)} / {stats.mark(fmt(p90), 0.9, n)} / {stats.mark(fmt(p99), 0.99, n)}"
            + (f" (n {n})" if n else ""), p50, p90)


def cut(base: float | None, auto: float | None) -> str:
    """The reduction of ``auto`` against ``base`` (a share, e.g. -96%)."""
    return "-" if base is None or auto is None or base <= 0 else f"{(auto - base) / base:+.0%}"


def per_scenario(base: list[dict[str, Any]]) -> Iterator[tuple[str, str, float, dict[str, list[dict[str, Any]]]]]:
    """(scenario, class, target p90, runs by policy) of every scenario the auto policy ran."""
    for name, (cls, target, _m) in SCENARIOS.items():
        rows = {p: [r for r in base if r["scenario"] == name and r["policy"] == p] for p in POLICIES}
        if rows["auto"]:
            yield name, cls, target, rows


def _ttr_cell(rows: list[dict[str, Any]]) -> str:
    """p50 / p90 / p99 of ttr over the recovered runs, and how many of the runs never recovered (within the run)."""
    unrec = sum(r["ttr"] is None for r in rows)
    return dist(rows, "ttr")[0] + (f" ({unrec} of {len(rows)} not recovered)" if unrec else "") + _early_note(rows)


def _early_note(rows: list[dict[str, Any]]) -> str:
    k = sum(early(r) for r in rows)
    return f" ({k} of {len(rows)} back before detection, not counted)" if k else ""


def scenario_table(base: list[dict[str, Any]]) -> list[str]:
    lines = ["| scenario | class | auto ttd | auto ttdiag | auto ttr | ttr p90/p50 (bootstrap 90% interval) | "
             "target p90 (s) | p90 met | vendor-default ttr | manual ttr | correct (auto) | no human step (auto) |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, cls, target, rows in per_scenario(base):
        auto = rows["auto"]
        ttr, p50, p90 = dist(auto, "ttr")
        band = spread_interval([r["ttr"] for r in auto if not early(r)])
        spread = (f"{p90 / p50:.2f}" + (f" ({band[0]:.2f}-{band[1]:.2f})" if band else "")
                  if p50 and p90 is not None else "-")
        met = "yes" if p90 is not None and p90 <= target else "NO"
        unrec = sum(r["ttr"] is None for r in auto)
        lines.append(f"| {name} | {cls} | {dist(auto, 'ttd')[0]} | {dist(auto, 'ttdiag')[0]} | {ttr}"
                     f"{f' ({unrec} not recovered)' if unrec else ''}{_early_note(auto)} | {spread} | "
                     f"{target:.0f} | {met} | "
                     f"{_ttr_cell(rows['vendor-default'])} | {_ttr_cell(rows['manual'])} | "
                     f"{sum(r['correct'] for r in auto)}/{len(auto)} | "
                     f"{sum(r['human'] == 0 for r in auto)}/{len(auto)} |")
    return lines


def reduction_table(base: list[dict[str, Any]]) -> list[str]:
    lines = ["| scenario | auto p90 ttr (s) | vendor-default p90 | manual p90 | Huawei's figure | p90 ttr vs "
             "vendor-default | vs manual | impact vs vendor-default | impact vs manual |",
             "|---|---|---|---|---|---|---|---|---|"]
    for name, cls, _target, rows in per_scenario(base):
        p90 = {p: dist(rows[p], "ttr")[2] for p in POLICIES}
        imp = {p: float(np.mean([r["impact"] for r in rows[p]])) if rows[p] else None for p in POLICIES}
        lines.append(f"| {name} | {fmt(p90['auto'])} | {fmt(p90['vendor-default'])} | {fmt(p90['manual'])} | "
                     f"{HUAWEI.get(cls, '-')} | {cut(p90['vendor-default'], p90['auto'])} | "
                     f"{cut(p90['manual'], p90['auto'])} | {cut(imp['vendor-default'], imp['auto'])} | "
                     f"{cut(imp['manual'], imp['auto'])} |")
    lines += ["", "Impact = mean over seeds of the incident's " + ", ".join(sorted({m for _c, _t, m in
              SCENARIOS.values()})) + " (training: NPU-seconds lost; inference: tokens lost)."]
    return lines


def _path(run: dict[str, Any]) -> dict[str, float]:
    """Where one recovered run's ttr went: onset to the firm diagnosis (when it came before the recovery), the
    first succeeded instance of each step action of the runbook's first rung that ended by the recovery (its
    duration; actions that run side by side are each counted whole), and the rest: from the last such action's end
    (else the diagnosis, else the onset) to the recovery: the workload's own resumption (for a link fault the next
    HCCL re-execution instant), and any failed attempt's retry or escalation."""
    ttr, eps = run["ttr"], 1e-3  # journal times carry microseconds; onset subtraction rounds
    diag = run["ttdiag"] if run["ttdiag"] is not None and run["ttdiag"] <= ttr + eps else None
    out = {} if diag is None else {"diagnosis": diag}
    ends: list[float] = []
    for a, status, start, end in run.get("actions", []):
        if status == "succeeded" and start < end <= ttr + eps and a not in out:
            out[a] = end - start
            ends.append(end)
    out["after the last action"] = max(0.0, ttr - max(ends or [diag or 0.0]))
    return out


def path_table(base: list[dict[str, Any]]) -> list[str]:
    """p50 / p90 of each part of the auto policy's ttr per scenario (parts in at least half of the runs)."""
    lines = ["| scenario | part of ttr | runs | p50 (s) | p90 (s) |", "|---|---|---|---|---|"]
    for name, _cls, _target, rows in per_scenario(base):
        paths = [_path(r) for r in rows["auto"] if r["ttr"] is not None and not early(r)]
        parts = {k for p in paths for k in p}
        order = ["diagnosis", *sorted(parts - {"diagnosis", "after the last action"}), "after the last action"]
        for k in (k for k in order if sum(k in p for p in paths) * 2 >= len(paths)):
            xs = [p[k] for p in paths if k in p]
            p90 = stats.mark(fmt(q(xs, 0.9)), 0.9, len(xs))
            lines.append(f"| {name} | {k} | {len(xs)} | {fmt(q(xs, 0.5))} | {p90} |")
    return lines


def size_table(sized: list[dict[str, Any]]) -> list[str]:
    lines = ["| NPUs | nodes | auto ttd | auto ttdiag | auto ttr | target p90 (s) | p90 met | vendor-default ttr | "
             "manual ttr | wall s/run (auto) |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for k in SIZES:
        rs = [r for r in sized if r["nodes"] == k and r["policy"] == "auto"]
        if not rs:
            continue
        ttr, _p50, p90 = dist(rs, "ttr")
        tgt = SIZE_TARGETS.get(k)
        met = "-" if tgt is None else ("yes" if p90 is not None and p90 <= tgt else "NO")
        others = [_ttr_cell([r for r in sized if r["nodes"] == k and r["policy"] == b])
                  if any(r["nodes"] == k and r["policy"] == b for r in sized) else "-" for b in BASELINES]
        lines.append(f"| {k * 8:,} | {k} | {dist(rs, 'ttd')[0]} | {dist(rs, 'ttdiag')[0]} | {ttr} | "
                     f"{'-' if tgt is None else f'{tgt:.0f}'} | {met} | {others[0]} | {others[1]} | "
                     f"{np.mean([r['wall_s'] for r in rs]):.1f} |")
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--baseline-seeds", type=int, default=None,
                    help="seeds of the baselines (the first K of --seeds; default all)")
    ap.add_argument("--size-seeds", type=int, default=10, help="seeds per job size (the 9,504-NPU runs are slow)")
    ap.add_argument("--size-baseline-seeds", type=int, default=None, help="seeds of the baselines per job size")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", default=None)
    ap.add_argument("--json", default=None, help="also write every run's row (ttd, ttdiag, ttr, ...) to this file")
    ap.add_argument("--only", default=None, help="scenarios, comma-separated (a quick look; no size sweep)")
    ap.add_argument("--policies", default=",".join(POLICIES))
    ap.add_argument("--no-sizes", action="store_true", help="skip the node-crash job-size sweep")
    ap.add_argument("--sizes-only", action="store_true", help="only the job-size sweep")
    ap.add_argument("--sizes", default=",".join(str(k) for k in SIZES), help="job sizes in nodes (comma-separated)")
    ap.add_argument("--from-json", default=None, help="print the tables of the rows a --json run wrote (no runs)")
    args = ap.parse_args()
    if args.from_json:
        import json
        from pathlib import Path

        got = json.loads(Path(args.from_json).read_text())
        base = [r for r in got if r["nodes"] is None]
        sized = [r for r in got if r["nodes"] is not None]
        print("\n".join(([*scenario_table(base), "", *reduction_table(base), "", *path_table(base)] if base else [])
                        + (["", *size_table(sized)] if sized else []) + ["", stats.UNSUPPORTED_NOTE]).strip("\n"))
        return 0
    seeds = [1000 + s for s in range(args.seeds)]
    pols = [p for p in args.policies.split(",") if p]
    names = [n for n in args.only.split(",") if n] if args.only else list(SCENARIOS)
    if unknown := [n for n in names if n not in SCENARIOS]:
        print(f"recovery_targets.py: --only: not a target scenario: {', '.join(unknown)} (targets: "
              f"{', '.join(SCENARIOS)})", file=sys.stderr)
        return 2
    base_seeds = seeds[:args.baseline_seeds or len(seeds)]
    jobs: list[tuple[str, int, str, int | None]] = [] if args.sizes_only else [
        (n, s, p, None) for n in names for p in pols for s in (seeds if p == "auto" else base_seeds)]
    sizes = [int(k) for k in args.sizes.split(",") if k]
    size_seeds = seeds[:args.size_seeds]
    size_base = size_seeds[:args.size_baseline_seeds or len(size_seeds)]
    if not args.no_sizes and not args.only:
        jobs += [("node-crash-training", s, p, k) for k in sizes for p in pols
                 for s in (size_seeds if p == "auto" else size_base if k in SIZE_BASELINES else [])]
    jobs.sort(key=lambda j: -(j[3] or 0))  # the slowest (largest) runs first: the pool ends together
    t0 = time.perf_counter()
    with ProcessPoolExecutor(args.workers) as ex:
        rows = list(ex.map(one, jobs, chunksize=1))
    wall = time.perf_counter() - t0
    base = [r for r in rows if r["nodes"] is None]
    sized = [r for r in rows if r["nodes"] is not None]
    cmd = " ".join(f"--{k.replace('_', '-')} {v}" for k, v in vars(args).items()
                   if k in ("seeds", "baseline_seeds", "size_seeds", "size_baseline_seeds", "sizes") and v is not None
                   and (k in ("seeds", "baseline_seeds") or not (args.no_sizes or args.only))
                   and (k not in ("seeds", "baseline_seeds") or not args.sizes_only))
    cmd += " --no-sizes" if args.no_sizes else " --sizes-only" if args.sizes_only else ""
    cmd += (f" --only {args.only}" if args.only else "") + (
        f" --policies {args.policies}" if pols != list(POLICIES) else "")
    lines = [] if args.sizes_only else [
             f"Measured by `python benchmarks/recovery_targets.py {cmd}` ({len(rows)} runs, {wall:.0f} s wall on "
             f"{args.workers} workers); seeds {seeds[0]}..{seeds[-1]} (auto), {base_seeds[0]}..{base_seeds[-1]} "
             f"(baselines); per seed the fault's onset is "
             f"drawn in [{ONSET_S[0]:.0f}, {ONSET_S[1]:.0f}] s and its target among equivalent parts of the workload "
             f"it hits; {DURATION_S / 3600:.0f} h simulated each; every policy sees the same draws. Cells are "
             f"p50 / p90 / p99 in seconds; beside each p90/p50, its 5-95% range over {BOOT_DRAWS:,} bootstrap "
             "resamples of the same runs (an estimate, from these runs alone, of how far that many seeds move the "
             "ratio by luck). ttr cells are over the runs whose fault was recovered after its detection; a run whose "
             "workloads were back before anything detected the fault (it healed by itself) is counted apart.", "",
             *scenario_table(base), "",
             "Reductions of the auto policy against both baselines (negative = less):", "", *reduction_table(base),
             "", "Where the auto policy's ttr goes (step actions that ended by the recovery; 'after the last action' "
             "is the workload's own resumption, e.g. the wait for the next HCCL re-execution):", "", *path_table(base)]
    if sized:
        lines += ["", f"Measured by `python benchmarks/recovery_targets.py {cmd}` ({len(rows)} runs, {wall:.0f} s "
                  f"wall on {args.workers} workers). Node crash against job size (the job alone, warm spares "
                  f"outside it; seeds "
                  f"{size_seeds[0]}..{size_seeds[-1]} (auto), {size_base[0]}..{size_base[-1]} (baselines, at the "
                  "sizes with a target)):", "",
                  *size_table(sized)]
    text = "\n".join([*lines, "", stats.UNSUPPORTED_NOTE])
    print(text)
    if args.json:
        import json
        from pathlib import Path

        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")
    if args.out:
        from pathlib import Path

        Path(args.out).write_text("# Recovery results (issue 16: distributions)\n\n" + text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
