"""Turn one runbook step into control-API calls (simpy processes whose value is an ``ActionResult``).

Plant actions map one-to-one onto :class:`faultlib.control.ControlAPI`. Workload actions fan out over the
incident's affected workloads: a training job is restarted as a whole, an inference service per instance
(``restart_job`` of an inference service relaunches the instance). Book-keeping actions (``swap_spare``,
``add_spare``, ``ticket``, ``wait``, ``notify``, ``none``) are carried out here. Every call is wrapped so that a
refused command (unknown target, invalid transition) comes back as a failed result instead of an exception.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Generator
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

import simpy

from faultlib import ids
from faultlib.control import ActionResult
from faultlib.health import Health
from opsbrain.recovery.record import IncidentRecord
from opsbrain.recovery.schema import TARGETS, Step
from opsbrain.recovery.targets import Context, TargetError, out_of_service, pod_pool

if TYPE_CHECKING:
    from faultlib.engine import Simulation

Call = tuple[str, Callable[[], simpy.Process]]
_RESTARTS = ("restart_job", "restart_instance")


@dataclass
class SpareWaiter:
    """A repair step waiting for a warm spare to return to ``pod`` (``take_returning_spare``), until ``until``."""

    pod: str
    until: float
    rec: IncidentRecord
    event: simpy.Event


class Executor:
    def __init__(self, sim: Simulation, scale_in_max_share: float = 0.0, step_timeout_s: float = 1800.0,
                 restart_pending_max_s: float = 900.0) -> None:
        self.sim = sim
        self.restart_pending_max_s = restart_pending_max_s  # RecoveryParams.restart_pending_max_s
        self.scale_in_max_share = scale_in_max_share  # of a training job's launch nodes (RecoveryParams)
        self.step_timeout_s = step_timeout_s  # a step's attempt ends then (RecoveryParams.step_timeout_s)
        self._restarting: dict[str, simpy.Event] = {}  # workload label -> ends with its restart under way
        self._pending: dict[str, list[simpy.Event]] = {}  # workload -> pending restarts to wake when one starts
        self._spare_waiters: list[SpareWaiter] = []  # first come, first served
        self._returned_at: dict[str, float] = {}  # node -> when it last rejoined the pool
        self.on_returned: Callable[[str], None] | None = None  # a node stayed in the pool (no waiter took it)
        self.taken: dict[str, str] = {}  # failed node -> the warm spare a response took for it (any incident)

    def _one_restart_at_a_time(self, action: str, label: str, running: Callable[[], bool],
                               factory: Callable[[], simpy.Process]) -> simpy.Process:
        """Restarts of one workload never overlap: a second one (another incident's) waits for the one under way
        and succeeds without acting if that brought the workload back; else it runs. Several waiting for one
        restart take turns: the first to wake runs, the others wait for it in turn."""
        env = self.sim.env

        def run() -> Generator[simpy.Event, Any, Any]:
            start = env.now
            other = self._restarting.get(label)
            while other is not None and not other.triggered:
                yield other
                if running():
                    return ActionResult(action, label, "succeeded", float(start), float(env.now),
                                        {"joined": True, "reason": "the restart already under way brought it back"})
                other = self._restarting.get(label)
            done = env.event()
            self._restarting[label] = done
            for ev in self._pending.pop(label, []):  # a pending restart looks again: this one re-places the job
                if not ev.triggered:
                    ev.succeed()
            try:
                return (yield factory())
            finally:
                done.succeed()
                if self._restarting.get(label) is done:
                    del self._restarting[label]

        return env.process(run())

    # ---- plumbing ------------------------------------------------------------------------------------------
    def start(self, action: str, target: str, factory: Callable[[], simpy.Process]) -> simpy.Process:
        """Run ``factory()``'s process; a refusal or error inside it becomes a failed :class:`ActionResult`."""
        env = self.sim.env

        def run() -> Generator[simpy.Event, Any, ActionResult]:
            start = env.now
            try:
                res = yield factory()
            except (ValueError, KeyError, RuntimeError, TargetError) as exc:
                return ActionResult(action, target, "failed", float(start), float(env.now), {"reason": str(exc)})
            if not isinstance(res, ActionResult):
                return ActionResult(action, target, "succeeded", float(start), float(env.now), {"value": res})
            return res

        return env.process(run())

    def _instant(self, action: str, target: str, status: str, **detail: Any) -> simpy.Process:
        env = self.sim.env

        def run() -> Generator[simpy.Event, Any, ActionResult]:
            yield env.timeout(0)
            return ActionResult(action, target, status, float(env.now), float(env.now), detail)

        return env.process(run())

    def attempts(self, rec: IncidentRecord, action: str, calls: list[Call], *, retries: int, backoff_s: float,
                 timeout_s: float, kind: str, rung: str | None, path: str | None,
                 on_success: Callable[[str, ActionResult], None] | None = None,
                 before_retry: Callable[[], Generator[simpy.Event, Any, Any]] | None = None
                 ) -> Generator[simpy.Event, Any, tuple[bool, str]]:
        """Run the calls in parallel, logging each attempt as it starts and ends; retry the failed ones after
        ``backoff_s`` (unless a result says ``retryable: false``), running ``before_retry`` first (a person looks
        again before re-running a command). A retry is idempotent: a call whose earlier attempt timed out but is
        still under way (or has since succeeded) is joined, not issued again (a reboot that outlived the step's
        timeout is not started a second time); its entry says ``joined_in_flight``. Returns (all succeeded, last
        failure reason)."""
        env = self.sim.env
        pending = list(calls)
        reason = ""
        earlier: dict[int, simpy.Process] = {}  # id of a call (an item of ``calls``) -> its last attempt's process
        for attempt in range(1, retries + 2):
            entries, procs, joined = [], [], []
            for call in pending:
                label, factory = call
                entries.append(rec.begin(action, label, env.now, kind=kind if attempt == 1 else "retry", rung=rung,
                                         step=path, attempt=attempt))
                prev = earlier.get(id(call))
                done: Any = prev.value if prev is not None and prev.triggered and prev.ok else None
                join = prev is not None and (not prev.triggered or getattr(done, "status", None) == "succeeded")
                if join and prev is not None and not prev.triggered:  # its wait for a returning spare, too
                    for w in self._spare_waiters:
                        w.until = env.now + timeout_s if w.rec is rec else w.until
                procs.append(prev if join and prev is not None else self.start(action, label, factory))
                joined.append({"joined_in_flight": True} if join else {})
            earlier.update({id(call): proc for call, proc in zip(pending, procs, strict=True)})
            yield env.all_of(procs) | env.timeout(timeout_s)
            failed: list[Call] = []
            retryable = True
            for call, entry, proc, extra in zip(pending, entries, procs, joined, strict=True):
                if proc.triggered:
                    res: Any = proc.value
                    rec.end(entry, res.status, max(res.end_s, entry["start_s"]), **res.detail, **extra)
                    if res.status == "succeeded":
                        if on_success is not None:
                            on_success(call[0], res)
                        continue
                    reason = str(res.detail.get("reason", "action failed"))
                    retryable = retryable and res.detail.get("retryable", True) is not False
                else:
                    reason = f"timed out after {timeout_s:.0f} s (the action may still complete)"
                    rec.end(entry, "failed", env.now, reason=reason, **extra)
                failed.append(call)
            if not failed:
                return True, ""
            pending = failed
            if attempt > retries or not retryable:
                break
            yield env.timeout(backoff_s)
            if before_retry is not None:
                yield from before_retry()
        return False, reason

    # ---- the calls of one step ---------------------------------------------------------------------------
    def calls(self, step: Step, ctx: Context, rec: IncidentRecord) -> list[Call]:
        """(target label, process factory) for every call the step makes; raises :class:`TargetError`."""
        expr = step.target_expr
        params = step.typed_params()
        a = step.action
        c = self.sim.control
        if expr is not None and TARGETS[expr] == "workloads":
            return [self._workload_call(a, name, inst, params, ctx) for name, inst in ctx.workloads]
        targets = ctx.resolve(expr) if expr is not None else ["-"]
        if a == "reroute":
            label = ",".join(targets) if len(targets) <= 3 else f"{len(targets)} nodes"
            return [(label, lambda: c.reroute(targets))]
        simple: dict[str, Callable[[str], simpy.Process]] = {
            "isolate_link": c.isolate_link, "restore_link": c.restore_link, "reset_chip": c.reset_chip,
            "drain_link": lambda t: c.drain_link(t, rec.id),  # each response holds its own drain
            "undrain_link": lambda t: c.undrain_link(t, rec.id),
            "isolate": c.isolate, "replace_part": c.replace_part, "cordon": c.cordon, "reboot_node": c.reboot_node,
        }
        if a in simple:
            fn = simple[a]
            if getattr(params, "take_returning_spare", False) and ctx.workloads:
                timeout = step.timeout_s or self.step_timeout_s
                return [(t, partial(self._repair_or_spare, a, t, partial(fn, t), ctx, rec, timeout)) for t in targets]
            return [(t, partial(fn, t)) for t in targets]
        if a == "isolate_hbm_rows":
            return [(t, partial(c.isolate_hbm_rows, t, params.rows)) for t in targets]
        if a == "swap_spare":
            return [(t, partial(self._swap_spare, t, ctx, rec)) for t in targets]
        if a == "add_spare":
            return [(t, partial(self._add_spare, t, ctx, rec)) for t in targets]
        if a == "ticket":
            return [(t, partial(self._ticket, t, params.kind, params.reason, rec)) for t in targets]
        if a == "wait":
            return [("-", lambda: self._wait(params.seconds))]
        if a == "notify":
            return [("-", lambda: self._instant("notify", "-", "succeeded", message=params.message))]
        return [("-", lambda: self._instant("none", "-", "succeeded", reason=params.reason or "watch"))]

    def unsupported(self, step: Step, ctx: Context) -> str | None:
        """Why the step cannot do anything useful for the affected workloads (checked before an approval)."""
        if step.action == "scale_instance" and ctx.workloads and self.scale_in_max_share <= 0 and all(
                self.sim.workloads[name].kind == "training" for name, _q in ctx.workloads):
            return "training scale-in is not allowed by the policy (recovery.training_scale_in_max_share = 0)"
        return None

    def _out_of_service(self, nodes: list[str]) -> set[str]:
        """Nodes whose host or a compute device is out of service now (a synchronous job cannot run with them)."""
        return {n for n in nodes if out_of_service(self.sim, n)}

    def _scale_in_training(self, name: str, params: Any, ctx: Context) -> simpy.Process:
        """Scale a training job in: drop the step's nodes and every other job node out of service now, within the
        policy's share of the job's launch nodes."""
        w = self.sim.workloads[name]
        launch = len(w.placements[0][1]) if getattr(w, "placements", None) else len(w.nodes)
        replace = self._replace({}, ctx, list(w.nodes))  # nodes a spare already taken stands in for stay
        wanted = set(ctx.resolve(params.drop)) | self._out_of_service(list(w.nodes))
        drop = sorted((wanted & set(w.nodes)) - set(replace))
        if not drop:
            return self._instant("scale_instance", name, "failed", retryable=False, reason="no node to give up")
        if launch - (len(w.nodes) - len(drop)) > self.scale_in_max_share * launch:
            return self._instant("scale_instance", name, "failed", retryable=False,
                                 reason=f"scaling in to {len(w.nodes) - len(drop)} of {launch} launch nodes exceeds "
                                 f"the policy's {self.scale_in_max_share:.0%}", nodes=len(w.nodes))
        return self.sim.control.scale_in_job(name, drop, replace)

    # ---- workloads -----------------------------------------------------------------------------------------
    def _replace(self, mapping: dict[str, str], ctx: Context, current: list[str]) -> dict[str, str]:
        """Resolve a ``replace`` mapping, plus the node swaps a policy took before the restart
        (``ctx.vars["replace_nodes"]``, concrete ids); drop pairs already applied (the old node left the
        placement)."""
        pairs = [(ctx.resolve_one(k), ctx.resolve_one(v)) for k, v in mapping.items()]
        pairs += list(ctx.vars.get("replace_nodes", {}).items())
        # a spare another incident took for another failed node of the same job: one restart brings in every
        # spare taken for it (several nodes of one job failing together, a rack losing power)
        pairs += [(old, new) for old, new in self.taken.items()
                  if out_of_service(self.sim, old) and self._usable_spare(new)]  # not a node since repaired
        out: dict[str, str] = {}
        for old, new in pairs:
            if old in current and new not in current and old not in out and new not in out.values():
                out[old] = new
        return out

    def _usable_spare(self, node: str) -> bool:
        """A spare taken for a failed node that no workload runs on yet and that is still healthy."""
        return (self.sim.state.health(node) == Health.HEALTHY
                and not any(node in w.nodes for w in self.sim.workloads.values()))

    def _unplaceable(self, name: str, replace: dict[str, str]) -> list[str]:
        """Nodes a training job's restart would keep that are out of service (host down or a compute device out):
        the scheduler cannot place its ranks there, so the restart cannot run until they are replaced, repaired
        or given up (a gang-scheduled job stays pending: Volcano, MindCluster)."""
        return sorted(self._out_of_service(list(self.sim.workloads[name].nodes)) - set(replace))

    def _pending_restart(self, a: str, name: str, params: Any, ctx: Context,
                         restart: Callable[[], simpy.Process]) -> simpy.Process:
        """Run ``restart`` once every node the training job would keep can take its ranks. While a node is out of
        service (another incident's spare, repair or scale-in is under way, or its response has not begun), the
        restart stays pending, as a gang-scheduled job does (Volcano, MindCluster), for up to
        ``restart_pending_max_s``; then it fails without running. The wait takes no restart turn (a scale-in or
        repair of another incident's may need it)."""
        env, st, w = self.sim.env, self.sim.state, self.sim.workloads[name]

        def run() -> Generator[simpy.Event, Any, Any]:
            start = env.now
            was_running = ctx.workload_runs(name)
            deadline = env.timeout(self.restart_pending_max_s)
            waited = False
            while True:
                stuck = self._unplaceable(name, self._replace(params.replace, ctx, list(w.nodes)))
                other = self._restarting.get(name)  # another response's restart (or scale) of the job under way
                other = other if other is not None and not other.triggered else None
                if not stuck and other is None:
                    break
                if stuck and deadline.processed:
                    return ActionResult(a, name, "failed", float(start), float(env.now), {
                        "unplaceable": stuck, "reason": f"{len(stuck)} node(s) of the job still out of service "
                        f"with no spare after {env.now - start:.0f} s: {', '.join(stuck)} (its ranks cannot be "
                        "placed)"})
                waited = True
                if not stuck:  # placeable now, but another restart re-places the job: look again once it ends
                    assert other is not None
                    yield other
                    continue
                changed = env.event()

                def wake(*_: Any, ev: simpy.Event = changed) -> None:
                    if not ev.triggered:
                        ev.succeed()

                # look again at a health change anywhere, when another response's restart of the job starts (it
                # re-places the job) and when the one under way ends
                self._pending.setdefault(name, []).append(changed)
                st.subscribe(wake)
                try:
                    yield changed | deadline | (other if other is not None else env.event())
                finally:
                    st.unsubscribe(wake)
                    if changed in self._pending.get(name, []):
                        self._pending[name].remove(changed)
            if waited and not was_running and ctx.workload_runs(name):
                # while this restart was pending, another response's restart brought the job back (and placed it
                # off the node it waited for): restarting it again would only throw away the steps since then
                return ActionResult(a, name, "succeeded", float(start), float(env.now), {
                    "joined": True, "pending_s": round(env.now - start, 3),
                    "reason": "another restart brought the job back while this one was pending"})
            res = yield restart()
            if env.now > start and isinstance(res, ActionResult) and res.start_s > start:
                res = dataclasses.replace(res, detail={**res.detail, "pending_s": round(res.start_s - start, 3)})
            return res

        return env.process(run())

    def _restart_training(self, name: str, params: Any, ctx: Context) -> simpy.Process:
        w = self.sim.workloads[name]
        return self.sim.control.restart_job(name, getattr(params, "source", "memory"),
                                            self._replace(params.replace, ctx, list(w.nodes)),
                                            getattr(params, "scope", "job"))

    def _workload_call(self, a: str, name: str, inst: str | None, params: Any, ctx: Context) -> Call:
        c = self.sim.control
        w = self.sim.workloads[name]
        label = inst or name
        if w.kind == "training":
            job_runs = partial(ctx.workload_runs, name)
            if a == "restart_process":
                return label, lambda: self._one_restart_at_a_time(a, label, job_runs,
                                                                   lambda: c.restart_process(name))
            if a in _RESTARTS:
                return label, lambda: self._pending_restart(a, name, params, ctx, lambda: self._one_restart_at_a_time(
                    a, label, job_runs, lambda: self._restart_training(name, params, ctx)))
            if a == "scale_instance":
                def shed() -> bool:  # the restart under way (another incident's) already left these nodes out
                    return job_runs() and not set(ctx.resolve(params.drop)) & set(w.nodes)

                return label, lambda: self._one_restart_at_a_time(
                    a, label, shed, lambda: self._scale_in_training(name, params, ctx))
            return label, lambda: self._instant(a, label, "failed", retryable=False,
                                                reason=f"{a} does not apply to a training job")
        assert inst is not None
        nodes = lambda: list(w.instances()[inst]["nodes"])  # type: ignore[attr-defined]  # noqa: E731
        instance_up = partial(ctx.workload_runs, name, inst)
        if a == "restart_process":
            return label, lambda: self._one_restart_at_a_time(a, label, instance_up,
                                                               lambda: c.restart_process(name, inst))
        if a in _RESTARTS:
            return label, lambda: self._one_restart_at_a_time(a, label, instance_up, lambda: c.restart_instance(
                name, inst, self._replace(params.replace, ctx, nodes()), params.weights_from))

        def scale() -> simpy.Process:
            drop = set(ctx.resolve(params.drop))
            keep = [n for n in nodes() if n not in drop]
            if not keep:
                return self._instant(a, label, "failed", retryable=False, reason="no node would be left")
            return c.scale_instance(name, inst, keep)

        return label, scale

    # ---- book-keeping actions -------------------------------------------------------------------------------
    def _swap_spare(self, node: str, ctx: Context, rec: IncidentRecord) -> simpy.Process:
        """Take the first healthy warm spare of the node's pod (self-check may fail: try again); a spare this
        incident already took (an earlier rung) is used again rather than a second one."""
        c, st, now = self.sim.control, self.sim.state, self.sim.now
        pod = ids.pod_of(node)
        if ctx.spare is not None and st.health(ctx.spare) == Health.HEALTHY:  # a later rung: the spare already taken
            return self._instant("swap_spare", node, "succeeded", spare=ctx.spare, reused=True)
        while True:
            cands = [n for n in c.spares if ids.pod_of(n) == pod]
            if not cands:
                if not any(f["type"] == "spares_exhausted" and f.get("pod") == pod for f in rec.follow_ups):
                    # once per incident and pod: a later rung finding the pool still empty is the same shortage
                    rec.follow_up("spares_exhausted", node, now, pod=pod,
                                  note="no warm spare left: escalating (scale-in or wait for repair)")
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
        """A warm spare failed its self-check: it is set aside with an inspect ticket and repaired as a field
        ticket (the control API's ``replace_part``, ``control.part_replacement_s``, as a node's replacement), then
        the ticket is closed and the node goes back into its pod's pool (a response waiting for one takes it)."""
        now = self.sim.now
        rec.follow_up("ticket", spare, now, kind="inspect", reason="warm spare failed its self-check",
                      opened_at_s=now, closed_at_s=None)
        self.sim.env.process(self._inspect_and_return(spare, rec))

    def _inspect_and_return(self, spare: str, rec: IncidentRecord) -> Generator[simpy.Event, Any, None]:
        env = self.sim.env
        entry = rec.begin("replace_part", spare, env.now, kind="followup", rung="followup", step="spare_self_check",
                          reason="inspect and repair a warm spare that failed its self-check")
        res = yield self.start("replace_part", spare, lambda: self.sim.control.replace_part(spare))
        rec.end(entry, res.status, env.now, **res.detail)
        if res.status != "succeeded":
            return  # the ticket stays open
        rec.close_tickets(spare, env.now)
        if spare not in self.sim.control.spares and not any(spare in w.nodes for w in self.sim.workloads.values()):
            self.return_spare(spare, rec, how="inspected and repaired after its failed self-check")

    def return_spare(self, node: str, rec: IncidentRecord, **detail: Any) -> str | None:
        """Put a node back into the warm-spare pool (journal: ``returned_to_spares`` on ``rec``); a repair step
        already waiting for a spare of that pod takes it at once, the first waiter first. Returns the incident
        that took it, if one did."""
        c, now = self.sim.control, self.sim.now
        if node not in c.spares:
            c.spares.append(node)
        self._returned_at[node] = now
        pod = ids.pod_of(node)
        self._spare_waiters = [w for w in self._spare_waiters if not w.event.triggered]  # an expired one may be
        waiter = next((w for w in self._spare_waiters if w.pod == pod and w.until >= now), None)  # joined again
        if waiter is not None:
            self._spare_waiters.remove(waiter)
            c.spares.remove(node)
            waiter.event.succeed(node)
        rec.follow_up("returned_to_spares", node, now, spares=pod_pool(self.sim, node), **detail,
                      **({"taken_by": waiter.rec.id} if waiter is not None else {}))
        if waiter is None and self.on_returned is not None:
            self.on_returned(node)  # a scaled-in job may scale back out onto it
        return waiter.rec.id if waiter is not None else None

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
                found = next((n for n in c.spares if ids.pod_of(n) == pod), None)
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
                if st.health(spare) != Health.HEALTHY:
                    rec.follow_up("spare_unusable", spare, env.now, health=str(st.health(spare)))
                    continue
                if ctx.vars["rng"].random() < c.p.spare_failure_prob:
                    self.failed_self_check(spare, rec)
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
        if (self._returned_at.get(node, -1.0) < since and ctx.node_healthy(node)
                and not any(node in w.nodes for w in self.sim.workloads.values())):
            self.return_spare(node, rec, how="repaired after a spare was taken")

    def _ticket(self, target: str, kind: str, reason: str, rec: IncidentRecord) -> simpy.Process:
        now = self.sim.now
        rec.follow_up("ticket", target, now, kind=kind, reason=reason, opened_at_s=now, closed_at_s=None)
        return self._instant("ticket", target, "succeeded", kind=kind, reason=reason)

    def _wait(self, seconds: float) -> simpy.Process:
        env = self.sim.env

        def run() -> Generator[simpy.Event, Any, ActionResult]:
            start = env.now
            yield env.timeout(seconds)
            return ActionResult("wait", "-", "succeeded", float(start), float(env.now), {"seconds": seconds})

        return env.process(run())
