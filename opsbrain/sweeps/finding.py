"""What every health check returns: severities, :class:`Finding`, :class:`Check`, and the threshold helpers the checks
share (:mod:`opsbrain.sweeps.checks` re-exports them)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from opsbrain.sweeps.params import SweepParams
from opsbrain.sweeps.snapshot import Snapshot

SEVERITIES = ("OK", "Warning", "Alarm", "Critical")
LEVEL = {s: i for i, s in enumerate(SEVERITIES)}

def worst(*severities: str) -> str:
    """The most severe of ``severities`` (OK when none)."""
    return max(severities, key=LEVEL.__getitem__, default="OK")

def json_safe(value: Any) -> Any:
    """``value`` with non-finite floats as None and numpy scalars as Python numbers (recursively)."""
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    return value

@dataclass(frozen=True)
class Finding:
    """One component's result of one check, in an operator's words."""

    component: str
    check: str
    severity: str
    evidence: str
    suggested_action: str
    predicted_failure_s: float | None = None
    """Seconds from the sweep until the component is predicted to fail (trend checks), else None."""
    data: dict[str, Any] = field(default_factory=dict, compare=False)
    """The numbers behind the evidence (machine-readable)."""

    def __post_init__(self) -> None:
        if self.severity not in LEVEL:
            raise ValueError(f"severity must be one of {', '.join(SEVERITIES)}, got {self.severity!r}")

    @property
    def level(self) -> int:
        return LEVEL[self.severity]

    @property
    def covers(self) -> int:
        """Component-checks the finding stands for: ``data["covers"]`` where it folds several (one host's down
        links, :mod:`opsbrain.sweeps.hostlinks`), else 1."""
        return int(self.data.get("covers", 1))

    def as_dict(self) -> dict[str, Any]:
        return json_safe({"component": self.component, "check": self.check, "severity": self.severity,
                          "evidence": self.evidence, "suggested_action": self.suggested_action,
                          "predicted_failure_s": self.predicted_failure_s, "data": self.data})

CheckFn = Callable[[Snapshot, SweepParams], list[Finding]]

class Check(NamedTuple):
    """A named check and how many components it examines in a snapshot."""

    name: str
    fn: CheckFn
    scope: Callable[[Snapshot], int]

def window_words(s: float) -> str:
    """A check's window as its findings say it: ``1.0 h`` from an hour up, ``10 min`` from a minute, else ``20 s``
    (session 36: a history of 20 s, ``sweep run --interval 10s``, read ``in the last 0 min``)."""
    if s >= 3600:
        return f"{s / 3600:.1f} h"
    return f"{s / 60:.0f} min" if round(s) >= 60 else f"{s:.0f} s"


def levels(value: np.ndarray, warn: float, alarm: float, critical: float | None = None) -> np.ndarray:
    """0..3 per element: value >= warn / alarm / critical (NaN -> 0)."""
    v = np.nan_to_num(value, nan=-np.inf)
    lv = (v >= warn).astype(np.int8) + (v >= alarm)
    return lv + (v >= critical) if critical is not None else lv


def low_levels(value: np.ndarray, warn: float, alarm: float) -> np.ndarray:
    """0..2 per element: value < warn / alarm."""
    return (value < warn).astype(np.int8) + (value < alarm)


def row_reduce(fn: np.ufunc, a: np.ndarray) -> np.ndarray:
    """``fn`` across the columns of a (rows, lanes) array: much faster than ``axis=1`` for a few lanes."""
    out = a[:, 0].copy()
    for i in range(1, a.shape[1]):
        fn(out, a[:, i], out=out)
    return out


def fmt(x: float, nd: int = 1) -> str:
    """``x`` with ``nd`` decimals, as a finding says it."""
    return f"{x:.{nd}f}"


def dark(s: Snapshot, p: SweepParams) -> tuple[np.ndarray, np.ndarray]:
    """(lanes without light (modules, lanes), modules of an admin-down link (modules,))."""
    return s.dark, s.module_admin_down
