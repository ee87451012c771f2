"""The fault the waiting ranks waited on: one rule for ``diagnose --bundle`` (its primary incident) and
``diagnose --logs`` (its whole-input verdict), session 42.

Every rank of a collective logs its own timeout when one rank stops answering, so the waiters' errors outnumber the
one rank's fault and, read together, hide it. HCCL's fault-diagnosis guide (hicann/hccl,
docs/zh/user_guide/fault_diagnosis/param_link_stage.md, link set-up timeout EI0006) says a rank reports "socket
timeout" when its peer does not answer the link set-up request within HCCL_CONNECT_TIMEOUT: the timeout is the
waiter's, the cause is on the peer. So where the errors of one place (a bundle's incident, a host's lines under
``--logs``) read as a waiting class and another place's errors, opened before them, name a fault of another class,
that fault is the answer.

``--bundle`` has the places from its detector (incidents in time and place); ``--logs`` weighs the whole input as
one and, where that verdict abstains or is a waiting class, reads each host's own signals apart
(:func:`cause_on_a_host`). Before, ``--logs`` of a job's two plogs (a device out of memory on worker-1, the peer's
socket timeout on worker-0 two seconds later) answered the whole input's unknown (0.39, best guess npu_oom) or the
text model's collective_timeout_sw, ``--bundle`` npu_oom at worker-1 (``tests/test_causefirst.py``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any, NamedTuple, TypeVar

from opsbrain.diagnosis.knowledge import default_table
from opsbrain.ingest import Signal
from opsbrain.ingest.ranks import device_side, line_pid
from opsbrain.verdict import UNKNOWN, Diagnosis

WAITING = ("collective_timeout_sw",)
"""Classes whose errors are ranks waiting for another (every rank of a collective logs its timeout)."""

HORIZON_S = 3600.0
"""How long before the waiters' errors a fault may have opened and still be the one they waited on (the
detector's horizon, one hour)."""

T = TypeVar("T")


def earlier_cause(waiting_at: float, others: Iterable[tuple[float, str, T]]) -> T | None:
    """Of ``others`` (opened at, class, item), the earliest whose class names a fault that is not a wait
    (:data:`WAITING`, unknown) and that opened at most :data:`HORIZON_S` before ``waiting_at``; None where none."""
    before = [(at, item) for at, cls, item in others
              if cls not in (*WAITING, UNKNOWN) and 0.0 <= waiting_at - at <= HORIZON_S]
    return min(before, key=lambda x: x[0])[1] if before else None


def may_wait(signals: Iterable[Signal]) -> bool:
    """Whether any of ``signals`` is of a kind the knowledge base gives to a waiting class (:data:`WAITING`: an HCCL
    timeout code, a socket or notify wait, a runtime timeout, a vendor entry mapped to it; any role). Without one no
    place's own signals read as a wait (no ``kb:<waiting class>`` feature), so reading the places apart cannot change
    the answer (review43b: a paste of 256 processes' device out-of-memory lines spent 0.40 of its 0.63 s diagnosing
    each process apart for nothing)."""
    table = default_table()
    return any(cls in WAITING for s in signals for cls, _role in table.of(s.kind))


def _failing(s: Signal) -> bool:
    return s.severity >= 1 and not s.kind.startswith(("level:", "vendor:"))


class Place(NamedTuple):
    """Where a host's (or a process's) own signals were read apart: the host every failing line names, or, in text
    that names no host (a paste of several processes' plogs on stdin), the process its line heads print."""

    host: str | None = None
    pid: str | None = None

    @property
    def name(self) -> str:
        return self.host if self.host is not None else f"process {self.pid}"

    def holds(self, s: Signal) -> bool:
        """Whether ``s`` is of this place."""
        return s.host == self.host if self.host is not None else s.host is None and line_pid(s.text) == self.pid


def _places(failing: list[Signal]) -> Callable[[Signal], Place | None] | None:
    """How to place a signal for :func:`cause_on_a_host`: by its host where every failing signal names one; by the
    job process its line head prints (:func:`~opsbrain.ingest.ranks.line_pid`) where none names a host and every
    one's head prints a pid, a device-side process's line (a pasted device log's AI CPU scheduler,
    :data:`~opsbrain.ingest.rankrecords.DEVICE_PROCESSES`) being of no place: the device's, whose host process the
    paste does not say (review43b: a host plog and its device log pasted together were two processes, the scheduler
    the one "waiting"); else None."""
    if all(s.host is not None for s in failing):
        return lambda s: Place(host=s.host) if s.host is not None else None
    if all(s.host is None and (line_pid(s.text) or device_side(s.text)) for s in failing):
        return lambda s: Place(pid=p) if s.host is None and (p := line_pid(s.text)) else None
    return None


def cause_on_a_host(engine: Any, signals: list[Signal], d: Diagnosis) -> tuple[Diagnosis, Place] | None:
    """Where the whole input's verdict ``d`` abstains or is a waiting class (or names a fault's class but no place)
    and the failing signals are of two places or more (hosts, or processes in text that names no host,
    :func:`_places`): each place's own signals diagnosed apart; where a place's read as a waiting class and an
    earlier place's name another fault (:func:`earlier_cause`; for a verdict that names no place, a fault of its
    class), that place's verdict (with why) and the place; else None. The waiters' place is the one with the most
    error lines, as the bundle's primary incident is. The places are read apart only where some signal may make one
    read as a wait (:func:`may_wait`; the cost is one diagnosis per place)."""
    placing = not (d.abstained or d.fault_class in WAITING)  # a fault's class that names no place: where it is
    if placing and d.component is not None:
        return None
    if d.fault_class not in WAITING and not may_wait(signals):
        return None
    failing = [s for s in signals if _failing(s)]
    if not failing or (place := _places(failing)) is None:
        return None
    at = {id(s): place(s) for s in signals}
    places = sorted({p for s in failing if (p := at[id(s)]) is not None})
    if len(places) < 2:
        return None
    verdicts: dict[Place, tuple[float, Diagnosis, int]] = {}
    for h in places:
        own = [s for s in signals if at[id(s)] == h]
        errs = [s for s in own if _failing(s)]
        dh = engine.diagnose_signals(own, max(s.t for s in own))
        verdicts[h] = (min(s.t for s in errs), dh, sum(1 for s in errs if s.severity >= 2))
    waiting = [h for h, (_t, dh, _n) in verdicts.items() if dh.fault_class in WAITING]
    if not waiting:
        return None
    waiter = max(waiting, key=lambda h: (verdicts[h][2], -verdicts[h][0]))
    cause = earlier_cause(verdicts[waiter][0], ((t, dh.fault_class, h) for h, (t, dh, _n) in verdicts.items()
                                                if h != waiter))
    if cause is None or (placing and verdicts[cause][1].fault_class != d.fault_class):
        return None
    dc = verdicts[cause][1]
    was = "abstained" if d.abstained else f"was {d.fault_class} at {d.confidence:.2f}" + (
        ", naming no place" if placing else "")
    by = "host" if cause.host is not None else "process (the pid the line heads print; no line names a host)"
    why = f"the whole input's verdict {was}; read apart by {by}, " + waited_on(
        waiter.name, verdicts[waiter][1].fault_class, cause.name, verdicts[waiter][0] - verdicts[cause][0]) + \
        " (as diagnose --bundle's primary incident)"
    return replace(dc, evidence=[*dc.evidence, why]), cause


def waited_on(waiter: str, waiting_class: str, cause: str, lead_s: float) -> str:
    """Why the earlier fault is the answer, in the words both modes give."""
    return (f"{waiter}'s errors are a wait ({waiting_class}: ranks that timed out waiting for a peer) and "
            f"{cause}'s, {lead_s:.1f} s earlier, name the fault they waited on")


def process_root(root: dict[str, Any], pid: str | None, table: Any) -> dict[str, Any]:
    """A verdict's ``root`` at a process of text that names no host (:class:`Place`): named as the multi-rank
    table names it (its device where a line gives it, torch_npu's ``Device:0``, an HCCL identity line's), else
    ``process <pid>``."""
    procs = [p for p in getattr(table, "processes", None) or [] if p.pid == pid and not p.worker]
    p = procs[0] if len(procs) == 1 else None
    dev = p.device if p is not None else None
    return {**root, "host": None, "device": root.get("device") if dev is None else dev,
            "name": p.name if p is not None else f"process {pid}"}
