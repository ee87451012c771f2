"""Scoring after the fact: the only place that reads injected ground truth.

Times follow DESIGN.md: ttd = detection - onset, ttdiag = diagnosis - onset, ttr = start of the first 30 s window
(after the workloads first left the bar: below 95% of their pre-fault rate or, for an inference service, TPOT /
TTFT over its SLO) in which they are back within it, - onset. A workload that stayed inside the bar but was still
degraded (below its pre-fault rate) recovers when the degradation stopped (back at the pre-fault rate for 30 s):
a fault is never recovered at the onset of a degradation it caused, and a fault tolerated by design (only a ticket)
is charged the time its impact lasted. 0 only when no affected workload was degraded at all. A fault that touches
no workload gets ttr from its part's return to service: back in service, or isolated and (a link) routed around
(:func:`back_in_service`; never while it is still down and unhandled); one that never took its part out of service,
from the end of its incident's last successful action, or the fault's own end when it healed by itself. A link whose
response only moved traffic off it (drained or re-routed around it, never isolated nor repaired) and that is still
down at the run's end is not recovered, workloads or not (:func:`still_out_of_service`).

Folded faults: an incident is matched to one fault (:func:`match_incidents`, which decides its diagnosis outcome);
every other fault it covers (:func:`covered_faults`: the detector folded that fault's reports into it) is detected
by it, with its own ttd.

Impact: a workload's loss goes in equal shares to the faults touching the workload whose impact window covers it
(:func:`loss_owners`; the windows: onset to that workload's recovery, the run's end when it never recovered, and the
fault's later own dips, less the dips other causes own: :mod:`opsbrain.runner.dips`, :mod:`opsbrain.runner.impact`);
the rest (before any fault, after every impact ended, inside noise's dips) is the workload's ``unattributed`` loss.
Per-fault figures plus that add up to the workload's total.

Ownership (helper AD, D1): a dip is a fault's only when the fault or its response owns the moment it began
(:class:`opsbrain.runner.dips.Causes`): a noise flap's dip hours after a recovery is the noise's, and an inference
fault's instances (its units) are out of the bar until they serve again, even when the service's rate never moved.

Issue 17: an incident belongs to a fault while the fault lives (onset to its end, plus the matching horizon), so a
slow decay flagged days before it fails is credited; ttr is charged only to the workloads placed on the fault's
part during its window and to a dip that begins inside that window (:func:`fault_window_end`), measured against the
fault-free rate of the placement the workload had then (:func:`nominal_at`); an undetected fault is unrecovered
(:func:`credited_ttr`). A fault whose response scaled a training job in is recovered once the job runs at the
smaller placement's rate, and said to be recovered in degraded operation (:func:`degraded_after`: since when, the
throughput share of the launch placement).
"""

from __future__ import annotations

import bisect
import math
from bisect import bisect_right
from collections.abc import Iterable
from typing import Any

from faultlib import ids
from faultlib.faults.base import ActiveFault
from faultlib.injection.replay import DURATION_KINDS, REPAIR_KINDS
from opsbrain.diagnosis.knowledge import wait_report_kinds
from opsbrain.ingest.where import reporting_npu
from opsbrain.runner.dips import RECOVERY_SHARE, RECOVERY_WINDOW_S, Series, rate_at, recover


def time_to_recover(series: Series, onset: float, end: float, share: float = RECOVERY_SHARE,
                    window: float = RECOVERY_WINDOW_S, nominal: float | None = None,
                    dip_by: float | None = None, degraded_rate: float | None = None,
                    breach: Series | None = None) -> float | None:
    """Seconds from ``onset`` to the start of the first ``window`` in which the workload is back within the bar after
    the first dip: at >= ``share`` of the pre-fault rate and, with ``breach`` (an inference service's latency SLO:
    (t, 1.0 while TPOT or TTFT is over its bound, else 0.0)), inside its SLO. A workload that never left the bar but
    was still degraded (below its pre-fault rate, :data:`FULL_SHARE`) recovers when the degradation stopped: the start
    of the first ``window`` back at the pre-fault rate (a fault tolerated by design, only a ticket, is charged the
    time its impact lasted, not 0). 0.0 only when the workload was not degraded at all before ``end`` (or before
    ``dip_by``: a dip that begins after the fault's window is another cause's); None if no recovery before ``end``.
    When an earlier fault had already pulled the rate below ``share`` of ``nominal``, recovery is measured against
    ``nominal`` instead. ``degraded_rate``: the fault's response scaled the job in; it has recovered (in degraded
    operation, said apart) once it runs at ``share`` of that smaller placement's fault-free rate. Every dip counts
    here; the scorer also asks who owns each dip (:func:`opsbrain.runner.dips.recover`)."""
    return recover(series, onset, end, share, window, nominal, dip_by, degraded_rate, breach).ttr


def integrate_deficit(series: Series, start: float, end: float, reference: float) -> float:
    """Integral of max(0, reference - rate) over [start, end] (units of rate x seconds)."""
    if end <= start:
        return 0.0
    pts = [(start, rate_at(series, start))] + [(t, r) for t, r in series if start < t < end] + [(end, 0.0)]
    total = 0.0
    for (t0, r0), (t1, _r1) in zip(pts, pts[1:], strict=False):
        total += max(0.0, reference - r0) * (t1 - t0)
    return total


def blast_radius(kind: str, target: str, placements: dict[str, list[str]]) -> list[str]:
    """Names of the workloads a fault can touch: those on its node; for a pod-level part (an L2 chip), every
    workload of that pod that spans more than one node."""
    node = ids.node_of(target)
    if node is not None:
        return [w for w, nodes in placements.items() if node in nodes]
    pod = ids.pod_of(target)
    return [w for w, nodes in placements.items() if len(nodes) > 1 and any(ids.pod_of(n) == pod for n in nodes)]


def injected(f: ActiveFault) -> dict[str, Any]:
    """A journal's record of what was injected: kind, component, onset, params and the fault's own duration where
    its model uses one (session 41, scen41; before, a scripted or replayed ``duration`` was in no fault's record):
    ``duration_s`` with ``duration_is`` ``heals_after`` (:data:`DURATION_KINDS`: the fault ends that long after its
    onset) or ``repair_time`` (:data:`REPAIR_KINDS`: its part cannot be back sooner); a fault that lasts until the
    response ends it, or a replayed duration its kind's model does not use, has ``duration_s`` null."""
    d = f.duration_s if f.kind in DURATION_KINDS | REPAIR_KINDS else None
    return {"kind": f.kind, "component": f.target, "at_s": f.at_s, "params": f.params, "duration_s": d,
            **({"duration_is": "heals_after" if f.kind in DURATION_KINDS else "repair_time"} if d is not None else {})}


def localized(kind: str, target: str, component: str | None) -> bool:
    """Whether a diagnosed component names the injected root: the target itself, or for an HBM fault or an AI Core
    hang its NPU (no documented line names the die: 0x80FA4E00 is reported per device, and RestartNPU resets the
    chip)."""
    if component is None:
        return False
    if component == target:
        return True
    return (kind.startswith("hbm_") or kind == "aicore_hang") and ids.npu_of(target) == component


def finite(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else round(float(x), 3)


FaultLife = tuple[str, str, str, float, float | None]  # (id, kind, target, onset, end or None while it lasts)


def match_incidents(faults: list[FaultLife], incidents: list[tuple[str, float, set[str]]],
                    horizon_s: float, roots: dict[str, str | None] | None = None) -> dict[str, str]:
    """Assign each incident (id, opened_at, components) to the injected fault (id, kind, target, onset, end)
    nearest before it that it is :func:`about` and that was alive then: the fault follows its whole life (a slow
    decay flagged days before its failure is credited), plus ``horizon_s`` after its end (or after its onset when
    it ended at once: late detection of a crash). Among faults equally near (several nodes crashing in the same
    second, whose survivors' complaints name each other), the one whose target the incident's root (``roots``:
    incident id -> the component its diagnosis names) is, else lies in or holds, is taken (:func:`_root_rank`: a
    node's crash and a link of that node failing in the same second, the root the node: the crash). Returns
    incident id -> fault id; unmatched incidents are noise or false positives."""
    out: dict[str, str] = {}
    by_target: dict[str, list[FaultLife]] = {}  # a fault under its target ...
    by_part: dict[str, list[FaultLife]] = {}  # ... and under every whole that holds it ("pod0/node3" of an NPU)
    for f in faults:
        by_target.setdefault(f[2], []).append(f)
        for whole in _wholes(f[2], "/"):
            by_part.setdefault(whole, []).append(f)
    for inc_id, opened, components in incidents:
        best: tuple[float, int, str] | None = None
        specific = most_specific(components)  # once per incident
        root = (roots or {}).get(inc_id)
        for fid, _kind, target, onset, ended in _candidates(specific, by_target, by_part):
            if onset > opened + 1e-9 or opened > (math.inf if ended is None else ended) + horizon_s:
                continue
            if not names_target(target, specific):
                continue
            key = (opened - onset, _root_rank(target, root), fid)
            if best is None or key < best:
                best = key
        if best is not None:
            out[inc_id] = best[2]
    return out


Covering = tuple[str, float, float, set[str], list[tuple[float, str | None]]]
# (incident id, opened_at, detected at, components, its signals as (time stamp, component))


def covered_faults(faults: list[FaultLife], incidents: list[Covering], horizon_s: float,
                   skip: set[str]) -> dict[str, tuple[str, float]]:
    """The faults (other than ``skip``: those :func:`match_incidents` gave an incident of their own) that an
    incident covers, each with the incident and when it detected the fault: the detector folds one event's reports
    (nine links of one L2 chip going dark within a second, the next flaps of a node's links, a second UCE on the same
    HBM) into the incident already open, so that incident detected every fault behind them, not only the one it is
    matched to. An incident covers a fault when its most specific components name the fault's part
    (:func:`covers`: the part itself, a part inside it, the NPU of an HBM stack, a link of an L2 chip; a node's own
    line does not name each link of that node) and it holds a signal naming that part stamped while the fault lived
    (onset to its end plus ``horizon_s``) and before another fault on the same part began. Detected: the incident's
    detection when the fault began before the incident opened; otherwise when the fault's first signal joined it, its
    time stamp plus the incident's own intake delay (detection - opening: the detector records no join time per
    signal). Among several incidents, the one that detected it first. Returns fault id -> (incident id, detected)."""
    by_target: dict[str, list[FaultLife]] = {}
    by_part: dict[str, list[FaultLife]] = {}
    for f in faults:
        by_target.setdefault(f[2], []).append(f)
        for whole in _wholes(f[2], "/"):
            by_part.setdefault(whole, []).append(f)
    best: dict[str, tuple[float, str]] = {}
    for inc_id, opened, detected, components, signals in incidents:
        specific = most_specific(components)
        named = PartIndex((c, None) for c in specific)
        stamps = PartIndex((comp, t) for t, comp in signals if comp is not None)
        for fid, _kind, target, onset, ended in _candidates(specific, by_target, by_part):
            if fid in skip or not named.naming(target):
                continue
            until = (math.inf if ended is None else ended) + horizon_s
            later = min((g[3] for g in by_target[target] if g[3] > onset + 1e-9), default=math.inf)
            own = [t for t in stamps.items_naming(target) if onset - 1e-9 <= t <= until and t < later - 1e-9]
            if not own:
                continue
            at = detected if onset <= opened + 1e-9 else min(own) + max(0.0, detected - opened)
            if fid not in best or (at, inc_id) < best[fid]:
                best[fid] = (at, inc_id)
    return {fid: (inc_id, at) for fid, (at, inc_id) in best.items()}


def covers(target: str, components: set[str]) -> bool:
    """Whether ``components`` name the injected ``target`` itself (:func:`covered_faults`): the target, a part
    inside it (a link of a crashed node), the NPU of an HBM stack or a die (device lines name the NPU), or a link of
    a failed L2 chip. Narrower than :func:`names_target`: a whole that holds a link (its node's switch-fault line)
    does not name that link."""
    npu = None if "~" in target else ids.npu_of(target)
    return any(c in (target, npu) or inside(c, target) or ("~" in c and c.endswith("~" + target))
               for c in map(reported, components))


class PartIndex:
    """Items under the components they were reported for, looked up by the injected target they name
    (:func:`covers`) without a scan: an incident of a pod whose every link went dark holds thousands of signals."""

    def __init__(self, items: Iterable[tuple[str, Any]]) -> None:
        self.by_comp: dict[str, list[Any]] = {}
        for comp, item in items:  # a die under its NPU (:func:`reported`)
            self.by_comp.setdefault(reported(comp), []).append(item)
        self.ordered = sorted(self.by_comp)
        self.by_end: dict[str, list[str]] = {}  # L2 end -> the links named with it
        for c in self.by_comp:
            if "~" in c:
                self.by_end.setdefault(c.rsplit("~", 1)[1], []).append(c)

    def naming(self, target: str) -> list[str]:
        """The components :func:`covers` accepts for ``target``, sorted."""
        out = {c for c in (target, None if "~" in target else ids.npu_of(target)) if c in self.by_comp}
        for sep in "/~":
            i = bisect.bisect_left(self.ordered, target + sep)
            while i < len(self.ordered) and self.ordered[i].startswith(target + sep):
                out.add(self.ordered[i])
                i += 1
        out.update(self.by_end.get(target, ()))
        return sorted(c for c in out if c is not None)

    def items_naming(self, target: str) -> list[Any]:
        return [item for c in self.naming(target) for item in self.by_comp[c]]


def back_in_service(fault_id: str, onset: float, health: list[tuple[float, str, str | None]],
                    reroutes: list[float], link: bool, end: float) -> tuple[bool, float | None]:
    """For a fault that touches no workload: whether it took its part out of service (a ``health`` change, (t,
    new state, cause), caused by ``fault:<id>`` to a state that carries no traffic) and, if so, when the part was
    back: in service again (healthy, degraded or cordoned: repaired, restored, replaced), or isolated and, for a
    link, routed around (the end of a successful re-route or drain of the fault's response, ``reroutes``, after the
    part went out). None while it is still down and unhandled at ``end``."""
    up = {"healthy", "degraded", "cordoned"}
    out_at = next((t for t, new, cause in health if t >= onset - 1e-9 and cause == f"fault:{fault_id}"
                   and new not in up), None)
    if out_at is None:
        return False, None
    for t, new, _cause in health:
        if t < out_at or t > end:
            continue
        if new in up:
            return True, t
        if new == "isolated":
            if not link:
                return True, t
            routed = [r for r in reroutes if out_at - 1e-9 <= r <= end]
            if routed:
                return True, max(t, min(routed))
    return True, None


def still_out_of_service(fault_id: str, onset: float, health: list[tuple[float, str, str | None]],
                         moved_off: list[float], drained: bool, end: float) -> dict[str, Any] | None:
    """For a link fault: its link is still out of service at ``end`` although its response moved the traffic off it
    (a successful drain or re-route, ``moved_off``, after the fault took it out), having never isolated nor repaired
    it: the fault is not recovered (its loss runs to the end of the run), whatever its workloads did. Returns since
    when, whether a drain still holds it (``drained``) and why, in words; None when the fault never took the link
    out, the link is up or isolated at ``end``, or nothing moved traffic off it (the baselines: a ticket and a
    replacement under way, no re-route)."""
    up = {"healthy", "degraded", "cordoned"}
    out_at = next((t for t, new, cause in health if t >= onset - 1e-9 and cause == f"fault:{fault_id}"
                   and new not in up), None)
    if out_at is None:
        return None
    last = [new for t, new, _cause in health if out_at <= t <= end][-1]
    if last in up or last == "isolated" or not any(out_at - 1e-9 <= r <= end for r in moved_off):
        return None
    how = "drained" if drained else "routed around (no drain holds it now)"
    return {"since_s": out_at, "drained": drained, "reason": f"{how}, never isolated or repaired, still down"}


def _root_rank(target: str, root: str | None) -> int:
    """0 when the incident's root is the fault's target, 1 when it lies in or holds it, 2 otherwise (no root)."""
    if root is None:
        return 2
    if root == target:
        return 0
    return 1 if names_target(target, {root}) else 2


def _wholes(name: str, seps: str) -> list[str]:
    """The prefixes of ``name`` that end before one of ``seps`` ("pod0" and "pod0/node3" of "pod0/node3/npu1")."""
    return [name[:i] for i, ch in enumerate(name) if ch in seps]


def _candidates(specific: set[str], by_target: dict[str, list[FaultLife]],
                by_part: dict[str, list[FaultLife]]) -> list[FaultLife]:
    """Every fault :func:`names_target` can accept for these components (a superset, checked by it after): the
    target is a component, a whole holding one (prefix before "/" or "~"), a link end after "~", or lies inside
    one. An index instead of a scan of every fault: a year-long replay has thousands of incidents and faults."""
    seen: dict[str, FaultLife] = {}
    for c in specific:
        keys = [c, *_wholes(c, "/~"), *(c[i + 1:] for i, ch in enumerate(c) if ch == "~")]
        for k in keys:
            for f in by_target.get(k, ()):
                seen[f[0]] = f
        for f in by_part.get(c, ()):
            seen[f[0]] = f
    return list(seen.values())


def related(target: str, scope: set[str]) -> bool:
    """Whether an injected target lies in an incident's scope (its nodes and L2 chips)."""
    for part in target.split("~"):
        node = ids.node_of(part)
        if node is not None and node in scope:
            return True
        segs = part.split("/")
        if len(segs) >= 3 and segs[1].startswith("l2plane") and "/".join(segs[:3]) in scope:
            return True
    return False


def inside(part: str, whole: str) -> bool:
    """Whether component ``part`` lies inside ``whole`` (a link or device of a node, the HBM stack of an NPU)."""
    return part.startswith(whole + "/") or part.startswith(whole + "~")


reported = reporting_npu  # (a die's report counts as its NPU's in matching)


def most_specific(components: set[str]) -> set[str]:
    """The components no other named component lies inside: a node drops out when one of its links or devices is
    named, as an operator reads a node-level report sent alongside a link-down as that link's, not the node's. A
    die counts as its NPU (:func:`reported`)."""
    components = {reported(c) for c in components}
    ordered = sorted(components)

    def holds_another(c: str) -> bool:
        for sep in "/~":
            i = bisect.bisect_left(ordered, c + sep)  # names inside c sort right after c + sep
            if i < len(ordered) and ordered[i].startswith(c + sep):
                return True
        return False

    return {c for c in components if not holds_another(c)}


def subject_components(signals: Iterable[Any]) -> set[str]:
    """The parts an incident's signals name as its subjects, for matching it to injected faults: every signal's
    component but those of a rank's report that a collective's wait timed out (the knowledge base's
    :func:`~opsbrain.diagnosis.knowledge.wait_report_kinds`). Every rank of the job reports such a wait, each naming
    its own node, so the reporters are witnesses of the fault, not its subjects: a concurrent fault on a reporting
    node did not cause the incident (held-out run 1000087: a node crash's incident taken by a software hang on one of
    the 16 nodes whose ranks waited for the crashed node; session 43, link43b). The remote the wait names
    (``hccl:remote``) and a rank's own transport or port error stay subjects. An incident of wait reports alone keeps
    its reporters: they are all it says."""
    waits = wait_report_kinds()
    named = [(s.kind in waits, s.component) for s in signals if s.component]
    subjects = {c for witness, c in named if not witness}
    return subjects or {c for _w, c in named}


def about(target: str, components: set[str]) -> bool:
    """Whether an incident whose signals name ``components`` is about the injected ``target``: its most specific
    components (:func:`most_specific`) name the target, a part of it (a link of a crashed node), a whole that holds
    it (the NPU of an HBM stack, the node of a Qingtian card), or a link of a failed L2 chip. A flap on another link
    of the fault's node is not about the fault merely because the node's switch-fault line names the node."""
    return names_target(target, most_specific(components))


def names_target(target: str, specific: set[str]) -> bool:
    """:func:`about` on components already reduced by :func:`most_specific`."""
    for c in specific:
        if c == target or c.startswith(target + "/") or c.startswith(target + "~") or target.startswith(c + "/"):
            return True
        if "~" in c and (c.endswith("~" + target) or "~" in target and c == target):
            return True
    return False


def credited_ttr(ttr: float | None, detected_at: float | None) -> float | None:
    """The ttr a fault is credited with: none when nothing detected it (an undetected fault is unrecovered, even
    if its part came back by itself)."""
    return None if detected_at is None else ttr


def nodes_during(workload: Any, start: float, end: float) -> set[str]:
    """The nodes ``workload`` ran on at any time in [start, end] (from its placement history)."""
    out: set[str] = set()
    hist = list(getattr(workload, "placements", [])) or [(0.0, frozenset(workload.nodes))]
    for k, (since, nodes) in enumerate(hist):
        until = hist[k + 1][0] if k + 1 < len(hist) else math.inf
        if since <= end and until > start:
            out |= nodes
    return out


def fault_window_end(onset: float, ended: float | None, action_starts: list[float], end: float,
                     window: float = RECOVERY_WINDOW_S) -> float:
    """The last moment a dip can be this fault's: its end (the run's end while it lasts) or the start of the last
    action its incidents took, whichever is later, plus one recovery window."""
    last = max([end if ended is None else ended, onset, *action_starts])
    return min(end, last + window)


def nominal_at(workload: Any, t: float, default: float | None) -> float | None:
    """The workload's fault-free rate for the placement it had at ``t`` (a training job scaled in runs fewer
    replicas: its bar is that placement's); ``default`` (the run's baseline) when it keeps no such history."""
    hist = getattr(workload, "nominal_rates", None)
    if not hist:
        return default
    i = bisect_right([h[0] for h in hist], t) - 1
    return hist[max(i, 0)][1] if default is None else min(default, hist[max(i, 0)][1])


def degraded_after(actions: list[dict[str, Any]], workloads: dict[str, Any]) -> list[dict[str, Any]]:
    """The training jobs a fault's response scaled in (its successful ``scale_instance`` actions), each with the
    degraded operation that began then: since when (the scale-in restart), on how many of its launch nodes, and
    the placement's fault-free throughput (``rate``, steps/s) and its share of the launch placement's (the job's
    nominal-rate history). The ttr of such a fault is measured against the smaller placement
    (:func:`time_to_recover`'s ``degraded_rate``); this says what that recovery left behind."""
    out: dict[str, dict[str, Any]] = {}
    for a in actions:
        w = workloads.get(str(a.get("target")))
        if a.get("action") != "scale_instance" or a.get("status") != "succeeded" or w is None:
            continue
        hist = getattr(w, "nominal_rates", None)
        if w.kind != "training" or not hist or a.get("end_s") is None:
            continue
        i = max(bisect_right([h[0] for h in hist], a["end_s"]) - 1, 0)
        since, rate = hist[i]
        nodes = (a.get("detail") or {}).get("nodes") or len(w.placements[-1][1])
        out[a["target"]] = {"workload": a["target"], "since_s": since, "nodes": nodes, "rate": rate,
                            "launch_nodes": len(w.placements[0][1]), "throughput_share": rate / hist[0][1]}
    return list(out.values())


Harm = tuple[str, float, float, set[str]]  # (fault id, onset, until: its workloads recovered or the run ended, nodes)


def consequence_of(nodes: set[str], opened: float, harms: list[Harm]) -> str | None:
    """The fault an incident raised only by a workload's own reports (its ranks' collective failures, its job
    events) is a consequence of. Such a report names the rank that saw the collective fail, which can sit on any node
    of the job, never the part that failed, so it cannot name a target: it is attributed by blast radius and time
    instead, to the fault whose affected workloads ran on one of ``nodes`` and had not recovered from it when the
    incident ``opened`` (``harms``: onset to recovery, to the run's end when never recovered); among several, the one
    that began last. None: no fault was hurting those workloads then (noise, or a false positive when acted on)."""
    live = [(onset, fid) for fid, onset, until, placed in harms
            if onset <= opened + 1e-9 and opened <= until + 1e-9 and nodes & placed]
    return max(live)[1] if live else None


Window = tuple[str, float, float]  # (fault id, onset, end of its impact on one workload: its recovery or the run's end)


def loss_owners(cuts: list[float], windows: list[Window]) -> list[list[str]]:
    """Which faults a workload's loss in each segment ``cuts[k]`` .. ``cuts[k + 1]`` (the run cut at every fault's
    onset; the last segment runs to the run's end) is charged to, given the ``windows`` of the faults that touch
    the workload: those whose impact window covers the segment's start (onset <= start < end of impact), in equal
    shares (several faults degrading one job at once each carry their share, not the whole; the job's rate cannot
    tell them apart). A segment no window covers (before the first fault, after every fault's impact ended: noise,
    another workload's fault) is no fault's: its loss stays unattributed, so the faults' figures and the
    unattributed rest add up to the workload's loss."""
    return [sorted(fid for fid, onset, until in windows if onset <= start + 1e-9 and until > start + 1e-9)
            for start in cuts[:-1]]
