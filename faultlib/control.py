"""The control API: the actuators an operator has. Every action takes modelled time and can fail.

Each action returns a simpy Process whose value is an :class:`ActionResult`. Failure draws come from the
``control`` random stream, so a seed fixes which actions fail. Effects change the plant (health, routing,
workload placement) and workloads respond through their listeners.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import simpy

from faultlib import ids, renewal
from faultlib.control_params import ControlParams
from faultlib.health import UP, Health

if TYPE_CHECKING:
    from faultlib.engine import Simulation

__all__ = ["ActionResult", "ControlAPI", "ControlError", "ControlParams", "REBOOTING"]

REBOOTING = UP | {Health.RESETTING}
"""Health states of a host whose failed reboot leaves it FAILED: in service when the reboot began (RESETTING since)."""


class ControlError(ValueError):
    """An action was asked of a target that does not exist or is of the wrong kind."""


@dataclass
class ActionResult:
    action: str
    target: str
    status: str  # succeeded | failed | skipped | cancelled (stopped while under way: ControlAPI.stop)
    start_s: float
    end_s: float
    detail: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class ControlAPI:
    def __init__(self, sim: Simulation) -> None:
        self.sim = sim
        self.p: ControlParams = sim.params.control
        self._rng = sim.rng("control")
        self.spares: list[str] = []
        self.isolated_rows: dict[str, int] = {}
        self.repair_until: dict[str, float] = {}  # part -> when its hardware repair is done (trace repair times)
        self._under_way: dict[str, tuple[simpy.Process, list[simpy.Event]]] = {}
        """workload -> its stoppable action under way and the workload's side of it, once begun (:meth:`stop`)"""

    # ---- plumbing -------------------------------------------------------------------------------
    def _expect(self, target: str, *kinds: str) -> None:
        topo = self.sim.topology
        kind = "link" if target in topo.links else topo.kind.get(target)
        if kind is None:
            raise ControlError(f"no component {target!r}")
        if kinds and kind not in kinds and not (kind == "link" and "link" in kinds):
            raise ControlError(f"{target!r} is a {kind}, expected {' or '.join(kinds)}")

    def _draw(self, name: str) -> float:
        """One draw of the control duration ``name`` (a :class:`Dist` field of ControlParams)."""
        return self.sim.durations.draw(f"control.{name}", getattr(self.p, name))

    def _action(self, name: str, target: str, duration: float, fail_prob: float,
                effect: Callable[[], dict[str, Any] | None]) -> simpy.Process:
        """An action taking ``duration`` seconds (drawn by the caller) that fails with ``fail_prob``."""
        env = self.sim.env

        def run() -> Generator[simpy.Event, Any, ActionResult]:
            start = env.now
            yield env.timeout(duration)
            if self._rng.random() < fail_prob:
                return self._done(name, target, "failed", start, {"reason": "action failed (injected probability)"})
            return self._done(name, target, "succeeded", start, effect() or {})

        return env.process(run())

    def _wrap(self, name: str, target: str, fail_prob: float, fail_after: str,
              body: Callable[[], simpy.Event], describe: Callable[[], dict[str, Any]] | None = None,
              stop: Callable[[], bool] | None = None) -> simpy.Process:
        """An action whose duration is a workload's own process (restarts): a failed one ends after a draw of the
        ControlParams duration ``fail_after``. ``describe`` adds what the workload reports of the attempt (the
        checkpoint a restart loaded) to the result's detail. With ``stop`` (what stops the workload's side), the
        action can be stopped while under way (:meth:`stop`): it ends at once, ``cancelled``."""
        env = self.sim.env

        def run() -> Generator[simpy.Event, Any, ActionResult]:
            start = env.now
            me = env.active_process  # this process (None once the generator is closed at the run's end)
            side: list[simpy.Event] = []  # the workload's side, once begun
            if stop is not None and me is not None:
                self._under_way[target] = (me, side)
            proc: simpy.Event | None = None
            try:
                if self._rng.random() < fail_prob:
                    yield env.timeout(self._draw(fail_after))
                    return self._done(name, target, "failed", start, {"reason": "action failed (injected probability)"})
                proc = ev = body()
                side.append(ev)
                value = yield ev
            except simpy.Interrupt as halt:  # only :meth:`stop` interrupts, and only an action with ``stop``
                assert stop is not None
                if proc is None or not (proc.triggered and proc.ok):  # (ended this instant: its outcome stands)
                    stopped = proc is not None and stop()  # None: the attempt was to fail (its draw) anyway
                    cause = halt.cause if isinstance(halt.cause, dict) else {"reason": str(halt.cause)}
                    said = describe() if describe is not None and proc is not None else {}  # what it had placed
                    return self._done(name, target, "cancelled", start, {**said, **cause, "workload_stopped": stopped})
                value = proc.value
            finally:
                if me is not None and self._under_way.get(target, (None,))[0] is me:
                    del self._under_way[target]
            ok = value.get("ok", True) if isinstance(value, dict) else bool(value)
            detail = (dict(value) if isinstance(value, dict) else {}) | (describe() if describe else {})
            if not ok:
                detail.setdefault("reason", "the workload did not come back")
            return self._done(name, target, "succeeded" if ok else "failed", start, detail)

        return env.process(run())

    def stop(self, workload: str, cause: dict[str, Any] | str) -> bool:
        """Stop the restart (or in-place recovery, scale-in, scale-out: session 39) of ``workload`` under way, as an
        operator deletes a job's pods (Volcano) or stops its recovery (MindCluster): the workload's processes are
        killed and it is down; the action ends at once, ``cancelled``, with ``cause`` (its reason) in its detail.
        False when no stoppable action of ``workload`` is under way, also when the workload's side ended at this very
        instant with a value (the action's outcome stands: session 38's review, before it was interrupted, kept that
        outcome, yet said True)."""
        proc, side = self._under_way.get(workload) or (None, [])
        if proc is None or not proc.is_alive or (side and side[0].triggered and side[0].ok):
            return False
        del self._under_way[workload]
        proc.interrupt(cause)
        return True

    def _done(self, name: str, target: str, status: str, start: float, detail: dict[str, Any]) -> ActionResult:
        res = ActionResult(name, target, status, float(start), self.sim.now, detail)
        self.sim.trace.record(self.sim.now, "action", target, action=name, status=status)
        return res

    # ---- fabric -----------------------------------------------------------------------------------
    def isolate_link(self, link: str) -> simpy.Process:
        self._expect(link, "link")
        return self._action("isolate_link", link, self._draw("link_isolate_s"), self.p.isolate_failure_prob,
                            lambda: self._set(link, Health.ISOLATED, "isolate_link"))

    def restore_link(self, link: str) -> simpy.Process:
        self._expect(link, "link")
        return self._action("restore_link", link, self._draw("link_restore_s"), self.p.isolate_failure_prob,
                            lambda: self._set(link, Health.HEALTHY, "restore_link"))

    def _route_change_s(self, nodes: list[str]) -> float:
        """A route change for ``nodes`` (or links): push the new tables, then MindCluster's route convergence wait
        (configured). With ``route_push_fanout`` the push goes to the sub-plane's L1 chip of every node of the pods
        of ``nodes`` and ends at the slowest acknowledgement."""
        chips = 1
        if self.p.route_push_fanout:
            pods = {ids.pod_of(n) for n in nodes}
            chips = len(pods) * self.sim.topology.params.nodes_per_pod
        push = self.sim.durations.draw_max("control.route_push_s", self.p.route_push_s, chips)
        return push + self.sim.params.fabric.route_convergence_s

    def reroute(self, nodes: list[str]) -> simpy.Process:
        """Re-route the UB traffic of ``nodes`` around unusable uplinks (route push, then the convergence wait)."""
        for n in nodes:
            self._expect(n, "node")

        def effect() -> dict[str, Any]:
            return {"usable": {n: round(self.sim.fabric.reroute(n), 4) for n in nodes}}

        return self._action("reroute", ",".join(nodes) if len(nodes) <= 3 else f"{len(nodes)} nodes",
                            self._route_change_s(nodes), self.p.reroute_failure_prob, effect)

    def drain_link(self, link: str, holder: str = "") -> simpy.Process:
        """Route traffic around an in-service link (link-flap damping; route push and convergence wait). The drain
        is ``holder``'s: it stands until that holder ends it."""
        self._expect(link, "link")
        fabric = self.sim.fabric
        return self._action("drain_link", link, self._route_change_s([link]), self.p.reroute_failure_prob,
                            lambda: {"usable": round(fabric.drain(link, holder), 4)})

    def undrain_link(self, link: str, holder: str = "") -> simpy.Process:
        """End ``holder``'s drain: traffic goes back onto the link if no other drain holds it and it is usable now
        (route push and convergence wait)."""
        self._expect(link, "link")
        fabric = self.sim.fabric

        def effect() -> dict[str, Any]:
            usable = round(fabric.undrain(link, holder), 4)
            others = sorted(fabric.drain_holders(link))
            return {"usable": usable, **({"still_drained_by": others} if others else {})}

        return self._action("undrain_link", link, self._route_change_s([link]), self.p.reroute_failure_prob, effect)

    # ---- chips and memory -------------------------------------------------------------------------
    def isolate_hbm_rows(self, hbm: str, rows: int = 1) -> simpy.Process:
        self._expect(hbm, "hbm")

        def effect() -> dict[str, Any]:
            total = self.isolated_rows.get(hbm, 0) + rows
            self.isolated_rows[hbm] = total
            self.sim.telemetry.metric("hbm_isolated_rows", hbm, float(total))
            return {"isolated_rows": total, "replace": total >= self.p.hbm_rows_replace_threshold}

        return self._action("isolate_hbm_rows", hbm, self._draw("hbm_row_isolate_s"), self.p.isolate_failure_prob,
                            effect)

    def reset_chip(self, npu: str) -> simpy.Process:
        self._expect(npu, "npu")
        env = self.sim.env

        def run() -> Generator[simpy.Event, Any, ActionResult]:
            start = env.now
            held = self.repair_left_s(npu)  # a chip under repair (a trace's repair time) resets once it is done
            if held > 0:
                yield env.timeout(held)
            self._set(npu, Health.RESETTING, "reset_chip")
            took = self._draw("chip_reset_s")
            yield env.timeout(min(took, self.p.chip_reset_wait_s))
            if self._rng.random() < self.p.reset_failure_prob or took > self.p.chip_reset_wait_s:
                self._set(npu, Health.FAILED, "reset_chip failed")
                return self._done("reset_chip", npu, "failed", start, {"reason": "chip did not come back"})
            self._set(npu, Health.HEALTHY, "reset_chip")
            hung = [d for d in self.sim.topology.children.get(npu, []) if self.sim.topology.kind.get(d) == "die"
                    and self.sim.state.health(d) == Health.FAILED]
            for die in hung:  # a reset brings a hung AI Core die back (RestartNPU)
                self._set(die, Health.HEALTHY, "reset_chip")
            return self._done("reset_chip", npu, "succeeded", start, {"dies_recovered": hung} if hung else {})

        return env.process(run())

    def isolate(self, component: str) -> simpy.Process:
        """Take a chip, node or switch out of service (SeparateNPU and its kin)."""
        self._expect(component)
        return self._action("isolate", component, self._draw("link_isolate_s"), self.p.isolate_failure_prob,
                            lambda: self._set(component, Health.ISOLATED, "isolate"))

    def replace_part(self, component: str) -> simpy.Process:
        """A field replacement: after hours the component is back as new, with every part of it (a new chip's dies
        and HBM, a new server's chips)."""
        self._expect(component)

        def effect() -> dict[str, Any]:
            ended = self.sim.end_faults_of(component, "replace_part")  # the new part does not carry the old faults
            for part in [p for p in self.isolated_rows if p == component or p.startswith(component + "/")]:
                del self.isolated_rows[part]
            renewed = renewal.renew(self.sim, component)
            if component in self.sim.topology.links:  # a new module/fibre: all lanes back, optics as new
                self.sim.state.set_lanes_down(component, 0, cause="replace_part")
                if "dom" in self.sim.__dict__:  # only when the optics model was built (cached property)
                    self.sim.dom.clear(component)
            return (self._set(component, Health.HEALTHY, "replace_part") | ({"faults_ended": ended} if ended else {})
                    | ({"renewed": renewed} if renewed else {}))

        optics = component in self.sim.topology.links
        took = self._draw("optics_replacement_s" if optics else "part_replacement_s")
        # a part under repair (a trace's repair time) is back no sooner than that repair: the trace's outage
        # already holds the replacement, so the longer of the two, not their sum
        return self._action("replace_part", component, max(took, self.repair_left_s(component, inside=True)), 0.0,
                            effect)

    # ---- nodes ------------------------------------------------------------------------------------
    def cordon(self, node: str) -> simpy.Process:
        self._expect(node, "node")
        return self._action("cordon", node, self._draw("node_cordon_s"), self.p.isolate_failure_prob,
                            lambda: self._set(node, Health.CORDONED, "cordon"))

    def reboot_node(self, node: str) -> simpy.Process:
        """Reboot a host; one whose hardware is under repair boots once the repair is done. From the action's start
        until the host is back it writes nothing (nor do its devices) and its exporters serve nothing
        (:meth:`~faultlib.state.PlantState.begin_reboot`; session 35: before, a hung host went on printing until its
        reboot was done). A host in service is RESETTING meanwhile (session 36): a reboot stops every process on
        it, so its workloads see the node go out of service as for a crash (their ranks die, the peers stall and
        report; before, the ranks of a node rebooted while HEALTHY ran through the reboot). A host already out of
        service (crashed, hung, isolated) keeps its state. A reboot that fails leaves the host down (stopped;
        FAILED where it was in service) until it is back."""
        self._expect(node, "node")
        env, state = self.sim.env, self.sim.state
        took = self.repair_left_s(node) + self._draw("node_reboot_s")

        def run() -> Generator[simpy.Event, Any, ActionResult]:
            start = env.now
            state.begin_reboot(node)
            if state.health(node) in UP:
                self._set(node, Health.RESETTING, "reboot_node")
            yield env.timeout(took)
            if self._rng.random() < self.p.reset_failure_prob:
                if state.health(node) in REBOOTING:  # a host taken out of service stays so (isolated)
                    self._set(node, Health.FAILED, "reboot_node failed")
                return self._done("reboot_node", node, "failed", start, {"reason": "the host did not come back"})
            state.end_reboot(node)
            return self._done("reboot_node", node, "succeeded", start, self._set(node, Health.HEALTHY, "reboot_node"))

        return env.process(run())

    def hold_for_repair(self, part: str, until: float) -> None:
        """The part's hardware is under repair until ``until`` (simulated s): nothing brings it back sooner."""
        self.repair_until[part] = max(until, self.repair_until.get(part, until))

    def release_repair(self, part: str) -> None:
        self.repair_until.pop(part, None)

    def repair_left_s(self, part: str, inside: bool = False) -> float:
        """Seconds until ``part``'s hardware repair is done (0 when none); ``inside``: also the repairs of the parts
        it holds (a replacement of a node replaces its chips)."""
        until = self.repair_until.get(part, 0.0)
        if inside and self.repair_until:
            until = max([until, *(u for p, u in self.repair_until.items() if p.startswith(part + "/"))])
        return max(0.0, until - self.sim.now)

    def set_spares(self, nodes: list[str]) -> None:
        for n in nodes:
            self._expect(n, "node")
        self.spares = list(nodes)

    # ---- workloads --------------------------------------------------------------------------------
    def _workload(self, name: str) -> Any:
        try:
            return self.sim.workloads[name]
        except KeyError:
            raise ControlError(f"no workload {name!r}") from None

    def restart_process(self, job: str, instance: str | None = None) -> simpy.Process:
        """Process-level online recovery in place (no job restart)."""
        w = self._workload(job)
        body = (lambda: w.recover_in_place(instance)) if instance else w.recover_in_place
        return self._wrap("restart_process", instance or job, self.p.restart_failure_prob, "restart_fail_after_s", body,
                          stop=None if instance else getattr(w, "stop_restart", None))

    def restart_job(self, job: str, source: str = "persistent", replace: dict[str, str] | None = None,
                    scope: str = "job") -> simpy.Process:
        w = self._workload(job)
        return self._wrap("restart_job", job, self.p.restart_failure_prob, "job_restart_fail_after_s",
                          lambda: w.restart(source, replace, scope=scope), lambda: _restart_detail(w),
                          getattr(w, "stop_restart", None))

    def scale_in_job(self, job: str, drop: list[str], replace: dict[str, str] | None = None) -> simpy.Process:
        """Restart a training job from memory without ``drop`` (fewer data-parallel replicas), swapping the nodes
        of ``replace`` for spares in the same restart."""
        w = self._workload(job)
        return self._wrap("scale_in", job, self.p.restart_failure_prob, "job_restart_fail_after_s",
                          lambda: w.restart("memory", replace, drop=list(drop)), lambda: _restart_detail(w),
                          getattr(w, "stop_restart", None))

    def scale_out_job(self, job: str, add: list[str]) -> simpy.Process:
        """Scale a scaled-in training job back out onto the free nodes ``add``: a process-level rescale (the
        running ranks keep their processes; the new ranks attach as warm standbys, load their state from the
        peers' in-memory checkpoint, and the communicator re-forms)."""
        w = self._workload(job)
        return self._wrap("scale_out", job, self.p.restart_failure_prob, "job_restart_fail_after_s",
                          lambda: w.restart("memory", scope="process", add=list(add)), lambda: _restart_detail(w),
                          getattr(w, "stop_restart", None))  # stoppable as a restart is (session 39)

    def restart_instance(self, service: str, instance: str, replace: dict[str, str] | None = None,
                         weights_from: str = "ems") -> simpy.Process:
        w = self._workload(service)
        return self._wrap("restart_instance", instance, self.p.restart_failure_prob, "job_restart_fail_after_s",
                          lambda: w.restart_instance(instance, replace, weights_from))

    def scale_instance(self, service: str, instance: str, nodes: list[str]) -> simpy.Process:
        w = self._workload(service)
        return self._wrap("scale_instance", instance, self.p.restart_failure_prob, "job_restart_fail_after_s",
                          lambda: w.scale_instance(instance, nodes))

    # ---- helpers ----------------------------------------------------------------------------------
    def _set(self, component: str, health: Health, cause: str) -> dict[str, Any]:
        self.sim.state.set_health(component, health, cause)
        return {"health": str(health)}


def _restart_detail(w: Any) -> dict[str, Any]:
    """What a training job says of its last restart: the checkpoint it loaded (``memory`` or ``persistent``, and
    the step), the nodes it gave up and the nodes it runs on now."""
    last = getattr(w, "last_restart", None)
    return {"checkpoint": dict(last), "nodes": len(w.nodes)} if last else {}
