"""Resolve where a fault lands: by component id, or by selector + Chaos-Mesh-style mode/value.

Selector fields (each an int/str or a list of them; all given fields must match):
``pod`` (3 or "pod3"), ``node`` (index, "node12" or "pod0/node12"), ``rack`` (index, "rack3" or "pod0/rack3";
a link matches the rack of either end), ``plane`` (UB plane index of an L1 chip, L2 chip or L1-L2 link),
``kind`` (topology kind, e.g. "l2", "ub_optical", "hbm"; it must be one the fault kind can hit).
Modes (facts.md §6, Chaos Mesh): ``one``, ``all``, ``fixed`` (value N), ``fixed-percent`` (value P: floor of P%
of the matches), ``random-max-percent`` (a random count from 1 to floor of P% of the matches, at least 1).
Mode defaults to ``one`` (the smallest blast radius). Matches are sorted by id before a random choice, so the
same generator state always gives the same targets.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from faultlib import ids
from faultlib.faults.catalog import CATALOG
from faultlib.injection.spec import FaultPlanError, FaultSpec, Timeline
from faultlib.topology import Topology

MODES = ("one", "all", "fixed", "fixed-percent", "random-max-percent")
SELECTOR_FIELDS = ("pod", "node", "rack", "plane", "kind")
ITEM_FIELDS = ("at", "at_s", "kind", "target", "selector", "mode", "value", "params", "duration", "duration_s",
               "name")


@dataclass(frozen=True, slots=True)
class Candidate:
    """A component or link a fault can hit, with the attributes selectors test."""

    id: str
    kind: str
    pod: str | None
    node: str | None
    racks: tuple[str, ...]
    plane: int | None


def allowed_targets(fault_kind: str) -> tuple[str, ...]:
    return CATALOG[fault_kind].targets


class TargetIndex:
    """Candidates per topology kind (components by ``Topology.kind``, links by ``Link.kind``), built lazily."""

    def __init__(self, topology: Topology) -> None:
        self.topology = topology
        self._by_kind: dict[str, list[Candidate]] = {}
        self._by_node: dict[str, dict[str, list[str]]] = {}
        self._link_kinds: set[str] | None = None

    def kind_of(self, cid: str) -> str | None:
        lk = self.topology.links.get(cid)
        return lk.kind if lk is not None else self.topology.kind.get(cid)

    def _rack(self, cid: str) -> str | None:
        rk = self.topology.rack_of.get(cid)
        if rk is None:
            nd = ids.node_of(cid)
            rk = self.topology.rack_of.get(nd) if nd else None
        return rk

    def candidates(self, kind: str) -> list[Candidate]:
        """Every component or link of topology kind ``kind``, sorted by id."""
        if kind in self._by_kind:
            return self._by_kind[kind]
        topo = self.topology
        if self._link_kinds is None:
            self._link_kinds = {lk.kind for lk in topo.links.values()}
        out: list[Candidate] = []
        if kind in self._link_kinds:
            for lk in topo.links.values():
                if lk.kind == kind:
                    racks = tuple(dict.fromkeys(r for r in (self._rack(lk.a), self._rack(lk.b)) if r))
                    out.append(Candidate(lk.id, kind, ids.pod_of(lk.a), lk.node or ids.node_of(lk.a), racks,
                                         lk.plane))
        else:
            for cid in topo.by_kind.get(kind, []):
                rk = self._rack(cid)
                out.append(Candidate(cid, kind, ids.pod_of(cid), ids.node_of(cid), (rk,) if rk else (),
                                     _plane_of(cid, kind)))
        out.sort(key=lambda c: c.id)
        self._by_kind[kind] = out
        return out

    def by_node(self, kind: str) -> dict[str, list[str]]:
        """Node id -> ids of that node's ``kind`` candidates (only node-contained candidates)."""
        if kind not in self._by_node:
            grouped: dict[str, list[str]] = {}
            for c in self.candidates(kind):
                if c.node is not None:
                    grouped.setdefault(c.node, []).append(c.id)
            self._by_node[kind] = grouped
        return self._by_node[kind]


def _plane_of(cid: str, kind: str) -> int | None:
    if kind == "l1":
        return ids.index(cid, "l1sw")
    if kind == "l2":
        return ids.index(cid, "l2plane")
    return None


# ---- selector matching ---------------------------------------------------------------------------------
def _as_list(v: Any) -> list[Any]:
    return list(v) if isinstance(v, list | tuple) else [v]


def _index_matcher(field: str, raw: Any, prefix: str, where: str) -> tuple[set[int], set[str]]:
    """Split selector values into bare indices (3, "node3") and full ids ("pod0/node3")."""
    idx: set[int] = set()
    full: set[str] = set()
    for v in _as_list(raw):
        if isinstance(v, bool):
            raise FaultPlanError(f"{where}.{field}", f"bad value {v!r}")
        if isinstance(v, int):
            if v < 0:
                raise FaultPlanError(f"{where}.{field}", f"must be >= 0, got {v}")
            idx.add(v)
        elif isinstance(v, str) and v.isdigit():
            idx.add(int(v))
        elif isinstance(v, str) and v.startswith(prefix) and v[len(prefix):].isdigit():
            idx.add(int(v[len(prefix):]))
        elif isinstance(v, str) and "/" in v:
            full.add(v)
        else:
            raise FaultPlanError(f"{where}.{field}", f"bad value {v!r} (use an index, '{prefix}N' or a full id)")
    return idx, full


def _matches(value: str | None, prefix: str, idx: set[int], full: set[str]) -> bool:
    if value is None:
        return False
    if value in full:
        return True
    try:
        return ids.index(value, prefix) in idx
    except ValueError:
        return False


def select(index: TargetIndex, fault_kind: str, selector: Any, where: str = "") -> list[str]:
    """All candidate ids for ``fault_kind`` matching ``selector`` (sorted); raise if none match."""
    sel_where = f"{where}.selector" if where else "selector"
    if not isinstance(selector, dict):
        raise FaultPlanError(sel_where, "must be a mapping")
    for key in selector:
        if key not in SELECTOR_FIELDS:
            raise FaultPlanError(f"{sel_where}.{key}", f"unknown selector field (known: {', '.join(SELECTOR_FIELDS)})")
    allowed = allowed_targets(fault_kind)
    kinds = list(allowed)
    if "kind" in selector:
        asked = [str(k) for k in _as_list(selector["kind"])]
        bad = [k for k in asked if k not in allowed]
        if bad:
            raise FaultPlanError(f"{sel_where}.kind", f"fault kind {fault_kind} cannot hit {bad[0]!r} "
                                 f"(it targets {', '.join(allowed)})")
        kinds = asked
    tests: list[tuple[str, str, set[int], set[str]]] = []
    for field, prefix in (("pod", "pod"), ("node", "node"), ("rack", "rack")):
        if field in selector:
            tests.append((field, prefix, *_index_matcher(field, selector[field], prefix, sel_where)))
    planes: set[int] | None = None
    if "plane" in selector:
        planes = set()
        for v in _as_list(selector["plane"]):
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise FaultPlanError(f"{sel_where}.plane", f"must be a plane index >= 0, got {v!r}")
            planes.add(v)
    out: list[str] = []
    for k in kinds:
        for c in index.candidates(k):
            if planes is not None and c.plane not in planes:
                continue
            ok = True
            for field, prefix, idx, full in tests:
                if field == "rack":
                    ok = any(_matches(r, prefix, idx, full) for r in c.racks)
                else:
                    ok = _matches(c.pod if field == "pod" else c.node, prefix, idx, full)
                if not ok:
                    break
            if ok:
                out.append(c.id)
    if not out:
        shown = ", ".join(f"{k}={selector[k]!r}" for k in selector)
        raise FaultPlanError(sel_where, f"matches no {'/'.join(kinds)} for fault kind {fault_kind} ({shown})")
    return sorted(out)


def _percent(value: Any, where: str) -> float:
    v = value
    if isinstance(v, str):
        try:
            v = float(v.strip().rstrip("%"))
        except ValueError:
            raise FaultPlanError(where, f"must be a percentage, got {value!r}") from None
    if isinstance(v, bool) or not isinstance(v, int | float) or not 0 < v <= 100:
        raise FaultPlanError(where, f"must be a percentage in (0, 100], got {value!r}")
    return float(v)


def apply_mode(matches: Sequence[str], mode: str | None, value: Any, rng: np.random.Generator,
               where: str = "") -> list[str]:
    """Pick targets from ``matches`` (sorted ids) by Chaos-Mesh ``mode`` and ``value``."""
    mode = mode or "one"
    mw = f"{where}.mode" if where else "mode"
    vw = f"{where}.value" if where else "value"
    if mode not in MODES:
        raise FaultPlanError(mw, f"unknown mode {mode!r} (known: {', '.join(MODES)})")
    n = len(matches)
    if mode in ("one", "all"):
        if value is not None:
            raise FaultPlanError(vw, f"mode {mode} takes no value")
        if mode == "all":
            return list(matches)
        return [matches[int(rng.integers(n))]]
    if value is None:
        raise FaultPlanError(vw, f"mode {mode} needs a value")
    if mode == "fixed":
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise FaultPlanError(vw, f"mode fixed needs an integer >= 1, got {value!r}")
        if value > n:
            raise FaultPlanError(vw, f"fixed {value} asked but the selection has only {n}")
        k = value
    elif mode == "fixed-percent":
        pct = _percent(value, vw)
        k = math.floor(n * pct / 100 + 1e-9)
        if k < 1:
            raise FaultPlanError(vw, f"fixed-percent {pct:g}% of {n} selects none")
    else:  # random-max-percent
        pct = _percent(value, vw)
        k = int(rng.integers(1, max(1, math.floor(n * pct / 100 + 1e-9)) + 1))
    if k == n:
        return list(matches)
    picked = rng.choice(n, size=k, replace=False)
    return [matches[i] for i in sorted(int(i) for i in picked)]


def resolve_id(index: TargetIndex, fault_kind: str, target: Any, where: str = "") -> str:
    """Check that ``target`` exists and is something ``fault_kind`` can hit."""
    tw = f"{where}.target" if where else "target"
    if not isinstance(target, str) or not target:
        raise FaultPlanError(tw, f"must be a component id, got {target!r}")
    tk = index.kind_of(target)
    if tk is None:
        raise FaultPlanError(tw, f"no component {target!r}")
    allowed = allowed_targets(fault_kind)
    if tk not in allowed:
        raise FaultPlanError(tw, f"{target!r} is a {tk}; fault kind {fault_kind} targets {', '.join(allowed)} "
                             "(use a selector to pick one inside it)")
    return target


def resolve(index: TargetIndex, fault_kind: str, *, target: Any = None, selector: dict[str, Any] | None = None,
            mode: str | None = None, value: Any = None, rng: np.random.Generator | None = None,
            where: str = "") -> list[str]:
    """Targets for one plan item: exactly one of ``target`` (an id) or ``selector`` (+ mode, value)."""
    if fault_kind not in CATALOG:
        raise FaultPlanError(f"{where}.kind" if where else "kind",
                             f"unknown fault kind {fault_kind!r} (known: {', '.join(sorted(CATALOG))})")
    if (target is None) == (selector is None):
        raise FaultPlanError(where or "item", "give exactly one of 'target' or 'selector'")
    if target is not None:
        if mode not in (None, "one") or value is not None:
            raise FaultPlanError(f"{where}.mode" if where else "mode", "mode/value apply to a selector only")
        return [resolve_id(index, fault_kind, target, where)]
    matches = select(index, fault_kind, selector, where)
    if rng is None:
        raise TypeError("resolve: a numpy Generator is needed to resolve a selector")
    return apply_mode(matches, mode, value, rng, where)


# ---- scripted plans ------------------------------------------------------------------------------------
def _number(item: dict[str, Any], names: tuple[str, str], where: str, required: bool) -> float | None:
    given = [n for n in names if n in item]
    if len(given) > 1:
        raise FaultPlanError(f"{where}.{given[1]}", f"give only one of {' / '.join(names)}")
    if not given:
        if required:
            raise FaultPlanError(f"{where}.{names[0]}", "missing")
        return None
    v = item[given[0]]
    if v is None and not required:
        return None
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        raise FaultPlanError(f"{where}.{given[0]}", f"must be a number of seconds, got {v!r}")
    return float(v)


MAX_SCRIPTED_FAULTS = 100_000
"""Faults a scenario's scripted items may expand to, all selectors resolved (reason: ``mode: all`` on the HBMs of the
largest fleet a scenario may build, 64 pods, is 24,576 faults; 10,000 such items passed the schema and grew past
memory before the run; session 25)."""


def plan_scripted(topology: Topology | TargetIndex, items: list[dict[str, Any]], rng: np.random.Generator,
                  where: str = "faults") -> Timeline:
    """A timeline from scripted items ``{at, kind, target | selector (+ mode, value), params, duration}``.

    A selector that picks several targets yields one spec per target at the same time. Errors name the item
    (``faults[3].target: no component 'pod0/node99'``).
    """
    index = topology if isinstance(topology, TargetIndex) else TargetIndex(topology)
    if not isinstance(items, list):
        raise FaultPlanError(where, "must be a list of fault items")
    specs: list[FaultSpec] = []
    for i, item in enumerate(items):
        iw = f"{where}[{i}]"
        if not isinstance(item, dict):
            raise FaultPlanError(iw, "must be a mapping")
        for key in item:
            if key not in ITEM_FIELDS:
                raise FaultPlanError(f"{iw}.{key}", f"unknown field (known: {', '.join(ITEM_FIELDS)})")
        at = _number(item, ("at", "at_s"), iw, required=True)
        if at is None:
            raise FaultPlanError(f"{iw}.at", "missing")
        duration = _number(item, ("duration", "duration_s"), iw, required=False)
        if "kind" not in item:
            raise FaultPlanError(f"{iw}.kind", "missing")
        kind = item["kind"]
        if not isinstance(kind, str) or kind not in CATALOG:
            raise FaultPlanError(f"{iw}.kind", f"unknown fault kind {kind!r} (known: {', '.join(sorted(CATALOG))})")
        params = item.get("params") or {}
        name = item.get("name", "")
        if not isinstance(name, str):
            raise FaultPlanError(f"{iw}.name", "must be a string")
        targets = resolve(index, kind, target=item.get("target"), selector=item.get("selector"),
                          mode=item.get("mode"), value=item.get("value"), rng=rng, where=iw)
        if len(specs) + len(targets) > MAX_SCRIPTED_FAULTS:
            raise FaultPlanError(iw, f"selects {len(targets)} targets, and the items before it {len(specs)}: more "
                                 f"than {MAX_SCRIPTED_FAULTS} scripted faults in all (a selector with mode 'all' "
                                 "picks every matching component)")
        for t in targets:
            try:
                specs.append(FaultSpec(at_s=at, kind=kind, target=t, params=dict(params) if isinstance(
                    params, dict) else params, duration_s=duration, source="scripted",
                    origin=f"{iw} {name}".strip()))
            except FaultPlanError as exc:
                fieldmap = {"at_s": "at" if "at" in item else "at_s",
                            "duration_s": "duration" if "duration" in item else "duration_s"}
                raise FaultPlanError(f"{iw}.{fieldmap.get(exc.path, exc.path)}", exc.reason) from None
    return Timeline(specs)
