"""Replay a fault event trace (JSON list or CSV) onto a pod as a :class:`Timeline`.

Trace fields (column names are matched case-insensitively; the first alias present wins, ``columns`` overrides):
node (``node``/``node_id``/``host``/``hostname``/``server``), time (``time``/``timestamp``/``event_time``/``t``),
event type (``event``/``event_type``/``type``: ``fault_start`` | ``fault_end``, also ``start`` | ``end``),
description (``description``/``category``/``fault``/``fault_category``/``fault_type``/``reason``), and an
optional per-row ``unit``/``time_unit`` (s, min, h, days) overriding the ``time_unit`` argument.

Mapping, documented choices:
- nodes: the trace's unique node ids in natural sort order (``n2`` before ``n10``); the i-th goes to the i-th
  node of the pod (or of the whole topology) modulo its node count.
- descriptions: the first rule (regex, case-insensitive search) that matches gives the fault kind; user rules
  come before the shipped :data:`DEFAULT_RULES` unless ``extend_default=False``.
- a ``fault_end`` closes the earliest still-open ``fault_start`` of the same node and description from an
  earlier row and gives the duration; an end with no open start is counted in ``orphan_ends``; a start never
  ended has ``duration_s=None`` (mapped ones counted in ``open_faults``).
- the target is the node for node-level kinds, else a component of that kind in the node (or, for kinds not
  inside a node such as L2 chips, in the node's pod), chosen with the given generator.
Unmapped descriptions are counted by description in the report, never silently dropped.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections import Counter, deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from faultlib import ids
from faultlib.faults.catalog import CATALOG
from faultlib.injection.selectors import TargetIndex
from faultlib.injection.spec import FaultPlanError, FaultSpec, Timeline
from faultlib.topology import Topology

ALIASES: dict[str, tuple[str, ...]] = {
    "node": ("node", "node_id", "host", "hostname", "server"),
    "time": ("time", "timestamp", "event_time", "t"),
    "event": ("event", "event_type", "type"),
    "description": ("description", "category", "fault", "fault_category", "fault_type", "reason"),
    "unit": ("unit", "time_unit"),
}
REQUIRED = ("node", "time", "event", "description")
UNITS: dict[str, float] = {"s": 1.0, "sec": 1.0, "seconds": 1.0, "min": 60.0, "minutes": 60.0, "h": 3600.0,
                           "hours": 3600.0, "d": 86400.0, "day": 86400.0, "days": 86400.0}
EVENTS = {"fault_start": "start", "start": "start", "fault_end": "end", "end": "end"}

# (regex, fault kind): first match wins, so specific patterns come before generic ones.
DEFAULT_RULES: tuple[tuple[str, str], ...] = (
    (r"silent data|\bsdc\b", "silent_data_corruption"),
    (r"row.{0,20}(exhaust|remap\w* fail|replace)|isolated rows|xid ?64\b", "hbm_row_exhaustion"),
    (r"over.?temp|thermal", "hbm_overtemp"),
    (r"(?<!un)correctable|\bce storm|\bce\b", "hbm_ce_storm"),
    (r"hbm|uncorrectable|\buc?e\b|ecc|double.?bit|multi.?bit|gpu memory|xid ?(48|94|95)\b", "hbm_uce"),
    (r"dirty|end.?face|connector", "dirty_connector"),
    (r"degrad|rx power|optical.{0,20}(warn|ag[e]?ing)", "optical_degradation"),
    (r"flap", "link_flap"),
    (r"l2 ?sw|l2 switch|spine", "l2_switch_failure"),
    (r"off.?(the.?)?bus|system processor|\bgsp\b|xid ?79\b|pcie", "npu_off_bus"),
    (r"\bnic\b|roce|rdma|infiniband|\bib\b|\bhca\b", "roce_port_down"),
    (r"optic|transceiver|fib(re|er)|cable|link.?down|nvlink|ub link|xid ?74\b", "link_down"),
    (r"switch|\btor\b|leaf|l1sw", "l1_switch_failure"),
    (r"slow|throttl|straggler", "npu_fail_slow"),
    (r"nccl|hccl|watchdog|timeout|software|\bbug\b|segfault|dependency", "collective_timeout_sw"),
    (r"\bdpu\b|qingtian|io expansion|io board", "qingtian_failure"),
    (r"(gpu|npu|ai ?core|accelerator).{0,20}(hang|stuck)", "aicore_hang"),
    (r"hang|unresponsive|stuck|lockup|heartbeat", "node_hang"),
    (r"panic|crash|reboot|power|\bpsu\b|chassis|\bcpu\b|dimm|memory|\bssd\b|disk|mainboard|motherboard|"
     r"\bbmc\b|host|node down", "node_crash"),
    (r"gpu|npu|ai ?core|xid|sram|accelerator|device", "aicore_hang"),
)


@dataclass(frozen=True, slots=True)
class MappingRule:
    pattern: str
    kind: str
    regex: re.Pattern[str]
    origin: str


def make_rule(pattern: Any, kind: Any, where: str) -> MappingRule:
    if not isinstance(pattern, str) or not pattern:
        raise FaultPlanError(f"{where}.pattern", f"must be a non-empty string, got {pattern!r}")
    if not isinstance(kind, str) or kind not in CATALOG:
        raise FaultPlanError(f"{where}.kind", f"unknown fault kind {kind!r} (known: {', '.join(sorted(CATALOG))})")
    try:
        rx = re.compile(pattern, re.IGNORECASE)
    except re.error as exc:
        raise FaultPlanError(f"{where}.pattern", f"bad regular expression: {exc}") from None
    return MappingRule(pattern, kind, rx, where)


def default_rules() -> list[MappingRule]:
    return [make_rule(p, k, f"default[{i}]") for i, (p, k) in enumerate(DEFAULT_RULES)]


def load_mapping(path: str | Path) -> list[MappingRule]:
    """Rules from a YAML file (a list of ``{pattern, kind}`` or a ``pattern: kind`` mapping) or a CSV file
    (columns ``pattern``, ``kind``)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise FaultPlanError(str(p), f"cannot read: {exc.strerror}") from None
    if p.suffix.lower() == ".csv":
        reader = csv.DictReader(io.StringIO(text))
        cols = {c.strip().lower(): c for c in reader.fieldnames or []}
        for need in ("pattern", "kind"):
            if need not in cols:
                raise FaultPlanError(str(p), f"missing column {need!r}")
        return [make_rule((row[cols["pattern"]] or "").strip(), (row[cols["kind"]] or "").strip(),
                          f"{p} row {i}") for i, row in enumerate(reader, start=1)]
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise FaultPlanError(str(p), f"bad YAML: {exc}") from None
    if isinstance(data, dict):
        return [make_rule(k, v, f"{p}[{k!r}]") for k, v in data.items()]
    if isinstance(data, list):
        out = []
        for i, item in enumerate(data):
            if not isinstance(item, dict):
                raise FaultPlanError(f"{p}[{i}]", "must be a mapping with pattern and kind")
            out.append(make_rule(item.get("pattern"), item.get("kind"), f"{p}[{i}]"))
        return out
    raise FaultPlanError(str(p), "must be a list of {pattern, kind} or a mapping pattern -> kind")


@dataclass
class ReplayReport:
    """What a replay produced: the timeline and how every trace event was accounted for."""

    file: str
    timeline: Timeline
    mapped: dict[str, int] = field(default_factory=dict)      # description -> fault starts mapped
    unmapped: dict[str, int] = field(default_factory=dict)    # description -> fault starts with no rule
    kinds: dict[str, int] = field(default_factory=dict)       # fault kind -> specs
    node_map: dict[str, str] = field(default_factory=dict)    # trace node -> topology node
    events: int = 0
    orphan_ends: int = 0
    open_faults: int = 0

    @property
    def mapped_total(self) -> int:
        return sum(self.mapped.values())

    @property
    def unmapped_total(self) -> int:
        return sum(self.unmapped.values())

    def as_dict(self) -> dict[str, Any]:
        return {"file": self.file, "events": self.events, "faults": len(self.timeline),
                "mapped": self.mapped, "unmapped": self.unmapped, "kinds": self.kinds,
                "node_map": self.node_map, "orphan_ends": self.orphan_ends, "open_faults": self.open_faults,
                "timeline": self.timeline.to_list()}


# ---- reading ------------------------------------------------------------------------------------------
def _read_records(path: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """Rows as dicts and a label per row for errors (``trace.json[3]``, ``trace.csv row 2``)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise FaultPlanError(str(path), f"cannot read: {exc.strerror}") from None
    if path.suffix.lower() == ".json":
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
        return data, [f"{path}[{i}]" for i in range(len(data))]
    if path.suffix.lower() != ".csv":
        raise FaultPlanError(str(path), "unknown trace format (use .json or .csv)")
    try:
        reader = csv.reader(io.StringIO(text))
        rows = list(reader)
    except csv.Error as exc:
        raise FaultPlanError(str(path), f"bad CSV: {exc}") from None
    if not rows:
        raise FaultPlanError(str(path), "empty CSV (no header)")
    header = [h.strip() for h in rows[0]]
    records, labels = [], []
    for i, row in enumerate(rows[1:], start=1):
        if not any(c.strip() for c in row):
            continue
        if len(row) != len(header):
            raise FaultPlanError(f"{path} row {i}", f"has {len(row)} fields, the header has {len(header)}")
        records.append(dict(zip(header, (c.strip() for c in row), strict=True)))
        labels.append(f"{path} row {i}")
    return records, labels


def _columns(records: list[dict[str, Any]], file: str, columns: dict[str, str] | None) -> dict[str, str | None]:
    present: dict[str, str] = {}
    for r in records:
        for k in r:
            present.setdefault(str(k).strip().lower(), k)
    out: dict[str, str | None] = {}
    for canon, aliases in ALIASES.items():
        if columns and canon in columns:
            out[canon] = columns[canon]
            continue
        out[canon] = next((present[a] for a in aliases if a in present), None)
        if out[canon] is None and canon in REQUIRED and records:
            raise FaultPlanError(file, f"missing field {canon!r} (accepted names: {', '.join(aliases)})")
    return out


def _natural(s: str) -> tuple[Any, ...]:
    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", s))


def _seconds(raw: Any, unit: str, where: str) -> float:
    if isinstance(raw, bool) or raw is None or raw == "":
        raise FaultPlanError(f"{where}.time", f"bad time {raw!r}")
    try:
        v = float(raw)
    except (TypeError, ValueError):
        raise FaultPlanError(f"{where}.time", f"bad time {raw!r} (a number is needed)") from None
    if not math.isfinite(v):
        raise FaultPlanError(f"{where}.time", f"bad time {raw!r}")
    u = unit.strip().lower()
    if u not in UNITS:
        raise FaultPlanError(f"{where}.unit", f"unknown time unit {unit!r} (known: {', '.join(UNITS)})")
    return v * UNITS[u]


# ---- replay -------------------------------------------------------------------------------------------
def replay_trace(path: str | Path, topology: Topology, rng: np.random.Generator, *, time_unit: str = "s",
                 mapping: str | Path | list[tuple[str, str]] | None = None, extend_default: bool = True,
                 pod: int | None = None, rebase: bool = False, columns: dict[str, str] | None = None
                 ) -> ReplayReport:
    """Read a trace file and map it onto ``topology`` (see the module doc for every mapping rule).

    ``rebase`` shifts times so the earliest event is at 0 s; otherwise trace times are kept and must be >= 0.
    """
    p = Path(path)
    records, labels = _read_records(p)
    return replay_records(records, topology, rng, file=str(p), labels=labels, time_unit=time_unit,
                          mapping=mapping, extend_default=extend_default, pod=pod, rebase=rebase,
                          columns=columns)


def _rules(mapping: str | Path | list[tuple[str, str]] | None, extend_default: bool) -> list[MappingRule]:
    user: list[MappingRule] = []
    if isinstance(mapping, str | Path):
        user = load_mapping(mapping)
    elif mapping is not None:
        user = [make_rule(pt, k, f"mapping[{i}]") for i, (pt, k) in enumerate(mapping)]
    return user + (default_rules() if extend_default else [])


def replay_records(records: list[dict[str, Any]], topology: Topology, rng: np.random.Generator, *,
                   file: str = "<records>", labels: list[str] | None = None, time_unit: str = "s",
                   mapping: str | Path | list[tuple[str, str]] | None = None, extend_default: bool = True,
                   pod: int | None = None, rebase: bool = False, columns: dict[str, str] | None = None
                   ) -> ReplayReport:
    """Like :func:`replay_trace` for rows already read (``labels`` name each row in errors)."""
    labels = labels or [f"{file}[{i}]" for i in range(len(records))]
    rules = _rules(mapping, extend_default)
    cols = _columns(records, file, columns)
    if time_unit.strip().lower() not in UNITS:
        raise FaultPlanError("time_unit", f"unknown time unit {time_unit!r} (known: {', '.join(UNITS)})")

    # 1. parse every row
    parsed: list[tuple[str, float, str, str]] = []  # node, t, start|end, description
    for row, where in zip(records, labels, strict=True):
        vals = {}
        for canon in REQUIRED:
            col = cols[canon]
            v = row.get(col) if col is not None else None
            if v is None or (isinstance(v, str) and not v.strip()):
                raise FaultPlanError(f"{where}.{col or canon}", "missing")
            vals[canon] = v
        unit = time_unit
        if cols["unit"] is not None and str(row.get(cols["unit"]) or "").strip():
            unit = str(row[cols["unit"]])
        t = _seconds(vals["time"], unit, where)
        ev = EVENTS.get(str(vals["event"]).strip().lower())
        if ev is None:
            raise FaultPlanError(f"{where}.{cols['event']}", f"bad event type {vals['event']!r} "
                                 "(use fault_start or fault_end)")
        parsed.append((str(vals["node"]).strip(), t, ev, str(vals["description"]).strip()))
    origin = min((t for _, t, _, _ in parsed), default=0.0) if rebase else 0.0

    # 2. nodes: natural-sorted trace ids onto the pod's nodes, modulo
    targets_nodes = topology.nodes(pod)
    if not targets_nodes:
        raise FaultPlanError("pod", f"the topology has no nodes in pod {pod}")
    trace_nodes = sorted({n for n, _, _, _ in parsed}, key=_natural)
    node_map = {tn: targets_nodes[i % len(targets_nodes)] for i, tn in enumerate(trace_nodes)}

    # 3. pair starts and ends
    kind_of: dict[str, str | None] = {}
    open_starts: dict[tuple[str, str], deque[int]] = {}
    starts: list[tuple[int, float, float | None]] = []  # row index, t, duration
    orphan = 0
    for i, (node, t, ev, desc) in enumerate(parsed):
        if desc not in kind_of:
            kind_of[desc] = next((r.kind for r in rules if r.regex.search(desc)), None)
        key = (node, desc)
        if ev == "start":
            if t - origin < 0:
                raise FaultPlanError(f"{labels[i]}.{cols['time']}", f"time {t - origin:g} s is before 0 "
                                     "(use rebase=True to start the trace at 0)")
            open_starts.setdefault(key, deque()).append(len(starts))
            starts.append((i, t, None))
            continue
        q = open_starts.get(key)
        if not q:
            orphan += 1
            continue
        j = q.popleft()
        si, st, _ = starts[j]
        if t < st:
            raise FaultPlanError(f"{labels[i]}.{cols['time']}", f"fault_end at {t:g} s is before its "
                                 f"fault_start at {st:g} s ({labels[si]})")
        if t == st:
            raise FaultPlanError(f"{labels[i]}.{cols['time']}", f"fault_end at {t:g} s equals its fault_start "
                                 f"({labels[si]}); a fault needs a duration > 0")
        starts[j] = (si, st, t - st)

    # 4. specs
    index = TargetIndex(topology)
    mapped: Counter[str] = Counter()
    unmapped: Counter[str] = Counter()
    specs: list[FaultSpec] = []
    open_faults = 0
    for si, st, dur in starts:
        node, _, _, desc = parsed[si]
        kind = kind_of[desc]
        if kind is None:
            unmapped[desc] += 1
            continue
        mapped[desc] += 1
        open_faults += dur is None
        target = _target(index, kind, node_map[node], rng)
        specs.append(FaultSpec(at_s=st - origin, kind=kind, target=target, duration_s=dur, source="replay",
                               origin=f"{labels[si]}: {desc}"))
    tl = Timeline(specs)
    return ReplayReport(file=file, timeline=tl, mapped=dict(sorted(mapped.items())),
                        unmapped=dict(sorted(unmapped.items())), kinds=tl.by_kind(), node_map=node_map,
                        events=len(parsed), orphan_ends=orphan, open_faults=open_faults)


def _target(index: TargetIndex, kind: str, node: str, rng: np.random.Generator) -> str:
    allowed = CATALOG[kind].targets
    if "node" in allowed:
        return node
    inside = sorted(c for k in allowed for c in index.by_node(k).get(node, []))
    if not inside:
        pod = ids.pod_of(node)
        inside = sorted(c.id for k in allowed for c in index.candidates(k) if c.pod == pod)
    if not inside:
        raise FaultPlanError("target", f"node {node} has nothing fault kind {kind} can hit")
    return inside[int(rng.integers(len(inside)))]
