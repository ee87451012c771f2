"""The event trace: an ordered record of everything that happened in a run (the determinism oracle)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class TraceEvent:
    t: float
    kind: str
    subject: str
    detail: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"t": round(self.t, 9), "kind": self.kind, "subject": self.subject, "detail": self.detail}


class Trace:
    """Append-only list of :class:`TraceEvent`; ``digest()`` fingerprints a whole run."""

    def __init__(self) -> None:
        self.events: list[TraceEvent] = []
        self._listeners: list[Callable[[TraceEvent], None]] = []

    def record(self, t: float, kind: str, subject: str, /, **detail: Any) -> TraceEvent:
        ev = TraceEvent(t, kind, subject, detail)
        self.events.append(ev)
        for fn in self._listeners:
            fn(ev)
        return ev

    def subscribe(self, listener: Callable[[TraceEvent], None]) -> None:
        """Call ``listener`` with every event recorded from now on (an injector waiting for an event)."""
        self._listeners.append(listener)

    def __len__(self) -> int:
        return len(self.events)

    def of_kind(self, kind: str) -> list[TraceEvent]:
        return [e for e in self.events if e.kind == kind]

    def digest(self) -> str:
        h = hashlib.sha256()
        for e in self.events:
            h.update(json.dumps(e.as_dict(), sort_keys=True, default=str).encode())
        return h.hexdigest()
