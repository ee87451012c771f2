"""Replay a fault event trace (JSON or CSV, see :mod:`faultlib.injection.trace_table`) onto a pod as a Timeline.

Mapping, documented choices:
- nodes: the trace's unique node ids in natural sort order (``n2`` before ``n10``); the i-th goes to the i-th
  of the given target nodes (default: every node of the pod or topology). A trace with more servers than target
  nodes is refused unless ``fold=True``, which maps modulo the target count (said in ``folded``).
- what failed: the first matching rule gives the fault kind. Rules are user rules (``mapping``), then the given
  table rows (``table``: structured ``level``/``class``/``desc`` rows, see opsbrain/scenario/replay_mapping.yaml),
  then the generic description rules :data:`DEFAULT_RULES` unless ``extend_default=False``. A rule may map to
  no kind on purpose (``kind: null``, with its reason). Unmapped faults are counted by description, never dropped
  silently.
- durations: a trace duration becomes the fault's ``duration_s``; the models of :data:`DURATION_KINDS` end (heal)
  after it, the others end as their model says (the controller's repair decides when the part returns); both
  counts are reported.
- the target is the node for node-level kinds, else a component of that kind in the node (or, for kinds not
  inside a node such as L2 chips, in the node's pod), chosen with the given generator.
"""

from __future__ import annotations

import csv
import io
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from faultlib import ids
from faultlib.faults.catalog import CATALOG
from faultlib.injection.selectors import TargetIndex
from faultlib.injection.spec import FaultPlanError, FaultSpec, Timeline
from faultlib.injection.trace_table import TraceFault, TraceTable, read_frame, read_text, table_from_frame
from faultlib.topology import Topology

# (regex searched in the description, fault kind): first match wins, so specific patterns come first.
DEFAULT_RULES: tuple[tuple[str, str], ...] = (
    (r"silent data|\bsdc\b", "silent_data_corruption"),
    (r"row.{0,20}(exhaust|remap\w* fail|replace)|isolated rows|xid ?64\b", "hbm_row_exhaustion"),
    (r"over.?temp|thermal", "hbm_overtemp"),
    (r"(hbm|gpu|npu|device|memory).{0,30}(?<!un)correctable|\bce storm|\bce\b", "hbm_ce_storm"),
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
    (r"panic|crash|reboot|power|\bpsu\b|chassis|\bcpu\b|dimm|\bssd\b|disk|mainboard|motherboard|"
     r"\bbmc\b|host|node down", "node_crash"),
    (r"nccl|hccl|watchdog|timeout|software|\bbug\b|segfault|dependency", "collective_timeout_sw"),
    (r"\bdpu\b|qingtian|io expansion|io board", "qingtian_failure"),
    (r"(gpu|npu|ai ?core|accelerator).{0,20}(hang|stuck)", "aicore_hang"),
    (r"hang|unresponsive|stuck|lockup|heartbeat", "node_hang"),
    (r"memory", "node_crash"),
    (r"gpu|npu|ai ?core|xid|sram|accelerator|device", "aicore_hang"),
)
DURATION_KINDS: frozenset[str] = frozenset({
    "hbm_ce_storm", "link_flap", "link_down", "l1_switch_failure", "l2_switch_failure", "npu_fail_slow",
    "qingtian_failure", "roce_port_down"})
"""Kinds whose model ends (heals) after the spec's ``duration_s`` (checked against the models by a test)."""
REPAIR_KINDS: frozenset[str] = frozenset({"node_crash", "node_hang", "hbm_row_exhaustion", "hbm_overtemp",
                                         "aicore_hang", "npu_off_bus"})
"""Kinds whose ``duration_s`` is a repair time counted from onset: the host or the chip cannot come back before it
(a reboot or chip reset waits for the repair, a replacement ends no sooner), and is back in service after it
(``FaultModel.repair_for_duration``)."""


@dataclass(frozen=True, slots=True)
class MappingRule:
    """One rule: a description regex (searched) or per-field regexes (whole field, case-insensitive)."""

    kind: str | None
    origin: str
    pattern: re.Pattern[str] | None = None
    level: re.Pattern[str] | None = None
    cls: re.Pattern[str] | None = None
    desc: re.Pattern[str] | None = None
    reason: str = ""
    basis: str = ""

    def matches(self, f: TraceFault) -> bool:
        if self.pattern is not None:
            return self.pattern.search(f.description) is not None
        # a trace with one description column matches it against desc; level/class rows need those fields
        return all(rx is None or rx.fullmatch(text) is not None
                   for rx, text in ((self.level, f.level), (self.cls, f.cls), (self.desc, f.desc)))


def _regex(pattern: Any, where: str) -> re.Pattern[str]:
    if not isinstance(pattern, str) or not pattern:
        raise FaultPlanError(where, f"must be a non-empty string, got {pattern!r}")
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", FutureWarning)  # ``[[``: ambiguous; refused, not printed on stderr
            return re.compile(pattern, re.IGNORECASE)
    except (re.error, OverflowError, FutureWarning) as exc:  # OverflowError: a repeat count past 2^32
        raise FaultPlanError(where, f"bad regular expression: {exc}") from None
    except RecursionError:
        raise FaultPlanError(where, "bad regular expression: nested too deeply") from None


def _kind(kind: Any, where: str, nullable: bool) -> str | None:
    if kind is None and nullable:
        return None
    if not isinstance(kind, str) or kind not in CATALOG:
        raise FaultPlanError(f"{where}.kind", f"unknown fault kind {kind!r} (known: {', '.join(sorted(CATALOG))})")
    return kind


def make_rule(pattern: Any, kind: Any, where: str) -> MappingRule:
    return MappingRule(_kind(kind, where, nullable=False), where, pattern=_regex(pattern, f"{where}.pattern"))


BASES = ("documented", "reasoned", "assumed")
"""What a mapping row rests on (docs/replay.md, Mapping); a user's row may leave it out."""


def _basis(item: dict[str, Any], where: str) -> str:
    basis = item.get("basis")
    if basis is None:
        return ""
    if basis not in BASES:
        raise FaultPlanError(f"{where}.basis", f"must be one of {', '.join(BASES)}, got {basis!r}")
    return str(basis)


def make_row(item: dict[str, Any], where: str) -> MappingRule:
    """A structured rule ``{level?, class?, desc?, kind, reason?, basis?}`` (or ``{pattern, kind}``)."""
    known = {"pattern", "level", "class", "desc", "kind", "reason", "basis"}
    extra = sorted(set(item) - known)
    if extra:
        raise FaultPlanError(f"{where}.{extra[0]}", f"unknown key (known: {', '.join(sorted(known))})")
    if "kind" not in item:
        raise FaultPlanError(f"{where}.kind", "missing (a fault kind, or null for 'no counterpart')")
    if "pattern" in item:
        rule = make_rule(item["pattern"], item["kind"], where)
        return MappingRule(rule.kind, where, pattern=rule.pattern, reason=str(item.get("reason") or ""),
                           basis=_basis(item, where))
    fields = {k: _regex(item[k], f"{where}.{k}") for k in ("level", "class", "desc") if k in item}
    if not fields:
        raise FaultPlanError(where, "needs pattern, or at least one of level, class, desc")
    return MappingRule(_kind(item["kind"], where, nullable=True), where, level=fields.get("level"),
                       cls=fields.get("class"), desc=fields.get("desc"), reason=str(item.get("reason") or ""),
                       basis=_basis(item, where))


def default_rules() -> list[MappingRule]:
    return [make_rule(p, k, f"default[{i}]") for i, (p, k) in enumerate(DEFAULT_RULES)]


def load_mapping(path: str | Path) -> list[MappingRule]:
    """Rules from a YAML file (a list of rows, ``{rows: [...]}``, or a ``pattern: kind`` mapping) or a CSV file
    (columns ``pattern``, ``kind``; or ``level``/``class``/``desc``, ``kind``)."""
    p = Path(path)
    text = read_text(p)
    if p.suffix.lower() == ".csv":
        reader = csv.DictReader(io.StringIO(text))
        try:
            cols = {c.strip().lower(): c for c in reader.fieldnames or []}
        except csv.Error as exc:
            raise FaultPlanError(str(p), f"bad CSV header: {exc}") from None
        if "kind" not in cols:
            raise FaultPlanError(str(p), "missing column 'kind'")
        if "pattern" not in cols and not {"level", "class", "desc"} & set(cols):
            raise FaultPlanError(str(p), "missing column 'pattern' (or level/class/desc)")
        out = []
        i = 0
        try:
            for i, row in enumerate(reader, start=1):
                item = {k: (row[c] or "").strip() for k, c in cols.items() if (row[c] or "").strip()}
                item.setdefault("kind", "")
                out.append(make_row(item, f"{p} row {i}"))
        except csv.Error as exc:  # a field past the csv module's limit (128 KiB)
            raise FaultPlanError(f"{p} row {i + 1}", f"bad CSV: {exc}") from None
        return out
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise FaultPlanError(str(p), f"bad YAML: {exc}") from None
    rows = data.get("rows") if isinstance(data, dict) else None
    base = f"{p}.rows" if isinstance(rows, list) else str(p)
    data = rows if isinstance(rows, list) else data
    if isinstance(data, dict):
        return [make_rule(k, v, f"{p}[{k!r}]") for k, v in data.items()]
    if isinstance(data, list):
        out = []
        for i, item in enumerate(data):
            if not isinstance(item, dict):
                raise FaultPlanError(f"{base}[{i}]", "must be a mapping with kind and pattern or level/class/desc")
            out.append(make_row(item, f"{base}[{i}]"))
        return out
    raise FaultPlanError(str(p), "must be a list of rules, {rows: [...]} or a mapping pattern -> kind")


MappingArg = str | Path | list[tuple[str, str]] | None


def _rules(mapping: MappingArg, table: str | Path | None, extend_default: bool) -> list[MappingRule]:
    user: list[MappingRule] = []
    if isinstance(mapping, str | Path):
        user = load_mapping(mapping)
    elif mapping is not None:
        user = [make_rule(pt, k, f"mapping[{i}]") for i, (pt, k) in enumerate(mapping)]
    rows = load_mapping(table) if table is not None else []
    return user + rows + (default_rules() if extend_default else [])


@dataclass
class ReplayReport:
    """What a replay produced: the timeline and how every trace fault was accounted for."""

    file: str
    timeline: Timeline
    trace: TraceTable
    mapped: dict[str, int] = field(default_factory=dict)      # description -> fault starts mapped
    unmapped: dict[str, int] = field(default_factory=dict)    # description -> fault starts with no kind
    unmapped_reasons: dict[str, str] = field(default_factory=dict)  # description -> why (a null row, or no rule)
    kinds: dict[str, int] = field(default_factory=dict)       # fault kind -> specs
    by_rule: dict[str, int] = field(default_factory=dict)     # rule origin -> faults it mapped
    by_basis: dict[str, int] = field(default_factory=dict)    # documented | reasoned | assumed | "" -> faults
    node_map: dict[str, str] = field(default_factory=dict)    # trace node -> topology node
    folded: bool = False
    durations_used: int = 0        # mapped faults whose model ends after the trace's duration
    durations_not_modelled: dict[str, int] = field(default_factory=dict)  # kind -> faults whose model ignores it

    @property
    def events(self) -> int:
        return self.trace.events

    @property
    def orphan_ends(self) -> int:
        return self.trace.orphan_ends

    @property
    def open_faults(self) -> int:
        return sum(1 for s in self.timeline if s.duration_s is None)

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


def _natural(s: str) -> tuple[Any, ...]:
    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", s))


# ---- replay -------------------------------------------------------------------------------------------
def replay_trace(path: str | Path, topology: Topology, rng: np.random.Generator, *, time_unit: str = "s",
                 mapping: MappingArg = None, table: str | Path | None = None, extend_default: bool = True,
                 pod: int | None = None, nodes: list[str] | None = None, fold: bool = True,
                 rebase: bool = False, columns: dict[str, str] | None = None) -> ReplayReport:
    """Read a trace file and map it onto ``topology`` (see the module doc for every mapping rule).

    ``rebase`` shifts times so the earliest event is at 0 s; otherwise trace times are kept and must be >= 0."""
    p = Path(path)
    tt = table_from_frame(read_frame(p), str(p), time_unit=time_unit, rebase=rebase, columns=columns)
    return replay_table(tt, topology, rng, mapping=mapping, table=table, extend_default=extend_default, pod=pod,
                        nodes=nodes, fold=fold)


def replay_table(tt: TraceTable, topology: Topology, rng: np.random.Generator, *, mapping: MappingArg = None,
                 table: str | Path | None = None, extend_default: bool = True, pod: int | None = None,
                 nodes: list[str] | None = None, fold: bool = True) -> ReplayReport:
    """Map a read trace onto ``topology``'s nodes (``nodes``, else those of ``pod`` or of the whole topology)."""
    rules = _rules(mapping, table, extend_default)
    targets_nodes = list(nodes) if nodes is not None else topology.nodes(pod)
    if not targets_nodes:
        raise FaultPlanError("pod", f"the topology has no nodes in pod {pod}")
    trace_nodes = sorted({f.node for f in tt.faults}, key=_natural)
    if len(trace_nodes) > len(targets_nodes) and not fold:
        raise FaultPlanError("pods", f"the trace names {len(trace_nodes)} servers but only {len(targets_nodes)} "
                             "nodes are available: use more pods, or fold servers onto nodes on request")
    node_map = {tn: targets_nodes[i % len(targets_nodes)] for i, tn in enumerate(trace_nodes)}

    cache: dict[tuple[str, str, str], MappingRule | None] = {}
    index = TargetIndex(topology)
    mapped: Counter[str] = Counter()
    unmapped: Counter[str] = Counter()
    reasons: dict[str, str] = {}
    by_rule: Counter[str] = Counter()
    by_basis: Counter[str] = Counter()
    ignored: Counter[str] = Counter()
    used = 0
    specs: list[FaultSpec] = []
    for f in tt.faults:
        key = (f.level, f.cls, f.desc)
        if key not in cache:
            cache[key] = next((r for r in rules if r.matches(f)), None)
        rule = cache[key]
        if rule is None or rule.kind is None:
            unmapped[f.description] += 1
            reasons[f.description] = (f"{rule.origin}: {rule.reason}" if rule is not None
                                      else "no rule matched")
            continue
        mapped[f.description] += 1
        by_rule[rule.origin] += 1
        by_basis[rule.basis] += 1
        if f.duration_s is not None:
            if rule.kind in DURATION_KINDS or rule.kind in REPAIR_KINDS:
                used += 1
            else:
                ignored[rule.kind] += 1
        target = _target(index, rule.kind, node_map[f.node], rng)
        specs.append(FaultSpec(at_s=f.start_s, kind=rule.kind, target=target, duration_s=f.duration_s,
                               source="replay", origin=f"{f.label}: {f.description}"))
    tl = Timeline(specs)
    return ReplayReport(file=tt.file, timeline=tl, trace=tt, mapped=dict(sorted(mapped.items())),
                        unmapped=dict(sorted(unmapped.items())), unmapped_reasons=dict(sorted(reasons.items())),
                        kinds=tl.by_kind(), by_rule=dict(by_rule), by_basis=dict(sorted(by_basis.items())),
                        node_map=node_map, folded=len(trace_nodes) > len(targets_nodes), durations_used=used,
                        durations_not_modelled=dict(sorted(ignored.items())))


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
