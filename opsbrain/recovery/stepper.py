"""Running a runbook's steps for the recovery orchestrator (split from :mod:`opsbrain.recovery.orchestrator`): each
step's condition, its target, its attempts with retries and rollback under the guardrails, and what a success leaves
behind (nodes taken out, replacement tickets). A mixin: :class:`opsbrain.recovery.orchestrator.Orchestrator` owns the
state it reads."""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import simpy

from faultlib import ids
from faultlib.control import ActionResult
from opsbrain.recovery.actions import Call, Executor
from opsbrain.recovery.guardrails import Guardrails
from opsbrain.recovery.params import RecoveryParams
from opsbrain.recovery.record import IncidentRecord
from opsbrain.recovery.scaleout import ScaleOut
from opsbrain.recovery.schema import TARGETS, Step
from opsbrain.recovery.targets import Context, TargetError, conditions_hold

if TYPE_CHECKING:
    from faultlib.engine import Simulation

Gen = Generator[simpy.Event, Any, Any]


@dataclass
class StepsResult:
    status: Literal["ok", "failed", "held", "stopped", "spare"]  # spare: one came free, resume (session 41)
    reason: str = ""


WATCH_ACTIONS = frozenset({"none", "notify", "wait", "ticket"})
"""Actions that only watch or tell: they do not act on the plant."""
ACTING_KINDS = ("step", "retry", "rollback", "approval")  # a response waiting for a person's approval is busy


class StepRunner:
    """The step runner of a response (mixed into the orchestrator, which sets these attributes)."""

    sim: Simulation
    dry_run: bool
    exec: Executor
    guardrails: Guardrails
    p: RecoveryParams
    records: dict[str, IncidentRecord]
    scale_out: ScaleOut
    scope: Any
    _taken_out: dict[str, IncidentRecord]

    # ---- steps ---------------------------------------------------------------------------------------------
    def _steps(self, rec: IncidentRecord, ctx: Context, steps: list[Step], rung: str, prefix: str,
               kind: str = "step", start: int = 0) -> Gen:
        background: list[tuple[Step, simpy.Process]] = []
        result = StepsResult("ok")
        for i, step in enumerate(steps[start:], start):
            res = yield from self._step(rec, ctx, step, rung, f"{prefix}[{i}]", kind, background)
            if (step.action == "swap_spare" and res.status == "failed" and "wants_spare" in ctx.vars
                    and "resume" not in ctx.vars and kind == "step"):
                ctx.vars["resume"] = (rung, steps, prefix, i)  # where a spare that comes free resumes (session 41)
            if res.status == "failed" and step.on_failure == "continue":
                continue
            if res.status == "failed" and step.on_failure == "stop":
                result = StepsResult("stopped", res.reason)
                break
            if res.status != "ok":
                result = res
                break
        if background:
            yield self.sim.env.all_of([proc for _s, proc in background])
            for bstep, proc in background:  # a step run alongside still decides the rung's fate
                bres: StepsResult = proc.value  # type: ignore[assignment]  # a finished process
                if result.status == "ok" and bres.status == "failed" and bstep.on_failure == "escalate":
                    result = bres
        return result

    def _step(self, rec: IncidentRecord, ctx: Context, step: Step, rung: str, path: str, kind: str,
              background: list[tuple[Step, simpy.Process]]) -> Gen:
        env, now = self.sim.env, self.sim.now
        ok, why = conditions_hold(step.when, ctx)
        if not ok:
            rec.log(step.action, "-", "skipped", now, now, kind=kind, rung=rung, step=path, reason=f"condition: {why}")
            ctx.skipped.append(f"{path} {step.action} skipped: {why}")
            return StepsResult("ok")
        expr = step.target_expr
        try:
            if expr is not None and TARGETS[expr] == "workloads" and not ctx.workloads:
                rec.log(step.action, "-", "skipped", now, now, kind=kind, rung=rung, step=path,
                        reason="no affected workload")
                ctx.skipped.append(f"{path} {step.action} skipped: no affected workload")
                return StepsResult("ok")
            targets = ctx.resolve(expr) if expr is not None else ["-"]
            calls = self.exec.calls(step, ctx, rec) if not self.dry_run else []
        except TargetError as exc:
            rec.log(step.action, expr or "-", "failed", now, now, kind=kind, rung=rung, step=path, reason=str(exc))
            return StepsResult("failed", f"{path}: {exc}")
        label = ",".join(targets) if len(targets) <= 3 else f"{len(targets)} targets"
        out_of_scope = self.scope.refuse(rec.id, step.action, targets) if self.scope is not None else None
        if out_of_scope:  # tenant scope guard: no action on another tenant's components
            rec.log("guardrail", label, "skipped", now, now, kind="guardrail", rung=rung, step=path, rule="tenant",
                    refused=step.action, reason=out_of_scope)
            return StepsResult("held", out_of_scope)
        cannot = self.exec.unsupported(step, ctx)
        if cannot:
            rec.log(step.action, label, "failed", now, now, kind=kind, rung=rung, step=path, reason=cannot)
            return StepsResult("failed", f"{path} {step.action}: {cannot}")
        if step.isolating:
            allowed: list[str] = []
            for t in targets:
                d = self.guardrails.check_isolation(self.sim, step.action, t, now, commit=not self.dry_run)
                if d.allowed:
                    allowed.append(t)
                    continue
                rec.log("guardrail", t, "skipped", now, now, kind="guardrail", rung=rung, step=path,
                        rule=d.rule, refused=step.action, reason=d.reason, **d.detail)
                if not self.dry_run:
                    for a in allowed:
                        self.guardrails.release(a)
                    return StepsResult("held", d.reason)
        if step.approval == "required":
            if self.dry_run:
                rec.log("approval", label, "skipped", now, now, kind="approval", rung=rung, step=path,
                        reason="approval required: refused in dry-run")
            else:
                # the same step asked again (session 43): its request, whose wait a spare cut short, is still with the
                # on-call; the answer comes when the delay drawn at the first ask ends, not after a fresh one
                asked: dict[str, tuple[float, float]] = ctx.vars.setdefault("approval_asked", {})
                again = asked.get(path)
                delay = (max(0.0, again[1] - now) if again is not None
                         else self.guardrails.approval_delay(ctx.vars["rng"]))
                # a rung's step only: a rollback's or a follow-up's has no rung to resume (review41b)
                want = (ctx.vars.get("wants_spare") if "resume" in ctx.vars and ctx.spare is None and kind == "step"
                        else None)
                said: dict[str, Any] = {"waiting_for_spare_in": want[0]} if want else {}
                if again is not None:  # its answer may have come while the resumed rungs ran (review43b)
                    where = (f"is still with the on-call, its answer due at t={again[1]:.0f} s" if again[1] > now
                             else f"was answered at t={again[1]:.0f} s, while the resumed rungs ran")
                    said.update(asked_at_s=round(again[0], 3), reason=(
                        f"asked again: the request of t={again[0]:.0f} s (its wait cut short by a spare) {where}"))
                entry = rec.begin("approval", label, now, kind="approval", rung=rung, step=path, **said)
                if want is not None:  # session 41 (scen41): no spare was free; one that comes free first is taken
                    spare = yield from self.exec.spare_or(env.timeout(delay), want[0], want[1], ctx, rec)
                    if spare is not None:
                        why = (f"a warm spare of {want[0]} came free ({spare}) before the approval: taken, and the "
                               f"rung that wanted one ({ctx.vars['resume'][0]}) resumes; the request stays with the "
                               "on-call should the ladder ask it again")
                        asked.setdefault(path, (now, now + delay))
                        rec.end(entry, "cancelled", env.now, spare=spare, reason=why,
                                answer_due_s=round(asked[path][1], 3))
                        if step.isolating:  # the isolations reserved for the step are not carried out (review41b)
                            for t in targets:
                                self.guardrails.release(t)
                        return StepsResult("spare", why)
                else:
                    yield env.timeout(delay)
                rec.end(entry, "succeeded", env.now, waited_s=round(delay, 3), approver="on-call (modelled delay)")
                asked.pop(path, None)  # answered: a later ask of the step is a new request (review43b)
                rec.human_steps += 1
        ctx.acted = ctx.acted or step.action not in WATCH_ACTIONS  # carried out (or planned), pass or fail
        if self.dry_run:
            rec.log(step.action, label, "skipped", env.now, env.now, kind="plan", rung=rung, step=path,
                    dry_run=True, params=dict(step.params))
            return StepsResult("ok")
        proc = env.process(self._attempts(rec, step, calls, rung, path, kind))
        if not step.wait:
            background.append((step, proc))
            return StepsResult("ok")
        res = yield proc
        return res

    def _attempts(self, rec: IncidentRecord, step: Step, calls: list[Call], rung: str, path: str,
                  kind: str) -> Gen:
        ok, reason = yield from self.exec.attempts(
            rec, step.action, calls, retries=step.retries if step.retries is not None else self.p.step_retries,
            backoff_s=self.p.retry_backoff_s, timeout_s=step.timeout_s or self.p.step_timeout_s, kind=kind,
            rung=rung, path=path, on_success=lambda target, res: self._after_success(rec, step.action, target, res))
        if step.isolating:
            for label, _f in calls:
                self.guardrails.release(label)
        if not ok and step.action == "reboot_node":
            for label, _f in calls:  # a host its reboots did not bring back goes to a field repair (session 38)
                self.exec.repair_once_rebooted(label, rec)
        if step.target_expr is not None and TARGETS[step.target_expr] == "workloads" and not self.dry_run:
            # failed or not, the step may have left a training job below its launch size (a scale-in whose restart
            # failed still placed the job on fewer nodes): it scales back out once a spare is free
            self.scale_out.note_below_launch(list(rec.extra.get("affected_workloads", [])), rec)
        return StepsResult("ok") if ok else StepsResult("failed", f"{path} {step.action} failed: {reason}")

    def _after_success(self, rec: IncidentRecord, action: str, target: str, res: ActionResult) -> None:
        now = self.sim.now
        if self.scope is not None:
            self.scope.note(rec.id, action, target, res)
        if action in ("isolate", "isolate_link", "cordon"):
            rec.follow_up("isolated", target, now, action=action)
            kind = self.sim.topology.kind.get(target)
            if kind == "node":
                self._taken_out[target] = rec
            elif kind in ("npu", "die", "hbm") and (node := ids.node_of(target)) is not None:
                self._taken_out.setdefault(node, rec)  # the node leaves its jobs; back once the chip is
        elif (action == "scale_instance" and not self.dry_run
              and getattr(self.sim.workloads.get(target), "kind", None) == "training"):
            self.scale_out.note_scale_in(target, rec)  # back out once a node returns to the pool
        elif action == "replace_part":
            for r in self.records.values():
                r.close_tickets(target, now)
        elif action == "isolate_hbm_rows" and res.detail.get("replace"):
            rec.follow_up("ticket", target, now, kind="replace", opened_at_s=now, closed_at_s=None,
                          reason=f"{res.detail.get('isolated_rows')} HBM rows isolated: replace the NPU")
