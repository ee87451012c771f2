"""Features of an incident window: code families, counts, topology aggregates, and a few metric readings.

Plain dicts (vectorised by the model's DictVectorizer) so one incident costs well under a millisecond.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable

from opsbrain.diagnosis.knowledge import KindTable, default_table
from opsbrain.ingest import DOWN, NO_HISTORY, UP, LinkRecords, Signal, dark_links, last_downs, link_of
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
    if healed := last_downs(sigs):  # a link back up: how long it was down (the definition's > 20 s = link_down)
        f["last_down_s"] = math.log1p(max(healed.values()))
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
        # the twin's links name their plane (``.../l1sw4~...``); a real switch's port link is its own plane
        f["planes_on_busiest_node"] = float(len({ln.split("/l1sw", 1)[1].split("~")[0] if "/l1sw" in ln else ln
                                                 for ln in busiest}))
        f["max_flaps_24h"] = float(max(history.flaps(ln) for ln in down))
        f["lanes_lost_before"] = float(any(history.lanes_lost(ln) for ln in down))
    firsts: dict[str, float] = {}  # each link's first down or lane-loss line (one pass: an incident holds thousands)
    for s in sigs:
        if (s.kind in DOWN or s.kind == "sw:lanes") and (ln := link_of(s)) and s.t < firsts.get(ln, math.inf):
            firsts[ln] = s.t
    gaps = [g for ln in sorted(down | lanes) if (g := _lane_loss_gap_s(ln, firsts[ln], history)) is not None]
    if gaps:
        f["lane_gap_log2"] = gap_magnitude(min(gaps))
    npus = Counter(npu for s in sigs if (npu := npu_id(s.component)))
    f["npus"] = math.log1p(len(npus))
    f["max_signals_per_npu"] = math.log1p(max(npus.values())) if npus else 0.0
    remotes = {s.component for s in sigs if s.kind == "hccl:remote"}
    f["remote_nodes"] = float(len(remotes))
    hw_nodes = {node_id(s.component) for s in sigs if s.kind.startswith(("dev:", "agent:", "os:", "sw:", "port:"))}
    f["remote_has_hw_errors"] = float(bool(remotes & hw_nodes))
    nodes = {nd for s in sigs if (nd := node_id(s.component) or node_id(s.host))}
    # lines that name no host came from one host at least: a pasted excerpt with a syslog or fan-out head naming its
    # host is the same evidence as without it (session 30: the head alone moved an answer across a bar)
    f["nodes"] = math.log1p(max(len(nodes), 1 if sigs else 0))
    f["span_s"] = math.log1p(max(0.0, now - min((s.t for s in sigs), default=now)))
    if metric is not None:
        _metric_features(f, npus, down | lanes, metric)
        _placement_features(f, nodes, metric)
        _silence_features(f, nodes, metric)
    return f


LANE_GAP_MIN_S = 60.0
"""A lane-loss report counts as an earlier one when it precedes the incident's first line about the link by more
than the detector's grouping window (DetectorParams.group_window_s): closer lines are one event."""


def _lane_loss_gap_s(link: str, first: float, history: LinkRecords) -> float | None:
    """Seconds from the link's previous lane-loss report (24 h records) to this incident's first line about it
    (``first``)."""
    earlier = [t for t in history.lane_losses(link) if t < first - LANE_GAP_MIN_S]
    return first - max(earlier) if earlier else None


MAGNITUDE_FLOOR = -7
"""The lowest factor-of-two bin of a magnitude that can be below one (a lane-loss gap in hours, a climb in degC/min):
readings below 2**-7 share it."""
MAGNITUDE_SHIFT = 8.0
"""Added to those bins so that every reading is positive: the model's vectorizer reads an absent feature (a pasted
text has no records or metrics) as 0, which must not be the bin of a real reading."""


def _shifted_log2(x: float) -> float:
    return float(max(MAGNITUDE_FLOOR, math.floor(math.log2(x)))) + MAGNITUDE_SHIFT


def gap_magnitude(gap_s: float) -> float:
    """The time since a link's previous lane loss, in hours, as its order of magnitude in factors of two
    (``floor(log2(hours))``). A module losing its lanes one after another does so at a pace set by how fast its Rx
    power falls (faults.optical_decay_dbm_per_h): an operator reading the port's alarm history tells a module that
    dies within the hour from one that lasts a day by it. Factors of two keep the lines' delivery delays and a lost
    report from making every incident look new, as for ``hbm_ce_log2``; shifted by :data:`MAGNITUDE_SHIFT`."""
    return _shifted_log2(max(gap_s, 1.0) / 3600.0)


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
    rises = [r for n in sorted(npus) if (r := metric("hbm_temp_rise_c_per_min", n + "/hbm")) is not None and r > 0]
    if rises:
        f["hbm_temp_rise_log2"] = rise_magnitude(max(rises))
    ratios = [r for n in npus if (r := _rank_slowdown(n, metric)) is not None]
    if ratios:
        f["rank_slowdown"] = max(ratios)


def rise_magnitude(c_per_min: float) -> float:
    """An HBM stack's temperature climb (degC/min over the last scrapes of npu-exporter's HBM temperature) as its
    order of magnitude in factors of two (``floor(log2(degC/min))``): an operator tells a stopped cooling loop
    (tens of degrees a minute) from a degrading fan (a degree or two) by it, where the alarm line is the same;
    shifted by :data:`MAGNITUDE_SHIFT`."""
    return _shifted_log2(c_per_min)


def _placement_features(f: dict[str, float], nodes: set[str], metric: MetricReader) -> None:
    """How many of the incident's nodes run no workload (the scheduler's allocation: a fault there stalls no job,
    so no job event or peer timeout follows it). Absent when none is idle, as when the reader has no allocation
    (pasted logs, bundles): the model's vectorizer reads an absent feature as 0, and a near-copy signature must not
    tell apart what the model cannot."""
    idle = sum(a <= 0 for n in sorted(nodes) if (a := metric("node_npus_allocated", n)) is not None)
    if idle:
        f["idle_nodes"] = math.log1p(idle)


SILENT_AFTER_S = 3.0
"""A chip counts as silent when its last successful read is older than this: three missed polls of the device
plugin's 1 s health poll (noise.npu_heartbeat_period_s), the health sweep's heartbeat warning level
(sweeps SweepParams.heartbeat_warn_s)."""
MAX_NPUS_PER_NODE = 16
"""Device indices probed per node (npu0..npu15, as :func:`_rank_slowdown`); a node's absent indices read None."""


def _node_silent(node: str, metric: MetricReader) -> bool:
    """Whether no chip of ``node`` has been read for :data:`SILENT_AFTER_S` (False when none has a reading)."""
    read = False
    for k in range(MAX_NPUS_PER_NODE):
        age = metric("npu_heartbeat_age_s", f"{node}/npu{k}")
        if age is None:
            continue
        if age < SILENT_AFTER_S:
            return False
        read = True
    return read


def _silence_features(f: dict[str, float], nodes: set[str], metric: MetricReader) -> None:
    """How many of the incident's nodes went silent: none of their chips has been read for
    :data:`SILENT_AFTER_S` (npu-exporter's chip series stop: the host, its driver or its exporter is gone). A failed
    L1 switch chip takes one plane's links of a node down while its host and every chip still report; a crashed or
    hung host stops them all. Absent when every node still reports, as when the reader has no metrics (pasted logs,
    bundles): the vectorizer reads an absent feature as 0."""
    silent = sum(_node_silent(n, metric) for n in sorted(nodes))
    if silent:
        f["silent_nodes"] = math.log1p(silent)


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
