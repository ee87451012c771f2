"""What an operator sees, as records: log lines and job events. Metrics live in :mod:`metrics`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class LogLine:
    """One rendered log line.

    ``origin`` is the component whose log file holds the line (a node for host logs, an NPU for its device
    log, a switch chip for switch logs): collected bundles tell an operator that much. ``source`` is the log
    family (``syslog``, ``device_os``, ``plog``, ``device_plugin``, ``switch``, ``train``, ``hccn``). The fault
    code, if any, is only inside ``text``, as it is in real logs.
    """

    t: float
    origin: str
    source: str
    level: str
    text: str


@dataclass(frozen=True, slots=True)
class JobEvent:
    """A workload event as a scheduler or job log shows it: crash, hang, timeout, restart, resumed, ..."""

    t: float
    job: str
    kind: str
    detail: dict[str, Any] = field(default_factory=dict)
