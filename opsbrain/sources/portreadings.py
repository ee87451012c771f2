"""The :class:`~opsbrain.sweeps.portchecks.PortState` of a real source's collection and its kept history (session 35):
the node NPU counts, RoCE port counters, link speeds and optical module presence of
:mod:`opsbrain.sources.exporter_ports`, each with what the earlier kept collections read of it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping

import numpy as np

from opsbrain.sources.readings import CollectionHistory, Readings, counter_increase
from opsbrain.sweeps.params import SweepParams
from opsbrain.sweeps.portchecks import PortState, npus_per_node

NAN = float("nan")
PEERS_MIN = 3
"""Ports of one kind on a node that must read a speed now before their most common one is the node's speed (reason:
with two, neither tells which is the degraded one)."""


def _before_max(earlier: list[Readings], attr: str, ids: tuple[str, ...]) -> np.ndarray:
    out = np.full(len(ids), NAN)
    for x in earlier:
        d = getattr(x, attr)
        if d:
            out = np.fmax(out, np.fromiter((d.get(i, NAN) for i in ids), dtype=float, count=len(ids)))
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
    if not (cur.node_npu_count or cur.port_counters or cur.link_speed or cur.optics_present):
        return None
    t = cur.t
    earlier = [x for x in history.within(t - p.link_down_window_s, t) if x is not cur and x.t < t]
    nodes = tuple(sorted(cur.node_npu_count))
    read = npus_per_node(npus)
    ports = tuple(sorted({ln for d in cur.port_counters.values() for ln in d}))
    kept = [x for x in history.within(t - p.crc_window_s, t) if x is not cur and x.t < t] + [cur]
    errors = {c: counter_increase(kept, _counter(c), ports)[0] for c in sorted(cur.port_counters)}
    links = tuple(sorted(cur.link_speed))
    modules = tuple(sorted(cur.optics_present))
    seen = np.fromiter((any(x.optics_present.get(m) for x in earlier) for m in modules), dtype=bool,
                       count=len(modules))
    return PortState(
        window_s=p.link_down_window_s, nodes=nodes,
        npus_counted=np.fromiter((cur.node_npu_count[n] for n in nodes), dtype=float, count=len(nodes)),
        npus_counted_before=_before_max(earlier, "node_npu_count", nodes),
        npus_read=np.fromiter((read.get(n, 0) for n in nodes), dtype=float, count=len(nodes)),
        ports=ports, errors=errors, errors_window_s=t - kept[0].t if len(kept) > 1 else 0.0,
        speed_links=links, speed=np.fromiter((cur.link_speed[ln] for ln in links), dtype=float, count=len(links)),
        speed_before=_before_max(earlier, "link_speed", links), speed_peers=_peer_speeds(cur.link_speed, links),
        modules=modules, present=np.fromiter((cur.optics_present[m] for m in modules), dtype=bool,
                                             count=len(modules)), present_before=seen)
