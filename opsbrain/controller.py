"""The controller wired into a simulation: telemetry -> signals -> detector -> diagnoser -> responder.

It sees what an operator sees: log lines and job events (pushed by the telemetry hub), metrics read on demand,
the topology and where workloads are placed. It never reads ``sim.faults`` or the trace (ground truth).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

import simpy
from simpy.core import URGENT

from faultlib.health import Health
from faultlib.telemetry import JobEvent, LogLine
from opsbrain import livereadings
from opsbrain.detection import Detector, DetectorParams, Incident, LinkHistory
from opsbrain.detection.detector import anchors
from opsbrain.detection.explain import is_job_report
from opsbrain.detection.watchdog import ProgressWatchdog
from opsbrain.diagnosis.knowledge import another_fault
from opsbrain.ingest import Signal, parse_job_event
from opsbrain.ingest.derive import SectionPlacer
from opsbrain.ingest.linememo import LineMemo
from opsbrain.recovery.schema import WORKLOAD_STUCK
from opsbrain.verdict import Diagnosis

if TYPE_CHECKING:
    from faultlib.engine import Simulation


RANK_LINE = re.compile(r"\[rank(\d+)\]:")
"""A training rank's line (torch_npu prefixes what a rank prints with ``[rankN]:``)."""
JOB_FAILURES = ("job:crash", "job:timeout")
"""Scheduler events of a training job that failed (its processes exited, or its collective timed out)."""
DUPLICATE_WINDOW_S = 600.0
"""Two incidents diagnosed with the same class and root within this window share one response (the second is
recorded as a duplicate): one failed chip seen from two sides must not be isolated twice or page a person."""


class Diagnoser(Protocol):
    def diagnose(self, incident: Incident, now: float, history: LinkHistory,
                 metric: Callable[[str, str], float | None]) -> Diagnosis: ...


class Responder(Protocol):
    def handle(self, incident_id: str, diagnosis: Diagnosis) -> simpy.Process | None: ...

    def actions_for(self, incident_id: str) -> list[dict[str, Any]]: ...


class LatestDiagnosis:
    """The incident's diagnosis as of the moment it is read: a person (the manual policy) works on what the
    evidence shows when they finish their own triage, not on the first, often inconclusive, verdict."""

    def __init__(self, incident: Incident) -> None:
        self._incident = incident

    def __getattr__(self, name: str) -> Any:
        d = self._incident.diagnosis
        if d is None:
            raise AttributeError(name)
        return getattr(d, name)


class NullResponder:
    """Takes no action (detection and diagnosis only)."""

    def handle(self, incident_id: str, diagnosis: Diagnosis) -> simpy.Process | None:
        return None

    def actions_for(self, incident_id: str) -> list[dict[str, Any]]:
        return []


class Controller:
    def __init__(self, sim: Simulation, diagnoser: Diagnoser, responder: Responder | None = None,
                 params: DetectorParams | None = None) -> None:
        self.sim = sim
        self.diagnoser = diagnoser
        self.responder = responder or NullResponder()
        self.placement = {name: list(w.nodes) for name, w in sim.workloads.items()}
        for w in sim.workloads.values():
            for inst, info in getattr(w, "instances", dict)().items():
                self.placement[inst] = list(info["nodes"])
        self.detector = Detector(params or DetectorParams(), sim.clock, self._schedule, self._diagnose,
                                 self.placement, another_fault)
        if hasattr(self.responder, "link_records"):  # runbooks count a link's downs from the same records
            self.responder.link_records = lambda: LinkHistory(self.detector, self.sim.now)
        self.key_incident: dict[str, str] = {}  # responder key -> its incident
        if hasattr(self.responder, "incident_of"):  # the repeat and lemon rules count an incident once
            self.responder.incident_of = lambda key: self.key_incident.get(key, key)
        if hasattr(self.responder, "holder_of") and hasattr(self.responder, "handed_over"):  # session 38: a doomed
            # restart is stopped and its job handed to the response that holds the part
            self.responder.holder_of = self.holder_of
            self.responder.handed_over = self._handed_over
        if hasattr(self.responder, "claim"):  # session 41: a sibling dark link a response took is its incident's
            self.responder.claim = self._claim
        self.diagnosis_ms: list[float] = []
        self.handled: dict[str, list[str]] = {}  # incident id -> responder keys (one per acted-on diagnosis)
        self.handled_classes: dict[str, list[str]] = {}  # incident id -> the class each response acted on
        self.handled_roots: dict[str, list[str | None]] = {}  # incident id -> the root each response acted on
        self.handled_conf: dict[str, list[float]] = {}  # incident id -> the confidence each response acted on
        self.handled_at: dict[str, float] = {}  # incident id -> when its last response started
        self.responding: dict[tuple[str, str | None], tuple[str, float]] = {}  # (class, root) -> (incident, since)
        self.duplicates: dict[str, str] = {}  # incident id -> the incident whose response covers it
        self.part_owner: dict[str, tuple[str, str]] = {}  # part -> (incident, responder key) that holds it
        self.placeholders: set[str] = set()  # responder keys acting on an abstention (the same-part link response)
        # a baseline (a person, or the vendor's fault-code handling) acts on an incident once
        self.once = getattr(self.responder, "policy", "auto") in ("manual", "vendor-default")
        self.adopted: set[str] = set()  # incidents opened outside the detector (health sweeps, issue 7)
        self.watchdog: ProgressWatchdog | None = None
        rp = getattr(self.responder, "p", None)
        if not self.once and rp is not None and not isinstance(self.responder, NullResponder):
            busy = getattr(self.responder, "busy_with", None)
            self.watchdog = ProgressWatchdog(self._schedule, sim.clock, self._on_stuck, rp.stuck_after_s,
                                             rp.stuck_revivals, rp.repeat_window_s,
                                             busy if busy is not None else (lambda _job: False))
        self._place = SectionPlacer(key=lambda s: s.host)  # a printed health table's rows, per printing host
        self._lines = LineMemo()  # the twin's lines repeat but for their time stamp
        sim.telemetry.subscribe(self._on_record)

    # ---- wiring -------------------------------------------------------------------------------------
    def _on_record(self, rec: LogLine | JobEvent) -> None:
        if isinstance(rec, LogLine):
            sigs = self._lines.parse(rec.text, rec.t, rec.origin, rec.source, rec.level)
        else:
            sigs = parse_job_event(rec.job, rec.kind, rec.detail, rec.t, self.placement)
            w = self.sim.workloads.get(rec.job)
            if self.watchdog is not None and w is not None and w.kind == "training":
                self.watchdog.observe(rec.job, rec.kind, rec.t)
        for s in sigs:
            if (placed := self._place(s)) is not None:
                self.detector.feed(placed)

    def _schedule(self, delay: float, fn: Callable[[], None]) -> None:
        """Call ``fn`` after ``delay`` simulated seconds. Its events are those a process waiting ``delay`` makes, in
        the same order (an urgent start now, whose callback sets the timeout, so that ``fn`` runs among events due at
        the same moment where a process's would), without the process: a year's replay schedules ~2 million calls."""
        env = self.sim.env

        def start(_ev: simpy.Event) -> None:
            env.timeout(delay).callbacks.append(lambda _t: fn())

        ev = simpy.Event(env)
        ev._ok, ev._value = True, None  # triggered, as simpy's own Initialize event of a process is
        ev.callbacks.append(start)
        env.schedule(ev, URGENT)

    def metric(self, name: str, component: str) -> float | None:
        """A reading now: the metric store's, or one of the derived readings of :mod:`opsbrain.livereadings`
        (an HBM stack's temperature climb over the last scrapes, a node's NPUs allocated by the scheduler)."""
        if name in livereadings.NAMES:
            return livereadings.read(self.sim, self.placement, name, component)
        return self.sim.telemetry.scrape(name, component)  # as the exporters serve it (none from a stopped host)

    def adopt(self, incident_id: str, diagnosis: Diagnosis, component: str) -> Incident:
        """Take over an incident opened outside the detector (a health sweep's proactive incident, issue 7) and
        hand it to the responder. It joins the detector's incidents, so what its response causes (a job stalled
        while a link is drained) joins it instead of opening another; it keeps the sweep's diagnosis (its evidence
        is not in the detector's signals, so it is never re-diagnosed from them) and holds its part (``part_owner``)."""
        now = self.sim.now
        inc = Incident(incident_id, now, now, comps={component}, kinds={"sweep:alarm"})
        inc.nodes, inc.l2 = anchors(Signal(now, "sweep:alarm", component, None, 1, ""), None)
        diagnosis.at_s = now
        inc.diagnoses.append(diagnosis)
        self.detector.incidents.append(inc)
        self.adopted.add(incident_id)
        self.handled[incident_id] = [incident_id]
        # it holds its part as a detector incident's response does (session 36): a later incident on the part
        # (its lane alarms) joins it instead of isolating and ticketing the part a second time
        self.part_owner[component] = (incident_id, incident_id)
        self.key_incident[incident_id] = incident_id
        self.responding[(diagnosis.fault_class, component)] = (incident_id, now)
        self.responder.handle(incident_id, diagnosis)
        return inc

    def _on_stuck(self, job: str, since: float) -> None:
        """The progress watchdog's verdict: open an incident for the job and hand it to the responder."""
        now = self.sim.now
        inc_id = f"w{sum(i.startswith('w') for i in self.adopted) + 1:04d}"
        inc = Incident(inc_id, now, now, kinds={"watchdog:stuck"}, nodes=set(self.placement.get(job, [])))
        d = Diagnosis(WORKLOAD_STUCK, job, 1.0, at_s=now, runbook="rb-workload-stuck", evidence=[
            f"{job}: no training progress for {now - since:.0f} s (stalled or down) and no restart or recovery "
            "under way"])
        inc.diagnoses.append(d)
        self.detector.incidents.append(inc)
        self.adopted.add(inc_id)
        self.handled[inc_id] = [inc_id]
        self.responder.handle(inc_id, d)

    def _diagnose(self, inc: Incident) -> None:
        import time

        if inc.id in self.adopted:
            return
        now = self.sim.now
        t0 = time.perf_counter()
        d = self.diagnoser.diagnose(inc, now, LinkHistory(self.detector, now), self.metric)
        self.diagnosis_ms.append((time.perf_counter() - t0) * 1e3)
        d.at_s = now
        prev = inc.diagnosis
        inc.diagnoses.append(d)
        keys = self.handled.setdefault(inc.id, [])
        classes = self.handled_classes.setdefault(inc.id, [])
        roots = self.handled_roots.setdefault(inc.id, [])
        confs = self.handled_conf.setdefault(inc.id, [])
        bar = getattr(getattr(self.responder, "p", None), "min_confidence", None)
        firmed = (bool(keys) and not self.once and not d.abstained and bar is not None and confs[-1] < bar
                  <= d.confidence and self._ran_no_runbook(keys[-1]))
        # the response so far was a page for want of confidence; now it is firm (a response the same-part rule
        # ran, the class's runbook on a part it was sure of, is not done again)
        firmed = firmed or (self.once and bool(keys) and self._failed_since_response(inc))
        if prev is not None and (prev.fault_class, prev.component) == (d.fault_class, d.component) and not firmed:
            return
        if keys and not firmed and (self.once or d.abstained or (d.fault_class == classes[-1] and
                                                                 (roots[-1] is not None or d.component is None))):
            # a person acts once; a later "unknown" or a refined component does not start a second response,
            # but a diagnosis that now names the root does when the first response had none to act on
            return
        same = (d.fault_class, d.component)
        first = self.responding.get(same)
        if not d.abstained and first is not None and first[0] != inc.id and now - first[1] <= DUPLICATE_WINDOW_S:
            self.duplicates[inc.id] = first[0]  # another incident's response already covers this root cause
            return
        # an abstention on a link may be acted on (the same-part response, auto policy only): it joins the link's
        # open response and holds the link itself, until a diagnosis that names a class takes it over
        on_link = not self.once and d.component is not None and d.component in self.sim.topology.links
        owner = None if d.component is None or (d.abstained and not on_link) else self.open_owner(
            d.component, named=not d.abstained)
        if d.abstained and not on_link:  # reports only from parts a response holds are that response's (session 37)
            owner = self._holder_of_reports(inc)
        if owner is not None and owner != inc.id:
            self.duplicates[inc.id] = owner  # one open incident per part: this one joins it
            return
        if not d.abstained:
            self.responding[same] = (inc.id, now)
        key = inc.id if not keys else f"{inc.id}.{len(keys) + 1}"
        if d.component is not None and (not d.abstained or on_link):
            self.part_owner[d.component] = (inc.id, key)
            if d.abstained:
                self.placeholders.add(key)
        self.key_incident[key] = inc.id
        keys.append(key)
        self.handled_at[inc.id] = now
        classes.append(d.fault_class)
        roots.append(d.component)
        confs.append(d.confidence)
        self.responder.handle(key, LatestDiagnosis(inc) if self.once else d)  # type: ignore[arg-type]

    def _ran_no_runbook(self, key: str) -> bool:
        """Whether the response ``key`` ran no runbook (it paged a person, or there is no record of it)."""
        rec = getattr(self.responder, "records", {}).get(key)
        return rec is None or getattr(rec, "runbook", None) is None

    def _failed_since_response(self, inc: Incident) -> bool:
        """A baseline (acting once per incident) acts again when a job of the incident failed (a crash or
        collective-timeout event the scheduler reports) after its last response ended: the failed job itself
        pages a person, or MindCluster reschedules it, whatever incident its lines were grouped into."""
        last = self.handled[inc.id][-1]
        is_open = getattr(self.responder, "is_open", None)
        if is_open is None or is_open(last):
            return False
        since = self.handled_at[inc.id]
        return any(s.kind in JOB_FAILURES and s.t > since for s in inc.signals)

    def open_owner(self, component: str, named: bool = False) -> str | None:
        """The incident that holds ``component`` or a whole it belongs to (its node, its NPU) while that part's
        response is under way (runbook or background repair) or the part is out of service by our hand (isolated,
        cordoned); None when no incident holds it. For a diagnosis that ``named`` a class, a response to an
        abstention (the same-part drain, which waits for a named class) holds nothing: the named class's runbook
        takes the part over."""
        segs = component.split("/")
        for part in [component] + ["/".join(segs[:k]) for k in range(len(segs) - 1, 1, -1)]:
            owner = self.part_owner.get(part)
            if owner is None or (named and owner[1] in self.placeholders):
                continue
            is_open = getattr(self.responder, "is_open", None)
            held = self.sim.state.health(part) in (Health.ISOLATED, Health.CORDONED)
            if held or (is_open is not None and is_open(owner[1])):
                return owner[0]
            del self.part_owner[part]
        return None

    def rank_device(self, sig: Signal) -> str | None:
        """The device a training rank's line (``[rankN]:`` on the host that printed it) ran on. A training job holds
        whole nodes, its ranks in node order (the rank table lists server by server, device 0 up), so rank N sits on
        its server's NPU N mod the server's NPU count, whichever placement printed it."""
        m = RANK_LINE.search(sig.text) if sig.host else None
        if m is None or not any(w.kind == "training" for w in self.sim.workloads.values()):
            return None
        npus = self.sim.topology.npus_of(sig.host) if sig.host in self.sim.topology.kind else []
        return npus[int(m.group(1)) % len(npus)] if npus else None

    def _holder_of_reports(self, inc: Incident) -> str | None:
        """The one open incident that holds every part ``inc``'s reports come from (the part a report names, a
        rank's device), or a part inside it when our hand took it out of service (an NPU isolated for its HBM): what
        such a part reports is that response's consequence, not a fault of its own. A restart placed before another
        response isolated one of its chips fails on it at its end (507033, device set-up) ~8 min later. None when a
        report names no part, or the parts have no single holder. Job events are consequences and do not count."""
        owners: set[str | None] = set()
        for s in inc.signals:
            if is_job_report(s, self.placement):
                continue
            part = s.component or self.rank_device(s)
            if part is None:
                return None
            owners.add(self.holder_of(part))
        return owners.pop() if len(owners) == 1 else None

    def holder_of(self, part: str) -> str | None:
        """The open incident that holds ``part`` (:meth:`open_owner`), or a part inside it when our hand took it
        out of service (an NPU isolated for its HBM's response)."""
        owner = self.open_owner(part)
        if owner is None and self.sim.state.health(part) in (Health.ISOLATED, Health.CORDONED):
            inside = [p for p in self.part_owner if p.startswith(part + "/")]  # open_owner may drop entries
            owner = next((o for p in inside if (o := self.open_owner(p)) is not None), None)
        return owner

    def _claim(self, key: str, part: str) -> None:
        """Response ``key`` took ``part`` although its diagnosis named another (a sibling dark link, session 41): its
        incident holds the part while the response is open, as for the part a diagnosis names."""
        self.part_owner.setdefault(part, (self.key_incident.get(key, key), key))

    def _handed_over(self, key: str, holder: str) -> None:
        """A response's doomed restart was stopped and its job left to ``holder``'s response: its incident joins."""
        incident = self.key_incident.get(key, key)
        if incident != holder:
            self.duplicates[incident] = holder

    @property
    def incidents(self) -> list[Incident]:
        return self.detector.incidents
