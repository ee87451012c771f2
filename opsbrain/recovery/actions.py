"""Turn one runbook step into control-API calls (simpy processes whose value is an ``ActionResult``).

Plant actions map one-to-one onto :class:`faultlib.control.ControlAPI`. Workload actions fan out over the
incident's affected workloads: a training job is restarted as a whole, an inference service per instance
(``restart_job`` of an inference service relaunches the instance): :mod:`~opsbrain.recovery.workload_actions`.
Spare actions (``swap_spare``, ``add_spare``, a repair that takes a returning spare) are in
:mod:`~opsbrain.recovery.spare_actions`; the other book-keeping actions (``ticket``, ``wait``, ``notify``, ``none``)
are carried out here. Every call is wrapped (:mod:`~opsbrain.recovery.action_base`) so that a refused command
(unknown target, invalid transition) comes back as a failed result instead of an exception.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from functools import partial
from typing import Any

import simpy

from faultlib.control import ActionResult
from opsbrain.recovery.action_base import Call, SpareWaiter
from opsbrain.recovery.record import IncidentRecord
from opsbrain.recovery.schema import TARGETS, Step
from opsbrain.recovery.spare_actions import SpareActions
from opsbrain.recovery.targets import Context, TargetError
from opsbrain.recovery.workload_actions import WorkloadActions

__all__ = ["Call", "Executor", "SpareWaiter"]


class Executor(WorkloadActions, SpareActions):
    """Runs a runbook step's calls with retries (:meth:`attempts`) and builds them (:meth:`calls`); workload actions
    come from :class:`~opsbrain.recovery.workload_actions.WorkloadActions`, spare actions from
    :class:`~opsbrain.recovery.spare_actions.SpareActions`."""

    def attempts(self, rec: IncidentRecord, action: str, calls: list[Call], *, retries: int, backoff_s: float,
                 timeout_s: float, kind: str, rung: str | None, path: str | None,
                 on_success: Callable[[str, ActionResult], None] | None = None,
                 before_retry: Callable[[], Generator[simpy.Event, Any, Any]] | None = None
                 ) -> Generator[simpy.Event, Any, tuple[bool, str]]:
        """Run the calls in parallel, logging each attempt as it starts and ends; retry the failed ones after
        ``backoff_s`` (unless a result says ``retryable: false``), running ``before_retry`` first (a person looks
        again before re-running a command). A retry is idempotent: a call whose earlier attempt timed out but is
        still under way (or has since succeeded) is joined, not issued again (a reboot that outlived the step's
        timeout is not started a second time); its entry says ``joined_in_flight``. A call stopped as doomed and
        handed to the response that holds the part it needed (``cancelled`` with ``handed_to``: Orchestrator,
        session 38) is neither retried nor a failure. Returns (all succeeded, last failure reason)."""
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
                    if res.status == "cancelled" and res.detail.get("handed_to"):
                        continue  # stopped as doomed; the response that holds the part it needed carries on
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
            return [self._workload_call(a, name, inst, params, ctx, rec) for name, inst in ctx.workloads]
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
            reason = ticket_reason(params.reason, ctx, rec.diagnosis)
            return [(t, partial(self._ticket, t, params.kind, reason, rec)) for t in targets]
        if a == "wait":
            return [("-", lambda: self._wait(params.seconds))]
        if a == "notify":
            return [("-", lambda: self._instant("notify", "-", "succeeded", message=params.message))]
        return [("-", lambda: self._instant("none", "-", "succeeded", reason=params.reason or "watch"))]

    def unsupported(self, step: Step, ctx: Context) -> str | None:
        """Why the step cannot do anything useful for the affected workloads (checked before an approval)."""
        if step.action != "scale_instance" or not ctx.workloads or not all(
                self.sim.workloads[name].kind == "training" for name, _q in ctx.workloads):
            return None
        if self.scale_in_max_share <= 0:
            return "training scale-in is not allowed by the policy (recovery.training_scale_in_max_share = 0)"
        # beyond the policy's share (a job already scaled in, a second node lost; a host being rebooted not counted,
        # review43b): no person is asked to approve a scale-in that would fail at once; the ladder goes on (session 43)
        refused = [self.scale_in_refused(name, step.typed_params(), ctx) for name, _q in ctx.workloads]
        return refused[0] if all(refused) else None

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


TRIGGER_EVIDENCE = 3
"""How many of the diagnosis' evidence items (strongest first) a ticket's ``{trigger}`` quotes: the codes that decided
the class are among the first few, and a ticket stays one readable line."""


def ticket_reason(template: str, ctx: Context, diagnosis: dict[str, Any] | None) -> str:
    """A ticket's text with its fields (:data:`~opsbrain.recovery.schema.TICKET_FIELDS`) filled from what the
    response knows when it opens the ticket: the rows its NPU has isolated, and the diagnosis it acted on with the
    strongest evidence (what triggered it). ``?`` for a fact the incident does not have."""
    if "{" not in template:
        return template
    values: dict[str, str] = {}
    try:
        values["isolated_rows"] = str(ctx.isolated_rows())
    except TargetError:
        values["isolated_rows"] = "?"
    d = diagnosis or {}
    evidence = [str(e) for e in d.get("evidence") or []]
    trigger = f"diagnosis {d.get('fault_class', '?')}"
    if isinstance(d.get("confidence"), int | float):
        trigger += f" ({float(d['confidence']):.2f})"
    values["trigger"] = trigger + (" from " + "; ".join(evidence[:TRIGGER_EVIDENCE]) if evidence else "")
    return template.format_map(values)
