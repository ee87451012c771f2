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

from collections.abc import Iterable
from dataclasses import replace
from typing import Any, TypeVar

from opsbrain.ingest import Signal
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


def _failing(s: Signal) -> bool:
    return s.severity >= 1 and not s.kind.startswith(("level:", "vendor:"))


def cause_on_a_host(engine: Any, signals: list[Signal], d: Diagnosis) -> tuple[Diagnosis, str] | None:
    """Where the whole input's verdict ``d`` abstains or is a waiting class and every failing signal names its
    host, two hosts or more: each host's own signals diagnosed apart; where a host's read as a waiting class and an
    earlier host's name another fault (:func:`earlier_cause`), that host's verdict (with why) and the host; else
    None. The waiters' host is the one with the most error lines, as the bundle's primary incident is."""
    if not (d.abstained or d.fault_class in WAITING):
        return None
    failing = [s for s in signals if _failing(s)]
    if any(s.host is None for s in failing):
        return None
    hosts = sorted({str(s.host) for s in failing})
    if len(hosts) < 2:
        return None
    verdicts: dict[str, tuple[float, Diagnosis, int]] = {}
    for h in hosts:
        own = [s for s in signals if s.host == h]
        errs = [s for s in own if _failing(s)]
        dh = engine.diagnose_signals(own, max(s.t for s in own))
        verdicts[h] = (min(s.t for s in errs), dh, sum(1 for s in errs if s.severity >= 2))
    waiting = [h for h, (_t, dh, _n) in verdicts.items() if dh.fault_class in WAITING]
    if not waiting:
        return None
    waiter = max(waiting, key=lambda h: (verdicts[h][2], -verdicts[h][0]))
    cause = earlier_cause(verdicts[waiter][0], ((t, dh.fault_class, h) for h, (t, dh, _n) in verdicts.items()
                                                if h != waiter))
    if cause is None:
        return None
    dc = verdicts[cause][1]
    was = "abstained" if d.abstained else f"was {d.fault_class} at {d.confidence:.2f}"
    why = f"the whole input's verdict {was}; read apart by host, " + waited_on(
        waiter, verdicts[waiter][1].fault_class, cause, verdicts[waiter][0] - verdicts[cause][0]) + \
        " (as diagnose --bundle's primary incident)"
    return replace(dc, evidence=[*dc.evidence, why]), cause


def waited_on(waiter: str, waiting_class: str, cause: str, lead_s: float) -> str:
    """Why the earlier fault is the answer, in the words both modes give."""
    return (f"{waiter}'s errors are a wait ({waiting_class}: ranks that timed out waiting for a peer) and "
            f"{cause}'s, {lead_s:.1f} s earlier, name the fault they waited on")
