"""Warm-spare actions of the executor: take a spare (``swap_spare``, or one returning during a repair with
``take_returning_spare``), give one back (``add_spare``), and put repaired or unused nodes back into the pool, where
a response waiting for one takes it first."""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any

import simpy

from faultlib import ids
from faultlib.control import ActionResult
from faultlib.health import Health
from opsbrain.recovery.action_base import SpareWaiter
from opsbrain.recovery.record import IncidentRecord
from opsbrain.recovery.superpod_move import SuperPodMove
from opsbrain.recovery.targets import Context, devices_out, pod_pool


class SpareActions(SuperPodMove):
    """Take, return and wait for warm spares (mixed into :class:`~opsbrain.recovery.actions.Executor`)."""

    # ---- taking and giving back spares ----------------------------------------------------------------------
    def _swap_spare(self, node: str, ctx: Context, rec: IncidentRecord) -> simpy.Process:
        """Take the first healthy warm spare of the node's pod (self-check may fail: try again); a spare this
        incident already took (an earlier rung) is used again rather than a second one."""
        c, st, now = self.sim.control, self.sim.state, self.sim.now
        pod = ids.pod_of(node)
        if ctx.spare is not None and st.health(ctx.spare) == Health.HEALTHY:  # a later rung: the spare already taken
            return self._instant("swap_spare", node, "succeeded", spare=ctx.spare, reused=True)
        while True:
            cands = [n for n in c.spares if ids.pod_of(n) == pod and not devices_out(self.sim, n)]  # schedulable
            if not cands:
                moved = self.move_group(node, ctx, rec)  # the job's group to another pod (session 45)
                if moved is not None:
                    return moved
                if not any(f["type"] == "spares_exhausted" and f.get("pod") == pod for f in rec.follow_ups):
                    # once per incident and pod: a later rung finding the pool still empty is the same shortage
                    rec.follow_up("spares_exhausted", node, now, pod=pod,
                                  note="no warm spare left: escalating (scale-in or wait for repair)")
                # a later rung's approval wait takes one that comes free (session 41)
                ctx.vars["wants_spare"] = (pod, node)
                return self._instant("swap_spare", node, "failed", retryable=False,
                                     reason=f"no warm spare left in {pod}", spares_left=0)
            spare = cands[0]
            c.spares.remove(spare)
            if st.health(spare) != Health.HEALTHY:
                rec.follow_up("spare_unusable", spare, now, health=str(st.health(spare)))
                continue
            rng = ctx.vars["rng"]
            if rng.random() < c.p.spare_failure_prob:
                self.failed_self_check(spare, rec)
                return self._instant("swap_spare", node, "failed", reason=f"spare {spare} failed its self-check",
                                     spare=spare)
            ctx.spare = spare
            self.taken[node] = spare
            left = len([n for n in c.spares if ids.pod_of(n) == pod])
            rec.follow_up("spare_used", spare, now, replaces=node, spares_left=left)
            return self._instant("swap_spare", node, "succeeded", spare=spare, spares_left=left)

    def _add_spare(self, node: str, ctx: Context, rec: IncidentRecord) -> simpy.Process:
        if not ctx.node_healthy(node):
            return self._instant("add_spare", node, "failed", retryable=False,
                                 reason="the node or one of its devices is not healthy")
        back_at = self._returned_at.get(node)
        if back_at is not None and back_at >= rec.started_at_s:
            # the node rejoined the pool once already since this response took it out (the orchestrator returns a
            # node when it is back in service): still there, or taken since by a response waiting for a spare or a
            # scale-out. Returning it again would journal a second return and could hand out a node already taken.
            return self._instant("add_spare", node, "succeeded", spares=pod_pool(self.sim, node),
                                 already_returned_at_s=round(back_at, 3),
                                 in_pool=node in self.sim.control.spares,
                                 reason="back in the spare pool already (returned when it came back in service)")
        if any(node in w.nodes for w in self.sim.workloads.values()):
            return self._instant("add_spare", node, "failed", retryable=False, reason="the node runs a workload")
        taken_by = self.return_spare(node, rec)
        return self._instant("add_spare", node, "succeeded", spares=pod_pool(self.sim, node),
                             **({"taken_by": taken_by} if taken_by else {}))

    # ---- spares returning to the pool ------------------------------------------------------------------------
    def failed_self_check(self, spare: str, rec: IncidentRecord) -> None:
        """A warm spare failed its self-check: it is set aside and repaired (:meth:`send_to_repair`)."""
        self.send_to_repair(spare, rec, "warm spare failed its self-check", step="spare_self_check",
                            how="inspected and repaired after its failed self-check")

    def repair_once_rebooted(self, node: str, rec: IncidentRecord) -> None:
        """A reboot step on ``node`` ended failed: once its last reboot has ended (one that outlived the step's
        timeout goes on in the background, and may still fail), a host it did not bring back goes to a field
        repair (:meth:`repair_if_not_back`)."""
        def check(_ev: object = None) -> None:
            self.repair_if_not_back(node, rec)

        proc = self.reboots.get(node)
        if proc is not None and not proc.triggered and proc.callbacks is not None:
            proc.callbacks.append(check)
        else:
            check()

    def repair_if_not_back(self, node: str, rec: IncidentRecord) -> bool:
        """A host whose reboot failed and that is still down ("the host did not come back") goes to a field repair
        (:meth:`send_to_repair`), as a real fleet sends such a host to a ticket and hardware replacement (session
        38: before, it stayed dead for the rest of the run). Whether it was sent now."""
        st = self.sim.state
        if node not in self.not_back or node in self._in_repair or (st.is_up(node) and not st.host_down(node)):
            return False
        self.send_to_repair(node, rec, "reboot failed: the host did not come back", step="host_not_back",
                            how="repaired after its reboot failed")
        return True

    def field_repair_of(self, node: str) -> simpy.Process | None:
        """The field repair ``node`` is under now (:meth:`send_to_repair`), if any."""
        return self.repairs.get(node) if node in self._in_repair else None

    def send_to_repair(self, node: str, rec: IncidentRecord, reason: str, *, step: str, how: str) -> None:
        """Open an inspect ticket for ``node`` and repair it as a field ticket (the control API's ``replace_part``,
        ``control.part_replacement_s``, as a node's replacement; no sooner than a repair the plant already holds it
        for); then the ticket is closed and the node goes back into its pod's pool (a response waiting for one takes
        it), unless it rejoined the pool meanwhile (the orchestrator returns a node it took out once it is back)."""
        now = self.sim.now
        rec.follow_up("ticket", node, now, kind="inspect", reason=reason, opened_at_s=now, closed_at_s=None)
        self._in_repair.add(node)
        self.repairs[node] = self.sim.env.process(self._repair_and_return(node, rec, reason, step, how))

    def _repair_and_return(self, node: str, rec: IncidentRecord, reason: str, step: str, how: str
                           ) -> Generator[simpy.Event, Any, None]:
        env = self.sim.env
        start = env.now
        entry = rec.begin("replace_part", node, start, kind="followup", rung="followup", step=step,
                          reason=f"inspect and repair: {reason}")
        res = yield self.start("replace_part", node, lambda: self.sim.control.replace_part(node))
        rec.end(entry, res.status, env.now, **res.detail)
        self._in_repair.discard(node)
        if res.status != "succeeded":
            return  # the ticket stays open
        self.not_back.discard(node)
        rec.close_tickets(node, env.now)
        if (node not in self.sim.control.spares and self._returned_at.get(node, -1.0) < start
                and not any(node in w.nodes for w in self.sim.workloads.values())):
            self.return_spare(node, rec, how=how)

    def return_spare(self, node: str, rec: IncidentRecord, **detail: Any) -> str | None:
        """Put a node back into the warm-spare pool (journal: ``returned_to_spares`` on ``rec``); a repair step
        already waiting for a spare of that pod takes it at once, the first waiter first. Returns the incident
        that took it, if one did."""
        c, now = self.sim.control, self.sim.now
        if node not in c.spares:
            c.spares.append(node)
        self._returned_at[node] = now
        waiter = self._hand_to_waiter(node) if not devices_out(self.sim, node) else None
        rec.follow_up("returned_to_spares", node, now, spares=pod_pool(self.sim, node), **detail,
                      **({"taken_by": waiter.rec.id} if waiter is not None else {}))
        if waiter is None and self.on_returned is not None:
            self.on_returned(node)  # a scaled-in job may scale back out onto it
        return waiter.rec.id if waiter is not None else None

    def _hand_to_waiter(self, node: str) -> SpareWaiter | None:
        """Give pool node ``node`` to the first repair step waiting for a spare of its pod (``take_returning_spare``),
        if one waits: out of the pool, the waiter woken with it. The waiter, or None."""
        now, pod = self.sim.now, ids.pod_of(node)
        self._spare_waiters = [w for w in self._spare_waiters if not w.event.triggered]  # an expired one may be
        waiter = next((w for w in self._spare_waiters if w.pod == pod and w.until >= now), None)  # joined again
        if waiter is not None:
            self._spare_waiters.remove(waiter)
            self.sim.control.spares.remove(node)
            waiter.event.succeed(node)
        return waiter

    def offer_schedulable(self, node: str) -> bool:
        """A pool node whose chips are all back in service (a chip isolated or failed while it waited, now repaired or
        reset: session 39) is schedulable again: a repair step waiting for a spare of its pod takes it at once, as it
        takes a node returned to the pool (:meth:`return_spare`; journal: the waiter's ``spare_used``, returned).
        Before, the waiter was woken only by a node returned to the pool and waited on. Whether a waiter took it."""
        if node not in self.sim.control.spares or devices_out(self.sim, node) or not self.sim.state.is_up(node):
            return False
        return self._hand_to_waiter(node) is not None

    def _usable(self, spare: str, ctx: Context, rec: IncidentRecord) -> bool:
        """A spare taken out of the pool is healthy and passes its self-check; else it is set aside (journal)."""
        st, now = self.sim.state, self.sim.now
        if st.health(spare) != Health.HEALTHY:
            rec.follow_up("spare_unusable", spare, now, health=str(st.health(spare)))
            return False
        if ctx.vars["rng"].random() < self.sim.control.p.spare_failure_prob:
            self.failed_self_check(spare, rec)
            return False
        return True

    def spare_or(self, other: simpy.Event, pod: str, node: str, ctx: Context, rec: IncidentRecord,
                 note: str = "a warm spare came free while the response waited for an approval to scale in: taken "
                             "instead") -> Generator[simpy.Event, Any, str | None]:
        """Wait for ``other`` (a person's approval; a paged response's bound, session 44) or for a usable warm spare
        of ``pod``, whichever comes first (session 41, scen41): a spare returned to the pool or schedulable again
        meanwhile is taken for ``node`` (health and self-check as :meth:`_swap_spare`), as a gang scheduler places a
        pending job once a node is free. The spare, or None when ``other`` came first."""
        env, c = self.sim.env, self.sim.control
        while True:
            found = next((n for n in c.spares if ids.pod_of(n) == pod and not devices_out(self.sim, n)), None)
            if found is None:
                ev = env.event()
                self._spare_waiters.append(SpareWaiter(pod, float("inf"), rec, ev))
                yield other | ev
                if not ev.triggered:
                    self._spare_waiters = [w for w in self._spare_waiters if w.event is not ev]
                    return None
                spare, returned = str(ev.value), True
            else:
                spare, returned = found, False
                c.spares.remove(spare)
            if not self._usable(spare, ctx, rec):
                continue
            ctx.spare = spare
            self.taken[node] = spare
            rec.follow_up("spare_used", spare, env.now, replaces=node, spares_left=pod_pool(self.sim, node),
                          returned=returned, note=note)
            return spare

    def _repair_or_spare(self, action: str, target: str, repair: Callable[[], simpy.Process], ctx: Context,
                         rec: IncidentRecord, timeout_s: float) -> simpy.Process:
        """A repair step with ``take_returning_spare``: the repair starts; if a warm spare is (or comes) back in the
        node's pod before it ends, the response takes that spare and the step ends at once (the repair goes on in
        the background; once it is done the node rejoins the pool). Else the repair's own result. Only while an
        affected workload still runs on the node (else only its repair is waited for); a free spare the response
        already holds is used at once."""
        env, c, st = self.sim.env, self.sim.control, self.sim.state
        node = ids.node_of(target) or target
        pod = ids.pod_of(node) or ""

        def run() -> Generator[simpy.Event, Any, ActionResult]:
            start = env.now
            placed = {n for name, _q in ctx.workloads for n in self.sim.workloads[name].nodes}
            if node not in placed:  # the workloads left the node already: only its repair is left to wait for
                return (yield repair())
            if ctx.spare is not None and ctx.spare not in placed and st.health(ctx.spare) == Health.HEALTHY:
                return ActionResult(action, target, "succeeded", float(start), float(start),
                                    {"spare": ctx.spare, "reused": True, "reason": "a free spare this response took"})
            fixing = repair()
            while True:
                found = next((n for n in c.spares if ids.pod_of(n) == pod and not devices_out(self.sim, n)), None)
                waited_for = found is None
                if found is None:
                    ev = env.event()
                    self._spare_waiters.append(SpareWaiter(pod, env.now + timeout_s, rec, ev))
                    yield fixing | ev
                    if not ev.triggered:  # the repair ended first: its own result
                        self._spare_waiters = [w for w in self._spare_waiters if w.event is not ev]
                        done = fixing.value
                        assert isinstance(done, ActionResult)  # the control API's processes end with one
                        return done
                    spare = str(ev.value)
                else:
                    spare = found
                    c.spares.remove(spare)
                if not self._usable(spare, ctx, rec):
                    continue
                ctx.spare = spare
                left = pod_pool(self.sim, node)
                rec.follow_up("spare_used", spare, env.now, replaces=node, spares_left=left, returned=waited_for,
                              note=f"a warm spare {'returned to the pool' if waited_for else 'was in the pool'} while "
                                   f"the response waited for the {action} of {target}: taken; the repair goes on")
                env.process(self._rejoin_after(fixing, node, ctx, rec, start))
                return ActionResult(action, target, "succeeded", float(start), float(env.now),
                                    {"spare": spare, "took_returning_spare": True, "spares_left": left,
                                     "waited_s": round(env.now - start, 3), "repair": "goes on in the background"})

        return env.process(run())

    def _rejoin_after(self, repair: simpy.Process, node: str, ctx: Context, rec: IncidentRecord,
                      since: float) -> Generator[simpy.Event, Any, None]:
        """Once a repair a spare overtook is done, the repaired node rejoins the pool (when healthy and idle, and
        not already returned meanwhile, e.g. by the orchestrator when an isolated node came back)."""
        yield repair
        if self.repair_if_not_back(node, rec):
            return  # the reboot failed: the host's field repair returns it
        if (self._returned_at.get(node, -1.0) < since and ctx.node_healthy(node)
                and not any(node in w.nodes for w in self.sim.workloads.values())):
            self.return_spare(node, rec, how="repaired after a spare was taken")

