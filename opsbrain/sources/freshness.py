"""When collected command outputs were taken, and findings from outputs too old to describe the cluster now.

A file's collection time is its own stamp where it has one, else its modification time:

- ``Datetime: 2026-12-05 02:50:00.179645`` in its first lines (MindCluster's fault-diagnosis collection writes it
  first; ascend-fd's fixtures ``environment_check/npu_info_before.txt``), or the output of ``date`` there
  (``Sat Dec  5 02:50:00 UTC 2026``, GNU date's default format);
- else the newest ``current time : <ctime>`` of ``hccn_tool -i N -link_stat -g`` (the tool's own clock when it ran).

A stamp without a zone (``Datetime:``, ``current time``) is read in the local time zone of the host running opsbrain;
``date``'s ``UTC``/``GMT`` or a numeric offset are honoured, another zone name is read as local time. A stamp more than
:data:`FUTURE_S` ahead of our clock is not a collection time (another zone?): the file's modification time is used
and the reason said.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta, timezone

from opsbrain.ingest.commands import ctime_seconds
from opsbrain.sweeps.checks import LEVEL
from opsbrain.sweeps.sweep import SweepReport, summarise

HEAD_LINES = 5
"""Non-empty lines at a file's start searched for its ``Datetime:`` or ``date`` stamp."""
FUTURE_S = 300.0
"""A stamp further ahead of our clock than this is no collection time (reason: the hosts' clocks agree within
seconds under NTP; five minutes ahead is a zone or a clock that is wrong, and a stale output would pass as fresh)."""
_RE_DATETIME = re.compile(r"^\s*Datetime:\s*(\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:\.\d{1,6})?)\s*$")
_RE_DATE = re.compile(r"^\s*((?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\s+"
                      r"\d{1,2} \d\d:\d\d:\d\d) (?:([A-Z]{2,5}|[+-]\d{4}) )?(\d{4})\s*$")
_RE_CURRENT = re.compile(r"current time\s*:\s*(\w{3} \w{3}\s+\d+ [\d:]+ \d{4})")


@dataclass(frozen=True)
class Collected:
    """When one file's outputs were taken (Unix time) and how that was known."""

    t: float
    how: str


def _local(dt: datetime) -> float:
    return dt.timestamp()  # a naive datetime: the local zone of this host


def stamp_of(text: str) -> Collected | None:
    """The collection time a file states (module docstring), or None."""
    head = [ln for ln in text[:4096].splitlines() if ln.strip()][:HEAD_LINES]
    for ln in head:
        if m := _RE_DATETIME.match(ln):
            try:
                return Collected(_local(datetime.fromisoformat(m.group(1).replace(" ", "T"))), "its Datetime: line")
            except ValueError:
                continue
        if m := _RE_DATE.match(ln):
            try:
                dt = datetime.strptime(f"{' '.join(m.group(1).split())} {m.group(3)}", "%a %b %d %H:%M:%S %Y")
            except ValueError:
                continue
            zone = m.group(2) or ""
            if zone in ("UTC", "GMT", "Z"):
                return Collected(dt.replace(tzinfo=UTC).timestamp(), "its date line")
            if zone[:1] in "+-" and zone:
                off = timedelta(hours=int(zone[1:3]), minutes=int(zone[3:5])) * (1 if zone[0] == "+" else -1)
                return Collected(dt.replace(tzinfo=timezone(off)).timestamp(), "its date line")
            return Collected(_local(dt), "its date line")
    times = [t for m in _RE_CURRENT.finditer(text) if (t := ctime_seconds(m.group(1))) is not None]
    return Collected(max(times), "hccn_tool's current time line") if times else None


def collection_time(text: str, mtime: float, now: float | None = None) -> Collected:
    """The file's stamp (:func:`stamp_of`), else its modification time ``mtime``."""
    now = time.time() if now is None else now
    got = stamp_of(text)
    if got is None:
        return Collected(mtime, "the file's modification time")
    if got.t > now + FUTURE_S:
        return Collected(mtime, f"the file's modification time ({got.how[4:]} is {(got.t - now) / 3600:.1f} h ahead "
                                "of our clock: another time zone?)")
    return got


def iso(t: float) -> str:
    """Unix time as ISO 8601 UTC to the second (``2026-12-05T02:50:00Z``)."""
    return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def age_text(s: float) -> str:
    return f"{s / 86400:.1f} d" if s >= 86400 else f"{s / 3600:.1f} h" if s >= 3600 else f"{s / 60:.0f} min"


def node_of(component: str) -> str:
    """The node id of a component (``bj-1/npu5/port`` -> ``bj-1``; ``npu5``, a host without a name -> ``""``)."""
    head, sep, _ = component.rpartition("/npu")
    return head if sep else ("" if component.startswith("npu") else component)


def mark_stale(report: SweepReport, stale: dict[str, Collected], bound_s: float, now: float) -> SweepReport:
    """``report`` with every finding on a node of ``stale`` (node id -> its outputs' collection) marked stale: not a
    current finding, at most a Warning (its severity when collected kept in ``data``), the age in its evidence and
    re-collecting as its first action."""
    if not stale:
        return report
    out = []
    for f in report.findings:
        got = stale.get(node_of(f.component))
        if got is None:
            out.append(f)
            continue
        age = now - got.t
        sev = f.severity if f.level <= LEVEL["Warning"] else "Warning"
        out.append(replace(
            f, severity=sev,
            evidence=f"[stale: from outputs collected {iso(got.t)}, {age_text(age)} ago] {f.evidence}",
            suggested_action=f"re-collect this node's outputs and sweep again (older than {age_text(bound_s)}: not "
                             f"the node now); when collected: {f.suggested_action}",
            data={**f.data, "stale": True, "collected_at": iso(got.t), "age_s": round(age, 1),
                  "severity_when_collected": f.severity}))
    return summarise(report.t_s, out, report.checked, report.duration_ms)


