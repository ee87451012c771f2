"""What the sweep service knows of the source it sweeps (session 34): ``ok`` (the last sweep read it),
``unauthorized`` (its server refused the credentials: HTTP 401 or 403, :class:`~opsbrain.errors.SourceAuthError`),
``failed`` (any other error) or ``unknown`` (no sweep yet). A refused authorization is said once when it starts (or
its HTTP status or URL changes) and once when the source is read again, not at every interval: a token that is
readable but wrong stays wrong until someone rotates it, and a log line per interval buried everything else. Other
failures are logged at every sweep, as before (they differ from one sweep to the next)."""

from __future__ import annotations

import logging
import time
from typing import Any

from opsbrain.errors import SourceAuthError

STATES = ("unknown", "ok", "unauthorized", "failed")


class SourceState:
    """The source's state, changed by :meth:`update` after every sweep; ``metrics``: the service's
    :class:`~opsbrain.service.metrics.SweepMetrics` (its ``source_state`` enum and ``source_refused_status``)."""

    def __init__(self, schedule_id: str, log: logging.Logger, metrics: Any = None) -> None:
        self.schedule_id = schedule_id
        self.log = log
        self.metrics = metrics
        self.state = "unknown"
        self.status: int | None = None
        self.url: str | None = None
        self.reason = ""
        self.since: float | None = None
        self.refused = 0
        """Sweeps refused in a row (while ``unauthorized``)."""

    def update(self, exc: BaseException | None) -> str | None:
        """The state after a sweep that raised ``exc`` (None: it read the source); the line for the service's errors
        when a refused authorization starts or changes (None otherwise: said once, not at every interval)."""
        now = time.time()
        before = (self.state, self.status, self.url)
        if isinstance(exc, SourceAuthError):
            self.state, self.status, self.url, self.reason = "unauthorized", exc.status, exc.url, str(exc)
            self.refused = self.refused + 1 if before[0] == "unauthorized" else 1
        else:
            if exc is None and before[0] == "unauthorized":
                self.log.info("source authorized again", extra={
                    "schedule": self.schedule_id, "url": self.url, "refused_sweeps": self.refused,
                    "unauthorized_s": round(now - (self.since or now), 3)})
            self.state = "ok" if exc is None else "failed"
            self.status, self.url, self.reason, self.refused = None, None, "" if exc is None else str(exc), 0
        if (self.state, self.status, self.url) != before:
            self.since = now
        if self.metrics is not None:
            self.metrics.source_state.state(self.state)
            self.metrics.source_refused_status.set(self.status or 0)
        if self.state == "unauthorized" and (self.state, self.status, self.url) != before:
            self.log.error("source unauthorized", extra={
                "schedule": self.schedule_id, "status": self.status, "url": self.url, "error": self.reason,
                "note": "said once: the next sweeps try again and say nothing until the source is read or refuses "
                        "otherwise"})
            return f"SourceAuthError: {self.reason}"
        return None

    def as_dict(self) -> dict[str, Any]:
        """For the service's summary: the state, since when (Unix time), and for ``unauthorized`` the HTTP status, the
        URL and the sweeps refused in a row."""
        out: dict[str, Any] = {"state": self.state, "since": self.since}
        if self.state == "unauthorized":
            out |= {"status": self.status, "url": self.url, "refused_sweeps": self.refused, "error": self.reason}
        elif self.state == "failed":
            out["error"] = self.reason
        return out
