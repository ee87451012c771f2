"""What the watch mode would do about an incident: its runbook's first rung as a dry run (advisory), and the
plug-in actuator interface that may carry it out.

On a real cluster opsbrain only advises: :func:`advise` resolves the runbook's steps against the diagnosed
component and shows each as the operator would do it (a command where a documented one exists, otherwise the
action in words). Nothing is executed unless an :class:`Actuator` is configured; the one shipped implementation,
:class:`TwinActuator`, drives the twin's control API (``faultlib.control.ControlAPI``), so a watch of the twin's
logs can act on the twin. Steps whose target cannot be resolved from the logs (the jobs on a node) stay advisory.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from opsbrain.ingest.where import node_of, npu_of, user_terms

if TYPE_CHECKING:
    from faultlib.engine import Simulation


@dataclass(frozen=True)
class AdvisedStep:
    """One runbook step, resolved against the incident."""

    name: str
    action: str
    target: str | None
    """The component it acts on (None: not known from the logs, e.g. the affected workloads)."""
    params: dict[str, Any] = field(default_factory=dict)
    command: str | None = None
    """What an operator would type, where the tool's documented command exists; else None."""
    what: str = ""
    when: dict[str, Any] = field(default_factory=dict)
    """The runbook's condition for the step (empty: always)."""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class Actuator(Protocol):
    """Carries out advised steps. Implementations must act only on targets they know and return, per step, a
    dict with at least ``status`` (``succeeded`` / ``failed`` / ``skipped``) and ``detail``."""

    name: str

    def execute(self, step: AdvisedStep) -> dict[str, Any]:
        ...


def _target(expr: str | None, component: str | None) -> str | None:
    if component is None:
        return None
    if expr in (None, "component", "diagnosis.component"):
        return component
    if expr == "npu_of(component)":
        return npu_of(component) or component
    if expr == "hbm_of(component)":
        npu = npu_of(component)
        return f"{npu}/hbm" if npu else None
    if expr == "node_of(component)":
        return node_of(component)
    if expr == "pod_of(component)":
        m = re.match(r"pod\d+", component)
        return m.group(0) if m else None
    return None  # affected_workloads, affected_nodes, spare: what runs where is not in the logs


def _command(action: str, target: str | None) -> str | None:
    """Documented operator commands (npu-smi reset: Ascend npu-smi reference ``npu-smi set -t reset -i <id> -c
    <chip>``; cordon: ``kubectl cordon``); None where no single documented command does the step."""
    if target is None:
        return None
    terms = user_terms(target)
    host, dev = terms["host"], terms["device"]
    if action == "reset_chip" and dev is not None:
        return f"ssh {host} npu-smi set -t reset -i {dev} -c 0" if host else f"npu-smi set -t reset -i {dev} -c 0"
    if action in ("cordon", "isolate") and target == node_of(target) and host:
        return f"kubectl cordon {host}"
    if action == "reboot_node" and host:
        return f"ssh {host} reboot"
    return None


def advise(runbook_id: str | None, component: str | None) -> dict[str, Any]:
    """The runbook's first rung as a dry run: ``{"runbook", "title", "steps": [...], "advisory": True}``."""
    if not runbook_id:
        return {"runbook": None, "title": "no runbook: escalate to an engineer", "steps": [], "advisory": True}
    from opsbrain.recovery.loader import load_runbooks
    from opsbrain.recovery.schema import ACTIONS

    rb = load_runbooks().get(runbook_id)
    if rb is None:
        return {"runbook": runbook_id, "title": "runbook not found", "steps": [], "advisory": True}
    steps = []
    for s in rb.steps:
        target = _target(s.target if s.target is not None else ACTIONS[s.action].default_target, component)
        steps.append(AdvisedStep(s.name or s.action, s.action, target, dict(s.params), _command(s.action, target),
                                 ACTIONS[s.action].summary,
                                 s.when.model_dump(exclude_none=True, exclude_defaults=True) if s.when else {}))
    return {"runbook": rb.id, "title": rb.title, "rung": rb.rung, "steps": [x.as_dict() for x in steps],
            "advisory": True}


class TwinActuator:
    """Executes advised steps on the twin through its control API (runs the simulation until each is done)."""

    name = "twin"
    PLANT = ("isolate_link", "restore_link", "drain_link", "undrain_link", "isolate_hbm_rows", "reset_chip",
             "isolate", "replace_part", "cordon", "reboot_node")

    def __init__(self, sim: Simulation) -> None:
        self.sim = sim

    def execute(self, step: AdvisedStep) -> dict[str, Any]:
        if step.action not in self.PLANT or step.target is None:
            return {"status": "skipped", "detail": f"{step.action}: not a plant action with a known target"}
        call = getattr(self.sim.control, step.action)
        try:
            proc = call(step.target, **({"rows": int(step.params.get("rows", 1))}
                                        if step.action == "isolate_hbm_rows" else {}))
        except (ValueError, KeyError) as exc:
            return {"status": "failed", "detail": str(exc)}
        result = self.sim.env.run(until=proc)
        out: dict[str, Any] = result.as_dict() if result is not None and hasattr(result, "as_dict") else {
            "detail": repr(result)}
        return {"status": out.get("status", "succeeded"), "detail": out}


def execute(actuator: Actuator | None, advice: dict[str, Any]) -> list[dict[str, Any]]:
    """Run the advised steps through ``actuator`` (none: nothing runs, and that is said)."""
    if actuator is None:
        return []
    return [{"step": s["name"], **actuator.execute(AdvisedStep(**s))} for s in advice["steps"]]
