"""Recovery: runbooks (schema, loader), the orchestrator that runs them, guardrails, and the manual policy.

Public API::

    from opsbrain.recovery import Orchestrator, Guardrails, RecoveryParams, load_runbooks, manual_response
    orch = Orchestrator(sim, load_runbooks(), Guardrails(RecoveryParams()), policy="auto", dry_run=False)
    proc = orch.handle("inc-1", diagnosis)      # a simpy process; value: the incident dict
    orch.actions_for("inc-1")                   # the action log (plain dicts), complete at any moment
"""

from opsbrain.recovery.guardrails import Decision, Guardrails
from opsbrain.recovery.loader import (
    RunbookSet,
    list_runbooks,
    load_runbooks,
    runbook_errors,
    show_runbook,
    validate_runbooks,
)
from opsbrain.recovery.manual import ManualPolicy, manual_response
from opsbrain.recovery.orchestrator import Orchestrator
from opsbrain.recovery.params import ManualParams, RecoveryParams
from opsbrain.recovery.schema import ACTIONS, RUNGS, TARGETS, Runbook, Step
from opsbrain.recovery.spares import spares_needed, spares_per_pod

__all__ = [
    "ACTIONS", "RUNGS", "TARGETS", "Decision", "Guardrails", "ManualParams", "ManualPolicy", "Orchestrator",
    "RecoveryParams", "Runbook", "RunbookSet", "Step", "list_runbooks", "load_runbooks", "manual_response",
    "runbook_errors", "show_runbook", "spares_needed", "spares_per_pod", "validate_runbooks",
]
