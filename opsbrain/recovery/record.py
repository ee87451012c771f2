"""The per-incident action log: always complete, plain dicts, ready for the run journal.

An entry is written when an action *starts* (status ``skipped`` with ``detail.in_flight = true``) and completed
in place when it ends, so a run stopped at any moment still lists every action taken or under way. Entry keys:
``action, target, status (succeeded|failed|skipped|cancelled), start_s, end_s, kind, rung, step, attempt, detail``
(``cancelled``: stopped while under way, ``detail.reason`` says why; session 38);
``kind`` is one of ``step, retry, rollback, escalation, guardrail, approval, followup, plan``.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

STATUSES = ("succeeded", "failed", "skipped", "cancelled")


@dataclass
class IncidentRecord:
    id: str
    policy: str
    dry_run: bool
    started_at_s: float
    diagnosis: dict[str, Any] | None
    runbook: str | None = None
    outcome: str = "in_progress"
    rung: str | None = None
    finished_at_s: float | None = None
    human_steps: int = 0
    actions: list[dict[str, Any]] = field(default_factory=list)
    follow_ups: list[dict[str, Any]] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    # ---- writing ------------------------------------------------------------------------------------------
    def begin(self, action: str, target: str, start_s: float, kind: str = "step", rung: str | None = None,
              step: str | None = None, attempt: int = 1, **detail: Any) -> dict[str, Any]:
        """An action under way; complete it with :meth:`end`."""
        entry = {"action": action, "target": target, "status": "skipped", "start_s": float(start_s),
                 "end_s": None, "kind": kind, "rung": rung, "step": step, "attempt": attempt,
                 "detail": {**detail, "in_flight": True}}
        self.actions.append(entry)
        return entry

    @staticmethod
    def end(entry: dict[str, Any], status: str, end_s: float, **detail: Any) -> dict[str, Any]:
        if status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, got {status!r}")
        entry["status"] = status
        entry["end_s"] = float(end_s)
        entry["detail"].pop("in_flight", None)
        entry["detail"].update(detail)
        return entry

    def log(self, action: str, target: str, status: str, start_s: float, end_s: float, kind: str = "step",
            rung: str | None = None, step: str | None = None, attempt: int = 1, **detail: Any) -> dict[str, Any]:
        """A finished entry (decisions, skipped steps, instant book-keeping actions)."""
        return self.end(self.begin(action, target, start_s, kind, rung, step, attempt), status, end_s, **detail)

    def follow_up(self, type_: str, component: str | None, at_s: float, **detail: Any) -> dict[str, Any]:
        item = {"type": type_, "component": component, "at_s": float(at_s), **detail}
        self.follow_ups.append(item)
        return item

    def page(self, component: str | None, at_s: float, reason: str) -> dict[str, Any]:
        """A person is paged about ``component``: a human step and a ``page`` follow-up."""
        self.human_steps += 1
        return self.follow_up("page", component, at_s, reason=reason)

    def close_tickets(self, component: str, at_s: float) -> None:
        for f in self.follow_ups:
            if f["type"] == "ticket" and f["component"] == component and f.get("closed_at_s") is None:
                f["closed_at_s"] = float(at_s)

    # ---- reading ------------------------------------------------------------------------------------------
    def actions_view(self, now: float) -> list[dict[str, Any]]:
        """A copy of the log; actions still under way end ``now`` (status ``skipped``, ``in_flight``)."""
        out = copy.deepcopy(self.actions)
        for e in out:
            if e["end_s"] is None:
                e["end_s"] = float(now)
        return out

    def as_dict(self, now: float) -> dict[str, Any]:
        return {"id": self.id, "policy": self.policy, "dry_run": self.dry_run, "diagnosis": self.diagnosis,
                "runbook": self.runbook, "outcome": self.outcome, "rung": self.rung,
                "started_at_s": self.started_at_s, "finished_at_s": self.finished_at_s,
                "human_steps": self.human_steps, "handled_without_human": self.human_steps == 0,
                "actions": self.actions_view(now), "follow_ups": copy.deepcopy(self.follow_ups),
                **copy.deepcopy(self.extra)}
