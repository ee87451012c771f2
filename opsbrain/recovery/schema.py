"""The runbook file format as typed models, and the fixed vocabularies it draws on.

A runbook (``runbooks/rb-<name>.yaml``) says what to do for one or more fault classes: the main ``steps`` (at an
entry ``rung`` of the recovery ladder), ``rollback`` steps that undo a half-done rung, ``escalation`` rungs tried
in order when a step fails, ``followup`` steps run in the background once the incident is handled (repairs,
returning a node to the spare pool), and a ``repeat`` rule (MindCluster: the same code twice in 24 h => isolate).

Each step names an ``action`` from :data:`ACTIONS` (each maps onto the plant's control API or an orchestrator
book-keeping action) and a ``target`` expression from :data:`TARGETS`, resolved at run time from the diagnosis and
the workloads' placement. :func:`problems` checks what the field types cannot (target fits the action, params,
rung order) and returns YAML paths such as ``steps[2].target``.
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from faultlib.faults.catalog import CATALOG, HANDLING_LEVELS
from opsbrain.verdict import WORKLOAD_DOWN_CLASS

UNKNOWN_CLASS = "unknown"
WORKLOAD_STUCK = WORKLOAD_DOWN_CLASS
"""Not a fault class: the progress watchdog's verdict that a workload makes no progress and nothing recovers it
(:mod:`opsbrain.detection.watchdog`); its runbook restarts the workload, the cause unknown."""
LINK_FAULT = "link_fault"
"""Not a fault class: a diagnosis that abstained while the link classes it ranks on one link together pass the
recovery bar (the part is known, which link fault is not); its runbook does what every link runbook does first."""
OBSERVED_ONLY_CLASSES = ("npu_oom", "framework_error", "config_error", "driver_firmware_error")
"""Knowledge-base classes with no fault kind in the plant: real logs show them (issue 14), the twin does not
inject them, so their runbooks only hand the evidence to a person."""

RUNGS: tuple[str, ...] = ("operator_retry", "online_recovery", "process_reschedule", "job_reschedule", "scale_in",
                          "wait_for_repair")
"""The recovery ladder, cheapest first (facts.md §3); after the last rung the incident goes to a human."""

TARGETS: dict[str, str] = {
    "diagnosis.component": "component",
    "component": "component",
    "node_of(component)": "node",
    "npu_of(component)": "npu",
    "hbm_of(component)": "hbm",
    "pod_of(component)": "pod",
    "nodes_of_link": "nodes",
    "affected_nodes": "nodes",
    "affected_workloads": "workloads",
    "spare": "node",
}
"""Target expression -> what it resolves to (see :mod:`opsbrain.recovery.targets`)."""

_ANY_PART = frozenset({"component", "node", "npu", "hbm"})


@dataclass(frozen=True)
class ActionDef:
    """One action of the vocabulary: accepted target types, default target, params model, whether it isolates."""

    targets: frozenset[str]
    default_target: str | None
    params: type[BaseModel]
    isolating: bool
    summary: str


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class NoParams(_Params):
    pass


class RowsParams(_Params):
    rows: int = Field(1, ge=1, le=64, description="HBM rows to isolate")


class RestartJobParams(_Params):
    source: Literal["memory", "persistent"] = "memory"
    scope: Literal["job", "process"] = Field("job", description="job: every rank relaunches; process: only the "
                                             "replaced node's ranks start (on a warm standby), the others re-form "
                                             "the communicator in place (process-level reschedule)")
    replace: dict[str, str] = Field(default_factory=dict, description="node expression -> node expression")
    weights_from: Literal["ems", "obs"] = "ems"


class RestartInstanceParams(_Params):
    replace: dict[str, str] = Field(default_factory=dict, description="node expression -> node expression")
    weights_from: Literal["ems", "obs"] = "ems"


class RepairParams(_Params):
    take_returning_spare: bool = Field(
        False, description="while this repair is under way, take the first warm spare that returns to the node's "
        "pod instead (binds the target `spare`; the repair goes on in the background and the node rejoins the pool "
        "once back); the step then ends at once")


class ScaleParams(_Params):
    drop: str = Field("node_of(component)", description="node expression: the node(s) the instance gives up")


TICKET_FIELDS = ("isolated_rows", "trigger")
"""What a ticket's ``reason`` may name in braces, filled when it is opened (opsbrain.recovery.actions.ticket_reason):
``{isolated_rows}`` the HBM rows isolated on the incident's NPU, ``{trigger}`` the diagnosis acted on and its first
evidence."""


class TicketParams(_Params):
    kind: Literal["replace", "inspect", "clean", "software", "page"] = "replace"
    reason: str = Field("", description="the ticket's text; may name " + ", ".join(f"{{{f}}}" for f in TICKET_FIELDS)
                        + ", filled with the facts when it is opened")

    @field_validator("reason")
    @classmethod
    def _known_fields(cls, v: str) -> str:
        try:
            names = {name for _lit, name, _spec, _conv in string.Formatter().parse(v) if name is not None}
        except ValueError as exc:
            raise ValueError(f"reason {v!r}: {exc} (a literal brace is written twice)") from None
        unknown = sorted(names - set(TICKET_FIELDS))
        if unknown:
            raise ValueError(f"reason names {{{unknown[0]}}}; it may name only "
                             + ", ".join(f"{{{f}}}" for f in TICKET_FIELDS))
        return v


class WaitParams(_Params):
    seconds: float = Field(gt=0)


class NotifyParams(_Params):
    message: str = ""


class NoneParams(_Params):
    reason: str = ""


ACTIONS: dict[str, ActionDef] = {
    "isolate_link": ActionDef(frozenset({"component"}), "diagnosis.component", NoParams, True,
                              "admin-down an L1-L2 optical link"),
    "restore_link": ActionDef(frozenset({"component"}), "diagnosis.component", NoParams, False,
                              "admin-up an isolated link"),
    "drain_link": ActionDef(frozenset({"component"}), "diagnosis.component", NoParams, False,
                            "route around an in-service link (flap damping; its port keeps reporting)"),
    "undrain_link": ActionDef(frozenset({"component"}), "diagnosis.component", NoParams, False,
                              "let traffic back onto a drained link if it is usable"),
    "reroute": ActionDef(frozenset({"nodes", "node"}), "affected_nodes", NoParams, False,
                         "re-route the UB traffic of nodes around unusable uplinks"),
    "isolate_hbm_rows": ActionDef(frozenset({"hbm", "component"}), "hbm_of(component)", RowsParams, False,
                                  "isolate (remap) faulty HBM rows"),
    "reset_chip": ActionDef(frozenset({"npu"}), "npu_of(component)", RepairParams, False, "reset an NPU"),
    "isolate": ActionDef(_ANY_PART, "diagnosis.component", NoParams, True,
                         "take a chip, node, switch or port out of service"),
    "replace_part": ActionDef(_ANY_PART, "diagnosis.component", RepairParams, False,
                              "field replacement of a part (hours)"),
    "cordon": ActionDef(frozenset({"node"}), "node_of(component)", NoParams, True, "no new work on a node"),
    "reboot_node": ActionDef(frozenset({"node"}), "node_of(component)", RepairParams, False, "reboot a node"),
    "restart_process": ActionDef(frozenset({"workloads"}), "affected_workloads", NoParams, False,
                                 "process-level online recovery in place"),
    "restart_job": ActionDef(frozenset({"workloads"}), "affected_workloads", RestartJobParams, False,
                             "restart a training job (inference: its instance) from a checkpoint"),
    "restart_instance": ActionDef(frozenset({"workloads"}), "affected_workloads", RestartInstanceParams, False,
                                  "relaunch an inference instance (training: restart the job)"),
    "scale_instance": ActionDef(frozenset({"workloads"}), "affected_workloads", ScaleParams, False,
                                "scale an inference instance in onto its remaining nodes"),
    "swap_spare": ActionDef(frozenset({"node"}), "node_of(component)", NoParams, False,
                            "take a warm spare node (same pod) for the node; binds the target `spare`"),
    "add_spare": ActionDef(frozenset({"node"}), "node_of(component)", NoParams, False,
                           "return a repaired node to the spare pool"),
    "ticket": ActionDef(_ANY_PART | {"pod"}, "diagnosis.component", TicketParams, False,
                        "open a ticket (replacement, inspection, page)"),
    "wait": ActionDef(frozenset(), None, WaitParams, False, "wait a number of seconds"),
    "notify": ActionDef(frozenset(), None, NotifyParams, False, "send a notification"),
    "none": ActionDef(frozenset(), None, NoneParams, False, "no action (watch)"),
}

_NODE_EXPRS = sorted(k for k, v in TARGETS.items() if v == "node")


# ---- the file format ----------------------------------------------------------------------------------
class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Conditions(Strict):
    """Guards: every given condition must hold (evaluated when the step is reached)."""

    has_component: bool | None = Field(None, description="the diagnosis names a component")
    affects_workload: bool | None = Field(None, description="some workload runs where the component is")
    workload_kind: Literal["training", "inference"] | None = Field(None, description="an affected workload's kind")
    component_kind: list[str] | None = Field(None, description="topology kind of the component (link, hbm, ...)")
    spares_available: bool | None = Field(None, description="a warm spare is left in the component's pod")
    spare_taken: bool | None = Field(None, description="this response holds a warm spare (taken by swap_spare or "
                                     "by a repair step's take_returning_spare)")
    node_healthy: bool | None = Field(None, description="the component's node and all its devices are up")
    isolated_rows_at_least: int | None = Field(None, ge=1, description="HBM rows isolated so far on the NPU")
    link_down: bool | None = Field(None, description="the diagnosed link is down right now (its port reports no "
                                   "light: visible to an operator through the switch port state)")
    workload_down: bool | None = Field(None, description="an affected training job is down now (crashed, e.g. "
                                       "its HCCL re-executions ran out at MaxCnt: what the scheduler shows)")
    workload_stopped: bool | None = Field(None, description="an affected workload does no work now: a training "
                                          "job stalled, down or restarting (not running nor writing a checkpoint), "
                                          "an inference instance not up (what the scheduler and the dashboard "
                                          "show); false when every affected workload runs")
    acted: bool | None = Field(None, description="an earlier step of this response acted on the plant (was carried "
                               "out, not skipped by its condition; tickets, pages and waits do not count)")
    link_downs_at_least: int | None = Field(None, ge=1, description="the diagnosed link went down at least this "
                                            "often in 24 h (the operator's link records)")
    link_downs_below: int | None = Field(None, ge=1, description="the diagnosed link went down fewer times than "
                                         "this in 24 h (the operator's link records)")


def conditions_text(when: Any) -> str:
    """A step's guard as a person reads it, in the runbook's own terms (``runbooks show``): ``has_component``, ``not
    spare_taken``, ``isolated_rows_at_least=64``, ``component_kind=link|hbm``, joined by ``and`` (not a dict
    repr); a value that is not a mapping as its text."""
    if not isinstance(when, dict):
        return str(when)
    parts = []
    for k, v in when.items():
        if v is None:
            continue
        if isinstance(v, bool):
            parts.append(k if v else f"not {k}")
        elif isinstance(v, (list, tuple)):
            parts.append(f"{k}={'|'.join(str(x) for x in v)}")
        else:
            parts.append(f"{k}={v}")
    return " and ".join(parts)


class Step(Strict):
    name: str = ""
    action: str
    target: str | None = None
    params: dict[str, Any] = Field(default_factory=dict)
    timeout_s: float | None = Field(None, gt=0)
    retries: int | None = Field(None, ge=0, le=10)
    when: Conditions | None = None
    approval: Literal["required", "none"] = "none"
    on_failure: Literal["escalate", "continue", "stop"] = "escalate"
    wait: bool = Field(True, description="false: start the action and go on with the next steps; the rung waits "
                       "for it at its end, and its failure still counts (per on_failure)")

    @field_validator("action")
    @classmethod
    def _known_action(cls, v: str) -> str:
        if v not in ACTIONS:
            raise ValueError(f"unknown action {v!r} (known: {', '.join(ACTIONS)})")
        return v

    @field_validator("target")
    @classmethod
    def _known_target(cls, v: str | None) -> str | None:
        if v is not None and v not in TARGETS:
            raise ValueError(f"unknown target expression {v!r} (known: {', '.join(TARGETS)})")
        return v

    @property
    def target_expr(self) -> str | None:
        return self.target if self.target is not None else ACTIONS[self.action].default_target

    @property
    def isolating(self) -> bool:
        return ACTIONS[self.action].isolating

    def typed_params(self) -> Any:
        """The params validated by the action's params model (defaults filled in)."""
        return ACTIONS[self.action].params.model_validate(self.params)


class Rung(Strict):
    rung: str
    steps: list[Step] = Field(min_length=1)
    rollback: list[Step] = Field(default_factory=list)

    @field_validator("rung")
    @classmethod
    def _known_rung(cls, v: str) -> str:
        if v not in RUNGS:
            raise ValueError(f"unknown rung {v!r} (the ladder: {', '.join(RUNGS)})")
        return v


class Repeat(Strict):
    """``count`` incidents of this class on the same component within ``within_s`` => use runbook ``then``."""

    count: int = Field(ge=2)
    within_s: float | None = Field(None, gt=0, description="default: recovery.repeat_window_s")
    then: str
    source: str = Field(min_length=1, description="where the rule comes from")


class Runbook(Strict):
    id: str = Field(pattern=r"^rb-[a-z0-9][a-z0-9-]*$")
    title: str = Field(min_length=1)
    applies_to: list[str] = Field(min_length=1)
    level: str | None = None
    description: str = ""
    source: str = ""
    priority: int = Field(100, description="lower is tried first among runbooks of the same class")
    when: Conditions | None = None
    rung: str = "operator_retry"
    steps: list[Step] = Field(min_length=1)
    rollback: list[Step] = Field(default_factory=list)
    escalation: list[Rung] = Field(default_factory=list)
    followup: list[Step] = Field(default_factory=list)
    repeat: Repeat | None = None

    @field_validator("applies_to")
    @classmethod
    def _known_classes(cls, v: list[str]) -> list[str]:
        for c in v:
            if c not in CATALOG and c not in (UNKNOWN_CLASS, WORKLOAD_STUCK, LINK_FAULT, *OBSERVED_ONLY_CLASSES):
                raise ValueError(f"unknown fault class {c!r} (known: {', '.join(sorted(CATALOG))}, {UNKNOWN_CLASS}, "
                                 f"{WORKLOAD_STUCK}, {LINK_FAULT}, {', '.join(OBSERVED_ONLY_CLASSES)})")
        return v

    @field_validator("level")
    @classmethod
    def _known_level(cls, v: str | None) -> str | None:
        if v is not None and v not in HANDLING_LEVELS:
            raise ValueError(f"unknown handling level {v!r} (known: {', '.join(HANDLING_LEVELS)})")
        return v

    @field_validator("rung")
    @classmethod
    def _known_rung(cls, v: str) -> str:
        return Rung._known_rung(v)

    def ladder(self) -> list[tuple[str, list[Step], list[Step]]]:
        """(rung, steps, rollback) in the order they are tried."""
        return [(self.rung, list(self.steps), list(self.rollback))] + [
            (r.rung, list(r.steps), list(r.rollback)) for r in self.escalation]


# ---- checks the field types cannot make ---------------------------------------------------------------------
def step_problems(step: Step, path: str) -> list[tuple[str, str]]:
    """(path, reason) for a step whose target does not fit its action or whose params are wrong."""
    out: list[tuple[str, str]] = []
    adef = ACTIONS[step.action]
    expr = step.target_expr
    if step.target is not None and not adef.targets:
        out.append((f"{path}.target", f"action {step.action!r} takes no target"))
    elif expr is not None and TARGETS[expr] not in adef.targets:
        ok = sorted(k for k, v in TARGETS.items() if v in adef.targets)
        out.append((f"{path}.target", f"action {step.action!r} cannot act on {expr!r} (a {TARGETS[expr]}); "
                                      f"use one of: {', '.join(ok)}"))
    try:
        params = adef.params.model_validate(step.params)
    except ValidationError as exc:
        for err in exc.errors():
            loc = ".".join(str(x) for x in err["loc"])
            msg = "unknown parameter" if err["type"] == "extra_forbidden" else str(err["msg"])
            out.append((f"{path}.params" + (f".{loc}" if loc else ""), msg))
        return out
    for key, value in getattr(params, "replace", {}).items():
        for side, expr_ in (("key", key), ("value", value)):
            if TARGETS.get(expr_) != "node":
                out.append((f"{path}.params.replace", f"{side} {expr_!r} is not a node expression "
                                                      f"(use one of: {', '.join(_NODE_EXPRS)})"))
    drop = getattr(params, "drop", None)
    if drop is not None and TARGETS.get(drop) not in ("node", "nodes"):
        out.append((f"{path}.params.drop", f"{drop!r} is not a node expression"))
    return out


def problems(rb: Runbook) -> list[tuple[str, str]]:
    """Every (YAML path, reason) the field types could not catch, in file order."""
    out: list[tuple[str, str]] = []

    def steps(items: list[Step], prefix: str) -> None:
        for i, s in enumerate(items):
            out.extend(step_problems(s, f"{prefix}[{i}]"))

    steps(rb.steps, "steps")
    steps(rb.rollback, "rollback")
    last = RUNGS.index(rb.rung)
    for k, r in enumerate(rb.escalation):
        pos = RUNGS.index(r.rung)
        if pos <= last:
            out.append((f"escalation[{k}].rung", f"rung {r.rung!r} must come after {RUNGS[last]!r} on the ladder "
                                                 f"({' -> '.join(RUNGS)})"))
        last = max(last, pos)
        steps(r.steps, f"escalation[{k}].steps")
        steps(r.rollback, f"escalation[{k}].rollback")
    steps(rb.followup, "followup")
    for i, s in enumerate(rb.followup):
        if s.approval == "required":
            out.append((f"followup[{i}].approval", "follow-up steps run unattended; they cannot need approval"))
    if rb.repeat is not None and rb.repeat.then == rb.id:
        out.append(("repeat.then", "a runbook cannot escalate to itself"))
    return out
