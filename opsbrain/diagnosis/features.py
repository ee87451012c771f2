"""Features of an incident window: code families, counts, topology aggregates, and a few metric readings.

Plain dicts (vectorised by the model's DictVectorizer) so one incident costs well under a millisecond.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable

from opsbrain.diagnosis.knowledge import KindTable, default_table
from opsbrain.ingest import DOWN, NO_HISTORY, UP, LinkRecords, Signal, dark_links, link_of
from opsbrain.ingest.where import node_of, npu_of

MetricReader = Callable[[str, str], float | None]  # (metric, component) -> value now, or None


npu_id = npu_of  # the NPU a component belongs to (ingest.where)
node_id = node_of  # the node a component or link belongs to (ingest.where)


def l2_of_link(link: str) -> str:
    return link.split("~", 1)[1]


def incident_features(signals: Iterable[Signal], now: float, history: LinkRecords = NO_HISTORY,
                      metric: MetricReader | None = None, table: KindTable | None = None) -> dict[str, float]:
    sigs = list(signals)
    f: dict[str, float] = (table or default_table()).features(sigs)
    kinds = Counter(s.kind for s in sigs)
    for k, n in kinds.items():
        f["n:" + k] = math.log1p(n)
    fam = Counter(k.split(":", 1)[0] for k in kinds.elements())
    for k, n in fam.items():
        f["fam:" + k] = math.log1p(n)
    down = {ln for s in sigs if s.kind in DOWN and (ln := link_of(s))}
    up = {ln for s in sigs if s.kind in UP and (ln := link_of(s))}
    lanes = {ln for s in sigs if s.kind == "sw:lanes" and (ln := link_of(s))}
    f["links_down"] = math.log1p(len(down))
    dark = dark_links(sigs)
    if dark:
        f["dark_links"] = math.log1p(len(dark))
        f["dark_for_s"] = math.log1p(max(0.0, now - min(dark.values())))
    f["links_lanes"] = float(len(lanes))
    if down:
        f["links_up_share"] = len(down & up) / len(down)
        per_node: dict[str, set[str]] = defaultdict(set)
        per_l2: dict[str, set[str]] = defaultdict(set)
        for ln in down:
            per_node[node_id(ln) or ""].add(ln)
            per_l2[l2_of_link(ln)].add(ln)
        f["max_down_per_node"] = math.log1p(max(len(v) for v in per_node.values()))
        f["max_down_per_l2"] = math.log1p(max(len(v) for v in per_l2.values()))
        f["nodes_with_down"] = math.log1p(len(per_node))
        f["l2_with_down"] = math.log1p(len(per_l2))
        busiest = max(per_node.values(), key=len)
        f["planes_on_busiest_node"] = float(len({ln.split("/l1sw", 1)[1].split("~")[0] for ln in busiest}))
        f["max_flaps_24h"] = float(max(history.flaps(ln) for ln in down))
        f["lanes_lost_before"] = float(any(history.lanes_lost(ln) for ln in down))
    npus = Counter(npu for s in sigs if (npu := npu_id(s.component)))
    f["npus"] = math.log1p(len(npus))
    f["max_signals_per_npu"] = math.log1p(max(npus.values())) if npus else 0.0
    remotes = {s.component for s in sigs if s.kind == "hccl:remote"}
    f["remote_nodes"] = float(len(remotes))
    hw_nodes = {node_id(s.component) for s in sigs if s.kind.startswith(("dev:", "agent:", "os:", "sw:", "port:"))}
    f["remote_has_hw_errors"] = float(bool(remotes & hw_nodes))
    nodes = {nd for s in sigs if (nd := node_id(s.component) or node_id(s.host))}
    f["nodes"] = math.log1p(len(nodes))
    f["span_s"] = math.log1p(max(0.0, now - min((s.t for s in sigs), default=now)))
    if metric is not None:
        _metric_features(f, npus, down | lanes, metric)
    return f


def _metric_features(f: dict[str, float], npus: Counter[str], links: set[str], metric: MetricReader) -> None:
    temps = [metric("hbm_temp_c", n + "/hbm") for n in npus] + [metric("npu_temp_c", n) for n in npus]
    temps_v = [t for t in temps if t is not None]
    if temps_v:
        f["max_temp_c"] = max(temps_v)
    rows = [metric("hbm_isolated_rows", n + "/hbm") for n in npus]
    rows_v = [r for r in rows if r is not None]
    if rows_v:
        f["isolated_rows"] = max(rows_v)
    ces = [c for n in npus if (c := metric("hbm_ce_total", n + "/hbm")) is not None]
    if ces:
        f["hbm_ce_log2"] = ce_magnitude(max(ces))
    ratios = [r for n in npus if (r := _rank_slowdown(n, metric)) is not None]
    if ratios:
        f["rank_slowdown"] = max(ratios)


def ce_magnitude(count: float) -> float:
    """An HBM stack's correctable-error count as its order of magnitude in factors of two (``floor(log2(1 + n))``).
    The count is what npu-exporter's ``npu_chip_info_hbm_ecc_total_single_bit_error_cnt`` and ``npu-smi info -t
    ecc`` ("HBM Single Bit Error Count") show; an operator tells a storm (hundreds to thousands) from a benign burst
    (tens) by it, not by the report line, which is the same for both. Factors of two keep a reading's Poisson
    jitter from making every incident look new while rates that differ (storms of another intensity) do differ."""
    return float(math.floor(math.log2(1.0 + max(0.0, count))))


def _rank_slowdown(npu: str, metric: MetricReader) -> float | None:
    """The NPU's rank step time over the median of its node's ranks (every rank publishes one), or None."""
    own = metric("rank_step_time_s", npu)
    node = node_id(npu)
    if own is None or own <= 0 or node is None:
        return None
    peers = [v for k in range(16) if (v := metric("rank_step_time_s", f"{node}/npu{k}")) is not None and v > 0]
    if len(peers) < 2:
        return None
    peers.sort()
    return own / peers[len(peers) // 2]
