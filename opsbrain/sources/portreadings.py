"""The :class:`~opsbrain.sweeps.portchecks.PortState` of a real source's collection and its kept history (session 35):
the node NPU counts, RoCE port counters, link speeds and optical module presence of
:mod:`opsbrain.sources.exporter_ports`, each with what the earlier kept collections read of it."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from opsbrain.ingest.healthstates import at_fault
from opsbrain.sources.readings import CollectionHistory, Readings, counter_increase
from opsbrain.sweeps.params import SweepParams
from opsbrain.sweeps.portchecks import PortState, npus_per_node

NAN = float("nan")
PEERS_MIN = 3
"""Ports of one kind on a node that must read a speed now before their most common one is the node's speed (reason:
with two, neither tells which is the degraded one)."""


BUCKET_S = 600.0
"""Width of the clock-aligned buckets whose per-id maxima the history keeps for the "before" values (reason: at the
1,500-collection cap a bucket holds ~10 collections, so the one expiring at the window's start and the one still
filling are cheap to redo, and a day is 144 bucket maxima to combine)."""


def _fold(into: dict[str, float], ds: list[Mapping[str, float]]) -> None:
    """Each id's highest value of ``ds`` into ``into`` (NaN and -inf: no value); a mapping equal to the one before
    it (most collections read what the last one did) is skipped."""
    last: Mapping[str, float] | None = None
    get = into.get
    for d in ds:
        if d == last:
            continue
        last = d
        for k, v in d.items():
            if v > get(k, -math.inf):
                into[k] = v


def _before_max(earlier: list[Readings], attr: str, ids: tuple[str, ...], memo: dict[str, Any]) -> np.ndarray:
    """Per id, the highest value ``attr`` (a mapping of id -> number or bool) read in ``earlier`` (NaN: none).

    The maximum of each clock-aligned bucket of :data:`BUCKET_S` is kept in ``memo`` (the history's ``derived``)
    under the times of the collections it covers (a kept collection never changes): a bucket whose collections are
    the same is reused, one that only gained newer ones folds those in, any other (its oldest expired, one thinned
    out) is redone; each bucket's maximum is aligned to ``ids`` once per set of ids. Session 35: before, every kept
    collection was re-read every sweep (~0.4-0.9 s at the cap: benchmarks/bench_port_state.py)."""
    if (last := memo.get(attr + " ids")) == ids:
        ids = last  # the same ids: each bucket's aligned maximum is found by identity
    memo[attr + " ids"] = ids
    groups: dict[int, list[Readings]] = {}
    for x in earlier:
        groups.setdefault(math.floor(x.t / BUCKET_S), []).append(x)
    kept: dict[int, tuple[tuple[float, ...], dict[str, float], list[Any]]] = memo.get(attr, {})
    now: dict[int, tuple[tuple[float, ...], dict[str, float], list[Any]]] = {}
    for b, xs in groups.items():
        times = tuple(x.t for x in xs)
        old = kept.get(b)
        if old is not None and old[0] == times:
            now[b] = old
            continue
        grown = old is not None and times[: len(old[0])] == old[0]
        top = dict(old[1]) if grown and old is not None else {}
        _fold(top, [getattr(x, attr) for x in xs[len(old[0]) if grown and old is not None else 0:]])
        now[b] = (times, top, [None, None])  # [ids, their aligned maximum]
    memo[attr] = now
    out = np.full(len(ids), NAN)
    for _times, top, aligned in now.values():
        if not top:
            continue
        if aligned[0] is not ids:
            aligned[:] = [ids, np.fromiter((top.get(i, NAN) for i in ids), dtype=float, count=len(ids))]
        np.fmax(out, aligned[1], out=out)
    return out


def _counter(name: str) -> Callable[[Readings], Mapping[str, float]]:
    """A collection's ``port_counters[name]`` (empty where it read none)."""
    return lambda x: x.port_counters.get(name, {})


def _peer_speeds(speed: dict[str, float], links: tuple[str, ...]) -> np.ndarray:
    """Per link, the speed a strict majority of at least :data:`PEERS_MIN` same-kind ports of its node read (the
    RoCE port ``.../port`` and UB ports are apart); NaN where there is none."""
    groups: dict[tuple[str, bool], list[float]] = {}
    for ln in links:
        key = (ln.rpartition("/npu")[0], ln.endswith("/port") and "/udie" not in ln)
        groups.setdefault(key, []).append(speed[ln])
    mode: dict[tuple[str, bool], float] = {}
    for key, vals in groups.items():
        if len(vals) >= PEERS_MIN:
            v, n = Counter(vals).most_common(1)[0]
            if 2 * n > len(vals):
                mode[key] = v
    return np.fromiter((mode.get((ln.rpartition("/npu")[0], ln.endswith("/port") and "/udie" not in ln), NAN)
                        for ln in links), dtype=float, count=len(links))


def port_state(cur: Readings, history: CollectionHistory, p: SweepParams, npus: tuple[str, ...]) -> PortState | None:
    """``cur``'s port state (``history`` holds ``cur``); None where it read none of these series (a page without
    them: the snapshot is as before). "Before" reaches back ``p.link_down_window_s`` (24 h, the kept history); the
    counters' increase is over ``p.crc_window_s``, as the CRC check's."""
    if not (cur.node_npu_count or cur.node_npu_unhealthy or cur.node_npu_unknown or cur.port_counters
            or cur.link_speed or cur.optics_present):
        return None
    t = cur.t
    earlier = [x for x in history.within(t - p.link_down_window_s, t) if x is not cur and x.t < t]
    nodes = tuple(sorted(cur.node_npu_count.keys() | cur.node_npu_unhealthy.keys() | cur.node_npu_unknown.keys()))
    read = npus_per_node(npus)
    ports = tuple(sorted({ln for d in cur.port_counters.values() for ln in d}))
    kept = [x for x in history.within(t - p.crc_window_s, t) if x is not cur and x.t < t] + [cur]
    errors = {c: counter_increase(kept, _counter(c), ports)[0] for c in sorted(cur.port_counters)}
    links = tuple(sorted(cur.link_speed))
    modules = tuple(sorted(cur.optics_present))
    seen = _before_max(earlier, "optics_present", modules, history.derived) > 0
    return PortState(
        window_s=p.link_down_window_s, nodes=nodes,
        npus_counted=_per_node(cur.node_npu_count, nodes),
        npus_counted_before=_before_max(earlier, "node_npu_count", nodes, history.derived),
        npus_read=np.fromiter((read.get(n, 0) for n in nodes), dtype=float, count=len(nodes)),
        ports=ports, errors=errors, errors_window_s=t - kept[0].t if len(kept) > 1 else 0.0,
        speed_links=links, speed=np.fromiter((cur.link_speed[ln] for ln in links), dtype=float, count=len(links)),
        speed_before=_before_max(earlier, "link_speed", links, history.derived),
        speed_peers=_peer_speeds(cur.link_speed, links),
        modules=modules, present=np.fromiter((cur.optics_present[m] for m in modules), dtype=bool,
                                             count=len(modules)), present_before=seen,
        npus_unhealthy=_per_node(cur.node_npu_unhealthy, nodes), npus_unknown=_per_node(cur.node_npu_unknown, nodes),
        npus_shown_unhealthy=_per_node(shown_unhealthy(cur), nodes, 0.0))


def _per_node(d: Mapping[str, float], nodes: tuple[str, ...], missing: float = NAN) -> np.ndarray:
    # (not ``d.get``: a collection's mappings are read by key only, test_exporter_port_before35 counts their reads)
    return np.fromiter((d[n] if n in d else missing for n in nodes), dtype=float, count=len(nodes))  # noqa: SIM401


def shown_unhealthy(r: Readings) -> dict[str, float]:
    """Per node, its NPUs whose own series show a fault now: health Alarm or Critical (not Unknown, which the node
    counts apart, ``machine_unknown_npu_nums``), or a fault code (what explains the node's
    ``machine_unhealthy_npu_nums``; session 42)."""
    bad = {n for n, lv in r.npu_health.items() if at_fault(lv)} | {n for n, codes in r.npu_fault_codes.items() if codes}
    return dict(Counter(n.rpartition("/npu")[0] for n in bad))
