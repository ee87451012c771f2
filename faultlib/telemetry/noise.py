"""Background noise: what a healthy pod shows all the time, so that faults have something to hide in.

:func:`start_background_noise` sets per-component counter slopes once and starts ONE simpy process per event
family. Each process draws the next event time from the pod-wide aggregate rate and then picks the component,
so cost grows with events, not with components x simulated seconds.

- HBM correctable errors: counter ``hbm_ce_total`` per HBM stack with a per-stack slope (lognormal spread), plus
  occasional small bursts that add to the counter. Both fill the stack's correctable-error log
  (:mod:`faultlib.telemetry.celog`, the one a CE storm fills), whose device logs a device-os line with
  :data:`~formats.HBM_CE_CODE` each time it is full (session 34; before, each burst printed one line whatever its
  size). ``hbm_uce_total`` and ``hbm_isolated_rows`` exist (0) for every stack.
- Self-healing link flaps (dirty connectors): an L1-L2 link goes FAILED for about a second and back to
  HEALTHY (``sim.state.set_health``), with switch alarm / port-state / device-plugin lines, a CRC burst and
  ``link_down_total`` + 1. Links that are not fully healthy (a fault owns them) are skipped.
- Link error counters: ``link_fec_corrected_total`` (pre-FEC BER x line rate) and ``link_crc_total`` slopes.
- Temperatures: ``npu_temp_c`` and ``hbm_temp_c`` per NPU / HBM, piecewise constant, re-read every few hours.
  Noise never overwrites a temperature it did not write last (a fault model owns it from then on), nor one of a
  chip that does not beat (down, or its host stopped: nothing reads it; session 37, before it was redrawn).
- Heartbeat: ``npu_heartbeat_age_s`` per NPU is 0 while the NPU beats (every ``npu_heartbeat_period_s``; the
  plant does not record each beat). When the NPU stops (it or its node goes FAILED/RESETTING, or a fault calls
  :func:`stop_heartbeat`) the plant writes the age since the last beat with slope 1, so a reader at ``t`` sees
  ``t - last_beat``; when it beats again the age returns to 0.

Noise is deterministic per seed (streams ``noise/...``). Nothing an operator sees marks a line as noise; only
the trace (ground truth) records ``cause="noise:..."``.
"""

from __future__ import annotations

import heapq
import zlib
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

import numpy as np
import simpy

from faultlib import ids
from faultlib.health import DOWN, Health
from faultlib.params import P, ParamGroup
from faultlib.telemetry.emit import Emitter

if TYPE_CHECKING:
    from faultlib.engine import Simulation

A = "assumed; "
DAY = 86400.0
Gen = Generator[simpy.Event, Any, None]


class NoiseParams(ParamGroup):
    """Background noise rates (benign errors, self-healing flaps, drifts)."""

    # ---- HBM correctable errors ---------------------------------------------------------------------
    hbm_ce_per_day: float = P(
        2.0, "errors/day per HBM", A + "median benign correctable-error rate of one HBM stack; ECC corrects "
        "single-bit errors from particle strikes and weak cells continuously (no public Ascend figure)", ge=0)
    hbm_ce_rate_sigma: float = P(
        1.0, "ln units", A + "stack-to-stack spread of the CE rate (lognormal): as in DRAM field studies, a few "
        "devices carry most correctable errors", ge=0)
    hbm_ce_bursts_per_day: float = P(
        0.05, "bursts/day per HBM", A + "a small CE burst about once in 20 days per stack, weighted towards the "
        "noisier stacks; its errors join the stack's CE log with the steady ones and are reported only when the log "
        "is full (faults.ce_log_limit; session 34: before, each burst printed one line, ~19 lines/day in a 384-NPU "
        "pod; now ~4 reports/day in a fresh pod's first days, ~23/day after a few weeks: 40 simulated days, seed 1)",
        ge=0)
    hbm_ce_burst_mean: float = P(
        20.0, "errors", A + "mean size of a benign CE burst (geometric), far below a pre-UCE storm", ge=1)

    # ---- self-healing link flaps ---------------------------------------------------------------------
    flap_per_link_day: float = P(
        0.005, "flaps/day per link", "HPN (SIGCOMM'24, facts.md §4): 5k-60k link flaps/day across Alibaba's fleet; "
        "assumed fleet of ~1e6 links (order of magnitude; not given in facts.md) => 0.005-0.06 per link-day; "
        "low end taken for short in-rack/in-pod optics => ~27 flaps/day over one pod's 5,376 L1-L2 links", ge=0)
    flap_down_mean_s: float = P(
        0.5, "s", A + "a dirty end-face flap re-locks within about a second (mean of an exponential); well under "
        "the 20 s after which MindCluster escalates a link-down (facts.md §3)", gt=0)
    new_link_flap_fraction: float = P(
        0.0, "fraction of links", "Huawei Cloud 2023: 37% of 20k+ new links flapped at first, mostly dirty end-faces "
        "(facts.md §2). Default 0 = a pod in service; set 0.37 to simulate a freshly cabled pod", ge=0, le=1)
    new_link_window_s: float = P(
        7 * DAY, "s", A + "'at first' read as the first week after cabling: the extra flaps of new links are "
        "spread uniformly over it", gt=0)
    flap_crc_burst_mean: float = P(
        200.0, "errors", A + "CRC errors counted around one short flap (mean of an exponential): frames cut by the "
        "loss of lock", ge=0)

    # ---- link error counters ----------------------------------------------------------------------------
    fec_pre_ber_median: float = P(
        1e-7, "bit error ratio", A + "healthy 224G PAM4 links run a pre-FEC BER of ~1e-8..1e-6, far below the "
        "~2.4e-4 an RS(544,514) FEC corrects; corrected errors/s = BER x line rate (fabric.ub_link_gbytes_s)", gt=0)
    fec_ber_sigma: float = P(1.0, "ln units", A + "link-to-link spread of pre-FEC BER (lognormal)", ge=0)
    crc_per_link_day: float = P(
        0.5, "errors/day per link", A + "post-FEC frame errors on a healthy link are rare: the IEEE 802.3 frame-loss "
        "target is ~6e-10, and healthy links run orders of magnitude below it", ge=0)
    counters_age_s: float = P(
        0.0, "s", "reason: how long the cumulative counters (HBM correctable errors, link CRC and FEC) have counted "
        "before t=0, filled with what the background processes above count in that time. 0: they start with the run "
        "(a freshly booted pod; the diagnosis training world). The held-out worlds (opsbrain/kb/heldout.py, axis "
        "counters_age) draw 1-3 days (assumed: a node rebooted or its driver reloaded in the last days) or 14-30 days "
        "(assumed: a pod in service between monthly maintenance windows)", ge=0)
    ce_log_fill_unknown: bool = P(
        False, "flag", "reason: with counters_age_s 0 the run starts on a freshly booted pod (the diagnosis training "
        "world), whose devices' correctable-error logs (faults.ce_log_limit records, telemetry/celog.py) are empty as "
        "its counters are 0; where counters_age_s gives the counters a history, a log holds that count modulo the "
        "limit. True: a log's fill at t=0 is uniform over 0..limit-1 (the stationary fill; devices whose history is "
        "unknown). Session 34: empty logs give ~4 background CE reports a day pod-wide in a fresh pod's first days, "
        "~23 once filled; a model trained with True read link-down-training's link at 0.39, under the 0.4 answer bar "
        "(0.48 with False), held-out top-1 0.941 / 0.933 at forest seeds 0 / 1 (0.961 with False)")

    # ---- temperatures -------------------------------------------------------------------------------------
    npu_temp_mean_c: float = P(55.0, "degC", A + "NPU SoC temperature under steady load with liquid/air cooling")
    npu_temp_sd_c: float = P(4.0, "degC", A + "chip-to-chip spread (position in the chassis, airflow)", ge=0)
    hbm_temp_mean_c: float = P(
        68.0, "degC", A + "HBM runs warmer than the SoC; near faults.hbm_temp_nominal_c and far below the 95 C alarm")
    hbm_temp_sd_c: float = P(3.0, "degC", A + "stack-to-stack spread", ge=0)
    temp_step_sd_c: float = P(1.5, "degC", A + "wander of a reading around the chip's baseline between updates", ge=0)
    temp_update_interval_s: float = P(
        12 * 3600.0, "s", "reason: cost bound. Temperature under steady load is near constant, so each NPU's reading "
        "is re-drawn on average twice a day (~770 events/day per pod) rather than sampled every second; a chip that "
        "does not beat (down, or its host stopped) is not re-drawn: nothing reads it, its reading holds (session 37)",
        gt=0)

    # ---- heartbeat -------------------------------------------------------------------------------------------
    npu_heartbeat_period_s: float = P(
        1.0, "s", "the device plugin polls device health every 1 s (facts.md §3): the finest granularity at which "
        "a missing heartbeat is seen", gt=0)


# ---- heartbeat (stateless helpers; also for fault models whose NPU stops while its health stays up) -----------
HEARTBEAT = "npu_heartbeat_age_s"


def _last_beat(sim: Simulation, npu: str, t: float) -> float:
    period = sim.params.noise.npu_heartbeat_period_s
    phase = (zlib.crc32(f"{sim.seed}:{npu}".encode()) / 2**32) * period
    return t - ((t - phase) % period)


def stop_heartbeat(sim: Simulation, npu: str) -> None:
    """The NPU stops beating now: ``npu_heartbeat_age_s`` grows from the last beat on (no-op if stopped)."""
    m, now = sim.telemetry.metrics, sim.now
    if m.slope(HEARTBEAT, npu, now) > 0:
        return
    m.set(HEARTBEAT, npu, now, now - _last_beat(sim, npu, now), 1.0)


def resume_heartbeat(sim: Simulation, npu: str) -> None:
    """The NPU beats again: its heartbeat age returns to 0 (no-op if it was beating)."""
    m, now = sim.telemetry.metrics, sim.now
    if m.slope(HEARTBEAT, npu, now) > 0:
        m.set(HEARTBEAT, npu, now, 0.0, 0.0)


class _Draws:
    """Batches of draws from one rng stream: numpy costs per call, so values are drawn 512 at a time."""

    def __init__(self, rng: np.random.Generator, batch: int = 512) -> None:
        self._rng = rng
        self._batch = batch
        self._bufs: dict[str, tuple[np.ndarray, int]] = {}

    def _next(self, kind: str) -> float:
        buf, i = self._bufs.get(kind, (np.empty(0), 0))
        if i >= len(buf):
            n = self._batch
            buf = (self._rng.standard_exponential(n) if kind == "exp" else self._rng.random(n) if kind == "uni"
                   else self._rng.standard_normal(n))
            i = 0
        self._bufs[kind] = (buf, i + 1)
        return float(buf[i])

    def exp(self, mean: float) -> float:
        return self._next("exp") * mean

    def uniform(self) -> float:
        return self._next("uni")

    def index(self, n: int) -> int:
        return min(int(self._next("uni") * n), n - 1)

    def normal(self, sd: float) -> float:
        return self._next("norm") * sd

    def geometric(self, mean: float) -> int:
        """Trials up to the first success with success probability 1/mean (>= 1)."""
        if mean <= 1.0:
            return 1
        u = 1.0 - self._next("uni")  # in (0, 1]
        return max(1, int(np.ceil(np.log(u) / np.log1p(-1.0 / mean))))


# ---- the background ---------------------------------------------------------------------------------------
class _Background:
    def __init__(self, sim: Simulation) -> None:
        self.sim = sim
        self.p: NoiseParams = sim.params.noise
        self.hub = sim.telemetry
        topo = sim.topology
        self.hbms = sorted(topo.by_kind.get("hbm", []))
        self.npus = sorted(topo.by_kind.get("npu", []))
        self.links = sorted(lid for lid, lk in topo.links.items() if lk.kind == "ub_optical")
        self._temp_written: dict[tuple[str, str], float] = {}

    # ---- one-off set-up: per-component slopes and baselines ---------------------------------------------
    def setup(self) -> None:
        p, sim, m = self.p, self.sim, self.hub.metrics
        now = sim.now
        rng = sim.rng("noise/init")
        n_h = len(self.hbms)
        ce = p.hbm_ce_per_day * np.exp(rng.normal(0.0, p.hbm_ce_rate_sigma, n_h)) if p.hbm_ce_rate_sigma \
            else np.full(n_h, p.hbm_ce_per_day)
        self.ce_weights = ce / ce.sum() if n_h and ce.sum() > 0 else np.full(n_h, 1.0 / max(n_h, 1))
        prior_ce, prior_crc = self._prior_counts(ce)
        for h, r, c0, fill in zip(self.hbms, ce, prior_ce, self._ce_log_fills(prior_ce), strict=True):
            m.set("hbm_ce_total", h, now, float(c0), float(r) / DAY)
            # the device's CE log holds the errors counted since it last started over (faultlib.telemetry.celog)
            sim.ce_logs.of(h, int(fill)).set_rate(float(r) / DAY)
            # counters an operator's exporter publishes for every stack from the start, not when a fault occurs
            m.set("hbm_uce_total", h, now, 0.0, 0.0)
            m.set("hbm_isolated_rows", h, now, 0.0, 0.0)
        line_bps = sim.params.fabric.ub_link_gbytes_s * 8e9
        ber = p.fec_pre_ber_median * np.exp(rng.normal(0.0, p.fec_ber_sigma, len(self.links)))
        age = p.counters_age_s
        for lid, b, k0 in zip(self.links, ber, prior_crc, strict=True):
            m.set("link_fec_corrected_total", lid, now, float(b) * line_bps * age, float(b) * line_bps)
            m.set("link_crc_total", lid, now, float(k0), p.crc_per_link_day / DAY)
        self.npu_temp0 = dict(zip(self.npus, rng.normal(p.npu_temp_mean_c, p.npu_temp_sd_c, len(self.npus)),
                                  strict=True))
        self.hbm_temp0 = dict(zip(self.npus, rng.normal(p.hbm_temp_mean_c, p.hbm_temp_sd_c, len(self.npus)),
                                  strict=True))
        for npu in self.npus:
            self._write_temp("npu_temp_c", npu, self.npu_temp0[npu])
            self._write_temp("hbm_temp_c", f"{npu}/hbm", self.hbm_temp0[npu])
            m.set(HEARTBEAT, npu, now, 0.0, 0.0)

    def _prior_counts(self, ce_per_day: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """What each stack's CE counter and each link's CRC counter hold at t=0 after ``counters_age_s`` of the
        background processes: steady errors (Poisson), CE bursts (geometric sizes, weighted as the bursts process
        picks stacks) and flaps' CRC bursts (exponential sizes). Zeros, and no draw, at age 0."""
        p = self.p
        days = p.counters_age_s / DAY
        if days <= 0:
            return np.zeros(len(self.hbms)), np.zeros(len(self.links))
        rng = self.sim.rng("noise/counters_age")
        bursts = rng.poisson(p.hbm_ce_bursts_per_day * len(self.hbms) * self.ce_weights * days)
        burst_errors = np.where(bursts > 0, bursts + rng.negative_binomial(np.maximum(bursts, 1),
                                                                           1.0 / p.hbm_ce_burst_mean), 0)
        ce = rng.poisson(ce_per_day * days) + burst_errors
        flaps = rng.poisson(p.flap_per_link_day * days, len(self.links))
        crc = rng.poisson(p.crc_per_link_day * days, len(self.links)) + np.ceil(
            rng.gamma(np.maximum(flaps, 1), p.flap_crc_burst_mean)) * (flaps > 0)
        return ce.astype(float), crc.astype(float)

    def _ce_log_fills(self, prior: np.ndarray) -> np.ndarray:
        """The records each stack's CE log holds at t=0 (:attr:`NoiseParams.ce_log_fill_unknown`): the counters'
        history modulo the limit where they have one, else a uniform draw (its own stream: no other draw moves)."""
        limit = self.sim.params.faults.ce_log_limit
        if self.p.counters_age_s > 0 or not self.p.ce_log_fill_unknown:
            return prior.astype(int) % limit
        return self.sim.rng("noise/ce_log_fill").integers(0, limit, len(prior))

    # ---- helpers ------------------------------------------------------------------------------------------
    def _write_temp(self, metric: str, comp: str, value: float) -> None:
        v = round(float(value), 1)
        self.hub.metric(metric, comp, v)
        self._temp_written[(metric, comp)] = v

    def _owns_temp(self, metric: str, comp: str) -> bool:
        mine = self._temp_written.get((metric, comp))
        cur = self.hub.read(metric, comp)
        return mine is not None and cur == mine and self.hub.metrics.slope(metric, comp, self.sim.now) == 0.0

    def _log(self, origin: str, source: str, level: str, text: str) -> None:
        self.hub.log(origin, source, level, text)

    # ---- HBM correctable-error bursts ---------------------------------------------------------------------
    def hbm_ce_bursts(self) -> Gen:
        p, sim = self.p, self.sim
        rate = len(self.hbms) * p.hbm_ce_bursts_per_day / DAY
        if rate <= 0:
            return
        draw = _Draws(sim.rng("noise/hbm_ce"))
        cum = np.cumsum(self.ce_weights)
        while True:
            yield sim.env.timeout(draw.exp(1.0 / rate))
            i = min(int(np.searchsorted(cum, draw.uniform() * cum[-1], side="right")), len(self.hbms) - 1)
            size = draw.geometric(p.hbm_ce_burst_mean)
            hbm = self.hbms[i]
            if sim.state.device_down(hbm):  # a down chip records no error (an isolated one still runs)
                continue
            self.hub.count("hbm_ce_total", hbm, float(size))
            sim.ce_logs.of(hbm).add(size)  # reported when the log is full, as a storm's errors are

    # ---- self-healing flaps ----------------------------------------------------------------------------------
    def _flappable(self, lid: str) -> bool:
        return self.sim.state.health(lid) == Health.HEALTHY and self.sim.fabric.uplink_capacity(lid) == 1.0

    def _flap_lines(self, lid: str, up: bool) -> None:
        Emitter(self.sim).link_state(lid, up)

    def _flap_down(self, lid: str, draw: _Draws) -> None:
        self.sim.state.hold_down(lid, "noise:flap")
        self.sim.state.set_health(lid, Health.FAILED, cause="noise:flap")
        self.hub.count("link_down_total", lid)
        if self.p.flap_crc_burst_mean > 0:
            self.hub.count("link_crc_total", lid, float(np.ceil(draw.exp(self.p.flap_crc_burst_mean))))
        self._flap_lines(lid, up=False)

    def _flap_up(self, lid: str) -> None:
        if self.sim.state.release_down(lid, "noise:flap") and self.sim.state.health(lid) == Health.FAILED:
            self.sim.state.set_health(lid, Health.HEALTHY, cause="noise:flap")
            self._flap_lines(lid, up=True)

    def _next_flap(self, draw: _Draws, now: float) -> float:
        """Next flap time under a rate that is higher while the pod is new (exact: exponential is memoryless)."""
        p, n = self.p, len(self.links)
        base = n * p.flap_per_link_day / DAY
        extra = n * p.new_link_flap_fraction / p.new_link_window_s
        if now < p.new_link_window_s and extra > 0:
            t = now + draw.exp(1.0 / (base + extra))
            if t <= p.new_link_window_s:
                return t
            now = p.new_link_window_s
        return now + draw.exp(1.0 / base) if base > 0 else float("inf")

    def flaps(self) -> Gen:
        sim, p = self.sim, self.p
        if not self.links:
            return
        draw = _Draws(sim.rng("noise/flap"))
        pending: list[tuple[float, int, str]] = []
        seq = 0
        nxt = self._next_flap(draw, sim.now)
        while pending or nxt < float("inf"):
            if pending and pending[0][0] <= nxt:
                t_up, _s, lid = heapq.heappop(pending)
                yield sim.env.timeout(t_up - sim.now)
                self._flap_up(lid)
                continue
            yield sim.env.timeout(nxt - sim.now)
            lid = self.links[draw.index(len(self.links))]
            down_s = draw.exp(p.flap_down_mean_s)
            if self._flappable(lid):
                self._flap_down(lid, draw)
                seq += 1
                heapq.heappush(pending, (sim.now + down_s, seq, lid))
            nxt = self._next_flap(draw, sim.now)

    # ---- temperatures -------------------------------------------------------------------------------------
    def temperatures(self) -> Gen:
        sim, p = self.sim, self.p
        if not self.npus:
            return
        draw = _Draws(sim.rng("noise/temp"))
        mean_gap = p.temp_update_interval_s / len(self.npus)
        while True:
            yield sim.env.timeout(draw.exp(mean_gap))
            npu = self.npus[draw.index(len(self.npus))]
            dn, dh = draw.normal(p.temp_step_sd_c), draw.normal(p.temp_step_sd_c)
            if not self._beating(npu):  # a chip that does not beat is not read: its reading holds (session 37)
                continue  # (its draws are still taken: the other chips' stream is unchanged)
            if self._owns_temp("npu_temp_c", npu):
                self._write_temp("npu_temp_c", npu, self.npu_temp0[npu] + dn)
            if self._owns_temp("hbm_temp_c", f"{npu}/hbm"):
                self._write_temp("hbm_temp_c", f"{npu}/hbm", self.hbm_temp0[npu] + dh)

    # ---- heartbeat listener -----------------------------------------------------------------------------------
    def _beating(self, npu: str) -> bool:
        st = self.sim.state
        node = ids.node_of(npu)
        return not st.chip_dead(npu) and (node is None or st.health(node) not in _SILENT)

    def on_health(self, cid: str, old: Health, new: Health) -> None:
        kind = self.sim.topology.kind.get(cid)
        if kind == "npu":
            npus = [cid]
        elif kind == "node":
            npus = self.sim.topology.npus_of(cid)
        else:
            return
        for npu in npus:
            if self._beating(npu):
                resume_heartbeat(self.sim, npu)
            else:
                stop_heartbeat(self.sim, npu)


_SILENT = DOWN
"""Health states of a node in which its chips send no heartbeat; a chip beats unless its device OS is down
(:meth:`~faultlib.state.PlantState.chip_dead`: ISOLATED/CORDONED chips still beat, unless isolated while down)."""


def start_background_noise(sim: Simulation) -> None:
    """Start the background noise of ``sim`` (call once, before running): slopes, baselines, three processes."""
    bg = _Background(sim)
    bg.setup()
    sim.state.subscribe(bg.on_health)
    sim.env.process(bg.hbm_ce_bursts())
    sim.env.process(bg.flaps())
    sim.env.process(bg.temperatures())
