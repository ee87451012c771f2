"""The ``manual`` policy: the status quo, modelled for a side-by-side comparison with automated recovery.

Timeline of one incident (all delays drawn from the incident's own random stream, documented in
:class:`~opsbrain.recovery.params.ManualParams`):

1. Detection. A stalled workload (hung collective) is found by its collective timeout (the workload's
   ``hang_timeout_s``: 30 min for training, facts.md §3) or by a person looking at a dashboard, whichever comes
   first; a crashed workload or a hardware alarm pages a person, who responds after a lognormal delay.
2. Diagnosis: a person triages logs across nodes (lognormal delay).
3. Repair: restart from the last *persistent* checkpoint (inference: relaunch, weights from object storage);
   no re-routing; a node with a dead part is swapped for a free node if there is one, else rebooted / repaired
   first; failed parts get a replacement ticket, carried out in the background after hours. A failed command
   is re-run by the person after a delay, a few times.

Call :func:`manual_response` at (or after) the fault's onset with the true fault class and component (people get
there in the end; the delay is what the status quo costs). Like the orchestrator, it reads placement and visible
health, never ``sim.faults``.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Any

import numpy as np
import simpy

from faultlib import ids
from faultlib.health import Health
from opsbrain.recovery.actions import Executor
from opsbrain.recovery.params import ManualParams
from opsbrain.recovery.record import IncidentRecord
from opsbrain.recovery.schema import Step
from opsbrain.recovery.targets import Context, TargetError, out_of_service, pod_pool

if TYPE_CHECKING:
    from faultlib.engine import Simulation

Gen = Generator[simpy.Event, Any, Any]

RESTART_IN_PLACE = frozenset({"link_flap", "link_down", "l1_switch_failure", "l2_switch_failure", "hbm_uce",
                              "qingtian_failure", "roce_port_down", "collective_timeout_sw"})
"""Faults after which the status quo restarts the job where it is (the job's communicator set-up skips dead ports)."""
REPLACE_NODE = frozenset({"hbm_row_exhaustion", "hbm_overtemp", "aicore_hang", "npu_off_bus", "node_crash",
                          "node_hang", "silent_data_corruption"})
"""Faults that leave a node unusable: the job is resubmitted without it."""
NODE_LEVEL = frozenset({"node_crash", "node_hang"})
RESTARTS_JOB = RESTART_IN_PLACE | REPLACE_NODE
"""Classes whose ladder itself restarts the affected jobs (every other class is watch-only: a ticket at most)."""
REPAIR_BY_TICKET = {
    "link_flap": "diagnosis.component", "link_down": "diagnosis.component", "optical_degradation":
    "diagnosis.component", "l1_switch_failure": "diagnosis.component", "l2_switch_failure": "diagnosis.component",
    "qingtian_failure": "diagnosis.component", "roce_port_down": "diagnosis.component",
    "hbm_row_exhaustion": "npu_of(component)", "hbm_overtemp": "npu_of(component)",
    "npu_off_bus": "npu_of(component)", "aicore_hang": "diagnosis.component",
    "silent_data_corruption": "npu_of(component)", "node_crash": "node_of(component)",
    "node_hang": "node_of(component)",
}
"""Fault class -> the part a replacement ticket names (replaced in the background, control.part_replacement_s)."""


def _step(action: str, target: str, params: dict[str, Any] | None = None) -> Step:
    return Step.model_validate({"action": action, "target": target, "params": params or {}})


def _field(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


class ManualPolicy:
    """A person with a pager (see the module docstring); :class:`~opsbrain.recovery.vendor.VendorDefaultPolicy`
    reuses the repair ladder with machine detection and no people."""

    name = "manual"
    person = True
    """Whether a person does the steps (each counts as a human step)."""

    def __init__(self, sim: Simulation, params: Any = None,
                 records: dict[str, IncidentRecord] | None = None) -> None:
        self.sim = sim
        self.p: Any = params or ManualParams()
        self.records = records if records is not None else {}
        self.exec = Executor(sim)
        self._swapped_out: dict[str, IncidentRecord] = {}  # nodes a restart left out, until they are back
        self._open: dict[str, tuple[IncidentRecord, simpy.Process]] = {}  # responses under way
        self._claimed: set[str] = set()  # watch-only incidents that took on restarting their job
        sim.state.subscribe(self._on_plant_change)

    def _on_plant_change(self, component: str, old: Health, new: Health) -> None:
        """A node a restart swapped out is free again once it and its devices are back in service (repaired,
        rebooted) and it runs no workload: it rejoins the pool of free nodes of its pod. A scheduler sees a
        repaired node as schedulable again (Volcano schedules onto any healthy node); a person uses it too."""
        if new != Health.HEALTHY:
            return
        node = component if component in self._swapped_out else ids.node_of(component)
        rec = self._swapped_out.get(node) if node is not None else None
        if node is None or rec is None or out_of_service(self.sim, node):
            return
        del self._swapped_out[node]
        c = self.sim.control
        if node in c.spares or any(node in w.nodes for w in self.sim.workloads.values()):
            return
        c.spares.append(node)
        rec.follow_up("returned_to_spares", node, self.sim.now, spares=pod_pool(self.sim, node), how="back in service")

    def handle(self, incident_id: str, diagnosis_like: Any) -> simpy.Process:
        if incident_id in self.records:
            raise ValueError(f"incident {incident_id!r} is already being handled")
        cls = str(_field(diagnosis_like, "fault_class") or "unknown")
        comp = _field(diagnosis_like, "component")
        rec = IncidentRecord(incident_id, self.name, False, self.sim.now, {"fault_class": cls, "component": comp})
        self.records[incident_id] = rec
        proc = self.sim.env.process(self._run(rec, cls, comp, diagnosis_like))
        self._open[incident_id] = (rec, proc)
        return proc

    def _context(self, rec: IncidentRecord, comp: str | None, rng: np.random.Generator) -> Context:
        """What the person's steps act on, for the component they believe is at fault."""
        ctx = Context(self.sim, comp)
        ctx.vars["rng"] = rng
        rec.extra["affected_workloads"] = [q or n for n, q in ctx.workloads]
        return ctx

    def _lognormal(self, rng: np.random.Generator, median: float, sigma: float) -> float:
        return float(median * math.exp(sigma * rng.standard_normal()))

    # ---- the timeline ----------------------------------------------------------------------------------------
    def _run(self, rec: IncidentRecord, cls: str, comp: str | None, diagnosis_like: Any) -> Gen:
        """Detect, diagnose (acting on the diagnosis as it stands once the person's triage is done), repair."""
        env = self.sim.env
        rng = self.sim.rng(f"manual/{rec.id}")
        yield env.timeout(0)  # let the fault's own same-instant effects land first
        ctx = self._context(rec, comp, rng)
        detect, via = self._detection(ctx, rng, cls)
        entry = rec.begin("detect", comp or "-", env.now, kind=self.name)
        yield env.timeout(detect)
        rec.end(entry, "succeeded", env.now, via=via)
        rec.extra["detected_at_s"] = env.now
        if via == "person":
            rec.human_steps += 1
        delay = self._triage_s(rng)
        entry = rec.begin("diagnose", comp or "-", env.now, kind=self.name)
        yield env.timeout(delay)
        cls_now = str(_field(diagnosis_like, "fault_class") or "unknown")  # what the evidence shows by now
        comp_now = _field(diagnosis_like, "component")
        if (cls_now, comp_now) != (cls, comp):
            cls, comp = cls_now, comp_now
            rec.diagnosis = {"fault_class": cls, "component": comp}
            ctx = self._context(rec, comp, rng)
        rec.end(entry, "succeeded", env.now, fault_class=cls)
        rec.extra["diagnosed_at_s"] = env.now
        rec.human_steps += int(self.person)
        try:
            ok = yield from self._repair(rec, ctx, cls)
        finally:
            self._open.pop(rec.id, None)
            self._claimed.discard(rec.id)
        self._give_back_unused_spares(rec, ctx)
        rec.outcome = "completed" if ok else "unresolved"
        rec.finished_at_s = env.now
        return rec.as_dict(env.now)

    def _give_back_unused_spares(self, rec: IncidentRecord, ctx: Context) -> None:
        """Spares the response took (for the faulty node, or for dead nodes before a restart) that no workload runs
        on when it ends go back to the pool, as under the auto policy: another incident's restart brought the job
        back (this restart joined it) or the restart failed."""
        c = self.sim.control
        for spare in dict.fromkeys([ctx.spare, *ctx.vars.get("replace_nodes", {}).values()]):
            if spare is None or spare in c.spares or not ctx.node_healthy(spare) or any(
                    spare in w.nodes for w in self.sim.workloads.values()):
                continue
            self.exec.return_spare(spare, rec, how="taken but not used by the response")

    def _triage_s(self, rng: np.random.Generator) -> float:
        """Seconds of a person's log triage across nodes."""
        return self._lognormal(rng, self.p.diagnosis_median_s, self.p.diagnosis_sigma)

    def _retry_delay_s(self, rng: np.random.Generator) -> float:
        """Seconds before a person re-runs a failed command (one draw per incident, its own stream)."""
        return self._lognormal(rng, self.p.retry_delay_median_s, self.p.retry_delay_sigma)

    def _stall_timeouts(self, ctx: Context) -> list[float]:
        """The collective timeouts of the affected workloads that are stalled now (a hang raises no alert)."""
        timeouts = []
        for name, inst in ctx.workloads:
            w = self.sim.workloads[name]
            stalled = (w.kind == "training" and getattr(w, "state", "") == "stalled") or (
                w.kind == "inference" and inst is not None
                and w.instances()[inst]["state"] in ("hung", "running")  # type: ignore[attr-defined]
                and not w.instances()[inst]["up"])  # type: ignore[attr-defined]
            if stalled:
                timeouts.append(float(w.p.hang_timeout_s))  # type: ignore[attr-defined]
        return timeouts

    def _detection(self, ctx: Context, rng: np.random.Generator, cls: str) -> tuple[float, str]:
        """Seconds until the incident is noticed, and by what (``collective_timeout`` or ``person``)."""
        timeouts = self._stall_timeouts(ctx)
        if timeouts:
            notice = self._lognormal(rng, self.p.hang_notice_median_s, self.p.hang_notice_sigma)
            t = min(timeouts)
            return (t, "collective_timeout") if t <= notice else (notice, "person")
        return self._lognormal(rng, self.p.page_response_median_s, self.p.page_response_sigma), "person"

    # ---- repair --------------------------------------------------------------------------------------------
    def _do(self, rec: IncidentRecord, ctx: Context, step: Step,
            before_retry: Callable[[], Gen] | None = None) -> Gen:
        rec.human_steps += int(self._human_step(rec, ctx, step))
        try:
            calls = self.exec.calls(step, ctx, rec)
        except TargetError as exc:
            now = self.sim.now
            rec.log(step.action, step.target_expr or "-", "failed", now, now, kind="step", rung=self.name,
                    reason=str(exc))
            return False
        if not calls:
            return True
        ok, _reason = yield from self.exec.attempts(
            rec, step.action, calls, retries=self.p.retries,
            backoff_s=self._retry_delay_s(self.sim.rng(f"{self.name}-retry/{rec.id}")),
            timeout_s=30 * 86400.0, kind="step", rung=self.name, path=None, before_retry=before_retry)
        if ok and step.action == "swap_spare":
            for node, _call in calls:
                self._swapped_out[node] = rec
        return ok

    def _human_step(self, rec: IncidentRecord, ctx: Context, step: Step) -> bool:
        """Whether the step is a person's: every step under the manual policy, only the field repair of a dead part
        (ticket, replacement) under vendor-default. A replacement that carries out the replacement ticket this
        response opened for that part is the ticket's field repair: one human step, counted with the ticket."""
        if step.action == "replace_part" and step.target_expr is not None:
            with contextlib.suppress(TargetError):
                parts = ctx.resolve(step.target_expr)
                if parts and all(any(f["type"] == "ticket" and f["component"] == p and f.get("kind") == "replace"
                                     for f in rec.follow_ups) for p in parts):
                    return False
        return self.person or step.action in ("ticket", "replace_part")

    def _restart(self, replace: bool) -> Step:
        params: dict[str, Any] = {"source": "persistent", "weights_from": self.p.weights_from}
        if replace:
            params["replace"] = {"node_of(component)": "spare"}
        return _step("restart_job", "affected_workloads", params)

    def _restart_job(self, rec: IncidentRecord, ctx: Context, replace: bool) -> Gen:
        """Restart the affected workloads from the persistent checkpoint, first swapping every other node of an
        affected training job that has a device out of service (:meth:`_swap_dead_nodes`), and again before each
        re-run of a failed restart: a device that died during the restart fails every identical re-run, and the
        rank's error names its node (a person leaves it out; MindCluster reschedules away from it). Nothing is
        restarted when the work runs again by then (another incident's restart brought it back while this one
        replaced or rebooted a part)."""
        if all(ctx.workload_runs(name, inst) for name, inst in ctx.workloads):
            return True
        skip = ctx.node() if replace else None
        yield from self._swap_dead_nodes(rec, ctx, skip=skip)
        return (yield from self._do(rec, ctx, self._restart(replace),
                                    before_retry=lambda: self._swap_dead_nodes(rec, ctx, skip=skip)))

    def _swap_dead_nodes(self, rec: IncidentRecord, ctx: Context, skip: str | None) -> Gen:
        """Take a warm spare of its pod for every node of an affected training job whose host or a compute device
        is out of service as the plant shows it (device plugin, NodeD), besides ``skip`` (the node the restart
        replaces anyway). MindCluster reschedules a job away from nodes marked faulty (Volcano isolates the faulty
        resources, facts.md §3); a person restarting a job leaves out what is dead. The swaps are handed to the
        restart through ``ctx.vars["replace_nodes"]``; a node with no spare left in its pod stays (the restart
        then fails on it, as before, until its repair). Swaps taken before for this restart are kept."""
        swaps: dict[str, str] = dict(ctx.vars.get("replace_nodes", {}))
        for name, _inst in ctx.workloads:
            w = self.sim.workloads[name]
            if w.kind != "training":
                continue
            for node in list(w.nodes):
                if node == skip or node in swaps or not out_of_service(self.sim, node):
                    continue
                sub = Context(self.sim, node)
                sub.vars["rng"] = ctx.vars["rng"]
                ok = yield from self._do(rec, sub, _step("swap_spare", "node_of(component)"))
                if ok and sub.spare is not None:
                    swaps[node] = sub.spare
        ctx.vars["replace_nodes"] = swaps

    def _repair(self, rec: IncidentRecord, ctx: Context, cls: str) -> Gen:
        part = REPAIR_BY_TICKET.get(cls)
        inline_fix = cls in REPLACE_NODE and bool(ctx.workloads) and not ctx.spares_in_pod()
        if part is not None:
            yield from self._do(rec, ctx, _step("ticket", part, {"kind": "replace"}))
            if not inline_fix:  # else the part is rebooted / replaced below, before the restart
                self.sim.env.process(self._replace_later(rec, ctx, part))
        if not ctx.workloads:
            return True
        if all(ctx.workload_runs(name, inst) for name, inst in ctx.workloads):
            return True  # nothing to restart: the work came back by itself (e.g. a collective retry after a flap)
        if cls in RESTART_IN_PLACE:
            return (yield from self._restart_job(rec, ctx, replace=False))
        if cls in REPLACE_NODE:
            if ctx.spares_in_pod():
                ok = yield from self._do(rec, ctx, _step("swap_spare", "node_of(component)"))
                if ok:
                    return (yield from self._restart_job(rec, ctx, replace=True))
            fix = (_step("reboot_node", "node_of(component)") if cls in NODE_LEVEL else
                   _step("replace_part", part or "npu_of(component)"))
            ok = yield from self._do(rec, ctx, fix)
            if not ok and cls in NODE_LEVEL:
                ok = yield from self._repair_not_back(rec, ctx)
            return ok and (yield from self._restart_job(rec, ctx, replace=False))
        return (yield from self._restart_if_down(rec, ctx))

    def _repair_not_back(self, rec: IncidentRecord, ctx: Context) -> Gen:
        """A host the reboots did not bring back goes to a field repair, as under the opsbrain policy
        (:meth:`~opsbrain.recovery.spare_actions.SpareActions.repair_if_not_back`: an inspect ticket,
        ``control.part_replacement_s``; people repair hardware under every policy, vendor-default included); the
        response waits for it and then restarts the job in place, as after an inline replacement. Session 39: before,
        the host stayed dead and the job down for the rest of the run. Whether the host is back."""
        try:
            node = ctx.resolve_one("node_of(component)")
        except TargetError:
            return False
        reboot = self.exec.reboots.get(node)
        if reboot is not None and not reboot.triggered:
            yield reboot  # (a reboot that outlived its step ends first: it may still bring the host back)
        self.exec.repair_if_not_back(node, rec)
        repair = self.exec.field_repair_of(node)
        if repair is not None:
            yield repair
        return not out_of_service(self.sim, node)

    def _restart_if_down(self, rec: IncidentRecord, ctx: Context) -> Gen:
        """A watch-only class whose training job went down anyway (e.g. a connector flap longer than the
        collective retry): the job's failed pods are rescheduled (MindCluster), the failed job pages a person.
        Narrowed to a job that is down: one stalled in a collective is left to its own retry or timeout (watched
        every ``job_watch_s``; a stall the retry rides out, often another link's flap, is no outage), and one that
        another open incident is acting on (its own ladder restarts the job, or it took the restart on) is left to
        that incident: this response waits for it to end and restarts the job only if it is still down. One
        restart for one outage, however many incidents saw it (a person sees the job's ticket already taken;
        MindCluster runs one reschedule per job)."""
        env = self.sim.env
        while True:
            states = {n: getattr(self.sim.workloads[n], "state", "") for n, _i in ctx.workloads
                      if self.sim.workloads[n].kind == "training"}
            stalled = sorted(n for n, s in states.items() if s == "stalled")
            if stalled:
                entry = rec.begin("wait", ",".join(stalled), env.now, kind="step", rung=self.name,
                                  reason="job stalled: its collective retry or timeout decides")
                while any(states[n] == "stalled" for n in stalled):
                    yield env.timeout(self.p.job_watch_s)
                    states = {n: getattr(self.sim.workloads[n], "state", "") for n in states}
                rec.end(entry, "succeeded", env.now)
                continue
            down = {n for n, s in states.items() if s == "down"}
            if not down:
                return True  # watch-only classes: the ticket is the response
            others = self._acting_on(rec, down)
            if not others:
                break
            entry = rec.begin("wait", ",".join(sorted(down)), env.now, kind="step", rung=self.name,
                              for_incidents=sorted(o.id for o, _p in others))
            yield simpy.AllOf(env, [p for _o, p in others])
            rec.end(entry, "succeeded", env.now)
        self._claimed.add(rec.id)
        return (yield from self._restart_job(rec, ctx, replace=False))

    def _acting_on(self, rec: IncidentRecord, jobs: set[str]) -> list[tuple[IncidentRecord, simpy.Process]]:
        """The other open incidents acting on any of ``jobs``: of a class whose ladder restarts the job, or a
        watch-only one that took on its restart."""
        out = []
        for other, proc in self._open.values():
            if other is rec or proc.triggered:
                continue
            cls = str((other.diagnosis or {}).get("fault_class"))
            mine = other.extra.get("affected_workloads", [])
            if (cls in RESTARTS_JOB or other.id in self._claimed) and any(
                    w in jobs or w.split("/", 1)[0] in jobs for w in mine):
                out.append((other, proc))
        return out

    def _replace_later(self, rec: IncidentRecord, ctx: Context, part: str) -> Gen:
        ok = yield from self._do(rec, ctx, _step("replace_part", part))
        if ok:
            with contextlib.suppress(TargetError):
                rec.close_tickets(ctx.resolve_one(part), self.sim.now)


def manual_response(sim: Simulation, incident_id: str, diagnosis_like: Any,
                    params: ManualParams | None = None) -> simpy.Process:
    """The status-quo response to one incident; the process's value is the incident dict (actions included)."""
    return ManualPolicy(sim, params).handle(incident_id, diagnosis_like)
