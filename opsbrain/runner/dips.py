"""Which cause owns a workload's dip, and when a fault's own dips were over (its ttr and impact windows).

A workload's rate (and, for an inference service, its latency SLO and instances) changes only at events: every dip
(a stretch out of the bar) begins at the moment something happened to the workload. The run's causes are, in time
order (:func:`build_causes`): each injected fault's onset, end and plant changes (health changes whose cause is
``fault:<id>``) and the start and end of each action of its response; background noise (health changes whose cause is
``noise:...``: a self-healing flap); the actions of incidents no fault owns (a noise incident's drain, a false
positive's restart); the workload's own checkpoints. A fault's causes count for the workloads it touches; the others
for a workload whose nodes (or pod, for a part of the pod's fabric) they are on at the time. A dip is owned by the
latest cause at or before its start (:meth:`Causes.owners_at`; several at the same moment share it).

A fault's recovery (:func:`recover`) starts at its first own dip (a dip in progress at its onset is its own too);
dips of other causes in between are not its (they neither delay its recovery nor count in its impact window): a
one-second noise flap three hours after a restart that was over in 205 s is the noise's. For an inference service
the fault's *units* count as well: the instances whose drop it owns (an NPU off the bus takes its prefill instance
down) are out of the bar until they serve again, even when the other instances carry the demand and the service's
throughput never moves.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from faultlib import ids

RECOVERY_SHARE = 0.95  # the scoring's definition of "back" (docs/architecture.md): >= 95% of the pre-fault rate ...
RECOVERY_WINDOW_S = 30.0  # ... held for 30 s, a scoring convention of this project, not a plant parameter
FULL_SHARE = 1 - 1e-6  # reason: 'back at the pre-fault rate', short of float noise in a recomputed rate
NOISE, OTHER, OWN = "noise", "other incident", "the workload itself"  # owners that are no injected fault
EPS = 1e-9

Series = list[tuple[float, float]]  # piecewise-constant (t, value) change points, sorted by t
Span = tuple[float, float | None]  # a dip: from, to (None: still out at the end)


def rate_at(series: Series, t: float) -> float:
    i = bisect_right([p[0] for p in series], t) - 1
    return series[i][1] if i >= 0 else 0.0


class Causes:
    """The causes that can start a dip of one workload: (time, owner), owners being fault ids or :data:`NOISE`,
    :data:`OTHER`, :data:`OWN`."""

    def __init__(self, items: Iterable[tuple[float, str]]) -> None:
        self.items = sorted(set(items))
        self.times = [t for t, _ in self.items]

    def owners_at(self, t: float) -> set[str]:
        """The owners of a dip beginning at ``t``: every cause at the latest moment at or before it."""
        i = bisect_right(self.times, t + EPS) - 1
        if i < 0:
            return set()
        latest = self.times[i]
        out = set()
        while i >= 0 and self.times[i] >= latest - EPS:
            out.add(self.items[i][1])
            i -= 1
        return out


def relevant(component: str | None, nodes: set[str], pods: set[str]) -> bool:
    """Whether a part can touch a workload running on ``nodes``: a part of one of its nodes, or a part of a pod's
    fabric (an L2 chip) of a pod it spans with more than one node."""
    if not component:
        return False
    node = ids.node_of(component.split("~")[0])
    if node is not None:
        return node in nodes or any(ids.node_of(p) in nodes for p in component.split("~")[1:])
    return len(nodes) > 1 and ids.pod_of(component) in pods


def build_causes(workload: Any, fault_events: dict[str, list[float]], touched: dict[str, set[str]],
                 trace: Iterable[Any], other_actions: list[dict[str, Any]], end: float) -> Causes:
    """The causes of ``workload``'s dips (module docstring). ``fault_events``: per fault id, the times of its onset,
    end, plant changes and response actions; ``touched``: the workloads each fault touches; ``trace``: the plant's
    trace (noise health changes, the workload's checkpoints); ``other_actions``: the actions of incidents no fault
    owns."""
    name = workload.name
    items = [(t, fid) for fid, times in fault_events.items() if name in touched.get(fid, set()) for t in times]
    hist = list(getattr(workload, "placements", [])) or [(0.0, frozenset(workload.nodes))]
    since = [h[0] for h in hist]

    def placed(t: float) -> set[str]:
        return set(hist[max(bisect_right(since, t) - 1, 0)][1])

    def near(component: str | None, t: float) -> bool:
        if component and (component == name or component.startswith(name + "/")):
            return True
        nodes = placed(t)
        return relevant(component, nodes, {p for n in nodes if (p := ids.pod_of(n))})

    for e in trace:
        if e.kind == "health" and str(e.detail.get("cause") or "").startswith("noise:") and near(e.subject, e.t):
            items.append((e.t, NOISE))
        elif e.kind == "job_checkpoint_start" and e.subject == name:
            items.append((e.t, OWN))
    for a in other_actions:
        if near(a.get("target"), a.get("start_s") or 0.0):
            items += [(t, OTHER) for t in (a.get("start_s"), a.get("end_s")) if t is not None and t <= end]
    return Causes(items)


def unit_drops(history: list[dict[str, Any]], onset: float, mine: Callable[[float], bool]) -> dict[str, float]:
    """The instances of an inference service whose drop (up -> out: down, hung, restarting, stalled) at or after
    ``onset`` a fault owns (``mine`` of the drop's time), each with the time of its first such drop. A history that
    begins at or after the onset (a fault at t=0) is read as if every instance it ever shows up had been up just
    before it (session 46, newuser46: an instance out from the start was no drop, so not the fault's)."""
    out: dict[str, float] = {}
    prev: set[str] | None = None
    if history and history[0]["t"] >= onset - EPS:
        prev = set().union(*(s.get("instances_up") or [] for s in history))
    for s in history:
        up = set(s.get("instances_up") or [])
        if prev is not None and s["t"] >= onset - EPS:
            for inst in prev - up:
                if inst not in out and mine(s["t"]):
                    out[inst] = s["t"]
        prev = up
    return out


def units_out(history: list[dict[str, Any]], units: dict[str, float]) -> Series:
    """(t, how many of the fault's ``units`` are out) from each one's first owned drop on."""
    return [(float(s["t"]), float(sum(1 for inst, since in units.items()
                                      if s["t"] >= since - EPS and inst not in set(s.get("instances_up") or []))))
            for s in history]


@dataclass
class Recovery:
    """A fault's recovery on one workload: seconds from onset to the start of the first window back in the bar
    after its own dips (None: not recovered by the run's end; 0.0: it never dipped), the dips of other causes inside
    its window (not its impact) and its own dips after its recovery (a scale-out once its part is repaired: its
    response's, so its impact, though not its ttr)."""

    ttr: float | None
    foreign: list[tuple[float, float]] = field(default_factory=list)
    later: list[Span] = field(default_factory=list)

    def windows(self, fid: str, onset: float, end: float, redo_until: Callable[[float], float] | None = None
                ) -> list[tuple[str, float, float]]:
        """The fault's impact windows: onset to recovery (the run's end when never recovered) and its later own
        dips, less others' dips; a training job's redo of the steps it lost (``redo_until`` the job's return) runs
        past its return and is the fault's loss too."""
        def upto(t: float) -> float:
            return min(end, max(t, redo_until(t) if redo_until else t))

        spans = [(onset, end if self.ttr is None else upto(onset + self.ttr))]
        spans += [(s, end if e is None else upto(e)) for s, e in self.later if self.ttr is not None]
        out: list[tuple[str, float, float]] = []
        for a, b in spans:
            at = a
            for s, e in sorted(self.foreign):
                if e <= at or s >= b:
                    continue
                if s > at:
                    out.append((fid, at, s))
                at = max(at, e)
            if b > at:
                out.append((fid, at, b))
        return out


def recover(series: Series, onset: float, end: float, share: float = RECOVERY_SHARE,
            window: float = RECOVERY_WINDOW_S, nominal: float | None = None, dip_by: float | None = None,
            degraded_rate: float | None = None, breach: Series | None = None, units: Series | None = None,
            mine: Callable[[float], bool] | None = None) -> Recovery:
    """:func:`opsbrain.runner.scoring.time_to_recover` with ownership: only dips ``mine`` (of their start time: the
    fault owns them) or in progress at the onset are the fault's; ``units`` (t, the fault's instances out) is out
    of the bar while positive. Without ``mine`` every dip is the fault's (the rule before ownership)."""
    pre = rate_at(series, onset - 1e-6)
    if nominal is not None and pre < share * nominal:
        pre = nominal
    if degraded_rate is not None:
        pre = min(pre, degraded_rate)
    if pre <= 0 and not units:
        return Recovery(0.0)
    extra = [*(breach or []), *(units or [])]
    times = sorted({onset} | {t for t, _ in series if onset < t <= end} | {t for t, _ in extra if onset < t <= end})
    by = end if dip_by is None else dip_by
    owns = mine or (lambda _t: True)

    rate, slo, out_units = _lookup(series), _lookup(breach or []), _lookup(units or [])

    def out_of(level: float, t: float, with_units: bool = True) -> bool:
        return rate(t) < level or slo(t) > 0 or (with_units and out_units(t) > 0)

    def spans(level: float, with_units: bool = True) -> list[Span]:
        res: list[Span] = []
        start: float | None = None
        for t in times:
            out = out_of(level, t, with_units)
            if out and start is None:
                start = t
            elif not out and start is not None:
                res.append((start, t))
                start = None
        return res + ([(start, None)] if start is not None else [])

    for level in (share * pre, FULL_SHARE * pre):  # out of the bar, else degraded inside it
        dips = spans(level)
        first = next((s for s, _e in dips if s <= by and (s <= onset + EPS or owns(s))), None)
        if first is not None:
            break
    else:
        return Recovery(0.0)
    own = [(s, e) for s, e in dips if s >= first and (s == first or owns(s))]
    # others' dips in its window: of the throughput and SLO alone (a noise flap that stalls the decode while the
    # fault's instance is down is the noise's loss, though the fault's own dip spans it)
    loss_dips = spans(level, with_units=False) if units else dips
    foreign = [(s, e) for s, e in loss_dips if s > onset + EPS and not owns(s) and (s, e) not in own]
    for k, (_s, e) in enumerate(own):
        if e is None:
            break
        nxt = own[k + 1][0] if k + 1 < len(own) else end
        if nxt - e >= window:
            return Recovery(e - onset, _cut(foreign, math.inf), own[k + 1:])
    return Recovery(None, _cut(foreign, math.inf))


def _lookup(series: Series) -> Callable[[float], float]:
    """:func:`rate_at` of one series, its times listed once (a recovery asks at every change point)."""
    times = [p[0] for p in series]

    def at(t: float) -> float:
        i = bisect_right(times, t) - 1
        return series[i][1] if i >= 0 else 0.0

    return at


def _cut(dips: list[Span], until: float) -> list[tuple[float, float]]:
    """The ``dips`` that begin before ``until``, each cut at ``until`` (one still under way at the end: ``until``)."""
    return [(s, until if e is None else min(e, until)) for s, e in dips if s < until]


def unit_seconds(units: Series, windows: list[tuple[str, float, float]], end: float) -> float:
    """Instance-seconds the fault's units were out inside its impact ``windows``."""
    total = 0.0
    pts = [*units, (end, 0.0)]
    for _fid, a, b in windows:
        for (t0, n), (t1, _n) in zip(pts, pts[1:], strict=False):
            lo, hi = max(a, t0), min(b, t1)
            if hi > lo:
                total += n * (hi - lo)
    return total
