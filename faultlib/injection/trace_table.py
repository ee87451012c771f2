"""Fault event traces (JSON or CSV) read into one pandas table, checked, paired into faults and summarised.

Trace fields (column names are matched case-insensitively; the first alias present wins, ``columns`` overrides):
node (``node``/``node_id``/``host``/``hostname``/``server``), time (``time``/``timestamp``/``event_time``/``t``),
event type (``event``/``event_type``/``type``: ``fault_start`` | ``fault_end``, also ``start`` | ``end``), and
what failed: either a nested ``fault_type {Level, Class, Desc}`` object (the InfiniteHBD trace as published),
flat ``level``/``class``/``desc`` columns (also ``fault_type.Level`` ... as a CSV header), or one description
column (``description``/``category``/``fault``/``fault_category``/``fault_type``/``reason``). An optional per-row
``unit``/``time_unit`` (s, min, h, days) overrides the ``time_unit`` argument.

Pairing: events are taken in time order, whatever the file's order (traces concatenated per node are not in
time order): a start before an end at equal times, then by node and fault. A ``fault_end`` closes the earliest
still-open ``fault_start`` of the same node and the same (level, class, desc) and gives the duration; an end with
no open start is counted in ``orphan_ends`` (a fault that began before the trace's window), unless the file puts
a start of that node and fault before it that is later in time and never ended: an end before its own start,
refused. A start never ended has no duration. A fault that ends at the instant it starts (the published
InfiniteHBD trace has 14) is kept with a minimum duration: the trace's time resolution, i.e. the smallest positive
gap between its event times (1e-4 day = 8.64 s there; 1 s when no two times differ).
"""

from __future__ import annotations

import json
import math
import re
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from faultlib.injection.spec import FaultPlanError

ALIASES: dict[str, tuple[str, ...]] = {
    "node": ("node", "node_id", "host", "hostname", "server"),
    "time": ("time", "timestamp", "event_time", "t"),
    "event": ("event", "event_type", "type"),
    "level": ("level", "fault_type.level", "fault_level"),
    "class": ("class", "fault_type.class", "fault_class"),
    "desc": ("desc", "fault_type.desc", "fault_desc"),
    "description": ("description", "category", "fault", "fault_category", "fault_type", "reason"),
    "unit": ("unit", "time_unit"),
}
UNITS: dict[str, float] = {"s": 1.0, "sec": 1.0, "seconds": 1.0, "min": 60.0, "minutes": 60.0, "h": 3600.0,
                           "hours": 3600.0, "d": 86400.0, "day": 86400.0, "days": 86400.0}
EVENTS = {"fault_start": "start", "start": "start", "fault_end": "end", "end": "end"}
MAX_TIME_S = 10 * 365.25 * 86400.0
"""Bound on event times (after the unit): ten years. Reason: published fault traces span months (InfiniteHBD 348
days, Meta RSC-1 11 months, facts.md); the twin's cost grows with simulated time, so a time like 1e30 is refused
at once instead of simulated for ever."""
FALLBACK_RESOLUTION_S = 1.0  # reason: the minimum duration when a trace has no two distinct times (one-second logs)


@dataclass(frozen=True, slots=True)
class TraceFault:
    """One fault of a trace: where, when, what, and how long (None: never ended)."""

    row: int
    label: str            # row label for errors and origins (``trace.json[3]``)
    node: str
    start_s: float
    duration_s: float | None
    level: str
    cls: str
    desc: str
    zero_length: bool = False

    @property
    def description(self) -> str:
        """What failed as one text: ``Level / Class / Desc`` (only the parts the trace has)."""
        return " / ".join(p for p in (self.level, self.cls, self.desc) if p)


@dataclass
class TraceTable:
    """A checked, paired trace: its faults and what the reading noticed."""

    file: str
    events: int
    faults: list[TraceFault]
    orphan_ends: int
    zero_length: int
    resolution_s: float
    origin_s: float
    end_s: float          # last event time (from the origin)
    out_of_order: int = 0  # events earlier than an event before them in the file (all are paired in time order)

    def statistics(self) -> dict[str, Any]:
        """The trace's own figures: servers, window, faults, interruptions per node-day, overlaps, durations.

        Every fault start counts as one interruption of its server (the trace records servers taken out of
        service); the window runs from the trace's time 0 (or its first event when rebased) to its last event."""
        df = pd.DataFrame([(f.node, f.start_s, f.duration_s) for f in self.faults], columns=["node", "t", "dur"])
        servers = int(df["node"].nunique()) if len(df) else 0
        days = self.end_s / 86400.0
        overlap = starts_during_open(df)
        durs = df["dur"].dropna()
        return {"servers": servers, "days": round(days, 4), "faults": len(df),
                "interruptions_per_node_day": round(len(df) / (servers * days), 6) if servers and days > 0 else None,
                "starts_with_fault_open": overlap, "zero_length": self.zero_length,
                "min_duration_s": round(self.resolution_s, 3),
                "median_duration_h": round(float(durs.median()) / 3600.0, 3) if len(durs) else None,
                "open_at_end": int(df["dur"].isna().sum())}


def starts_during_open(df: pd.DataFrame) -> int:
    """Fault starts on a node that already has a fault open (columns node, t, dur; dur NaN/None: never ends)."""
    n = 0
    for _, g in df.sort_values("t", kind="stable").groupby("node", sort=False):
        ends: list[float] = []
        for t, d in zip(g["t"], g["dur"], strict=True):
            n += any(e > t for e in ends)
            ends.append(math.inf if pd.isna(d) else t + d)
    return n


# ---- reading ------------------------------------------------------------------------------------------
def read_text(path: Path) -> str:
    """A file's text; an unreadable file is one FaultPlanError naming it."""
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise FaultPlanError(str(path), f"cannot read: {exc.strerror}") from None


def read_frame(path: Path) -> pd.DataFrame:
    """The trace file as a table of strings/numbers, one row per event (nested ``fault_type`` flattened)."""
    text = read_text(path)
    suffix = path.suffix.lower()
    if suffix == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise FaultPlanError(str(path), f"bad JSON: {exc}") from None
        if isinstance(data, dict) and isinstance(data.get("events"), list):
            data = data["events"]
        if not isinstance(data, list):
            raise FaultPlanError(str(path), "must be a JSON list of events (or {\"events\": [...]})")
        for i, row in enumerate(data):
            if not isinstance(row, dict):
                raise FaultPlanError(f"{path}[{i}]", "must be an object")
            ft = row.get("fault_type")
            if ft is not None and not isinstance(ft, dict | str):
                raise FaultPlanError(f"{path}[{i}].fault_type", "must be an object {Level, Class, Desc} or a text")
            for k, v in row.items():  # only fault_type nests; another object would vanish into k.subkey columns
                if isinstance(v, dict) and k != "fault_type":
                    raise FaultPlanError(f"{path}[{i}].{k}", f"expected text or a number, got an object "
                                         f"({json.dumps(v)[:60]})")
        flat = [{**{k: v for k, v in r.items() if not isinstance(v, dict)},
                 **{f"{k}.{kk}": vv for k, v in r.items() if isinstance(v, dict) for kk, vv in v.items()}}
                for r in data]
        frame = pd.DataFrame(flat)
        frame.index = pd.RangeIndex(len(frame))
        frame.attrs["labels"] = [f"{path}[{i}]" for i in range(len(frame))]
        return frame
    if suffix != ".csv":
        raise FaultPlanError(str(path), "unknown trace format (use .json or .csv)")
    return _read_csv(path, text)


def _read_csv(path: Path, text: str) -> pd.DataFrame:
    import io
    import warnings

    if not text.strip():
        raise FaultPlanError(str(path), "empty CSV (no header)")
    try:
        with warnings.catch_warnings():  # a row with more fields than the header: refused below, by its row
            warnings.simplefilter("ignore", pd.errors.ParserWarning)
            frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False, skip_blank_lines=False,
                                on_bad_lines="error", engine="python", index_col=False)  # no column taken as index
    except (pd.errors.ParserError, ValueError) as exc:
        m = re.search(r"line (\d+)", str(exc))
        where = f"{path} row {int(m.group(1)) - 1}" if m else str(path)
        raise FaultPlanError(where, f"bad CSV: {str(exc).splitlines()[0]}") from None
    header = next(iter(_csv_rows(text)), [])
    seen: dict[str, int] = {}
    for k, name in enumerate(header, start=1):  # pandas renames a repeat to name.1 and reads the first: refused
        key = name.strip().lower()
        if key in seen:
            raise FaultPlanError(f"{path} header", f"column {name.strip()!r} appears twice (columns {seen[key]} and "
                                 f"{k})")
        seen[key] = k
    frame.columns = [str(c).strip() for c in frame.columns]
    frame = frame.apply(lambda col: col.str.strip())
    rows = frame.index + 1  # data rows count from 1 under the header
    blank = (frame == "").all(axis=1)
    frame, rows = frame[~blank], rows[~blank]
    # pandas pads short rows with empty fields: refuse them as the old reader did
    n_fields = _csv_field_counts(text)
    for r in rows:
        if r < len(n_fields) and n_fields[r] != len(frame.columns):
            raise FaultPlanError(f"{path} row {r}", f"has {n_fields[r]} fields, the header has {len(frame.columns)}")
    frame = frame.reset_index(drop=True)
    frame.attrs["labels"] = [f"{path} row {r}" for r in rows]
    return frame


def _csv_rows(text: str) -> list[list[str]]:
    import csv
    import io

    try:
        return list(csv.reader(io.StringIO(text)))
    except csv.Error as exc:
        raise FaultPlanError("csv", f"bad CSV: {exc}") from None


def _csv_field_counts(text: str) -> list[int]:
    return [len(r) for r in _csv_rows(text)]


def _columns(frame: pd.DataFrame, file: str, columns: dict[str, str] | None) -> dict[str, str | None]:
    present = {str(c).strip().lower(): c for c in frame.columns}
    out: dict[str, str | None] = {}
    for canon, aliases in ALIASES.items():
        if columns and canon in columns:
            out[canon] = columns[canon]
            continue
        out[canon] = next((present[a] for a in aliases if a in present), None)
    if len(frame):
        for canon in ("node", "time", "event"):
            if out[canon] is None:
                raise FaultPlanError(file, f"missing field {canon!r} (accepted names: {', '.join(ALIASES[canon])})")
        if out["desc"] is None and out["description"] is None:
            raise FaultPlanError(file, "missing field 'description' (or fault_type {Level, Class, Desc}; accepted "
                                 f"names: {', '.join(ALIASES['description'])})")
    return out


def _text(v: Any, where: str = "") -> str:
    """A field as text (numbers as written; missing: ""); a list or a mapping is no text: an error naming ``where``."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    if isinstance(v, list | tuple | dict | set):
        raise FaultPlanError(where or "field", f"expected text, got a {type(v).__name__} ({str(v)[:60]})")
    return str(v).strip()


def _seconds(raw: Any, unit: str, where: str) -> float:
    if isinstance(raw, bool):
        raise FaultPlanError(where, f"bad time {json.dumps(raw)} (a number is needed, not a boolean)")
    if _text(raw) == "":
        raise FaultPlanError(where, "missing")
    try:
        v = float(raw)
    except (TypeError, ValueError):
        raise FaultPlanError(where, f"bad time {raw!r} (a number is needed)") from None
    if not math.isfinite(v):
        raise FaultPlanError(where, f"bad time {raw!r}")
    u = unit.strip().lower()
    if u not in UNITS:
        raise FaultPlanError(f"{where.rsplit('.', 1)[0]}.unit", f"unknown time unit {unit!r} (known: "
                             f"{', '.join(UNITS)})")
    s = v * UNITS[u]
    if abs(s) > MAX_TIME_S:
        raise FaultPlanError(where, f"time {raw!r} {u} is beyond the replay bound of {MAX_TIME_S / 86400:.0f} days "
                             "(ten years; check the time unit)")
    return s


def check_unit(time_unit: str) -> None:
    if time_unit.strip().lower() not in UNITS:
        raise FaultPlanError("time_unit", f"unknown time unit {time_unit!r} (known: {', '.join(UNITS)})")


def table_from_frame(frame: pd.DataFrame, file: str, *, time_unit: str = "s", rebase: bool = False,
                     columns: dict[str, str] | None = None) -> TraceTable:
    """Check every row (errors name file, row and field), pair starts with ends, fill zero-length durations."""
    check_unit(time_unit)
    labels: list[str] = frame.attrs.get("labels") or [f"{file}[{i}]" for i in range(len(frame))]
    cols = _columns(frame, file, columns)
    parsed: list[tuple[str, float, str, str, str, str]] = []  # node, t, start|end, level, class, desc
    records = frame.to_dict("records")
    for row, where in zip(records, labels, strict=True):
        node = _text(row.get(cols["node"])) if cols["node"] else ""
        if not node:
            raise FaultPlanError(f"{where}.{cols['node'] or 'node'}", "missing")
        unit = time_unit
        if cols["unit"] is not None and _text(row.get(cols["unit"])):
            unit = _text(row[cols["unit"]])
        t = _seconds(row.get(cols["time"] or "time"), unit, f"{where}.{cols['time']}")
        raw_ev = _text(row.get(cols["event"] or "event"))
        if not raw_ev:
            raise FaultPlanError(f"{where}.{cols['event']}", "missing")
        ev = EVENTS.get(raw_ev.lower())
        if ev is None:
            raise FaultPlanError(f"{where}.{cols['event']}", f"bad event type {raw_ev!r} (use fault_start or "
                                 "fault_end)")
        level = _text(row.get(cols["level"]), f"{where}.{cols['level']}") if cols["level"] else ""
        cls = _text(row.get(cols["class"]), f"{where}.{cols['class']}") if cols["class"] else ""
        desc = _text(row.get(cols["desc"]), f"{where}.{cols['desc']}") if cols["desc"] else ""
        if not desc and cols["description"]:
            desc = _text(row.get(cols["description"]), f"{where}.{cols['description']}")
        if not (desc or cls or level):
            raise FaultPlanError(f"{where}.{cols['desc'] or cols['description'] or 'description'}", "missing")
        parsed.append((node, t, ev, level, cls, desc))
    origin = min((p[1] for p in parsed), default=0.0) if rebase else 0.0
    times = sorted({p[1] for p in parsed})
    gaps = [b - a for a, b in zip(times, times[1:], strict=False) if b - a > 0]
    resolution = round(min(gaps), 6) if gaps else FALLBACK_RESOLUTION_S
    resolution = max(resolution, 1e-3)  # reason: below a millisecond a gap is float noise, not a resolution

    order = time_order(parsed)
    out_of_order = _out_of_order([p[1] for p in parsed])
    open_starts: dict[tuple[str, str, str, str], deque[int]] = {}
    starts: list[list[Any]] = []  # [row, t, duration, zero]
    orphans: list[int] = []
    for i in order:
        node, t, ev, level, cls, desc = parsed[i]
        key = (node, level, cls, desc)
        if ev == "start":
            if t - origin < 0:
                raise FaultPlanError(f"{labels[i]}.{cols['time']}", f"time {t - origin:g} s is before 0 "
                                     "(rebase the trace to start it at 0: --rebase of opsbrain chaos replay)")
            open_starts.setdefault(key, deque()).append(len(starts))
            starts.append([i, t, None, False])
            continue
        q = open_starts.get(key)
        if not q:
            orphans.append(i)
            continue
        j = q.popleft()
        st = starts[j][1]
        starts[j][2], starts[j][3] = (t - st, False) if t > st else (resolution, True)
    _refuse_end_before_own_start(parsed, orphans, starts, labels, str(cols["time"]))
    orphan = len(orphans)
    faults = [TraceFault(si, labels[si], parsed[si][0], st - origin, dur, parsed[si][3], parsed[si][4],
                         parsed[si][5], zero) for si, st, dur, zero in starts]
    end = max((p[1] for p in parsed), default=origin) - origin
    return TraceTable(file, len(parsed), faults, orphan, sum(f.zero_length for f in faults), resolution, origin,
                      end, out_of_order)


def time_order(parsed: list[tuple[str, float, str, str, str, str]]) -> list[int]:
    """Row indices in time order: start before end at equal times, then node (natural order) and fault, then
    file order (only rows that differ in nothing else keep it), so the pairing does not depend on file order."""
    return sorted(range(len(parsed)), key=lambda i: (parsed[i][1], parsed[i][2] != "start", _natural(parsed[i][0]),
                                                     parsed[i][3:], i))


def _natural(s: str) -> tuple[tuple[int, Any], ...]:
    return tuple((0, int(t)) if t.isdigit() else (1, t) for t in re.split(r"(\d+)", s))


def _out_of_order(times: list[float]) -> int:
    """Events earlier than an event before them in the file."""
    n, latest = 0, -math.inf
    for t in times:
        n += t < latest
        latest = max(latest, t)
    return n


def _refuse_end_before_own_start(parsed: list[tuple[str, float, str, str, str, str]], orphans: list[int],
                                 starts: list[list[Any]], labels: list[str], time_col: str) -> None:
    """An end that no earlier start closes, while the file puts a start of the same node and fault before it that
    is later in time and never ended: the trace contradicts itself (an end before its own start)."""
    unended: dict[tuple[str, ...], list[int]] = {}
    for s in starts:
        if s[2] is None:
            unended.setdefault((parsed[s[0]][0], *parsed[s[0]][3:]), []).append(s[0])
    for i in orphans:
        node, t, _ev, level, cls, desc = parsed[i]
        own = [j for j in unended.get((node, level, cls, desc), []) if j < i]
        if own:
            j = max(own)
            raise FaultPlanError(f"{labels[i]}.{time_col}", f"fault_end at {t:g} s is before its fault_start at "
                                 f"{parsed[j][1]:g} s ({labels[j]})")



def read_trace(path: str | Path, *, time_unit: str = "s", rebase: bool = False,
               columns: dict[str, str] | None = None) -> TraceTable:
    p = Path(path)
    return table_from_frame(read_frame(p), str(p), time_unit=time_unit, rebase=rebase, columns=columns)
