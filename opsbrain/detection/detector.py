"""The detector: signals in, incidents out.

Error-level signals open or join incidents; warnings join an open incident, and open one only when they are
actionable on their own (lanes lost, temperature alarms, isolated-row warnings) or come as a burst (correctable
errors above a rate). A signal joins an open incident when it shares a node or an L2 chip with it, within the
incident's horizon; a rank's report that a collective failed also joins the incident a stall of its job joined (the
rank that reports it can sit on any node of the job). Once an incident is diagnosed, a signal its root's class does
not explain (the knowledge base reads it as another class's primary evidence) on a part the root neither holds nor
lies in is a fault of its own and does not join it; a node's own line goes with the report of its node from the
same second, and a job's own reports sort after the hardware's of the same stamp. Every incident gets a first
diagnosis ``collect_s`` after it opens (sympathetic signals arrive within seconds) and another whenever a signal kind
it had not seen arrives.
An incident diagnosed as a whole host's stop (:data:`NODE_WIDE`) closes when a link it holds dark comes up (the host
is back): nothing joins it then, and a later fault of that host is an incident of its own.
Host clocks are read from the data: a host whose lines arrive before their own stamps is ahead and its stamps are
moved back; an incident's opening event lies between its first stamp and that line's arrival (a clock that is
behind looks like a late line).
The incident and link-history types are :mod:`opsbrain.detection.incident`, where a signal points and how signals of
one stamp are ordered :mod:`opsbrain.detection.anchors` (session 43).
"""

from __future__ import annotations

import heapq
import math
from collections import defaultdict, deque
from collections.abc import Callable, Iterator
from dataclasses import replace
from itertools import takewhile
from typing import TYPE_CHECKING, Any

from opsbrain.detection.anchors import (  # noqa: F401 (anchors, unexplained_nodes: imported from here)
    _clock_host,
    _same_event,
    _seen_down,
    _tie_order,
    anchors,
    unexplained_nodes,
)
from opsbrain.detection.explain import beside, collective_failure, is_job_report  # noqa: F401 (collective_failure)
from opsbrain.detection.incident import NO_HISTORY, Incident, LinkHistory  # noqa: F401 (imported from here)
from opsbrain.ingest import DOWN, UP, Signal, dark_links
from opsbrain.ingest.where import node_of

if TYPE_CHECKING:
    from opsbrain.detection.params import DetectorParams


def __getattr__(name: str) -> Any:
    """``DetectorParams``, imported on first use (it needs pydantic; a bundle's replay reads the compiled defaults,
    :attr:`opsbrain.kb.compiled.CompiledKB.detector_params`)."""
    if name == "DetectorParams":
        from opsbrain.detection.params import DetectorParams

        return DetectorParams
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

TIME_RESOLUTION_S = 1e-3  # log time stamps carry milliseconds: windows compare at that resolution, so an
# incident read back from a log bundle groups exactly as it did live
ACTIONABLE_WARNINGS = ("sw:lanes", "dev:80E20207", "dev:80E18401", "dev:80E00209", "dev:81B18605", "dev:81078605",
                       "swfault:00F103B0")
BURST_KINDS = ("dev:80E01805",)
NODE_WIDE = ("node_crash",)  # classes whose root is a whole node: other wholly dark nodes are incidents of their own
IGNORED = ("level:", "sw:up", "port:up", "hccn:up", ":recover", "hccn:tls_")  # tls_: states


def _repeat_of(sig: Signal, inc: Incident) -> bool:
    """Whether ``sig`` repeats or follows up a part ``inc`` already holds (a warning, a kind seen, a link's down)."""
    return sig.component in inc.comps and (sig.severity < 2 or sig.kind in inc.kinds or _same_event(sig, inc))


class Detector:
    def __init__(self, params: DetectorParams, clock: Callable[[], float],
                 schedule: Callable[[float, Callable[[], None]], None],
                 diagnose: Callable[[Incident], None], placement: dict[str, list[str]] | None = None,
                 another_fault: Callable[[str, str], bool] | None = None) -> None:
        self.p = params
        self.placement = placement or {}  # job or instance name -> nodes (an operator knows where jobs run)
        # (signal kind, fault class) -> whether the kind is evidence of a fault other than one of that class (the
        # knowledge base's, handed in by whoever wires the diagnosis: opsbrain.diagnosis.knowledge.another_fault);
        # None: no signal is told apart from an open incident by its kind
        self._another_kind = another_fault
        self._clock = clock
        self._schedule = schedule
        self._diagnose = diagnose
        self.incidents: list[Incident] = []
        self._burst: dict[str, deque[float]] = defaultdict(deque)
        self.link_downs: dict[str, deque[float]] = defaultdict(deque)  # operator-visible flap history
        self.link_lanes: dict[str, float] = {}  # link -> last time it reported lanes lost
        self.lane_history: dict[str, deque[float]] = defaultdict(deque)  # link -> its lane-loss reports (24 h)
        self._pending: set[str] = set()
        # (time stamp, tie order, arrival order, signal, arrival time) heap
        self._held: list[tuple[float, int, int, Signal, float]] = []
        self._arrivals = 0
        self.clock_lead: dict[str, float] = {}  # host -> max(time stamp - arrival) over its lines: its clock's lead

    # ---- host clocks ---------------------------------------------------------------------------------
    def _on_collector_clock(self, sig: Signal, now: float) -> Signal:
        """The signal with its time stamp moved onto the collector's clock when its host's clock is provably ahead.

        A line reaches the collector after it is written, so (time stamp - arrival) is the host's clock offset minus
        the line's path delay: its maximum over the host's lines is a lower bound on the offset that tightens with
        every line (the minimum-delay sample of NTP's clock filter, Mills). When that bound exceeds the NTP step
        threshold the host's clock is ahead and its stamps are moved back by it; otherwise stamps are kept as
        written (synchronized hosts, and every replayed bundle, where arrival is the stamp). A clock that is
        behind cannot be told from a late line this way: an incident's event is taken to lie anywhere between its
        first line's stamp and its arrival (:attr:`Incident.event_end`)."""
        written_by = sig.host or sig.component
        if written_by is None or sig.component in self.placement:
            return sig
        host = _clock_host(written_by)
        lead = max(self.clock_lead.get(host, -float("inf")), sig.t - now)
        self.clock_lead[host] = lead
        return replace(sig, t=sig.t - lead) if lead > self.p.clock_tolerance_s else sig

    def _earliest(self, sig: Signal) -> float:
        """The earliest moment ``sig`` can have happened. A stamp moved back by its host's lead is the latest
        moment (the lead is a lower bound on the offset); the earliest is one reorder window before it, the path
        delay the collector allows a line. Other stamps are taken as written."""
        written_by = sig.host or sig.component
        if written_by is None or self.clock_lead.get(_clock_host(written_by), 0.0) <= self.p.clock_tolerance_s:
            return sig.t
        return sig.t - self.p.reorder_s

    # ---- intake ----------------------------------------------------------------------------------------
    def feed(self, sig: Signal) -> None:
        """Take a signal as it arrives; it is processed once ``reorder_s`` has passed since its time stamp, in
        time-stamp order (at once when that moment has passed, or on arrival when the window is 0). A host whose
        clock is provably ahead has its stamps moved onto the collector's clock first."""
        arrived = self._clock()
        sig = self._on_collector_clock(sig, arrived)
        if self.p.reorder_s <= 0:
            self._process(sig, arrived)
            return
        self._arrivals += 1
        heapq.heappush(self._held, (sig.t, _tie_order(sig), self._arrivals, sig, arrived))
        # a late signal is released at once, but after the other signals of its record have been fed
        self._schedule(max(0.0, sig.t + self.p.reorder_s - arrived), self._release)

    def _release(self) -> None:
        """Process every held signal whose window has passed, oldest time stamp first."""
        now = self._clock()
        while self._held and self._held[0][0] + self.p.reorder_s <= now + TIME_RESOLUTION_S:
            _t, _tie, _n, sig, arrived = heapq.heappop(self._held)
            self._process(sig, arrived)

    def _process(self, sig: Signal, arrived: float) -> None:
        self._close_on_return(sig)
        if any(tag in sig.kind for tag in IGNORED):
            self._attach_quietly(sig)
            return
        if sig.kind in DOWN and sig.component and "~" in sig.component:
            hist = self.link_downs[sig.component]
            if not hist or sig.t - hist[-1] > 1.0:  # one physical event shows at both ends
                hist.append(sig.t)
            while hist and sig.t - hist[0] > self.p.flap_window_s:
                hist.popleft()
        if sig.kind == "sw:lanes" and sig.component:
            self.link_lanes[sig.component] = sig.t
            lanes = self.lane_history[sig.component]
            lanes.append(sig.t)
            while lanes and sig.t - lanes[0] > self.p.flap_window_s:
                lanes.popleft()
        inc = self._find(sig)
        if inc is not None:
            repeat = sig.component is not None and (
                (sig.kind == "sw:down" and sig.kind in inc.kinds) or _seen_down(inc, sig))
            self._join(inc, sig)
            if repeat:
                self._rediagnose(inc)  # the same link down again: a flap count changed
            return
        if sig.severity >= 2 or sig.kind in ACTIONABLE_WARNINGS or self._burst_rule(sig):
            self._open(sig, arrived)

    def _close_on_return(self, sig: Signal) -> None:
        """A link up closes the incidents of its host's stop (:data:`NODE_WIDE`) that hold it dark: the host is back."""
        link = sig.component if sig.kind in UP and sig.component and "~" in sig.component else None
        if (node := node_of(link)) is None:
            return
        for inc in self._recent(sig.t):
            if (d := inc.diagnosis) and d.fault_class in NODE_WIDE and node_of(d.component) == node:
                inc.closed = inc.closed or link in dark_links(inc.signals)

    def _recent(self, t: float) -> Iterator[Incident]:
        """The incidents opened within the horizon before ``t``, newest first (they are kept in opening order)."""
        return takewhile(lambda inc: t - inc.opened_at <= self.p.horizon_s + TIME_RESOLUTION_S,
                         reversed(self.incidents))

    def _burst_rule(self, sig: Signal) -> bool:
        if sig.kind not in BURST_KINDS or not sig.component:
            return False
        q = self._burst[sig.component]
        q.append(sig.t)
        while q and sig.t - q[0] > self.p.burst_window_s:
            q.popleft()
        return len(q) >= self.p.burst_count

    def _find(self, sig: Signal) -> Incident | None:
        """The incident a signal belongs to: job events join the latest incident on the job's nodes; repeats and
        warnings on a part join its incident within the horizon; new errors join only incidents on the same node
        that were active within the group window (the same L2 chip only within the same second)."""
        nodes, l2 = anchors(sig, self.placement)
        is_job = sig.component in self.placement
        if (same := self._same_moment(sig, nodes)) is not None:
            return same
        # a link's repeat joins the incident holding its first down, while that is active (group window), before a
        # newer incident's same-second rule can take it: a sibling link of the node went down between the two
        # (session 43). A link that flapped long ago and goes dark with an L2 chip or a node is that event's
        for inc in self._recent(sig.t) if sig.component and "~" in sig.component else ():
            if not inc.closed and sig.t - inc.last_at <= self.p.group_window_s and _repeat_of(sig, inc):
                return inc
        for inc in self._recent(sig.t):
            if inc.closed:
                continue
            if is_job:
                # the job's nodes hold the incident's hardware, or stalls of several jobs at the same instant
                # (one fabric event stalls every job it touches) while no hardware signal has arrived yet
                if nodes & inc.nodes or (not inc.nodes and sig.t - inc.last_at <= self.p.l2_join_s):
                    return inc
                continue
            if _repeat_of(sig, inc):
                return inc
            if self._another_fault(sig, inc):
                continue  # a fault of its own beside this incident's: its own incident, or an older one's
            if sig.component is not None and "~" in sig.component:
                # another link joins only in the same second as the incident began: one event (a node, an L1
                # or an L2 chip) darkening many links; a link failing later is its own incident
                if self._earliest(sig) - inc.event_end <= self.p.l2_join_s and (
                        nodes & inc.nodes or l2 & inc.l2 or (not inc.nodes and nodes & inc.job_nodes)):
                    return inc
                continue
            if sig.t - inc.last_at <= self.p.group_window_s and (
                    nodes & inc.nodes or (l2 & inc.l2 and self._earliest(sig) - inc.event_end <= self.p.l2_join_s)
                    or (not inc.nodes and nodes & inc.job_nodes)  # the hardware behind a job-only incident
                    or (nodes & inc.job_nodes and collective_failure(sig))):  # a stalled job's collective failed
                return inc
        return None

    def _same_moment(self, sig: Signal, nodes: set[str]) -> Incident | None:
        """For a line that names its node but no part of it (a host's own line, the device plugin's relay of a
        link's alarm): the latest incident holding a hardware report on that node from the same second (a late line
        too), if its root can explain the line. Where several incidents hold the node (a flapping link and an HBM's
        error beside it) the line goes with the report it came with, not with whichever incident opened last or
        first named the node."""
        if not nodes or is_job_report(sig, self.placement) or (sig.component and sig.component not in nodes):
            return None
        for inc in self._recent(sig.t):
            if (not inc.closed and nodes & inc.nodes and self._reported_with(sig, inc, nodes)
                    and not self._another_fault(sig, inc)):
                return inc
        return None

    def _reported_with(self, sig: Signal, inc: Incident, nodes: set[str]) -> bool:
        """Whether ``inc`` holds a hardware report on one of ``nodes`` from the same second as ``sig`` (its signals
        are in processing order: time-stamp order, a straggler late)."""
        for s in reversed(inc.signals):
            if s.t < sig.t - self.p.l2_join_s - self.p.reorder_s:
                return False
            if (abs(s.t - sig.t) <= self.p.l2_join_s and not is_job_report(s, self.placement)
                    and anchors(s, None)[0] & nodes):
                return True
        return False

    def _another_fault(self, sig: Signal, inc: Incident) -> bool:
        """Whether ``sig`` is a fault of its own beside ``inc``'s diagnosed root (:func:`explain.beside`): an HBM's
        uncorrectable error beside a flapping link opens its own incident instead of being diagnosed as the flap."""
        return self._another_kind is not None and beside(sig, inc.diagnosis, self.placement, self._another_kind)

    def _attach_quietly(self, sig: Signal) -> None:
        inc = self._find(sig)
        if inc is not None:
            inc.signals.append(sig)
            if sig.component:
                inc.comps.add(sig.component)
            if sig.kind not in inc.kinds and not sig.kind.startswith("level:"):
                inc.kinds.add(sig.kind)
                self._rediagnose(inc)

    def _open(self, sig: Signal, arrived: float | None = None) -> None:
        inc = Incident(f"i{len(self.incidents) + 1:04d}", sig.t, sig.t, detected_at=max(sig.t, self._clock()),
                       event_until=arrived if arrived is not None and arrived > sig.t else None)
        self.incidents.append(inc)
        self._join(inc, sig, diagnose=False)
        self._pending.add(inc.id)
        self._schedule(self.p.collect_s, lambda: self._first(inc))

    def _widen(self, inc: Incident, sig: Signal) -> None:
        """Add what ``sig`` points at to ``inc``'s scope (a job event adds its job's nodes, not to the scope)."""
        if sig.component in self.placement:  # a job event joins; it does not widen the scope
            inc.job_nodes |= set(self.placement[sig.component])
        else:
            nodes, l2 = anchors(sig, None)
            inc.nodes |= nodes
            inc.l2 |= l2
        if sig.component:
            inc.comps.add(sig.component)

    def _join(self, inc: Incident, sig: Signal, diagnose: bool = True) -> None:
        self._widen(inc, sig)
        inc.signals.append(sig)
        if not (sig.component in self.placement and inc.nodes):
            # a job event on an incident that already holds hardware says the job stalled, not that the hardware
            # is still reporting: it does not extend the window in which new hardware errors join
            inc.last_at = sig.t
        new = sig.kind not in inc.kinds
        inc.kinds.add(sig.kind)
        if diagnose and new:
            self._rediagnose(inc)

    def _first(self, inc: Incident) -> None:
        self._pending.discard(inc.id)
        first = not inc.diagnoses
        self._diagnose(inc)
        if first:
            self._split_dark_nodes(inc)
        self._start_recheck(inc)

    def _split_dark_nodes(self, inc: Incident) -> None:
        """Several nodes going dark in the same second share every L2 chip, so their link-downs open one incident;
        when it is diagnosed as a whole node's failure, each other node whose dark links that failure does not
        explain (:func:`unexplained_nodes`) becomes an incident of its own, with the signals that point at that node
        alone: each crashed node, and a link failing on another node in the same second, is found, localized and
        recovered, not only the root."""
        d = inc.diagnosis
        if d is None or d.fault_class not in NODE_WIDE or d.component is None:
            return
        dark = unexplained_nodes(node_of(d.component), dark_links(inc.signals))
        for node in dark:
            own = [s for s in inc.signals if s.component not in self.placement and anchors(s, None)[0] == {node}]
            if not own or len(own) == len(inc.signals):
                continue
            moved = {id(s) for s in own}
            inc.signals = [s for s in inc.signals if id(s) not in moved]
            self._open_split(inc, own)
        if dark:
            self._rescope(inc)
            self._diagnose(inc)  # its evidence is now its own node's

    def _open_split(self, parent: Incident, own: list[Signal]) -> None:
        """An incident for one node's share of ``parent``'s signals, diagnosed at once (they were collected)."""
        t0 = min(s.t for s in own)
        inc = Incident(f"i{len(self.incidents) + 1:04d}", t0, max(s.t for s in own),
                       detected_at=parent.detected_at, event_until=parent.event_until)
        for s in own:
            self._join(inc, s, diagnose=False)
        inc.last_at = max(s.t for s in own)
        at = next((k for k, other in enumerate(self.incidents) if other.opened_at > t0), len(self.incidents))
        self.incidents.insert(at, inc)  # kept in opening order: :meth:`_find` stops at the first beyond the horizon
        self._diagnose(inc)  # never split again: it holds one node's signals
        self._start_recheck(inc)

    def _rescope(self, inc: Incident) -> None:
        """Recompute what ``inc`` holds after signals moved out of it (its job nodes are kept)."""
        inc.nodes, inc.l2, inc.comps, inc.kinds = set(), set(), set(), set()
        for s in inc.signals:
            self._widen(inc, s)
            inc.kinds.add(s.kind)

    def _start_recheck(self, inc: Incident) -> None:
        """Start :meth:`_recheck` ``recheck_s`` after a diagnosis of ``inc`` that finds a link dark which went down
        after every down an earlier recheck covered: at the first diagnosis, and for a link that went dark in the
        incident after its recheck had ended (a blip, then the same link down for good), which before session 44
        was read once, a second after its down, and never past ``link_down_after_s``."""
        dark = dark_links(inc.signals)
        if inc.rechecking or not dark or (inc.rechecked_to is not None and max(dark.values()) <= inc.rechecked_to):
            return
        inc.rechecking, inc.rechecked_to = True, max(dark.values())
        self._schedule(self.p.recheck_s, lambda: self._recheck(inc))

    def _recheck(self, inc: Incident) -> None:
        """Diagnose ``inc`` again while a link of it is dark; a link not yet dark for the knowledge base's link-down
        threshold (``link_down_after_s``: escalated past it, only reported under it) is read once more when it
        passes it, so that a link that stays down is read by its definition (session 43, link43b). The oldest link
        dark at each read sets the next: one back up, the next oldest still dark is followed."""
        dark = dark_links(inc.signals)
        if dark and inc.id not in self._pending:
            self._diagnose(inc)
        until = min(dark.values()) + self.p.link_down_after_s - self._clock() if dark else 0.0
        if until > 0:
            self._schedule(until, lambda: self._recheck(inc))
        else:  # every link dark now has been read (its down at or before this moment)
            inc.rechecking = False
            inc.rechecked_to = max([*dark.values(), inc.rechecked_to or -math.inf])

    def _rediagnose(self, inc: Incident) -> None:
        if inc.id in self._pending or not inc.diagnoses:
            return
        self._pending.add(inc.id)
        self._schedule(self.p.rediagnose_settle_s, lambda: self._first(inc))

    def lanes_lost_recently(self, link: str, now: float) -> bool:
        t = self.link_lanes.get(link)
        return t is not None and now - t <= self.p.flap_window_s

    def lane_losses_of(self, link: str, now: float) -> tuple[float, ...]:
        return tuple(t for t in self.lane_history.get(link, ()) if 0.0 <= now - t <= self.p.flap_window_s)

    def flaps_of(self, link: str, now: float) -> int:
        return sum(1 for t in self.link_downs.get(link, ()) if now - t <= self.p.flap_window_s)
