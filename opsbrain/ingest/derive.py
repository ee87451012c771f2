"""Signals that only a run of lines shows: a port whose link went down and came back up within seconds flapped.

``hccn_tool -i N -link_stat -g`` lists a port's link change records (newest first); a LINK DOWN followed by a LINK UP
of the same port a few seconds later is a flap (the port re-locked by itself), not a port that stays down. The
derived ``hccn:flap`` signal carries the DOWN record's line.

Devices whose TLS switches differ (one ``hccn:tls_on``, another ``hccn:tls_off``) cannot set up sockets with each
other: the derived ``cfg:tls_mismatch`` carries the first disabled device's line (HCCL fault-diagnosis guide, link
set-up timeout EI0006: 'if the two ends' TLS switches differ, socket creation fails verification and both ends time
out'; EI0016 is the same check at communicator set-up)."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import replace

from opsbrain.ingest.commands import ctime_seconds
from opsbrain.ingest.parsers.device import SECTION_DEVICE
from opsbrain.ingest.parsers.fdreport import FD_PLACE, FD_ROOT, JSON_PART, PLACES
from opsbrain.ingest.signal import Signal
from opsbrain.ingest.timestamps import parse_time
from opsbrain.lazyre import lazy_compile

FLAP_RELOCK_S = 60.0
"""Reason: a port that re-locks by itself does so within seconds (the HCCL fault-diagnosis guide's ERROR CQE case:
DOWN at 10:13:50, UP at 10:13:51); a port brought back by a repair or a reset takes minutes or more."""


def port_flaps(signals: list[Signal]) -> list[Signal]:
    """One ``hccn:flap`` per LINK DOWN record followed, on the same port, by a LINK UP within FLAP_RELOCK_S."""
    by_port: dict[str | None, list[Signal]] = defaultdict(list)
    for s in signals:
        if s.kind in ("hccn:down", "hccn:up") and s.component:
            by_port[s.component].append(s)
    out = []
    for seq in by_port.values():
        timed = sorted(((_when(s), s) for s in seq), key=lambda x: x[0])
        for (t_down, down), (t_up, nxt) in zip(timed, timed[1:], strict=False):
            if down.kind == "hccn:down" and nxt.kind == "hccn:up" and 0 < t_up - t_down <= FLAP_RELOCK_S:
                out.append(replace(down, kind="hccn:flap"))
    return out


def with_flaps(signals: list[Signal]) -> list[Signal]:
    """``signals`` with each flap told: the ``hccn:flap`` added and the LINK DOWN record it re-locked removed as a
    down (the port came back up by itself within seconds: the guide's ERROR CQE case reads it as a flap, not as a
    port that stays down)."""
    flaps = port_flaps(signals)
    if not flaps:
        return signals
    relocked = {(f.file, f.line_no, f.text) for f in flaps}
    kept = [s for s in signals if not (s.kind == "hccn:down" and (s.file, s.line_no, s.text) in relocked)]
    return kept + flaps


class SectionPlacer:
    """Places signals on the device of the section mark before them, one signal at a time (a follower's tail, the
    twin's telemetry); see :func:`section_placed`. Call with each signal; it returns the signal to keep, placed, or
    None for a mark (a mark says where, not what)."""

    def __init__(self, key: Callable[[Signal], object] = lambda s: None) -> None:
        self.key = key
        self._here: dict[object, Signal] = {}

    def __call__(self, s: Signal) -> Signal | None:
        k = self.key(s)
        if s.kind == SECTION_DEVICE:
            self._here[k] = s
            return None
        mark = self._here.get(k)
        if mark is None:
            return s
        if not s.text.lstrip().startswith(("|", "+")):
            del self._here[k]  # a line that is no row of the table: the section has ended
            return s
        if s.device is None:
            return replace(s, component=mark.component, device=mark.device, severity=max(s.severity, mark.severity))
        return s


def section_placed(signals: list[Signal], key: Callable[[Signal], object] = lambda s: None) -> list[Signal]:
    """Signals that name no device placed on the device of the section mark before them
    (:data:`~opsbrain.ingest.parsers.device.SECTION_DEVICE`, asys's ``| Device ID: N | Overall Health: ... |``), to
    the next mark of the same ``key`` (the file, where one list holds several) or the first signal of a line that is
    no table row, at least at the mark's severity (the device's own health word); the marks dropped."""
    if not any(s.kind == SECTION_DEVICE for s in signals):
        return signals
    place = SectionPlacer(key)
    return [p for s in signals if (p := place(s)) is not None]


def restatements_dropped(signals: list[Signal], snapshot: Callable[[Signal], bool]) -> list[Signal]:
    """``signals`` without the ``snapshot`` ones (a state table printed at collection time, such as asys's health
    table) that restate a signal the logs hold: the same kind on the same component. Such a row is the fault
    still standing when the logs were collected, hours after it may be, and not a second fault. A row more severe than
    every logged signal it restates is kept: the device's health word (Critical) rates the fault, the log line did not
    (a device event log writes an undocumented code at its own ``EVENT`` level)."""
    logged: dict[tuple[str, str | None], int] = {}
    for s in signals:
        if not snapshot(s):
            key = (s.kind, s.component)
            logged[key] = max(logged.get(key, s.severity), s.severity)
    return [s for s in signals if not (snapshot(s) and logged.get((s.kind, s.component), -1) >= s.severity)]


LINK_HISTORY_S = 1800.0
"""How long before the input's other signals a link change can still be their cause: HCCL_EXEC_TIMEOUT's default
(1800 s, CANN HCCL environment-variable reference; rootcluster.EXEC_TIMEOUT_S), the longest a collective waits on a
peer before it reports. A change older than that, as ``-link_stat -g``'s records list them back to the port's first
link-up, is the port's history (the HCCL fault-diagnosis guide: a flap explains an ERROR CQE only when operators
were running at that moment)."""
_RECORD = lazy_compile(r"\b(\w{3} \w{3}\s+\d+ \d\d:\d\d:\d\d \d{4})\s+LINK (?:UP|DOWN)\s*$")
_COUNTER = lazy_compile(r"link (?:up|down) count\s*:", re.I)


def _record_time(text: str) -> float | None:
    m = _RECORD.search(text) if "LINK " in text else None  # (the record's literal: most lines are no record)
    return ctime_seconds(m.group(1)) if m else None


def link_history_dropped(signals: list[Signal], job_start: float | None) -> tuple[list[Signal], int]:
    """``signals`` without the link change records dated more than :data:`LINK_HISTORY_S` before ``job_start``
    (epoch seconds of the job's first process line; None: nothing goes), nor the change counters of ports left with
    no record, and how many went."""
    if job_start is None:
        return signals, 0
    start = job_start - LINK_HISTORY_S
    when = [_record_time(s.text) for s in signals]
    old = [w is not None and w < start for w in when]
    if not any(old):
        return signals, 0
    recent = {s.component for s, w, o in zip(signals, when, old, strict=True) if w is not None and not o}
    keep = [s for s, o in zip(signals, old, strict=True)
            if not o and not (_COUNTER.search(s.text) and s.component not in recent)]
    return keep, len(signals) - len(keep)


def fd_placed(signals: list[Signal]) -> list[Signal]:
    """A FaultDiag report's category signals placed on the device the report names for them: the faulty-device row
    that follows a fault's category row (print_wrapper.py ``_format_fault_attr`` prints the category, then the
    fault source), else the root-cause node row of the report; the place signals themselves are dropped (they say
    where, not what)."""
    if any(s.kind.startswith(JSON_PART) for s in signals):
        signals = _json_categories(signals)
    if not any(s.kind in PLACES for s in signals):
        return signals
    roots = [s for s in signals if s.kind == FD_ROOT]
    out: list[Signal] = []
    pending: list[int] = []  # indices in ``out`` of category signals not placed yet
    for s in signals:
        if s.kind == FD_PLACE:
            for i in pending:
                out[i] = replace(out[i], component=s.component, device=s.device)
            pending = []
        elif s.kind == FD_ROOT:
            continue
        else:
            if s.kind.startswith("fd:") and s.component is None:
                if pending and out[pending[0]].line_no != s.line_no:
                    pending = []  # a new fault's category row: the previous fault named no device
                pending.append(len(out))
            out.append(s)
    if roots:
        out = [replace(s, component=roots[0].component, device=roots[0].device)
               if s.kind.startswith("fd:") and s.component is None else s for s in out]
    return out


JSON_SPAN = 8
"""Lines within which a diag_report.json fault's class, component and module keys stand (they are adjacent keys of
the entry's attributes); reason: a few keys of slack for another order, never a neighbouring fault's."""


def _json_categories(signals: list[Signal]) -> list[Signal]:
    """diag_report.json's ``"class"``, ``"component"`` and ``"module"`` lines (``fd~<key>:<value>`` parts) joined into
    the category kinds of the report's table (``fd:<class>/<component>/<module>``, ``fd:<class>``) where all three
    stand within :data:`JSON_SPAN` lines; the parts themselves are dropped."""
    out: list[Signal] = []
    run: dict[str, Signal] = {}
    for s in signals:
        if not s.kind.startswith(JSON_PART):
            out.append(s)
            continue
        key, _, value = s.kind[len(JSON_PART):].partition(":")
        first = next(iter(run.values()), None)
        if key in run or (first is not None and (s.line_no or 0) - (first.line_no or 0) > JSON_SPAN):
            run = {}
        run[key] = replace(s, kind=value)
        if len(run) == 3 and (c := run.get("class")) and (comp := run.get("component")) and (m := run.get("module")):
            out += [replace(c, kind=f"fd:{c.kind}/{comp.kind}/{m.kind}"), replace(c, kind=f"fd:{c.kind}")]
            run = {}
    return out


def _when(s: Signal) -> float:
    """The record's own time stamp (link change records are listed newest first, so the reader's running clock,
    which never goes back, cannot order them), else the signal's time."""
    t = parse_time(s.text)
    return t if t is not None else s.t


TLS_STATES = ("hccn:tls_on", "hccn:tls_off")
"""A device's TLS switch is a state, not a fault: the reader keeps these apart and tells only a mismatch."""


def tls_mismatch(signals: list[Signal]) -> list[Signal]:
    """One ``cfg:tls_mismatch`` when some devices have TLS on and others off."""
    on = [s for s in signals if s.kind == "hccn:tls_on"]
    off = [s for s in signals if s.kind == "hccn:tls_off"]
    return [replace(off[0], kind="cfg:tls_mismatch", severity=2)] if on and off else []
