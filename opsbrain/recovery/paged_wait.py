"""A rung that wanted a spare resumes once one comes free: while a later rung waits for its approval (session 41), and
after the ladder has paged a person with the job down for want of a node (session 44, orch44b).

Before session 44 a response that paged a person stopped waiting: a spare of its pod that came back later (a crashed
node rebooted, a repaired one) sat idle in the pool while the job stayed down to the end of the run (orch44's
``benchmarks/refused_scale_in_wait.py``). A gang scheduler keeps such a job pending and places it once a node is free
(Volcano does not end a job pending for resources: MindCluster FAQ "A Job Is Pending Due to Insufficient Resources").
So the response keeps a claim on the next healthy spare of the pod (first come, first served among the responses
waiting for one), or on its own node back in service, journalled as a ``waiting_for_spare`` step under way, until one
comes, the job runs again by another hand, or ``recovery.paged_spare_wait_max_s`` passes. A mixin of
:class:`~opsbrain.recovery.orchestrator.Orchestrator`.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import simpy

from opsbrain.recovery.record import IncidentRecord
from opsbrain.recovery.schema import Step
from opsbrain.recovery.stepper import StepRunner, StepsResult
from opsbrain.recovery.targets import Context

Gen = Generator[simpy.Event, Any, Any]
Ladder = list[tuple[str, list[Step], list[Step]]]


class PagedWait(StepRunner):
    """Resume a rung that wanted a spare (mixed into the orchestrator)."""

    def _resume_with_spare(self, rec: IncidentRecord, ctx: Context, rung: str, reason: str) -> Gen:
        """A warm spare came free while a later rung waited (its scale-in's approval; session 41, scen41) or while the
        paged response's claim held (session 44): the rung whose ``swap_spare`` found none resumes at that step, which
        takes the spare now held (``ctx.spare``)."""
        back, steps, prefix, start = ctx.vars.pop("resume")
        ctx.vars.pop("wants_spare", None)
        rec.log("escalate", rec.runbook or "-", "succeeded", self.sim.now, self.sim.now, kind="escalation",
                rung=back, from_rung=rung, to_rung=back, reason=reason)
        rec.rung = back
        result: StepsResult = yield from self._steps(rec, ctx, steps, back, prefix, start=start)
        return result

    def _pending_after_page(self, rec: IncidentRecord, ctx: Context, ladder: Ladder) -> Gen:
        """After the page: when a rung found no spare and an affected training job is down with a node out of service
        (its ranks cannot be placed), wait for a spare (see the module) and resume that rung with it. The resumed
        rung's result; ``failed`` when there was nothing to wait for or the wait ended without a node."""
        if self.dry_run:
            return StepsResult("failed", "no claim")
        self._note_failed_jobs(rec, ctx)
        want, resume = ctx.vars.get("wants_spare"), ctx.vars.get("resume")
        if want is None or resume is None or ctx.spare is not None:
            return StepsResult("failed", "no claim")
        pod, node = want
        jobs = [name for name, _q in ctx.workloads if self._pending_for_node(ctx, name)]
        if not jobs:
            return StepsResult("failed", "no claim")
        env, bound = self.sim.env, self.p.paged_spare_wait_max_s
        start = env.now
        entry = rec.begin("waiting_for_spare", pod, start, kind="step", rung=resume[0], step="waiting_for_spare",
                          jobs=jobs, replaces=node, until_s=round(start + bound, 3), reason=(
                              f"{', '.join(jobs)} down for want of a node and a person paged: a pending claim on the "
                              f"next healthy spare of {pod} (or {node} back in service) for {node}, to resume "
                              f"{resume[0]}, as a gang scheduler keeps the job pending until a node is free; until "
                              f"t={start + bound:.0f} s (recovery.paged_spare_wait_max_s) or the job runs again"))
        status, why, detail = yield from self._claim(rec, ctx, pod, node, jobs, env.timeout(bound))
        rec.end(entry, status, env.now, waited_s=round(env.now - start, 3), reason=why, **detail)
        if status != "succeeded":
            return StepsResult("failed", why)
        result: StepsResult = yield from self._resume_with_spare(rec, ctx, "human", why)
        if result.status != "failed":
            return result
        back = resume[0]  # the resumed rung (rec.rung)
        k = next(i for i, (r, _s, _rb) in enumerate(ladder) if r == back)
        if ladder[k][2]:
            yield from self._steps(rec, ctx, ladder[k][2], back, "rollback" if k == 0 else
                                   f"escalation[{k - 1}].rollback", kind="rollback")
        rec.log("escalate", rec.runbook or "-", "succeeded", env.now, env.now, kind="escalation", rung="human",
                from_rung=back, to_rung="human", reason=f"{result.reason} (the person paged at the claim's start "
                                                             "has it)")
        return result

    def _note_failed_jobs(self, rec: IncidentRecord, ctx: Context) -> None:
        """At the page: an affected training job not running with every node in service (its restarts failed where
        nothing is missing; no other restart of it under way) is left to the person paged, and the journal says so
        (follow-up ``job_not_restarted``, with the job's state: down, or stalled where its processes hang). No claim is
        held for it: MindCluster retries a job whose processes failed on healthy nodes ``fault-retry-times`` times and
        then "does not handle" the fault (Service Plane Faults,
        hiascend.com/document/detail/en/mindcluster/730/clustersched/schedulingug/dl_resume_020.html); Volcano sets
        the job Failed (FAQ dlug_installation_faq_037), and a free node coming back does not restart it, as it places
        a job pending for nodes (session 45, recov45). The entry says what the controller knows at the page, not how
        the job ends: a stall whose cause heals by itself later (a link back up) runs on (review45; before, the entry
        was ``job_failed``, "left failed", for such a job too)."""
        for name, _q in ctx.workloads:
            w = self.sim.workloads.get(name)
            if (w is None or w.kind != "training" or ctx.workload_runs(name) or self.exec.unplaceable(name, ctx)
                    or self.exec.restart_under_way(name) is not None):
                continue
            state = getattr(w, "state", "")
            rec.follow_up("job_not_restarted", name, self.sim.now, state=state, reason=(
                f"{name} not running ({state or 'state unknown'}) with all its nodes in service after the ladder's "
                "restarts failed: left to the person paged, as MindCluster leaves a job whose fault-retry-times are "
                "spent unhandled (Volcano sets it Failed); no claim on a spare, none is missing"))

    def _job_wakes(self) -> dict[str, list[simpy.Event]]:
        """Claims to wake when a job's scheduler event comes (``started`` / ``resumed``: the job was brought back by
        any hand, a person's too); the job-event subscription is made by the first claim."""
        wakes: dict[str, list[simpy.Event]] | None = self.__dict__.get("_claim_wakes")
        if wakes is None:
            wakes = self.__dict__.setdefault("_claim_wakes", {})

            def on_event(ev: Any) -> None:
                if getattr(ev, "kind", None) in ("started", "resumed"):
                    for e in wakes.pop(getattr(ev, "job", ""), []):
                        if not e.triggered:
                            e.succeed()

            self.sim.telemetry.subscribe(on_event, {"job"})
        return wakes

    def _pending_for_node(self, ctx: Context, name: str) -> bool:
        """A training job that does not run and whose restart could not place its ranks now (a node it would keep
        out of service, no spare taken for it)."""
        w = self.sim.workloads[name]
        return (w.kind == "training" and not ctx.workload_runs(name)
                and bool(self.exec.unplaceable(name, ctx)))

    def _gone(self, jobs: list[str]) -> str:
        """Why the claim is dropped when a job of it left the cluster meanwhile (a day/night switch's hand-back
        detaches a training job, down or not: :func:`faultlib.workloads.switch.detach`; session 44, review44b: the
        claim raised KeyError then); empty while every job is there."""
        gone = [j for j in jobs if j not in self.sim.workloads]
        return f"{', '.join(gone)} no longer in the cluster (handed back): no job to claim a spare for" if gone else ""

    def _claim(self, rec: IncidentRecord, ctx: Context, pod: str, node: str, jobs: list[str],
               deadline: simpy.Event) -> Generator[simpy.Event, Any, tuple[str, str, dict[str, Any]]]:
        """Hold the claim until a spare of ``pod`` is taken for ``node`` (``succeeded``), every job's nodes are in
        service again (``succeeded``: its own node stands for the spare), a job runs again by another hand or another
        response gave ``node`` up (``cancelled``), or ``deadline`` passes (``failed``). Looks again at each health
        change, when another response's restart of a job starts or ends, and when a job starts or resumes by any
        hand."""
        env, st = self.sim.env, self.sim.state
        note = ("a warm spare came free while the paged response's job was pending for a node (session 44): taken "
                "for it")
        while True:
            if gone := self._gone(jobs):
                return "cancelled", gone, {}
            if all(ctx.workload_runs(j) for j in jobs):
                return "cancelled", "the job runs again (another response restarted it): the claim is dropped", {}
            busy = [ev for j in jobs if (ev := self.exec.restart_under_way(j)) is not None]
            if not busy and not any(self.exec.unplaceable(j, ctx) for j in jobs):  # not while another re-places it
                if any(node not in self.sim.workloads[j].nodes for j in jobs):
                    return "cancelled", (f"the job no longer holds {node} (another response's scale-in gave it "
                                         "up): no spare to claim for it"), {}
                ctx.spare = node  # the restart keeps the job's own nodes: the mapping node -> node is dropped
                return "succeeded", (f"{node} back in service, the job's nodes all placeable: "
                                     f"{ctx.vars['resume'][0]} resumes on them"), {"own_node": node}
            if deadline.processed:
                return "failed", (f"no healthy spare of {pod} and {node} not back within "
                                  f"{self.p.paged_spare_wait_max_s:.0f} s (recovery.paged_spare_wait_max_s): the job "
                                  "stays down, the person paged has it"), {}
            changed = env.event()

            def wake(*_: Any, ev: simpy.Event = changed) -> None:
                if not ev.triggered:
                    ev.succeed()

            wakes = self._job_wakes()
            for j in jobs:
                self.exec.on_restart(j, changed)
                wakes.setdefault(j, []).append(changed)
            st.subscribe(wake)
            try:
                spare = yield from self.exec.spare_or(env.any_of([deadline, changed, *busy]), pod, node, ctx, rec,
                                                      note=note)
            finally:
                st.unsubscribe(wake)
                for j in jobs:
                    self.exec.on_restart(j, changed, add=False)
                    if changed in wakes.get(j, []):
                        wakes[j].remove(changed)
            gone = self._gone(jobs)
            if spare is not None and (gone or all(ctx.workload_runs(j) for j in jobs)):
                ctx.spare = None  # the job came back by another hand in the same instant: the spare is not needed
                self.exec.taken.pop(node, None)
                self.exec.return_spare(spare, rec, how="claimed for a job that runs again" if not gone else
                                       "claimed for a job no longer in the cluster")
                return "cancelled", gone or ("the job runs again (another hand brought it back): the claim is "
                                             "dropped"), {}
            if gone:
                return "cancelled", gone, {}
            if spare is not None:
                return "succeeded", (f"a warm spare of {pod} came free ({spare}): taken for {node}; "
                                     f"{ctx.vars['resume'][0]} resumes"), {"spare": spare}
