"""Event-triggered faults and starting states: what a scenario sets up in the world beyond a fixed-time timeline.

A triggered fault (scenario ``at: {event: checkpoint_write_start, after_s: 5}``) waits for its event in the twin's
event trace (ground truth: the injector may read it, diagnosis never does) and is injected ``after_s`` later.
Trace events per trigger:

- ``checkpoint_write_start``: ``job_checkpoint_start`` (a persistent checkpoint write begins);
- ``checkpoint_write_end``: ``job_checkpoint`` (the write completed);
- ``recovery_start``: ``job`` entering ``restarting`` or ``recovering`` (a restart or in-place recovery began);
- ``job_stalled`` / ``job_down``: ``job`` entering that state;
- ``fault_start``: ``fault`` of the fault with index ``fault`` (itself scripted or triggered).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from faultlib.health import Health
from faultlib.trace import TraceEvent
from opsbrain.scenario.plan import Plan, TriggeredFault

if TYPE_CHECKING:
    from faultlib.engine import Simulation
    from faultlib.injection.spec import FaultSpec

_JOB_STATES = {"recovery_start": ("restarting", "recovering"), "job_stalled": ("stalled",), "job_down": ("down",)}
_CKPT = {"checkpoint_write_start": "job_checkpoint_start", "checkpoint_write_end": "job_checkpoint"}


def matches(tf: TriggeredFault, ev: TraceEvent, fault_ids: dict[str, int]) -> bool:
    """Whether trace event ``ev`` is an occurrence of ``tf``'s trigger event."""
    t = tf.trigger
    if t.event == "fault_start":
        return ev.kind == "fault" and fault_ids.get(str(ev.detail.get("id"))) == t.fault
    if t.workload is not None and ev.subject != t.workload:
        return False
    if t.event in _CKPT:
        return ev.kind == _CKPT[t.event]
    return ev.kind == "job" and ev.detail.get("state") in _JOB_STATES[t.event]


class Triggers:
    """Injects the plan's event-triggered faults when their events occur; records each fault's scenario index."""

    def __init__(self, sim: Simulation, plan: Plan, on_inject: Callable[[FaultSpec], None] | None = None) -> None:
        self.sim = sim
        self.pending: list[TriggeredFault | None] = list(plan.triggered)
        self.seen = [0] * len(self.pending)
        self.fault_index: dict[str, int] = {}
        """Injected fault id -> its index in the scenario's ``faults`` (scripted faults only)."""
        self.fired: list[dict[str, Any]] = []
        self._on_inject = on_inject
        if self.pending:
            sim.trace.subscribe(self._on_event)

    def inject(self, spec: FaultSpec, index: int | None) -> None:
        truth = self.sim.inject(spec)
        if index is not None:
            self.fault_index[truth.id] = index

    def _on_event(self, ev: TraceEvent) -> None:
        for k, tf in enumerate(self.pending):
            if tf is None or not matches(tf, ev, self.fault_index):
                continue
            self.seen[k] += 1
            if self.seen[k] < tf.trigger.occurrence:
                continue
            self.pending[k] = None
            at = ev.t + tf.trigger.after_s
            spec = replace(tf.spec, at_s=at)
            self.fired.append({"fault": tf.index, "event": tf.trigger.event, "event_at_s": ev.t, "at_s": at,
                               "target": spec.target})
            if self._on_inject is not None:
                self._on_inject(spec)
            self.inject(spec, tf.index)

    def report(self) -> list[dict[str, Any]]:
        """Each trigger: fired (when, on which event occurrence) or not (its event never came, or came fewer times
        than its ``occurrence``: ``seen``), the fault it holds and the trigger in the scenario's words."""
        out = list(self.fired)
        out += [{"fault": tf.index, "event": tf.trigger.event, "fired": False, "seen": n, "kind": tf.spec.kind,
                 "target": tf.spec.target, "occurrence": tf.trigger.occurrence,
                 "trigger": trigger_words(tf.trigger.model_dump())}
                for tf, n in zip(self.pending, self.seen, strict=True) if tf is not None]
        return sorted(out, key=lambda d: d["fault"])


def trigger_words(at: Mapping[str, Any]) -> str:
    """An event trigger as the scenario wrote it: ``job_down of train (occurrence 50) +0s``."""
    of = at.get("workload") if at.get("workload") is not None else (
        f"faults[{at['fault']}]" if at.get("fault") is not None else None)
    nth = f" (occurrence {at['occurrence']})" if at.get("occurrence", 1) != 1 else ""
    return f"{at['event']}{' of ' + str(of) if of else ''}{nth} +{at.get('after_s', 0):g}s"


def never_fired(report: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The triggers of :meth:`Triggers.report` that never fired: their faults were never injected."""
    return [{k: v for k, v in t.items() if k != "fired"} for t in report if t.get("fired") is False]


def not_reached(plan: Plan, end: float, fired: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """The plan's timed faults (scripted or drawn) due after the run's end ``end``: a run that ended early (a guard,
    Ctrl-C, SIGTERM) never injected them. Session 44 (newuser44): they were in no count and said nowhere ("1
    fault" for a scenario of two). ``fired``: :meth:`Triggers.report`; a triggered fault whose trigger fired but
    whose start (the event's time + ``after_s``) fell after ``end`` is one too, whether or not the run ended early
    (review44)."""
    from opsbrain.scenario.plan import origin_index

    out = [{"fault": origin_index(s), "kind": s.kind, "target": s.target, "at_s": float(s.at_s), "source": s.source}
           for s in plan.timeline if s.at_s > end]
    held = {tf.index: tf.spec for tf in plan.triggered}
    out += [{"fault": t["fault"], "kind": spec.kind, "target": t.get("target", spec.target), "at_s": float(t["at_s"]),
             "source": spec.source}
            for t in fired or [] if t.get("fired") is not False and t.get("at_s") is not None and t["at_s"] > end
            and (spec := held.get(t["fault"])) is not None]
    return sorted(out, key=lambda f: f["at_s"])


def apply_initial_state(sim: Simulation, plan: Plan) -> None:
    """Put the plan's components into their starting states at time 0: Rx power first (read from the module's
    own baseline while it is lit), then health and lanes lost."""
    dom = sim.dom
    for c in plan.initial_state:
        if "rx_dbm" not in c:
            continue
        cid = c["id"]
        for m in dom.modules_of(cid) if cid in sim.topology.links else (cid,):
            rx = dom.read_module(m, 0.0, noise=False)["rx_dbm"]
            for lane, value in enumerate(rx):
                dom.set_offset(m, float(c["rx_dbm"]) - float(value), start_t=0.0, lanes=[lane])
    for c in plan.initial_state:
        if "health" in c:
            sim.state.set_health(c["id"], Health(c["health"]), cause="initial_state")
        if "lanes_down" in c:
            sim.state.set_lanes_down(c["id"], int(c["lanes_down"]), cause="initial_state")
