"""A diagnosis verdict: what the diagnosis engine produces and the detector, orchestrator and reports consume."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

UNKNOWN = "unknown"


@dataclass
class Diagnosis:
    """A verdict on one incident: fault class (a knowledge-base class id, or ``unknown`` = escalate), the root
    component, a calibrated confidence, and evidence in an operator's words."""

    fault_class: str
    component: str | None
    confidence: float
    evidence: list[str] = field(default_factory=list)
    at_s: float = 0.0
    runbook: str | None = None
    alternatives: list[tuple[str, float]] = field(default_factory=list)

    @property
    def abstained(self) -> bool:
        return self.fault_class == UNKNOWN

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["alternatives"] = [[c, round(p, 4)] for c, p in self.alternatives]
        d["confidence"] = round(self.confidence, 4)
        return d
