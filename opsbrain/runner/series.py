"""The workloads' rate histories a journal keeps for its reports: change points, capped per workload, kept exactly
around incidents (:func:`downsample`)."""

from __future__ import annotations

from bisect import bisect_right
from typing import TYPE_CHECKING, Any

from faultlib.workloads.inference import InferenceService
from faultlib.workloads.training import TrainingJob

if TYPE_CHECKING:
    from opsbrain.runner.world import World

SERIES_MAX_POINTS = 2000  # per workload: keeps a week-long journal small (reason: report plots, not analysis)
SERIES_MARGIN_S = 300.0  # change points kept exactly from this long before an incident to this long after it


def journal_series(world: World, incidents: list[dict[str, Any]]) -> dict[str, Any]:
    """Per-workload rate histories for reports: training (t, steps/s); inference (t, decode tokens/s, TPOT ms).

    Piecewise-constant change points, capped at SERIES_MAX_POINTS per workload; around incidents the points are
    kept exactly (see :func:`downsample`)."""
    windows = []
    for i in incidents:
        t0 = (i["injected"] or {}).get("at_s", i.get("detected_at_s"))
        if t0 is None:
            continue
        t1 = i.get("recovered_at_s") or max([t0] + [a.get("start_s") or t0 for a in i.get("actions", [])])
        windows.append((t0 - SERIES_MARGIN_S, t1 + SERIES_MARGIN_S))
    out: dict[str, Any] = {}
    for name, w in world.sim.workloads.items():
        pts: list[tuple[float, ...]]
        if isinstance(w, TrainingJob):
            fields = ["t", "steps_per_s"]
            pts = [(float(t), float(r)) for t, r in w.rate_history()]
        else:
            assert isinstance(w, InferenceService), type(w)
            fields = ["t", "decode_tokens_per_s", "tpot_ms"]
            pts = [(float(s["t"]), float(s["decode_tokens_per_s"]), float(s["tpot_ms"])) for s in w.rate_history()]
        kept = downsample(pts, windows, SERIES_MAX_POINTS)
        out[name] = {"kind": w.kind, "fields": fields, "points": kept, "points_total": len(pts)}
    return out


def downsample(points: list[tuple[float, ...]], windows: list[tuple[float, float]],
               cap: int) -> list[tuple[float, ...]]:
    """At most ``cap`` of the change points ``points`` (sorted by t): all of them when they fit; otherwise the
    first and last, those inside ``windows`` (min/max-thinned when they alone exceed 3/4 of the cap), and min/max
    per bucket of the rest, so dips and peaks survive."""
    if len(points) <= cap:
        return list(points)

    def minmax(idx: list[int], n: int) -> set[int]:
        if len(idx) <= n:
            return set(idx)
        buckets = max(1, n // 2)
        keep: set[int] = set()
        for b in range(buckets):
            part = idx[b * len(idx) // buckets:(b + 1) * len(idx) // buckets]
            if part:
                keep.add(min(part, key=lambda k: points[k][1]))
                keep.add(max(part, key=lambda k: points[k][1]))
        return keep

    merged: list[list[float]] = []
    for a, b in sorted(windows):
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    starts = [m[0] for m in merged]

    def within(t: float) -> bool:
        j = bisect_right(starts, t) - 1
        return j >= 0 and t <= merged[j][1]

    inside = [k for k, p in enumerate(points) if within(p[0])]
    keep = {0, len(points) - 1} | minmax(inside, cap * 3 // 4)
    inside_set = set(inside)
    rest = [k for k in range(len(points)) if k not in inside_set]
    keep |= minmax(rest, max(0, cap - len(keep)))
    return [points[k] for k in sorted(keep)]
