"""How ``opsbrain watch`` groups signals into incidents, and when an incident is worth a report again.

A signal joins the open incident of its node whose last *fault-level* signal is at most ``group_window_s`` earlier,
as long as the incident opened at most ``horizon_s`` before (the detector's parameters); a fault-level signal (an
error, or an actionable warning, as the detector opens incidents on: :data:`ACTIONABLE_WARNINGS`) that finds none
opens a new one. Only fault-level signals keep an incident open: a warning, a state, a monitoring component's own
failure (npu-exporter's ``get npu link stat failed`` every few seconds, :data:`opsbrain.ingest.benign.COMPONENT_SELF`)
joins as evidence within the window but does not extend it, so a fault that comes later on the same node is an
incident of its own.

Time is each signal's *grouping time*: when it was read, or, for a line replayed from before the watch started
(``--from-start``, a resumed watch), its own time stamp, so an OOM of one day and a UCE of another in the same file are
two incidents. ``collect_s`` and ``rediagnose_settle_s`` count in the watch's own clock.

An incident is diagnosed ``collect_s`` after it opens, and again when something worth a report arrived: a signal kind
it had not seen, a fault on a part it had not named (a new device code, a new device), or the same fault again (the
same kind on the same part, its time stamp more than :data:`REPEAT_GAP_S` after the last: a second UCE). It is
reported when first diagnosed, when its class or component changes, and when a new fault or a repeat arrived (with
what is new: :attr:`WatchIncident.news`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from opsbrain.detection.detector import ACTIONABLE_WARNINGS, IGNORED
from opsbrain.ingest import Signal
from opsbrain.ingest.benign import COMPONENT_SELF
from opsbrain.ingest.where import node_of

if TYPE_CHECKING:
    from opsbrain.detection.params import DetectorParams

REPEAT_GAP_S = 1.0
"""reason: one event's lines of one kind (two writers of the same device-os record, both ends of a link) are stamped
within the second (as the detector's ``_seen_down``); the same fault on the same part stamped later happened again."""

Facet = tuple[str, str | None]


def fault_level(sig: Signal) -> bool:
    """Whether a signal can open an incident and keep it open: an error or an actionable warning, not a state, a
    level tag or a monitoring component's own failure."""
    if any(tag in sig.kind for tag in IGNORED) or sig.kind in COMPONENT_SELF:
        return False
    return sig.severity >= 2 or sig.kind in ACTIONABLE_WARNINGS


@dataclass
class WatchIncident:
    id: str
    opened: float  # the watch's clock when it opened
    last: float  # the watch's clock at its last fault-level signal
    key: str | None
    signals: list[Signal] = field(default_factory=list)
    kinds: set[str] = field(default_factory=set)
    diagnosed_kinds: frozenset[str] = frozenset()
    reported: tuple[str, str | None] | None = None
    due: float = 0.0
    start_t: float = 0.0  # grouping time of its first signal
    last_t: float = 0.0  # grouping time of its last fault-level signal
    seen: list[float] = field(default_factory=list)  # each signal's grouping time (the diagnosis' time line)
    faults: dict[Facet, list[float]] = field(default_factory=dict)  # (kind, component) -> times it happened
    dirty: bool = True  # something worth a diagnosis arrived since the last one
    news: list[str] = field(default_factory=list)  # what arrived since the last report that is worth one

    @property
    def occurrences(self) -> int:
        """How many times its fault happened: 1, or the count of its most repeated (kind, component)."""
        return max((len(v) for v in self.faults.values()), default=1)


def _key(sig: Signal) -> str | None:
    return node_of(sig.component) or sig.host or sig.component


class IncidentGrouper:
    """Signals -> incidents by node and grouping time (see module docstring)."""

    def __init__(self, params: DetectorParams | None = None, first: int = 1) -> None:
        if params is None:
            from opsbrain.detection.params import DetectorParams

            params = DetectorParams()
        self.p = params
        self.first = first  # the number of its first incident (a resumed watch numbers on)
        self.incidents: list[WatchIncident] = []

    def feed(self, sig: Signal, now: float, at: float | None = None, stamp: float | None = None) -> None:
        """Take ``sig``, read at ``now`` (the watch's clock); ``at``: its grouping time (default ``now``);
        ``stamp``: its line's time stamp, to tell a repeat (default ``at``)."""
        at = now if at is None else at
        key = _key(sig)
        fault = fault_level(sig)
        win = self.p.group_window_s
        for inc in reversed(self.incidents):  # a replayed line may come before the lines of another file
            if inc.key == key and inc.start_t - win <= at <= inc.last_t + win and at - inc.start_t <= self.p.horizon_s:
                self._join(inc, sig, now, at, stamp if stamp is not None else at, fault)
                return
        if not fault:
            return
        inc = WatchIncident(f"w{self.first + len(self.incidents):04d}", now, now, key, due=now + self.p.collect_s,
                            start_t=at, last_t=at)
        self.incidents.append(inc)
        self._join(inc, sig, now, at, stamp if stamp is not None else at, fault)

    def _join(self, inc: WatchIncident, sig: Signal, now: float, at: float, stamp: float, fault: bool) -> None:
        inc.signals.append(sig)
        inc.seen.append(at)
        worth = False
        if sig.kind not in inc.kinds and not sig.kind.startswith("level:"):
            inc.kinds.add(sig.kind)
            worth = True
        if fault:
            inc.last, inc.last_t, inc.start_t = now, max(inc.last_t, at), min(inc.start_t, at)
            facet = (sig.kind, sig.component)
            times = inc.faults.get(facet)
            if times is None:
                inc.faults[facet] = [stamp]
                if inc.reported is not None:
                    inc.news.append(f"new fault: {sig.kind} on {sig.component or inc.key}")
                worth = True
            elif abs(stamp - times[-1]) > REPEAT_GAP_S:
                times.append(stamp)
                inc.news.append(f"{sig.kind} on {sig.component or inc.key} again ({len(times)} times)")
                worth = True
            else:
                times[-1] = max(times[-1], stamp)
        if worth:
            inc.dirty = True
            if inc.reported is not None:
                inc.due = max(inc.due, now + self.p.rediagnose_settle_s)

    def due(self, now: float) -> list[WatchIncident]:
        """Incidents to diagnose now: collected long enough, or grown something new since their last diagnosis."""
        return [i for i in self.incidents if i.due and now >= i.due and i.dirty]

    def pending(self) -> list[WatchIncident]:
        """Incidents with something not yet diagnosed (at a stop: not collected for ``collect_s`` yet)."""
        return [i for i in self.incidents if i.dirty]


@dataclass
class Told:
    """An incident as reported: its class and part, when (grouping time) and how many times its fault happened."""

    incident: str
    fault_class: str
    component: str | None
    at: float
    occurrences: int = 1


class History:
    """The incidents reported, kept for the repeat rules (``repeat`` of a runbook: the same class on the same part
    ``count`` times within ``within_s`` calls for the harder runbook, as MindCluster separates an NPU after its
    second HBM UCE in 24 h); kept across a restart in the watch's state file."""

    MAX_ROWS = 10_000

    def __init__(self, rows: list[Told] | None = None) -> None:
        self.rows: list[Told] = rows or []

    def note(self, told: Told) -> None:
        self.rows = [r for r in self.rows if r.incident != told.incident][-self.MAX_ROWS + 1:] + [told]

    def earlier(self, fault_class: str, component: str | None, at: float, within_s: float,
                incident: str) -> list[Told]:
        """Other incidents of ``fault_class`` on ``component`` within ``within_s`` before (or after) ``at``."""
        return [r for r in self.rows if r.incident != incident and r.fault_class == fault_class and
                r.component == component and abs(at - r.at) <= within_s]

    def as_json(self, now: float, keep_s: float) -> list[dict[str, object]]:
        return [vars(r) for r in self.rows if now - r.at <= keep_s]

    @classmethod
    def from_json(cls, rows: object) -> History:
        out = []
        for r in rows if isinstance(rows, list) else []:
            try:
                out.append(Told(str(r["incident"]), str(r["fault_class"]), r.get("component"), float(r["at"]),
                                int(r.get("occurrences", 1))))
            except (TypeError, KeyError, ValueError, AttributeError):
                continue
        return cls(out)
