"""One collection of a real cluster's telemetry in the sweep checks' terms, and the snapshot built from a series
of them.

Every real source (a Prometheus exporter page, a directory of collected command outputs) parses into
:class:`Readings`: plain per-component values at the collection time. :class:`CollectionHistory` keeps the last
collections; :func:`snapshot_from` turns the newest one and the kept ones into the same
:class:`~opsbrain.sweeps.snapshot.Snapshot` the twin's sweep builds, so the same checks run on both.

Windowed counts of counters (correctable and uncorrectable errors, CRC errors) are their increase over the kept
collections inside the window, step by step with a decrease read as a reset (:func:`counter_increase`), isolated-row
growth the change since the oldest of them; ``Snapshot.windows`` says how many seconds that really covers (0 and no
finding before a second collection). Link-down events are a port's down records, or, at least, its link state's UP->DOWN
changes across the kept collections (:func:`state_downs`: a lower bound). The trend fit and the lane confirmation
read the kept optical readings exactly as the twin's sweep reads its own history.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from opsbrain.sweeps.params import SweepParams
from opsbrain.sweeps.snapshot import Snapshot, confirm_range

DOM_FIELDS = ("rx_dbm", "tx_dbm", "bias_ma", "snr_db")
NAN = float("nan")


@dataclass
class Readings:
    """What one collection read, per component id (the ingestion layer's ids: ``pod0/node3/npu1``,
    ``worker-2/npu5``); a value the source does not publish is simply absent."""

    t: float
    """Unix time of the collection (the exporter's sample time stamps, else the collection's own time)."""
    npu_temp_c: dict[str, float] = field(default_factory=dict)
    npu_sample_t: dict[str, float] = field(default_factory=dict)
    """Unix time of each NPU's newest sample: its age is the age of the last successful read of the chip."""
    npu_health: dict[str, int] = field(default_factory=dict)
    """The health each NPU reports of itself, 0 OK .. 3 Critical, 4 Unknown (npu-smi's UNKNOWN: the device does not
    exist or has not started; :mod:`opsbrain.ingest.healthstates`)."""
    npu_fault_codes: dict[str, list[str]] = field(default_factory=dict)
    """The fault event codes each NPU reports now, upper-case hex without ``0x`` (``80E01801``; npu-exporter's
    ``npu_chip_info_error_code``, ``_1`` .. ``_9``; ``npu-smi info -t health``'s ``Error Code``); an empty list: read,
    no fault."""
    npu_die: dict[str, str] = field(default_factory=dict)
    """Each NPU's die id where the source names it (npu-exporter's ``vdie_id`` label, the die's own id): an NPU whose
    die is read under another name now (its exporter pod restarted on a new address) has not vanished."""
    hbm_temp_c: dict[str, float] = field(default_factory=dict)
    hbm_ce_total: dict[str, float] = field(default_factory=dict)
    """Correctable (single-bit) ECC errors, a counter."""
    hbm_ue_total: dict[str, float] = field(default_factory=dict)
    """Uncorrectable (double-bit) ECC errors over the stack's lifetime, a counter."""
    hbm_rows: dict[str, float] = field(default_factory=dict)
    """Isolated HBM pages / rows."""
    optics: dict[str, dict[str, list[float]]] = field(default_factory=dict)
    """module -> field (``rx_dbm``, ``tx_dbm``, ``bias_ma``, ``snr_db``) -> per-lane values."""
    module_link: dict[str, str] = field(default_factory=dict)
    link_crc_total: dict[str, float] = field(default_factory=dict)
    link_down_times: dict[str, list[float]] = field(default_factory=dict)
    """Unix times of the link-down records a link reports (``hccn_tool -link_stat -g``)."""
    link_oper_down: dict[str, bool] = field(default_factory=dict)
    """The port's own link state is DOWN (``hccn_tool -i N -link -g``; npu-exporter ``npu_chip_info_link_status``
    0, which the exporter reads with that command). Its UP->DOWN changes across kept collections are link-down events
    (:func:`state_downs`)."""
    link_state_downs: dict[str, float] = field(default_factory=dict)
    """UP->DOWN changes of each port's link state that the source counted itself over the link-down window, from
    readings it kept between its collections (a Prometheus server over its stored samples:
    :mod:`opsbrain.sources.promapi`); a lower bound, taken with :func:`state_downs`' count (the larger)."""
    link_states_counted: str = ""
    """How the source counted ``link_state_downs`` (for ``coverage.link_downs``); empty where it did not."""
    link_net_unhealthy: dict[str, bool] = field(default_factory=dict)
    """The NPU's network health check fails (``hccn_tool -i N -net_health -g`` other than Success/Init; npu-exporter
    ``npu_chip_info_network_status`` 0, the same DCMI answer), keyed by the NPU's port."""
    node_npu_count: dict[str, float] = field(default_factory=dict)
    """The NPUs each node's exporter lists (npu-exporter's ``machine_npu_nums``, keyed by node id; session 35)."""
    node_npu_unhealthy: dict[str, float] = field(default_factory=dict)
    """The NPUs each node's exporter counts unhealthy (``machine_unhealthy_npu_nums``; session 42)."""
    node_npu_unknown: dict[str, float] = field(default_factory=dict)
    """The NPUs whose health each node's exporter could not read (``machine_unknown_npu_nums``; session 42)."""
    port_counters: dict[str, dict[str, float]] = field(default_factory=dict)
    """The RoCE port's packet counters (``retries``, ``out_of_order``, ``rx_err``, ``verify_err``, ``mac_rx_bad``:
    :data:`opsbrain.sources.exporter_ports.PORT_COUNTERS`) -> port link id -> count since the device's reset."""
    link_speed: dict[str, float] = field(default_factory=dict)
    """Each port's link speed as its exporter publishes it (RoCE: ``npu_chip_link_speed``; UB: in G)."""
    optics_present: dict[str, bool] = field(default_factory=dict)
    """The RoCE port's optical module is present (npu-exporter's ``npu_chip_optical_state`` 1), keyed by module id."""
    covers: set[str] = field(default_factory=set)
    """Checks the values read can feed (the rest have no data from this source)."""
    notes: list[str] = field(default_factory=list)
    """What the source read but did not use, one line per reason with its count and first example (a value out of
    its metric's plausible range, a sample time stamp in the future, a duplicated series)."""


MAX_KEPT = 1500
"""Collections a source keeps at most (reason: a 5-min schedule keeps 288 in 24 h and a 1-min one 1,440, all of them;
a faster one, 43,200 a day at 2 s, is thinned so memory and the run store's copy stay bounded)."""
KEEP_RECENT = 16
"""The newest collections never thinned (reason: the lane confirmation reads the last ``dom_confirm_reads``, 3, and
a fast schedule's last minutes stay whole)."""


class CollectionHistory:
    """The last collections of one source, oldest first, kept for ``max_age_s`` (the longest window). Beyond
    ``max_items`` the older ones (all but the last :data:`KEEP_RECENT`) are thinned to the first of each
    ``max_age_s / (max_items - KEEP_RECENT)`` seconds (:attr:`thinned_s`): windows then start up to that much later,
    a trend fits fewer points, and a link-state flap between two kept collections is not seen (said in
    ``coverage``)."""

    def __init__(self, max_age_s: float = 86400.0, max_items: int = MAX_KEPT) -> None:
        self.max_age_s = float(max_age_s)
        self.max_items = max(int(max_items), 2 * KEEP_RECENT)
        self.items: list[Readings] = []
        self.thinned_s = 0.0
        """The spacing the older collections were thinned to (0: none thinned)."""
        self.derived: dict[str, Any] = {}
        """What readers derive from the kept collections and keep between sweeps (a kept collection never changes:
        :mod:`opsbrain.sources.portreadings`' per-bucket maxima); empty in a history just loaded."""

    def add(self, r: Readings) -> None:
        """Keep ``r`` (a collection at the time of one kept replaces it; an older one is ignored)."""
        if self.items and r.t < self.items[-1].t:
            return
        if self.items and r.t == self.items[-1].t:
            self.items[-1] = r
        else:
            self.items.append(r)
        cut = r.t - self.max_age_s
        self.items = [x for x in self.items if x.t >= cut]
        if len(self.items) > self.max_items:
            self._thin()

    def _thin(self) -> None:
        width = self.max_age_s / (self.max_items - KEEP_RECENT)
        kept: list[Readings] = []
        last = None
        for x in self.items[:-KEEP_RECENT]:
            if (slot := math.floor(x.t / width)) != last:  # slots on the clock: a kept collection stays kept
                kept.append(x)
                last = slot
        self.items = kept + self.items[-KEEP_RECENT:]
        self.thinned_s = width

    def oldest_within(self, t: float, window: float) -> Readings | None:
        """The oldest kept collection in ``[t - window, t)``."""
        for x in self.items:
            if t - window - 1e-6 <= x.t < t:
                return x
        return None

    def before(self, t: float, n: int) -> list[Readings]:
        """Up to ``n`` collections just before ``t`` (oldest first)."""
        if n <= 0:
            return []
        return [x for x in self.items if x.t < t][-n:]

    def within(self, t0: float, t1: float) -> list[Readings]:
        return [x for x in self.items if t0 - 1e-6 <= x.t <= t1]


def _values(d: Mapping[str, float], ids: tuple[str, ...]) -> np.ndarray:
    return np.fromiter((d.get(i, NAN) for i in ids), dtype=float, count=len(ids))


def counter_increase(kept: list[Readings], attr: str | Callable[[Readings], Mapping[str, float]],
                     ids: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Per id, the increase of counter ``attr`` over ``kept`` (oldest first, the collection now last) and its rate
    (per second) over the last step: the now's value against the id's last earlier reading.

    The increase is summed step by step between consecutive readings of the id, as Prometheus's ``increase()``
    counts: a step that goes down is a counter reset (a device reset, an exporter that restarted from zero), which
    counts the value after it (the errors since the reset), never a negative step; a collection that did not read
    the id (no series, npu-exporter's -1) is skipped, so the next reading is compared with the last one before it.
    Before (session 34), only the window's oldest collection and now were compared: a reset inside the window lost
    the errors before it. NaN where the id has no earlier reading (no step)."""
    n = len(ids)
    if len(kept) < 2 or not n:
        return np.full(n, NAN), np.full(n, NAN)
    import pandas as pd

    get = attr if callable(attr) else (lambda x: getattr(x, attr))  # a callable: the counter's dict in a collection
    vals = np.stack([_values(get(x), ids) for x in kept])
    times = np.where(np.isnan(vals), NAN, np.asarray([x.t for x in kept])[:, None])
    filled = pd.DataFrame(vals).ffill().to_numpy()  # each id's last reading so far
    before = np.vstack([np.full((1, n), NAN), filled[:-1]])
    step = vals - before
    step = np.where(step < 0, vals, step)  # a reset: what was counted since
    seen = ~np.isnan(step)
    inc = np.where(seen.any(axis=0), np.where(seen, step, 0.0).sum(axis=0), NAN)
    t_before = pd.DataFrame(times).ffill().to_numpy()[-2]
    dt = kept[-1].t - t_before
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(dt > 0, step[-1] / dt, NAN)
    return inc, rate


def _dom(r: Readings, modules: tuple[str, ...], lanes: int) -> dict[str, np.ndarray]:
    out = {}
    for f in DOM_FIELDS:
        a = np.full((len(modules), lanes), NAN)
        for i, m in enumerate(modules):
            v = r.optics.get(m, {}).get(f)
            if v:
                a[i, : len(v)] = v[:lanes]
        out[f] = a
    return out


def snapshot_from(cur: Readings, history: CollectionHistory, p: SweepParams,
                  last_seen: Readings | None = None) -> Snapshot:
    """The snapshot of ``cur`` with the windows and trend read from ``history`` (``cur`` is added to it);
    ``last_seen``: each NPU's last sample time as the source knows it besides its kept collections
    (:func:`vanished`)."""
    history.max_age_s = max(history.max_age_s, p.link_down_window_s, p.trend_window_s, p.hbm_rows_rate_window_s,
                            p.hbm_ue_window_s)
    history.add(cur)
    t = cur.t
    gone = vanished(cur, history, last_seen)
    npus = tuple(sorted(cur.npu_temp_c.keys() | cur.npu_sample_t.keys() | cur.npu_health.keys()
                        | cur.npu_fault_codes.keys() | gone.keys()))
    hbms = tuple(sorted(cur.hbm_temp_c.keys() | cur.hbm_ce_total.keys() | cur.hbm_rows.keys()
                        | cur.hbm_ue_total.keys()))
    modules = tuple(sorted(cur.optics))
    lanes = max((len(v) for m in cur.optics.values() for v in m.values()), default=1)
    link_index: dict[str, int] = {}
    module_link = np.fromiter((link_index.setdefault(cur.module_link.get(m, m), len(link_index)) for m in modules),
                              dtype=np.int64, count=len(modules))
    for ln in sorted(cur.link_crc_total.keys() | cur.link_down_times.keys() | cur.link_oper_down.keys()
                     | cur.link_net_unhealthy.keys()):
        link_index.setdefault(ln, len(link_index))
    links = tuple(link_index)

    def windowed(attr: str, ids: tuple[str, ...], window: float) -> tuple[np.ndarray, float, np.ndarray]:
        kept = [x for x in history.within(t - window, t) if x is not cur and x.t < t] + [cur]
        inc, rate = counter_increase(kept, attr, ids)
        return inc, (t - kept[0].t if len(kept) > 1 else 0.0), rate

    ce, w_ce, _ = windowed("hbm_ce_total", hbms, p.hbm_ce_window_s)
    crc, w_crc, crc_rate = windowed("link_crc_total", links, p.crc_window_s)
    ue, w_ue, _ = windowed("hbm_ue_total", hbms, p.hbm_ue_window_s)
    rows_then = history.oldest_within(t, p.hbm_rows_rate_window_s)
    rows = _values(cur.hbm_rows, hbms)
    rows_before = _values(rows_then.hbm_rows, hbms) if rows_then is not None else rows.copy()
    w_rows = t - rows_then.t if rows_then is not None else 0.0
    records = np.fromiter((sum(1 for x in cur.link_down_times.get(ln, ()) if t - p.link_down_window_s <= x <= t)
                           for ln in links), dtype=float, count=len(links))
    changes, w_states = state_downs(history.within(t - p.link_down_window_s, t), links)
    if cur.link_state_downs:  # the source's own count over the window (every sample its store kept)
        changes = np.fmax(changes, _values(cur.link_state_downs, links))  # NaN: a port it did not count
        w_states = p.link_down_window_s
    downs = np.maximum(records, changes)
    from_states = changes > records

    reading = _dom(cur, modules, lanes)
    earlier: list[Mapping[str, np.ndarray]] = [_dom(x, modules, lanes)
                                               for x in history.before(t, p.dom_confirm_reads - 1)]
    hi, lo = confirm_range(reading, earlier)
    trend = [x for x in history.within(t - p.trend_window_s, t) if x.optics]
    trend_t = np.asarray([x.t for x in trend], dtype=float)
    trend_rx = (np.stack([_dom(x, modules, lanes)["rx_dbm"].astype(np.float32) for x in trend]) if trend
                else np.empty((0, len(modules), lanes), dtype=np.float32))
    age, node_age = sample_ages(cur, npus, p, {**gone, **cur.npu_sample_t})
    from opsbrain.sources.portreadings import port_state  # it reads this module's counter_increase

    ports = port_state(cur, history, p, tuple(n for n in npus if n not in gone))
    admin = np.zeros(len(links), dtype=bool)
    return Snapshot(
        t=t, windows={"hbm_ce": w_ce, "hbm_ue": w_ue, "hbm_rows": w_rows, "link_down": p.link_down_window_s,
                      "link_down_states": w_states, "crc": w_crc, "fec": 0.0,
                      "trend": float(trend_t.max() - trend_t.min()) if len(trend_t) else 0.0},
        pods=(), modules=modules, module_link=module_link, dom=reading, trend_t=trend_t, trend_rx=trend_rx,
        links=links, link_admin_down=admin, link_downs=downs, link_crc=crc, link_fec_per_s=np.zeros(len(links)),
        line_bps=0.0, hbms=hbms, hbm_ce=ce, hbm_rows=rows, hbm_rows_before=rows_before,
        hbm_temp_c=_values(cur.hbm_temp_c, hbms), npus=npus, npu_temp_c=_values(cur.npu_temp_c, npus),
        heartbeat_age_s=age, jobs=(), spares=(), spare_usable=np.zeros(0, dtype=bool), dom_hi=hi, dom_lo=lo,
        dark=reading["rx_dbm"] < p.los_below_dbm, module_admin_down=admin[module_link] if len(modules) else
        np.zeros(0, dtype=bool),
        link_oper_down=np.fromiter((cur.link_oper_down.get(ln, False) for ln in links), dtype=bool, count=len(links)),
        link_net_unhealthy=np.fromiter((cur.link_net_unhealthy.get(ln, False) for ln in links), dtype=bool,
                                       count=len(links)),
        npu_health=np.fromiter((cur.npu_health.get(n, -1) for n in npus), dtype=np.int8, count=len(npus)),
        hbm_ue=ue if cur.hbm_ue_total else None,
        hbm_ue_total=_values(cur.hbm_ue_total, hbms) if cur.hbm_ue_total else None,
        npu_fault_codes=tuple(tuple(cur.npu_fault_codes.get(n, ())) for n in npus) if cur.npu_fault_codes else None,
        link_downs_from_states=from_states if from_states.any() else None,
        heartbeat_grace_s=p.exporter_update_s if cur.npu_sample_t or gone else 0.0, node_sample_age_s=node_age,
        npus_unseen=frozenset(gone) or None, link_crc_rate_per_s=crc_rate if cur.link_crc_total else None,
        link_crc_what=_crc_what(links) if cur.link_crc_total else None, ports=ports)


HCCS_CRC = "HCCS CRC errors (flits)"
ROCE_FCS = "RoCE FCS errors (frames with a bad checksum)"
UB_CRC_UNKNOWN = "UB CRC errors (port unknown)"
SIO_CRC = "SIO CRC errors (die-to-die packets)"
"""``<node>/npu<id>/sio``: npu-exporter's ``npu_chip_info_sio_crc_rx_err_cnt`` (session 35)."""
UB_UNKNOWN = "ub"
"""The last part of the link id of a UB CRC series that names no port (``npu_chip_info_crc_error_sum`` without
``udie``/``port`` labels: a relabelled or aggregated series): ``<node>/npu<id>/ub``, one per NPU. Before (session 34)
it took the RoCE port's id ``.../port``, was added to that port's FCS count and was labelled RoCE FCS errors."""


def _crc_what(links: tuple[str, ...]) -> tuple[str, ...]:
    """What a real source's link counter counts, by its link id's last part (:mod:`opsbrain.sources.exporter`): an
    NPU's HCCS link ``.../hccs<X>`` (``npu_chip_info_hccs_statistic_info_crc_err_cnt_X``), its RoCE port ``.../port``
    (``npu_chip_info_rx_fcs_num``), a UB CRC series that named no port ``.../ub`` (``npu_chip_info_crc_error_sum``
    without ``udie``/``port`` labels: session 35, before read as RoCE FCS); empty for any other (a UB port's
    ``.../udie<u>/port<p>`` CRC errors, ``npu_chip_info_crc_error_sum``)."""
    def what(ln: str) -> str:
        last = ln.rpartition("/")[2]
        if last == UB_UNKNOWN:
            return UB_CRC_UNKNOWN
        if last == "sio":
            return SIO_CRC
        return ROCE_FCS if last == "port" else HCCS_CRC if last[:4] == "hccs" and last[4:].isdigit() else ""
    return tuple(what(ln) for ln in links)


def state_downs(kept: list[Readings], links: tuple[str, ...]) -> tuple[np.ndarray, float]:
    """Link-down events seen as a port's link state going from UP to DOWN between two kept collections that read it
    (``link_oper_down``: npu-exporter's ``npu_chip_info_link_status``, ``hccn_tool -i N -link -g``), and the seconds
    those collections span. A collection that did not read the port (no sample, or npu-exporter's -1, not read) is
    unknown, neither UP nor DOWN: it is skipped, so UP, not read, DOWN is one down (it went down in between) and
    DOWN, not read, DOWN none. Reason: the state is all either source publishes of a port's downs (npu-exporter's
    ``npu_chip_link_up_num`` counts link-ups per NPU, not per port); a port that went down and up again between two
    collections shows nothing, and one already down at the first kept collection went down at an unknown time, so
    the count is a lower bound (MindCluster's 5-in-24-h isolation counts every down)."""
    n = np.zeros(len(links))
    index = {ln: i for i, ln in enumerate(links)}
    last: dict[str, bool] = {}
    first_t: float | None = None
    last_t = 0.0
    for x in kept:
        if not x.link_oper_down:
            continue
        first_t = x.t if first_t is None else first_t
        last_t = x.t
        for ln, down in x.link_oper_down.items():
            if down and last.get(ln) is False and ln in index:
                n[index[ln]] += 1
            last[ln] = bool(down)
    return n, (last_t - first_t if first_t is not None else 0.0)


def vanished(cur: Readings, history: CollectionHistory, last_seen: Readings | None = None) -> dict[str, float]:
    """NPUs that an earlier kept collection read a sample time of and ``cur`` holds no series of, with their last
    sample time. An exporter that stopped answering to Prometheus, or a chip it no longer lists, leaves no series:
    npu-exporter stamps its samples, and Prometheus keeps such a series in an instant query only for its 5-min
    look-back (no staleness marker for samples with their own time stamps unless the scrape sets
    ``track_timestamps_staleness``), then returns nothing. Before, such a node simply dropped out of the sweep (OK);
    aged from its last sample it is the stale node (or the lost chip) it is. The kept history bounds how long it is
    remembered (24 h; a ``prometheus-api`` sweep's 2 h of query times). An NPU whose die (``Readings.npu_die``) is read
    now under another name was renamed, not lost: npu-exporter runs as a DaemonSet, and a scrape that names nodes by
    the exporter pod's address (``instance``) renames all of them when the pods restart. ``last_seen`` (its
    ``npu_sample_t`` and ``npu_die``) is read as one more kept collection: a Prometheus server's own last sample of each
    NPU (:mod:`opsbrain.sources.promapi`), where the kept collections (its query times, 20 min apart) saw the last
    sample up to 20 min before it was."""
    present = cur.npu_temp_c.keys() | cur.npu_sample_t.keys() | cur.npu_health.keys() | cur.npu_fault_codes.keys()
    dies = set(cur.npu_die.values())
    out: dict[str, float] = {}
    for x in [*history.items, *([last_seen] if last_seen is not None else [])]:
        if x is cur:
            continue
        for n, ts in x.npu_sample_t.items():
            if n not in present and x.npu_die.get(n, "\0") not in dies and ts > out.get(n, -math.inf):
                out[n] = ts
    return out


def sample_ages(r: Readings, npus: tuple[str, ...], p: SweepParams,
                sample_t: Mapping[str, float] | None = None) -> tuple[np.ndarray, dict[str, float]]:
    """Each NPU's heartbeat age as a real source shows it, and each node's metrics age.

    An NPU's age is how far its samples lag its own node's newest beyond ``p.exporter_update_s`` (one exporter reads
    all its chips in each refresh of its cache, so their stamps spread over up to one refresh: MindCluster's own
    example page stamps 8 chips ~350 ms apart; a chip it could not read lags by more). A node's age is how far its
    newest sample lags the collection (``r.t``, or the newest node) beyond ``p.scrape_skew_s`` (nodes are scraped
    apart: measured from the page's newest sample, a node scraped 14 s before another had all its NPUs alarmed,
    session 26) plus one refresh. A node whose samples are all that old is one stale exporter (or scrape), not
    that many lost chips: its age is reported once on the node (``Snapshot.node_sample_age_s``), not added to its
    NPUs'."""
    def node(n: str) -> str:
        return n.rpartition("/npu")[0]

    stamps = r.npu_sample_t if sample_t is None else sample_t
    newest: dict[str, float] = {}
    for n, ts in stamps.items():
        k = node(n)
        newest[k] = max(newest.get(k, -math.inf), ts)
    ref = max(r.t, max(newest.values(), default=r.t))
    grace = p.exporter_update_s
    ages = np.fromiter((max(0.0, newest[node(n)] - stamps[n] - grace) if n in stamps else NAN
                        for n in npus), dtype=float, count=len(npus))
    return ages, {k: max(0.0, ref - t - p.scrape_skew_s - grace) for k, t in sorted(newest.items())}


def fed_checks(r: Readings) -> set[str]:
    """The checks a collection holds any reading for (NaN and -1, no reading, feed none). A source that can feed a
    check but read nothing for it in a collection (npu-exporter before MindCluster v6.0.0 publishes no HBM ECC series,
    before v7.1 no HBM temperature) says so in ``coverage.not_fed``, instead of the check reading as OK on 0
    components. Checks not named here are taken as fed."""
    def optic(f: str) -> bool:
        return any(any(v == v for v in fields.get(f, ())) for fields in r.optics.values())

    rx = optic("rx_dbm")
    got = {"npu_temp": bool(r.npu_temp_c), "hbm_temp": bool(r.hbm_temp_c),
           "npu_health": bool(r.npu_health or r.npu_fault_codes), "hbm_ce": bool(r.hbm_ce_total),
           "hbm_uce": bool(r.hbm_ue_total), "hbm_rows": bool(r.hbm_rows), "dom_rx": rx, "dom_spread": rx,
           "dom_trend": rx, "dom_tx": optic("tx_dbm"), "dom_bias": optic("bias_ma"), "dom_snr": optic("snr_db"),
           "link_light": bool(rx or r.link_oper_down or r.link_net_unhealthy), "link_crc": bool(r.link_crc_total),
           "link_downs": bool(r.link_oper_down or r.link_down_times or r.link_state_downs),
           "heartbeat": bool(r.npu_sample_t), "npu_count": bool(r.node_npu_count or r.node_npu_unhealthy
                                                                     or r.node_npu_unknown),
           "roce_errors": bool(r.port_counters), "link_speed": bool(r.link_speed),
           "optics_present": bool(r.optics_present)}
    return {c for c, fed in got.items() if fed}


def read_anything(r: Readings) -> bool:
    """Whether a collection holds any reading the checks use (an empty page, or another exporter's, holds none)."""
    return any(getattr(r, name) for name in ("npu_temp_c", "npu_sample_t", "npu_health", "npu_fault_codes",
                                              "hbm_temp_c", "hbm_ce_total", "hbm_ue_total",
                                              "hbm_rows",
                                              "optics", "link_crc_total", "link_oper_down", "link_net_unhealthy",
                                              "link_down_times", "node_npu_count", "node_npu_unhealthy",
                                              "node_npu_unknown",  # (review42: as port_state and merge)
                                              "port_counters",
                                              "link_speed", "optics_present"))


def merge(parts: Iterable[Readings], t: float | None = None) -> Readings:
    """One collection from several (one exporter page per node, several command files)."""
    out = Readings(0.0)
    ts = []
    for r in parts:
        ts.append(r.t)
        for name in ("npu_temp_c", "npu_sample_t", "npu_health", "npu_fault_codes", "npu_die", "hbm_temp_c",
                     "hbm_ce_total",
                     "hbm_ue_total", "hbm_rows", "module_link", "link_crc_total", "link_oper_down",
                     "link_net_unhealthy", "link_state_downs", "node_npu_count", "node_npu_unhealthy",
                     "node_npu_unknown", "link_speed", "optics_present"):
            getattr(out, name).update(getattr(r, name))
        for c, counts in r.port_counters.items():
            out.port_counters.setdefault(c, {}).update(counts)
        for m, fields in r.optics.items():
            out.optics.setdefault(m, {}).update(fields)
        for ln, times in r.link_down_times.items():
            out.link_down_times.setdefault(ln, []).extend(times)
        out.covers |= r.covers
        out.notes.extend(r.notes)
    out.notes = fold_notes(out.notes)
    out.t = t if t is not None else max(ts, default=0.0)
    return out


NOTE_LINE = re.compile(r"(\d+) (.+) \(first: (.*)\)", re.S)
"""A "not used" line as a page's or a command file's read gives it: ``<count> <reason> (first: <example>)``."""


def fold_notes(lines: Iterable[str]) -> list[str]:
    """The "not used" lines of several pages (or files), one per reason: their counts added, the first example kept
    (session 36: two nodes' pages printed ``8 npu_chip_info_power series not read ...`` twice, naming neither node);
    a line of another form is kept once, in its place."""
    counts: dict[str, list[Any]] = {}
    for ln in lines:
        m = NOTE_LINE.fullmatch(ln)
        reason, n, first = (m[2], int(m[1]), m[3]) if m else (ln, 0, None)
        held = counts.setdefault(reason, [0, first])
        held[0] += n
    return [f"{n} {reason} (first: {first})" if first is not None else reason for reason, (n, first) in counts.items()]
