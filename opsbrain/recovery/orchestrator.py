"""The recovery orchestrator: pick a runbook for a diagnosis and run it through the plant's control API.

``Orchestrator.handle(incident_id, diagnosis)`` returns a simpy process that runs the runbook's ladder: the entry
rung's steps, then (on a failed step) its rollback and the next escalation rung, and after the last rung a page to
a human. Each step is guarded (conditions, guardrails, approvals), retried on failure with a back-off, and logged
in the incident's action log (:mod:`opsbrain.recovery.record`) as it starts and ends, so the log is complete at any
moment. With ``dry_run=True`` nothing touches the plant: every step is logged as planned (``skipped``).

What the orchestrator may read: the diagnosis, the topology, visible component health, the workloads' placement
(``sim.workloads``) and the spare pool (``sim.control.spares``). It never reads ``sim.faults`` nor the trace.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Any

import simpy

from faultlib import ids
from faultlib.health import UP, Health
from faultlib.workloads.training import TrainingJob
from opsbrain.diagnosis.localize import RULES as LOCALIZATION_RULES
from opsbrain.ingest.history import LinkRecords
from opsbrain.policies import POLICIES, Policy
from opsbrain.recovery.actions import Executor
from opsbrain.recovery.guardrails import Guardrails
from opsbrain.recovery.linkcover import LinkCover
from opsbrain.recovery.loader import RunbookSet, load_runbooks
from opsbrain.recovery.manual import ManualPolicy
from opsbrain.recovery.paged_wait import PagedWait
from opsbrain.recovery.params import ManualParams, RecoveryParams, VendorParams
from opsbrain.recovery.record import IncidentRecord
from opsbrain.recovery.scaleout import ScaleOut
from opsbrain.recovery.schema import LINK_FAULT, UNKNOWN_CLASS, WORKLOAD_STUCK, Runbook
from opsbrain.recovery.stepper import ACTING_KINDS, WATCH_ACTIONS, StepsResult
from opsbrain.recovery.targets import COMPUTE_KINDS, Context, conditions_hold
from opsbrain.recovery.vendor import VendorDefaultPolicy
from opsbrain.verdict import Diagnosis

if TYPE_CHECKING:
    from faultlib.engine import Simulation

Gen = Generator[simpy.Event, Any, Any]
BASELINES = POLICIES[1:]
"""The policies that act once per incident on the diagnosis as it stands (no runbook ladder, no watchdog)."""
_STEP_GAP_S = 1.0
"""Margin over the retry back-off in :meth:`Orchestrator.busy_with`: a runbook starts its next step at once (same
simulated instant) after the last one ends, so 1 s covers the gap between steps with room to spare."""


LINK_CLASSES = frozenset(c for c, rule in LOCALIZATION_RULES.items() if rule == "link")
"""Classes localized to a link (the diagnosis' own localization table); their runbooks all begin by taking that
link out of traffic (re-route, drain or isolate: reversible, no capacity a job needs)."""


def same_part_confidence(diag: Diagnosis) -> float:
    """How sure the diagnosis is of the part rather than the cause. When its class, or for an abstention its best
    guess, is a link class: the summed probability of every link class it ranks (the component is the same link
    whatever the cause, and every link runbook first takes it out of traffic, so uncertainty between them need not
    wait for a person). Otherwise its own confidence, and 0 for an abstention."""
    ranking = list(diag.alternatives) if diag.abstained else [(diag.fault_class, diag.confidence),
                                                             *diag.alternatives]
    if not ranking or ranking[0][0] not in LINK_CLASSES:
        return 0.0 if diag.abstained else diag.confidence
    probs: dict[str, float] = {}
    for c, p in ranking:
        probs.setdefault(c, p)  # a class listed twice (a vote's leader among the model's ranking) counts once
    return sum(p for c, p in probs.items() if c in LINK_CLASSES)


class Orchestrator(PagedWait, LinkCover):
    """Runs runbooks for diagnosed incidents (``policy="auto"``) or a baseline: the status-quo model
    (``"manual"``) or MindCluster's default handling (``"vendor-default"``)."""

    def __init__(self, sim: Simulation, runbooks: RunbookSet | None = None, guardrails: Guardrails | None = None,
                 policy: Policy = "auto", dry_run: bool = False,
                 params: RecoveryParams | None = None, manual_params: ManualParams | None = None,
                 vendor_params: VendorParams | None = None) -> None:
        if policy not in POLICIES:
            raise ValueError(f"policy must be one of {', '.join(POLICIES)}, got {policy!r}")
        self.sim = sim
        self.runbooks = runbooks if runbooks is not None else load_runbooks()
        self.guardrails = guardrails or Guardrails(params)
        self.p = params or self.guardrails.p
        self.policy = policy
        self.dry_run = dry_run
        self.records: dict[str, IncidentRecord] = {}
        self._open: list[IncidentRecord] = []  # see _unfinished
        self._scanned = 0
        self._taken_out: dict[str, IncidentRecord] = {}  # nodes a response took out of service, until they return
        self._contexts: dict[str, Context] = {}  # the target context of each response under way
        if policy == "auto" and not dry_run:
            sim.state.subscribe(self._on_plant_change)
        self.exec = Executor(sim, self.p.training_scale_in_max_share, self.p.step_timeout_s,
                             self.p.restart_pending_max_s)
        self.scale_out = ScaleOut(self)
        if policy == "auto" and not dry_run:
            self.exec.on_returned = lambda _node: self.scale_out.try_all()
        self.link_records: Callable[[], LinkRecords] | None = None
        """The operator's link records now (the controller sets them from its detector)."""
        self.incident_of: Callable[[str], str] | None = None
        """The incident a response key belongs to (the controller sets it: a later diagnosis of one incident gets
        a response of its own); None = every response is an incident of its own."""
        self.holder_of: Callable[[str], str | None] | None = None
        """The open incident whose response holds a part (the controller sets it); None = none known."""
        self.claim: Callable[[str, str], None] | None = None
        """Told (response key, part) when a response takes a part its diagnosis did not name (a sibling dark link,
        session 41): the controller makes the response's incident hold it."""
        self._siblings: dict[str, list[simpy.Process]] = {}  # response -> its runs on sibling dark links
        self._followups: dict[str, int] = {}  # response -> its follow-ups under way
        self.handed_over: Callable[[str, str], None] | None = None
        """Told (response key, holder incident) when a doomed restart of the response is stopped and its job's
        recovery left to the holder's response (the controller joins the incident to the holder's)."""
        self._manual: ManualPolicy | None = (
            ManualPolicy(sim, manual_params, self.records) if policy == "manual" else
            VendorDefaultPolicy(sim, vendor_params, self.records) if policy == "vendor-default" else None)
        self.scope: Any = None
        """Tenant scope guard (:class:`opsbrain.ops.tenants.TenantGuard`); None = one tenant, no scope check."""

    # ---- public API ----------------------------------------------------------------------------------------
    def handle(self, incident_id: str, diagnosis: Diagnosis) -> simpy.Process:
        """Respond to one diagnosed incident; the process's value is the incident dict (:meth:`incident`)."""
        if incident_id in self.records:
            raise ValueError(f"incident {incident_id!r} is already being handled")
        if self._manual is not None:
            return self._manual.handle(incident_id, diagnosis)
        rec = IncidentRecord(incident_id, self.policy, self.dry_run, self.sim.now, diagnosis.as_dict())
        self.records[incident_id] = rec
        if self.scope is not None:  # tenant scope: the incident's tenant, before any step
            rec.extra["tenant"] = self.scope.incident_tenant(incident_id, diagnosis)
        return self.sim.env.process(self._run(rec, diagnosis))

    def is_open(self, incident_id: str) -> bool:
        """Whether the response is under way: its runbook, or the background repair after it (a replacement)."""
        rec = self.records.get(incident_id)
        return rec is not None and (rec.finished_at_s is None or rec.extra.get("followup_running", False))

    def actions_for(self, incident_id: str) -> list[dict[str, Any]]:
        """The incident's action log (complete at any moment; actions under way end now, ``in_flight``); none for an
        incident whose response never began (a stop that landed between the controller's hand-over and
        :meth:`handle`: the partial run's journal is still written)."""
        rec = self.records.get(incident_id)
        return rec.actions_view(self.sim.now) if rec is not None else []

    def _on_plant_change(self, component: str, old: str, new: str) -> None:
        """A node a response took out of service (the node, or one of its chips) is back (repaired, rebooted,
        replaced, reset: the host and every chip up) and runs no workload: it rejoins the warm-spare pool, whether
        or not the response's own follow-up got that far (a reboot or chip reset that outlasted its step timeout
        still completes)."""
        if new != Health.HEALTHY:
            if self.exec.restart_owner:
                self._stop_doomed(component, new)
            return
        back = component if component in self.sim.control.spares else ids.node_of(component)
        if back is not None and back in self.sim.control.spares and self._node_back(back):
            # a pool node's chip back in service: it is schedulable again (session 39), first for a response waiting
            # for a spare of its pod (its job is down), else for a scaled-in job's scale-out
            if self.exec.offer_schedulable(back):
                # the waiter's now: a response that took it out (its chip isolated) must not return it to the pool
                self._taken_out.pop(back, None)  # below as well (review40: the node was in the pool and the job)
                return
            if self.scale_out.scaled_in:
                self.scale_out.try_all()
        if not self._taken_out:
            return
        node = component if component in self._taken_out else ids.node_of(component)
        rec = self._taken_out.get(node) if node is not None else None
        if rec is None or node is None or not self._node_back(node):
            return
        component = node
        c = self.sim.control
        if component in c.spares or any(component in w.nodes for w in self.sim.workloads.values()):
            del self._taken_out[component]
            return
        del self._taken_out[component]
        self.exec.return_spare(component, rec, how="back in service")  # a response waiting for a spare takes it

    def _stop_doomed(self, component: str, new: str) -> None:
        """Stop a restart of ours that can no longer succeed (session 38): a job node it places ranks on went down, or a
        compute part of one failed or was isolated (session 39; before, only isolated), by another response or a fault.
        Before, the restart ran to its end (~8 min for a job restart) and failed there (507033, device set-up failed).
        It ends ``cancelled`` with its reason; when another incident's response holds the part, the job's recovery is
        that response's (its restart or scale-in, waiting for this one, starts at once): the stopped call is not retried
        and the incident joins the holder's. Without a holder the call fails and is retried as any failed call (a
        retried restart waits while a node it needs is out of service). A scale-out (session 39) is stopped the same
        way; it is not retried (the job is down: the response to the fault that doomed it restarts it)."""
        kind = self.sim.topology.kind.get(component)
        node: str | None
        if kind == "node":
            node, doomed = component, new not in UP  # a host down (failed, rebooting, isolated)
        elif kind in COMPUTE_KINDS:
            # a chip failed or isolated (session 39: before, only isolated; a failed chip dooms the restart as surely,
            # the job's ranks cannot run there, and its device plugin reports it unhealthy, which MindCluster
            # reschedules on). A chip being reset is not: a reset (~1-2 min) can end before the restart does
            node, doomed = ids.node_of(component), new in (Health.FAILED, Health.ISOLATED)
        else:
            return
        if not doomed or node is None:
            return
        for job, rec in list(self.exec.restart_owner.items()):
            w = self.sim.workloads.get(job)
            if w is None or node not in w.nodes:
                continue
            holder = self.holder_of(component) if self.holder_of is not None else None
            own = self.incident_of(rec.id) if self.incident_of is not None else rec.id
            if holder == own:
                continue  # the response's own incident took the part: not another response's to carry on
            by = f"by {holder}'s response" if holder is not None else "(no response holds it yet)"
            why = (f"{component} {'down' if kind == 'node' and new != Health.ISOLATED else str(new)} {by}: the "
                   f"restart of {job} places ranks there and cannot succeed")
            cause: dict[str, Any] = {"reason": why, "doomed_by": component}
            if holder is not None:
                cause["handed_to"] = holder
            # a scale-out (session 39) is stopped alike, but its incident (the one that scaled the job in, its
            # fault recovered then) is not joined to the holder's: its entry alone names ``handed_to``
            follow_up = self.exec.restart_action.get(job) == "scale_out"
            if self.sim.control.stop(job, cause) and holder is not None and not follow_up:
                rec.extra["handed_to"] = holder
                if self.handed_over is not None:
                    self.handed_over(rec.id, holder)

    def _node_back(self, node: str) -> bool:
        """The host and every chip of the node are in service (what the device plugins report)."""
        st, topo = self.sim.state, self.sim.topology
        return st.is_up(node) and all(st.is_up(c) for c in topo.descendants(node)
                                      if topo.kind.get(c) in ("npu", "die", "hbm", "l1"))

    def _unfinished(self) -> list[IncidentRecord]:
        """The records not finished yet (kept incrementally: a year-long replay holds thousands of records)."""
        if len(self.records) != self._scanned:
            self._open += list(self.records.values())[self._scanned:]
            self._scanned = len(self.records)
        self._open = [r for r in self._open if r.finished_at_s is None]
        return self._open

    def busy_with(self, workload: str) -> bool:
        """Whether a response is acting on ``workload`` now: an unfinished incident that affects it has a
        non-watching action under way, or ended one within a retry back-off (the gap before its next step)."""
        now = self.sim.now
        for rec in self._unfinished():
            mine = rec.extra.get("affected_workloads", [])
            if not any(w == workload or w.startswith(workload + "/") for w in mine):
                continue
            acting = next((a for a in reversed(rec.actions) if a["kind"] in ACTING_KINDS
                           and a["action"] not in WATCH_ACTIONS
                           and (a["end_s"] is None or a["status"] != "skipped")), None)  # under way or done
            if acting is not None and (acting["end_s"] is None
                                       or now - acting["end_s"] <= self.p.retry_backoff_s + _STEP_GAP_S):
                return True
        return False

    def incident(self, incident_id: str) -> dict[str, Any]:
        """Runbook, outcome, rung reached, human steps, actions and follow-ups of one incident; for one whose response
        never began (see :meth:`actions_for`), only that (``started`` false, no action, no human step)."""
        rec = self.records.get(incident_id)
        if rec is None:
            return {"id": incident_id, "started": False, "actions": [], "human_steps": 0, "follow_ups": []}
        return rec.as_dict(self.sim.now)

    def follow_ups(self, incident_id: str | None = None) -> list[dict[str, Any]]:
        recs = [self.records[incident_id]] if incident_id else list(self.records.values())
        return [{**f, "incident": r.id} for r in recs for f in r.follow_ups]

    def report(self) -> dict[str, Any]:
        """Run-level follow-ups: spares left, parts still isolated, open tickets, guardrail state."""
        now, st = self.sim.now, self.sim.state
        fups = self.follow_ups()
        isolated = sorted({f["component"] for f in fups if f["type"] == "isolated"
                           and st.health(f["component"]) in (Health.ISOLATED, Health.CORDONED)})
        recs = list(self.records.values())
        return {"policy": self.policy, "dry_run": self.dry_run, "incidents": len(recs),
                "handled_without_human": sum(r.human_steps == 0 for r in recs),
                "human_steps": sum(r.human_steps for r in recs),
                "outcomes": {o: sum(r.outcome == o for r in recs) for o in sorted({r.outcome for r in recs})},
                "spares_left": list(self.sim.control.spares), "isolated": isolated,
                "open_tickets": [f for f in fups if f["type"] == "ticket" and f.get("closed_at_s") is None],
                "spares_exhausted": [f for f in fups if f["type"] == "spares_exhausted"],
                "breaker": self.guardrails.breaker_state(self.sim, now),
                "guardrail_refusals": list(self.guardrails.refusals),
                "job_launch": self.job_launch()}

    def job_launch(self) -> dict[str, dict[str, float]]:
        """Each training job's launch settings of the kind the auto policy sets (``job_launch_overrides``), as the
        job was launched: a value the scenario sets for the job wins over the policy's, and the other policies keep
        the job's own (before session 35 this was the auto policy's defaults, whatever the jobs ran with)."""
        keys = self.p.job_launch_overrides()
        return {name: {k: getattr(w.p, k) for k in keys} for name, w in sorted(self.sim.workloads.items())
                if isinstance(w, TrainingJob)}

    # ---- the response ---------------------------------------------------------------------------------------
    def _run(self, rec: IncidentRecord, diag: Diagnosis) -> Gen:
        try:
            yield from self._respond(rec, diag)
            siblings = self._siblings.pop(rec.id, [])
            if siblings:  # the response ends once each sibling dark link's run has (session 41)
                yield self.sim.env.all_of(siblings)
        except Exception as exc:  # the journal must stay complete whatever goes wrong
            rec.outcome = "error"
            rec.log("orchestrator", rec.id, "failed", self.sim.now, self.sim.now, kind="error",
                    reason=f"{type(exc).__name__}: {exc}")
        self._give_back_unused_spare(rec)
        rec.finished_at_s = self.sim.now
        if self.scale_out.scaled_in and not self.dry_run:
            self.scale_out.try_all()  # a job this response was busy with may scale back out now
        return rec.as_dict(self.sim.now)

    def _give_back_unused_spare(self, rec: IncidentRecord) -> None:
        """A spare the response took but no workload runs on when it ends (its restart failed, the ladder went on
        to a person) goes back to the pool, where the next response (or one waiting for a spare) takes it."""
        ctx = self._contexts.pop(rec.id, None)
        if ctx is not None and not self.dry_run and self.exec.give_back_left_behind(ctx, rec):
            return  # a group moved to another pod (session 45), whose move another response holds still (review45)
        spare = ctx.spare if ctx is not None else None
        if ctx is None or spare is None or self.dry_run or spare in self.sim.control.spares:
            return
        if any(spare in w.nodes for w in self.sim.workloads.values()) or not ctx.node_healthy(spare):
            return
        if ctx.vars.get("spare_given_up") == spare and any(
                a["action"] == "scale_instance" and a["status"] == "succeeded" for a in rec.actions):
            # the scale-in gave up the slot this spare stood in for because the job's restarts onto it failed: put
            # back into the pool, the scale-out took it into the same job at once (a scale-in, then at once a
            # scale-out onto the node the restarts had just failed on; session 44). It is inspected first, as a
            # spare that fails its self-check is, and rejoins the pool repaired
            self.exec.send_to_repair(spare, rec, "the job's restarts onto this spare failed; the scale-in gave up "
                                     "its slot", step="spare_restarts_failed",
                                     how="inspected and repaired after the job's restarts onto it failed")
            return
        self.exec.return_spare(spare, rec, how="taken but not used by the response")

    def _respond(self, rec: IncidentRecord, diag: Diagnosis) -> Gen:
        stuck = diag.fault_class == WORKLOAD_STUCK  # the progress watchdog names a workload, not a part
        ctx = Context(self.sim, None if stuck else diag.component)
        self._contexts[rec.id] = ctx
        if stuck and diag.component in self.sim.workloads:
            ctx.workloads = [(diag.component, None)]
        ctx.vars["rng"] = self.sim.rng(f"recovery/{rec.id}")
        ctx.link_downs = self._link_downs
        rec.extra["affected_workloads"] = [q or n for n, q in ctx.workloads]
        if stuck:
            found = self.runbooks.for_class(WORKLOAD_STUCK)
            rb, why = (found[0], "") if found and ctx.workloads else (None, "no runbook or workload for a stuck job")
        else:
            rb, why = self._choose(rec, diag, ctx)
        if rb is None:
            yield from self._to_human(rec, ctx, why)
            return
        rec.runbook = rb.id
        self._siblings[rec.id] = self.start_siblings(rec, ctx, rb, LINK_CLASSES | {LINK_FAULT})
        ladder = rb.ladder()
        result = StepsResult("failed")
        k = 0
        while k < len(ladder):
            rung, steps, rollback = ladder[k]
            if k > 0:
                rec.log("escalate", rb.id, "succeeded", self.sim.now, self.sim.now, kind="escalation", rung=rung,
                        from_rung=rec.rung, to_rung=rung, reason=result.reason)  # a resumed rung's own (review41b)
            rec.rung = rung
            result = yield from self._steps(rec, ctx, steps, rung, "steps" if k == 0 else f"escalation[{k - 1}].steps")
            if result.status == "spare":
                # the ladder goes on from the resumed rung (session 42): when it fails, its rollback runs and the next
                # rung is tried, the scale-in whose approval the spare cut short among them. Before, the ladder went
                # on after the scale-in, which was never tried (an AI Core hang's job stayed down, a person paged)
                back = ctx.vars["resume"][0]
                k = next((i for i, (r, _s, _rb) in enumerate(ladder) if r == back), k)
                rollback = ladder[k][2]
                result = yield from self._resume_with_spare(rec, ctx, rung, result.reason)
            if result.status in ("ok", "held", "stopped"):
                break
            if rollback:
                yield from self._steps(rec, ctx, rollback, rec.rung, "rollback" if k == 0 else
                                       f"escalation[{k - 1}].rollback", kind="rollback")
            k += 1
        if result.status == "held":
            rec.outcome = "held_by_guardrail"
            rec.page(diag.component, self.sim.now, result.reason)
            return
        if result.status == "failed":
            rec.log("escalate", rb.id, "succeeded", self.sim.now, self.sim.now, kind="escalation", rung="human",
                    from_rung=rec.rung, to_rung="human", reason=result.reason)
            rec.outcome = "escalated_to_human"
            rec.page(diag.component, self.sim.now, f"recovery ladder exhausted: {result.reason}")
            result = yield from self._pending_after_page(rec, ctx, ladder)  # its job down: a claim on a spare
            if result.status != "ok":
                return
        acted = [a for a in rec.actions if a["kind"] in ("step", "retry") and a["status"] != "skipped"]
        if self.dry_run:
            rec.outcome = "planned"
        elif result.status == "stopped":
            rec.outcome = "stopped"
        elif all(a["action"] in WATCH_ACTIONS for a in acted):
            rec.outcome = "no_action"
        else:
            rec.outcome = "completed"
        if not self.dry_run and result.status == "ok":
            yield from self.take_over_if_dark(rec, ctx, rb)  # a link still dark: rb-link-down (session 41)
        if rb.followup and not self.dry_run and result.status == "ok" and rec.rung != "wait_for_repair":
            self.sim.env.process(self._followup(rec, ctx, rb))  # after wait_for_repair the repair is done

    def _link_downs(self, link: str) -> int:
        """A link's downs in 24 h: the operator's link records, and at least the incidents opened on it (each
        began with the link going down)."""
        seen = self.link_records().flaps(link) if self.link_records is not None else 0
        return max(seen, self.guardrails.count(link, self.sim.now, within_s=self.p.repeat_window_s))

    def _choose(self, rec: IncidentRecord, diag: Diagnosis, ctx: Context) -> tuple[Runbook | None, str]:
        """The runbook for this diagnosis after the confidence, lemon and repeat rules; or why there is none."""
        now = self.sim.now
        cls = diag.fault_class
        if diag.component is None:
            return None, "the diagnosis abstained (unknown class or no component)"
        if diag.abstained or diag.confidence < self.p.min_confidence:
            on_link = diag.component in self.sim.topology.links  # an abstention placed on a device is no link's
            part = same_part_confidence(diag) if on_link or not diag.abstained else 0.0
            if part < self.p.min_confidence:
                return None, ("the diagnosis abstained (unknown class or no component)" if diag.abstained else
                              f"confidence {diag.confidence:.2f} < {self.p.min_confidence:.2f}")
            self._note_same_part(rec, diag, part)
            cls = LINK_FAULT if diag.abstained else cls
        if not self.dry_run:  # one incident counts once, under the class its latest response acted on
            incident = self.incident_of(rec.id) if self.incident_of is not None else rec.id
            self.guardrails.note_incident(diag.component, cls, now, incident)
        seen = self.guardrails.count(diag.component, now) + (1 if self.dry_run else 0)
        if seen >= self.p.lemon_incidents:
            reason = (f"{seen} incidents on {self.guardrails.component_key(diag.component)} within "
                      f"{self.p.repeat_window_s:.0f} s >= {self.p.lemon_incidents}: automation is not fixing it")
            rec.log("guardrail", diag.component, "skipped", now, now, kind="guardrail", rule="lemon", reason=reason)
            return None, reason
        rb = self.runbooks.get(diag.runbook) if diag.runbook else None
        if rb is not None and cls not in rb.applies_to:
            rb = None
        if rb is None:
            for cand in self.runbooks.for_class(cls):
                ok, _why = conditions_hold(cand.when, ctx)
                if ok:
                    rb = cand
                    break
        if rb is None:
            return None, f"no runbook applies to {cls!r}"
        if rb.repeat is not None:
            within = rb.repeat.within_s or self.p.repeat_window_s
            same = LINK_CLASSES | {LINK_FAULT} if cls == LINK_FAULT else cls  # a link whose cause is unsettled:
            n = self.guardrails.count(diag.component, now, same, within) + (1 if self.dry_run else 0)  # its downs
            nxt = self.runbooks.get(rb.repeat.then)
            if n >= rb.repeat.count and nxt is not None:
                rec.log("guardrail", diag.component, "succeeded", now, now, kind="guardrail", rule="repeat",
                        reason=f"{n} x {cls} on {self.guardrails.component_key(diag.component)} within "
                               f"{within:.0f} s >= {rb.repeat.count}: {rb.id} -> {nxt.id} ({rb.repeat.source})")
                rb = nxt
        return rb, ""

    def _note_same_part(self, rec: IncidentRecord, diag: Diagnosis, part: float) -> None:
        """Say in the action log why a diagnosis below the bar is acted on: the link classes agree on the part."""
        now, bar = self.sim.now, self.p.min_confidence
        best, conf = (diag.alternatives or [(diag.fault_class, diag.confidence)])[0] if diag.abstained else (
            diag.fault_class, diag.confidence)
        said = f"the diagnosis abstained (best guess {best} at {conf:.3f})" if diag.abstained else (
            f"{best} at {conf:.3f} < {bar:.2f}")
        then = ("take the link out of traffic until a diagnosis names the cause" if diag.abstained else
                f"run the runbook of {best}")
        rec.log("same_part", diag.component or "-", "succeeded", now, now, kind="guardrail", rule="same_part",
                reason=f"{said}, but the link classes it ranks on {diag.component} sum to {part:.2f} >= {bar:.2f}: "
                       f"the part is known, the cause is not; {then}", link_classes=round(part, 4))

    def _to_human(self, rec: IncidentRecord, ctx: Context, reason: str) -> Gen:
        """No automated runbook: run the ``unknown`` runbook's steps (page, ticket) and hand over."""
        rec.outcome = "escalated_to_human"
        rec.human_steps += 1
        fallback = next(iter(self.runbooks.for_class(UNKNOWN_CLASS)), None)
        rec.log("escalate", rec.id, "succeeded", self.sim.now, self.sim.now, kind="escalation", rung="human",
                to_rung="human", reason=reason)
        if fallback is not None:
            rec.runbook = fallback.id
            yield from self._steps(rec, ctx, list(fallback.steps), "human", "steps")
        rec.follow_up("page", ctx.component, self.sim.now, reason=reason)

    def _followup(self, rec: IncidentRecord, ctx: Context, rb: Runbook) -> Gen:
        """Background repairs after the incident is handled; a failure ends the chain (the ticket stays open)."""
        rec.extra["followup_running"] = True
        self._followups[rec.id] = self._followups.get(rec.id, 0) + 1  # a dead link's beside the runbook's (session 41)
        try:
            res = yield from self._steps(rec, ctx, list(rb.followup), "followup", "followup", kind="followup")
        finally:
            self._followups[rec.id] -= 1
            rec.extra["followup_running"] = self._followups[rec.id] > 0
        rec.extra["followup_status"] = res.status
