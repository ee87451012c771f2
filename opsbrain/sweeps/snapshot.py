"""What an operator's collectors return at time ``t``: the input of every sweep check.

:func:`take_snapshot` reads only what an operator sees: the metric store as the exporters serve it (counters and
gauges, with their history, as a TSDB would keep it; a stopped host's series absent, its chips aged from their last
sample and listed in ``npus_unseen``: :mod:`faultlib.telemetry.scrape`), the optical DOM readings of every module
(now and over the trend window; none for a module on a stopped host's board, :func:`dom_read`), port admin state
(which links the operator isolated), job placement and the spare pool. It never reads the injected faults, the
trace, or any other component health: a link's lost light shows through DOM loss of signal.

Arrays are aligned to tuples of ids (``modules``, ``links``, ``hbms``, ``npus``); a metric that was never
written reads NaN ("no data").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from faultlib.health import Health
from opsbrain.sweeps.params import SweepParams

if TYPE_CHECKING:
    from faultlib.engine import Simulation
    from opsbrain.sweeps.portchecks import PortState

NAN = float("nan")
Reading = Mapping[str, np.ndarray]


class DomHistory:
    """Rx power readings of past sweeps (float32) in a ring buffer holding the last ``max_age_s`` of them."""

    def __init__(self, max_age_s: float = 7200.0) -> None:
        self.max_age_s = float(max_age_s)
        self._t = np.empty(0)
        self._buf = np.empty((0, 0, 0), dtype=np.float32)
        self._last = -np.inf

    def __len__(self) -> int:
        return int(np.isfinite(self._t).sum())

    def add(self, t: float, rx: np.ndarray) -> None:
        """Keep the reading at ``t`` (replaces one at the same time; a time before the newest is ignored) and
        forget readings older than ``t - max_age_s``."""
        if t < self._last:
            return
        arr = np.asarray(rx, dtype=np.float32)
        if self._buf.shape[1:] != arr.shape:
            self._t, self._buf = np.full(0, np.nan), np.empty((0, *arr.shape), dtype=np.float32)
        self._t[self._t < t - self.max_age_s] = np.nan
        same = np.flatnonzero(self._t == t)
        free = np.flatnonzero(~np.isfinite(self._t))
        if len(same):
            slot = int(same[0])
        elif len(free):
            slot = int(free[0])
        else:  # double (warm-up only: later, expired slots are reused, the lowest first, so the kept ones stay a
            cap = max(4, 2 * len(self._t))  # prefix of the buffer and the window is a view of it)
            t_new = np.full(cap, np.nan)
            t_new[: len(self._t)] = self._t
            buf = np.empty((cap, *arr.shape), dtype=np.float32)
            buf[: len(self._t)] = self._buf
            slot = len(self._t)
            self._t, self._buf = t_new, buf
        self._t[slot] = t
        self._buf[slot] = arr
        self._last = float(t)

    def window(self, t0: float, t1: float) -> tuple[np.ndarray, np.ndarray]:
        """(times (K,), readings (K, modules, lanes)) with ``t0 <= time <= t1``, in no particular order.

        When every kept reading is in the window the readings are a read-only view of the buffer (valid until
        the next :meth:`add`), else a copy.
        """
        sel = (self._t >= t0) & (self._t <= t1)
        n = len(self)
        if sel[:n].all() and n == int(sel.sum()):  # every kept reading in the window, and they are the prefix
            view = self._buf[:n].view()
            view.flags.writeable = False
            return self._t[:n].copy(), view
        return self._t[sel], self._buf[sel]


@dataclass(frozen=True, eq=False)
class _Layout:
    dom: object
    links: tuple[str, ...]
    module_link: np.ndarray
    hbms: tuple[str, ...]
    npus: tuple[str, ...]
    pods: tuple[str, ...]


class SweepHistory:
    """What a scheduled sweeper keeps between sweeps of one simulation: past DOM Rx readings (for the trend fit),
    the pod's id layout, and the last segment of each counter series (re-read only when the metric changed)."""

    def __init__(self, max_age_s: float = 7200.0) -> None:
        self.dom = DomHistory(max_age_s)
        self.readings: list[tuple[float, Mapping[str, np.ndarray]]] = []
        """Full DOM readings of the last few sweeps (oldest first), to confirm lane thresholds."""
        self.layout: _Layout | None = None
        self.counters: dict[str, tuple[int, tuple[str, ...], np.ndarray, np.ndarray]] = {}


@dataclass(frozen=True, eq=False)
class JobSteps:
    """Step times of one training job as its ranks report them."""

    name: str
    step_time_s: float
    """The job's step time now (0: no step in flight; while stalled: the age of the stuck step)."""
    stalled: bool
    baseline_step_s: float
    """The job's fastest running step time over the baseline window (NaN: it never ran in it)."""
    ranks: tuple[str, ...]
    rank_step_s: np.ndarray
    """Per-rank step time (NaN: the rank reports no time of its own, i.e. it runs at the job's pace)."""


@dataclass(frozen=True, eq=False)
class Snapshot:
    """Telemetry of a pod at ``t``; see the module docstring."""

    t: float
    windows: Mapping[str, float]
    """Seconds each windowed count actually covers (``hbm_ce``, ``hbm_rows``, ``link_down``, ``crc``, ``fec``)."""
    pods: tuple[str, ...]
    # optics: one row per module, one column per lane
    modules: tuple[str, ...]
    module_link: np.ndarray
    """(modules,) index into ``links`` of each module's link."""
    dom: Mapping[str, np.ndarray]
    """``rx_dbm``, ``tx_dbm``, ``bias_ma``, ``snr_db`` -> (modules, lanes)."""
    trend_t: np.ndarray
    """(K,) times of the Rx readings in the trend window, ``t`` included (in no particular order)."""
    trend_rx: np.ndarray
    """(K, modules, lanes) Rx power readings over the trend window."""
    # optical links
    links: tuple[str, ...]
    link_admin_down: np.ndarray
    """(links,) the operator took the port down (isolated link): no light expected."""
    link_downs: np.ndarray
    """(links,) link-down events in the last ``windows['link_down']`` seconds."""
    link_crc: np.ndarray
    """(links,) CRC errors in the last ``windows['crc']`` seconds."""
    link_fec_per_s: np.ndarray
    """(links,) FEC-corrected errors per second over the last ``windows['fec']`` seconds."""
    line_bps: float
    # HBM stacks
    hbms: tuple[str, ...]
    hbm_ce: np.ndarray
    """(hbms,) correctable errors in the last ``windows['hbm_ce']`` seconds."""
    hbm_rows: np.ndarray
    hbm_rows_before: np.ndarray
    """(hbms,) isolated rows ``windows['hbm_rows']`` seconds ago."""
    hbm_temp_c: np.ndarray
    # NPUs
    npus: tuple[str, ...]
    npu_temp_c: np.ndarray
    heartbeat_age_s: np.ndarray
    # jobs and spares
    jobs: tuple[JobSteps, ...]
    spares: tuple[str, ...]
    spare_usable: np.ndarray
    """(spares,) the spare's NPUs all beat (a spare without heartbeat cannot take over)."""
    dom_hi: Mapping[str, np.ndarray]
    """Per field, the highest value of each lane over the last ``dom_confirm_reads`` collections (this one
    included): a lane is confirmed *below* a threshold when this is below it."""
    dom_lo: Mapping[str, np.ndarray]
    """Per field, the lowest value over the same reads: a lane is confirmed *above* a threshold when this is."""
    dark: np.ndarray
    """(modules, lanes) lanes without light (Rx below ``los_below_dbm``: loss of signal)."""
    module_admin_down: np.ndarray
    """(modules,) the module's link is admin-down."""
    link_oper_down: np.ndarray | None = None
    """(links,) the port's own state is down where a real tool says so (``hccn_tool -i N -link -g``: ``link status:
    DOWN``); None where nothing reads it (the twin's links show their state through light)."""
    link_net_unhealthy: np.ndarray | None = None
    """(links,) the NPU's network health check fails on the link's port (``hccn_tool -i N -net_health -g``,
    npu-exporter's ``npu_chip_info_network_status`` 0); None where nothing reads it."""
    npu_health: np.ndarray | None = None
    """(npus,) the health each NPU reports of itself, 0 OK, 1 Warning, 2 Alarm, 3 Critical, -1 not read (npu-smi's
    Health column, npu-exporter's ``npu_chip_info_health_status``); None where nothing reads it (the twin prints
    ``NA``: it prints no ground truth)."""
    hbm_ue: np.ndarray | None = None
    """(hbms,) uncorrectable (double-bit) ECC errors in the last ``windows['hbm_ue']`` seconds (NaN: no earlier
    collection); None where nothing reads them (npu-exporter's ``npu_chip_info_hbm_ecc_total_double_bit_error_cnt``,
    npu-smi's ``HBM Double Bit Aggregate Total Err Cnt``)."""
    hbm_ue_total: np.ndarray | None = None
    """(hbms,) the same errors over the stack's lifetime."""
    link_downs_from_states: np.ndarray | None = None
    """(links,) the link's ``link_downs`` count is its link state's UP->DOWN changes between readings (kept
    collections, or a Prometheus server's samples; ``windows['link_down_states']`` seconds of them): a lower bound, a
    flap between two readings unseen, a missing or unread state neither UP nor DOWN; None where every count is the
    links' own down records."""
    npu_fault_codes: tuple[tuple[str, ...], ...] | None = None
    """(npus,) the fault event codes each NPU reports now (``80E01801``; npu-exporter's ``npu_chip_info_error_code``);
    None where nothing reads them."""
    heartbeat_grace_s: float = 0.0
    """Seconds of a real source's sample lag not counted in ``heartbeat_age_s`` (the exporter's refresh interval,
    ``SweepParams.exporter_update_s``); 0 on the twin, whose ages are its own."""
    node_sample_age_s: Mapping[str, float] | None = None
    """Per node of a real source, how far its newest sample lags the collection beyond the scrape spread and one
    refresh (:func:`opsbrain.sources.readings.sample_ages`): a stale exporter, reported once on the node; None on the
    twin."""
    npus_unseen: frozenset[str] | None = None
    """NPUs of a real source with no series in this collection, aged from their last sample in the kept history
    (:func:`opsbrain.sources.readings.vanished`), or the twin's chips of a stopped host (whose exporter serves
    nothing, aged from their last sample before the stop); None where every NPU was read."""
    link_crc_rate_per_s: np.ndarray | None = None
    """(links,) a real source's CRC errors per second over its last collection interval (NaN: no earlier reading);
    None on the twin."""
    link_crc_what: tuple[str, ...] | None = None
    """(links,) what a real source's link counter counts where it is not a UB port's CRC errors (``RoCE FCS errors
    ...``, ``HCCS CRC errors (flits)``; empty: CRC errors); None on the twin."""
    ports: PortState | None = None
    """A real source's NPU counts, RoCE port counters, link speeds and optical module presence (session 35:
    :mod:`opsbrain.sweeps.portchecks`); None on the twin and where a source read none of them."""


def dom_read(sim: Simulation, t: float) -> Reading:
    """Every module's DOM reading at ``t`` as the exporters serve it: a module on a stopped host's board (its L1
    chips' ports, read by that host's npu-exporter) has no reading (NaN rows)."""
    reading = sim.dom.read(t)
    gone = [i for i, _since in sim.telemetry.scraped.absent(sim.dom.modules, t)]
    if not gone:
        return reading
    out = {k: v.copy() for k, v in reading.items()}
    for v in out.values():
        v[gone] = np.nan
    return out


def _read(sim: Simulation, metric: str, comps: tuple[str, ...], t: float) -> np.ndarray:
    """Gauge values at ``t`` (NaN: no data)."""
    return np.asarray(sim.telemetry.scraped.read_many(metric, comps, t), dtype=float)


def _window_count(sim: Simulation, metric: str, comps: tuple[str, ...], t: float, window: float,
                  history: SweepHistory | None) -> tuple[np.ndarray, float]:
    """Counter increase over ``[t - window, t]`` per component (0 where the counter does not exist).

    With a history, the last segment of every series is cached until the metric is written again: series not
    written inside the window increase by slope x window (vectorised); the others are read one by one.
    """
    start = max(0.0, t - window)
    store = sim.telemetry.scraped
    if history is None:
        return np.asarray(store.increase_many(metric, comps, start, t), dtype=float), t - start
    version = store.version(metric)
    cached = history.counters.get(metric)
    if cached is None or cached[0] != version or cached[1] is not comps:
        starts, _values, slopes = store.last_segments(metric, comps)
        cached = (version, comps, np.asarray(starts, dtype=float), np.asarray(slopes, dtype=float))
        history.counters[metric] = cached
    t_last, slope = cached[2], cached[3]
    out = slope * (t - start)
    recent = np.flatnonzero(t_last > start)
    if gone := store.absent(comps, t):  # a stopped host's counters: their samples up to the stop
        recent = np.union1d(recent, [i for i, _since in gone])
    if len(recent):
        out[recent] = store.increase_many(metric, [comps[i] for i in recent], start, t)
    return out, t - start


def _baseline(series: list[tuple[float, float, float]], t: float, window: float) -> float:
    """The fastest running step time (a flat, positive segment) in force at some time of ``[t - window, t]``."""
    ends = [x[0] for x in series[1:]] + [np.inf]
    vals = [v for (t0, v, slope), t1 in zip(series, ends, strict=True)
            if slope == 0.0 and v > 0.0 and t0 <= t and t1 > t - window]
    return min(vals) if vals else NAN


def _job_steps(sim: Simulation, t: float, window: float) -> tuple[JobSteps, ...]:
    store = sim.telemetry.scraped
    out = []
    for w in sim.workloads.values():
        step = store.read("step_time_s", w.name, t)
        if w.kind != "training" or step is None:
            continue
        ranks = tuple(getattr(w, "ranks", ()))
        out.append(JobSteps(w.name, float(step), store.slope("step_time_s", w.name, t) > 0,
                            _baseline(store.series("step_time_s", w.name), t, window), ranks,
                            _read(sim, "rank_step_time_s", ranks, t)))
    return tuple(out)


def _layout(sim: Simulation, history: SweepHistory | None) -> _Layout:
    """Optical link ids, the link index of every DOM row, HBM / NPU / pod ids (cached in ``history``)."""
    dom = sim.dom
    if history is not None and history.layout is not None and history.layout.dom is dom:
        return history.layout
    index: dict[str, int] = {}
    module_link = np.fromiter((index.setdefault(x, len(index)) for x in dom.link_of), dtype=np.int64,
                              count=len(dom.link_of))
    by_kind = sim.topology.by_kind
    lay = _Layout(dom, tuple(index), module_link, tuple(sorted(by_kind.get("hbm", ()))),
                  tuple(sorted(by_kind.get("npu", ()))), tuple(sorted(by_kind.get("pod", ()))))
    if history is not None:
        history.layout = lay
    return lay


def _trend(sim: Simulation, t: float, p: SweepParams, reading: Reading, history: SweepHistory | None
           ) -> tuple[np.ndarray, np.ndarray, list[Reading]]:
    """(times, Rx readings) over the trend window, from the kept history (back-filled on first use) or re-read
    from the DOM store, and the full readings of up to ``dom_confirm_reads - 1`` earlier collections."""
    n = p.trend_reread_points
    past = [t - p.trend_window_s * k / (n - 1) for k in range(n - 1, 0, -1)]
    past = [x for x in past if x >= 0.0]
    keep = p.dom_confirm_reads - 1
    if history is None:
        reads: list[Reading] = [dom_read(sim, x) for x in past]
        stack = np.stack([*(r["rx_dbm"].astype(np.float32) for r in reads), reading["rx_dbm"].astype(np.float32)])
        return np.asarray([*past, t]), stack, reads[len(reads) - keep:] if keep else []
    dom = history.dom
    dom.max_age_s = max(dom.max_age_s, p.trend_window_s)
    if not len(dom):
        for x in past:
            r = dom_read(sim, x)
            dom.add(x, r["rx_dbm"])
            history.readings.append((x, r))
    earlier = [r for x, r in history.readings if x < t][-keep:] if keep else []
    if not history.readings or t > history.readings[-1][0]:
        history.readings.append((t, reading))
    elif t == history.readings[-1][0]:
        history.readings[-1] = (t, reading)
    del history.readings[: max(0, len(history.readings) - keep - 1)]
    dom.add(t, reading["rx_dbm"])
    times, stack = dom.window(t - p.trend_window_s, t)
    return times, stack, earlier


def confirm_range(reading: Reading, earlier: list[Reading]) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """(highest, lowest) value per field and lane over this reading and the earlier ones (NaN where any is NaN)."""
    if not earlier:
        return dict(reading), dict(reading)
    hi, lo = {}, {}
    for k, v in reading.items():
        hi[k], lo[k] = v.copy(), v.copy()
        for r in earlier:
            np.maximum(hi[k], r[k], out=hi[k])
            np.minimum(lo[k], r[k], out=lo[k])
    return hi, lo


def take_snapshot(sim: Simulation, t: float | None = None, params: SweepParams | None = None,
                  history: SweepHistory | None = None) -> Snapshot:
    """Collect the telemetry of ``sim`` at ``t`` (default: now; a past ``t`` reads the stored history, but port
    admin state is read as it is now). ``history`` keeps DOM readings between sweeps (it is updated)."""
    p = params or SweepParams()
    now = sim.now
    t = now if t is None else float(t)
    if t > now + 1e-9:
        raise ValueError(f"cannot take a snapshot at t={t}: the simulation is at {now} (telemetry of the future)")
    topo = sim.topology
    dom = sim.dom
    reading = dom_read(sim, t)
    lay = _layout(sim, history)
    links, hbms, npus = lay.links, lay.hbms, lay.npus
    admin = np.zeros(len(links), dtype=bool)
    isolated = {cid for cid, h in sim.state.unhealthy().items() if h == Health.ISOLATED}
    if isolated:
        admin[[i for i, lk in enumerate(links) if lk in isolated]] = True

    downs, w_down = _window_count(sim, "link_down_total", links, t, p.link_down_window_s, history)
    crc, w_crc = _window_count(sim, "link_crc_total", links, t, p.crc_window_s, history)
    fec, w_fec = _window_count(sim, "link_fec_corrected_total", links, t, p.fec_window_s, history)
    ce, w_ce = _window_count(sim, "hbm_ce_total", hbms, t, p.hbm_ce_window_s, history)
    t_rows = max(0.0, t - p.hbm_rows_rate_window_s)
    heartbeat = _read(sim, "npu_heartbeat_age_s", npus, t)
    unseen = frozenset(npus[i] for i, _since in sim.telemetry.scraped.absent(npus, t))  # stopped hosts' chips

    spares = tuple(sim.control.spares)
    npu_pos = {n: i for i, n in enumerate(npus)}
    usable = np.array([not any(heartbeat[npu_pos[x]] >= p.heartbeat_warn_s for x in topo.npus_of(s)
                               if x in npu_pos) for s in spares], dtype=bool)

    trend_t, trend_rx, earlier = _trend(sim, t, p, reading, history)
    dom_hi, dom_lo = confirm_range(reading, earlier)
    return Snapshot(
        t=t,
        windows={"hbm_ce": w_ce, "hbm_rows": t - t_rows, "link_down": w_down, "crc": w_crc, "fec": w_fec,
                 "trend": float(trend_t.max() - trend_t.min()) if len(trend_t) else 0.0},
        pods=lay.pods, modules=dom.modules, module_link=lay.module_link, dom=reading, trend_t=trend_t,
        trend_rx=trend_rx,
        links=links, link_admin_down=admin, link_downs=downs, link_crc=crc,
        link_fec_per_s=fec / w_fec if w_fec > 0 else np.zeros(len(links)),
        line_bps=sim.params.fabric.ub_link_gbytes_s * 8e9,
        hbms=hbms, hbm_ce=ce, hbm_rows=_read(sim, "hbm_isolated_rows", hbms, t),
        hbm_rows_before=_read(sim, "hbm_isolated_rows", hbms, t_rows), hbm_temp_c=_read(sim, "hbm_temp_c", hbms, t),
        npus=npus, npu_temp_c=_read(sim, "npu_temp_c", npus, t), heartbeat_age_s=heartbeat,
        jobs=_job_steps(sim, t, p.straggler_baseline_window_s), spares=spares, spare_usable=usable,
        npus_unseen=unseen or None,
        dom_hi=dom_hi, dom_lo=dom_lo, dark=reading["rx_dbm"] < p.los_below_dbm,
        module_admin_down=admin[lay.module_link],
    )
