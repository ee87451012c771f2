"""Workload actions of the executor: restarts (one at a time per workload, pending while the job cannot be
placed), training scale-in, and the node swaps a restart brings in."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Generator
from functools import partial
from typing import Any

import simpy

from faultlib.control import ActionResult
from faultlib.health import UP, Health
from opsbrain.recovery.action_base import Call, ExecutorBase
from opsbrain.recovery.record import IncidentRecord
from opsbrain.recovery.superpod_move import restart_scope
from opsbrain.recovery.targets import Context, out_of_service

_RESTARTS = ("restart_job", "restart_instance")


class WorkloadActions(ExecutorBase):
    """Restart, scale and re-place the incident's affected workloads (mixed into
    :class:`~opsbrain.recovery.actions.Executor`)."""

    def _one_restart_at_a_time(self, action: str, label: str, running: Callable[[], bool],
                               factory: Callable[[], simpy.Process], rec: IncidentRecord | None = None,
                               covered: Callable[[], str | None] | None = None) -> simpy.Process:
        """Restarts of one workload never overlap: a second one (another incident's) waits for the one under way
        and succeeds without acting if that brought the workload back; else it runs. Several waiting for one
        restart take turns: the first to wake runs, the others wait for it in turn. While it runs, ``rec`` (its
        response) is :attr:`restart_owner` of ``label`` (a doomed one is stopped: Orchestrator, session 38).
        ``covered`` (an in-place recovery, session 42) names the response whose restart already covered this one's
        fault (:meth:`_covering`); while the workload works it succeeds without acting (``joined``, ``covered_by``).
        Before, only a restart still under way was joined, and one that had just ended was followed by a second
        recovery of the running job (a checkpoint write under way aborted, the step redone) when two link faults of
        one job were handled a few seconds apart."""
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
            by = covered() if covered is not None and running() else None
            if by is not None:
                return ActionResult(action, label, "succeeded", float(start), float(env.now), {
                    "joined": True, "covered_by": by, "reason": f"{by}'s restart of {label} (t="
                    f"{self.restarted[label][0]:.0f}-{self.restarted[label][1]:.0f} s) began with this response's "
                    "part already out of service and ended after this response began; the job runs: not recovered "
                    "again"})
            done = env.event()
            self._restarting[label] = done
            for ev in self._pending.pop(label, []):  # a pending restart looks again: this one re-places the job
                if not ev.triggered:
                    ev.succeed()
            if rec is not None:
                self.restart_owner[label] = rec
                self.restart_action[label] = action
            # out of service (not DEGRADED / CORDONED: a part still carrying traffic is not routed around; review42)
            began, out = env.now, frozenset(c for c, h in self.sim.state.unhealthy_view.items() if h not in UP)
            try:
                res = yield factory()
                if isinstance(res, ActionResult) and res.status == "succeeded":
                    self.restarted[label] = (float(began), float(env.now), rec.id if rec is not None else "-", out)
                return res
            finally:
                if rec is not None and self.restart_owner.get(label) is rec:
                    del self.restart_owner[label]
                    self.restart_action.pop(label, None)
                done.succeed()
                if self._restarting.get(label) is done:
                    del self._restarting[label]

        return env.process(run())

    def _covering(self, label: str, ctx: Context, rec: IncidentRecord | None) -> str | None:
        """The response whose restart of ``label`` covers an in-place recovery for ``ctx``'s part now (session 42):
        its last restart of ours succeeded, began with that part already out of service (the in-place recovery
        re-forms communication around every dead path it finds, so two link faults of one job need one) and ended
        after this response began. None when there is none."""
        last = self.restarted.get(label)
        if last is None or rec is None or ctx.component is None:
            return None
        _began, ended, who, out = last
        return who if ended >= rec.started_at_s and ctx.component in out else None

    def _out_of_service(self, nodes: list[str]) -> set[str]:
        """Nodes whose host or a compute device is out of service now (a synchronous job cannot run with them)."""
        return {n for n in nodes if out_of_service(self.sim, n)}

    def _scale_in_training(self, name: str, params: Any, ctx: Context) -> simpy.Process:
        """Scale a training job in: drop the step's nodes and every other job node out of service now, within the
        policy's share of the job's launch nodes."""
        drop, replace, refused = self._scale_in_plan(name, params, ctx)
        if refused is not None:
            return self._instant("scale_instance", name, "failed", retryable=False, **refused)
        if ctx.spare is not None and ctx.spare not in replace.values() and ctx.spare in self._replace(
                {}, ctx, list(self.sim.workloads[name].nodes)).values():
            ctx.vars["spare_given_up"] = ctx.spare  # its slot given up: the restarts onto it failed (session 44)
        return self.sim.control.scale_in_job(name, drop, replace)

    def scale_in_refused(self, name: str, params: Any, ctx: Context) -> str | None:
        """Why the policy would refuse a scale-in of training job ``name`` (beyond its share of the launch nodes),
        checked before the step's approval (session 43: a person was asked to approve a scale-in that then failed at
        once, the ladder's next rung waiting for the approval). It counts the step's own nodes and the job's nodes
        out of service now, except a host a response's reboot is bringing back: a reboot (600 s median) ends about
        when an approval comes (600 s median), so it is not counted as given up (review43b; before, a node another
        response was rebooting made the policy refuse a scale-in it would have allowed once the host was back). The
        scale-in itself, after the approval, gives up every node of the job out of service then. None while another
        restart of the job is under way (it may change the job's nodes) or when the scale-in may go ahead."""
        other = self._restarting.get(name)
        if other is not None and not other.triggered:
            return None
        _drop, _replace, refused = self._scale_in_plan(name, params, ctx, self._rebooting())
        return refused["reason"] if refused is not None and "nodes" in refused else None

    def _rebooting(self) -> set[str]:
        """Hosts a reboot of ours (any response's) is bringing back now."""
        return {node for node, proc in self.reboots.items() if proc.is_alive}

    def _scale_in_plan(self, name: str, params: Any, ctx: Context, coming_back: set[str] | None = None
                       ) -> tuple[list[str], dict[str, str], dict[str, Any] | None]:
        """The nodes a scale-in of training job ``name`` gives up and the spares it swaps in, or why it cannot;
        a node out of service in ``coming_back`` is not given up (the step's own nodes are)."""
        w = self.sim.workloads[name]
        launch = len(w.placements[0][1]) if getattr(w, "placements", None) else len(w.nodes)
        replace = self._replace({}, ctx, list(w.nodes))  # nodes a spare already taken stands in for stay
        wanted = set(ctx.resolve(params.drop)) | (self._out_of_service(list(w.nodes)) - (coming_back or set()))
        drop = sorted((wanted & set(w.nodes)) - set(replace))
        if not drop and ctx.spare in replace.values():
            # only this response's own spare stood in, and the ladder reached the scale-in because the restart onto
            # it failed: the node it stood in for is given up (session 42; before, "no node to give up" after the
            # approval). The spare goes back to the pool at the response's end, where the scale-out takes it
            replace = {old: new for old, new in replace.items() if new != ctx.spare}
            drop = sorted((wanted & set(w.nodes)) - set(replace))
        if not drop:
            return drop, replace, {"reason": "no node to give up"}
        if launch - (len(w.nodes) - len(drop)) > self.scale_in_max_share * launch:
            return drop, replace, {"reason": f"scaling in to {len(w.nodes) - len(drop)} of {launch} launch nodes "
                                   f"exceeds the policy's {self.scale_in_max_share:.0%}", "nodes": len(w.nodes)}
        return drop, replace, None

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

    def unplaceable(self, name: str, ctx: Context) -> list[str]:
        """Nodes of training job ``name`` out of service now that no spare taken stands in for: a restart could not
        place its ranks (:meth:`_unplaceable`)."""
        return self._unplaceable(name, self._replace({}, ctx, list(self.sim.workloads[name].nodes)))

    def restart_under_way(self, name: str) -> simpy.Event | None:
        """The event that ends the restart (or scale) of workload ``name`` under way, if one is."""
        other = self._restarting.get(name)
        return other if other is not None and not other.triggered else None

    def on_restart(self, name: str, ev: simpy.Event, add: bool = True) -> None:
        """Wake ``ev`` when a restart of ``name`` starts (as a pending restart is woken); ``add=False`` drops it."""
        waiting = self._pending.setdefault(name, [])
        if add:
            waiting.append(ev)
        elif ev in waiting:
            waiting.remove(ev)

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
        source, scope = restart_scope(name, ctx, getattr(params, "source", "memory"),
                                           getattr(params, "scope", "job"))  # a moved group: job level (session 45)
        return self.sim.control.restart_job(name, source, self._replace(params.replace, ctx, list(w.nodes)), scope)

    def _workload_call(self, a: str, name: str, inst: str | None, params: Any, ctx: Context,
                       rec: IncidentRecord | None = None) -> Call:
        c = self.sim.control
        w = self.sim.workloads[name]
        label = inst or name
        if w.kind == "training":
            job_runs = partial(ctx.workload_runs, name)
            if a == "restart_process":
                return label, lambda: self._one_restart_at_a_time(a, label, job_runs, lambda: c.restart_process(name),
                                                                   rec, partial(self._covering, label, ctx, rec))
            if a in _RESTARTS:
                return label, lambda: self._pending_restart(a, name, params, ctx, lambda: self._one_restart_at_a_time(
                    a, label, job_runs, lambda: self._restart_training(name, params, ctx), rec))
            if a == "scale_instance":
                def shed() -> bool:  # the restart under way (another incident's) already left these nodes out
                    return job_runs() and not set(ctx.resolve(params.drop)) & set(w.nodes)

                return label, lambda: self._one_restart_at_a_time(
                    a, label, shed, lambda: self._scale_in_training(name, params, ctx), rec)
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
