"""Severity words for a diagnosed fault class, from its MindCluster handling level in the knowledge base.

MindCluster orders its handling levels by how much they take away (facts.md §3, least to most severe: NotHandle,
SubHealth, RestartRequest, RestartBusiness, FreeRestartNPU, RestartNPU, PreSeparateNPU, SeparateNPU,
ManuallySeparateNPU). Reports and alerts use Alertmanager's usual three words:

- ``critical``: the job is re-run or a chip leaves service (RestartBusiness, RestartNPU, PreSeparateNPU,
  SeparateNPU, ManuallySeparateNPU);
- ``warning``: work is retried in place or runs degraded (SubHealth, RestartRequest, FreeRestartNPU), and an
  abstained diagnosis (``unknown``: a person has to triage);
- ``info``: nothing to handle (NotHandle).
"""

from __future__ import annotations

from functools import lru_cache

SEVERITIES = ("info", "warning", "critical")
BY_LEVEL = {"NotHandle": "info", "SubHealth": "warning", "RestartRequest": "warning", "FreeRestartNPU": "warning",
            "RestartBusiness": "critical", "RestartNPU": "critical", "PreSeparateNPU": "critical",
            "SeparateNPU": "critical", "ManuallySeparateNPU": "critical"}


@lru_cache(maxsize=1)
def _levels() -> dict[str, str]:
    try:
        from opsbrain.kb import load_kb

        return {c.id: c.handling for c in load_kb()}
    except Exception:  # noqa: BLE001 - a report renders without a readable knowledge base (severity "warning")
        return {}


def handling_level(fault_class: str | None) -> str | None:
    """The class's MindCluster handling level in the knowledge base (None: not a known class)."""
    return _levels().get(str(fault_class)) if fault_class else None


def severity(fault_class: str | None) -> str:
    """``critical``/``warning``/``info`` for a diagnosed class (see module docstring)."""
    return BY_LEVEL.get(handling_level(fault_class) or "", "warning")


def worst(values: list[str]) -> str | None:
    """The most severe of ``values`` (None for none)."""
    return max(values, key=SEVERITIES.index) if values else None
