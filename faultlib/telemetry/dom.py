"""Optical DOM (digital optical monitoring): per-lane Rx/Tx power, Tx bias and SNR of every L1-L2 module.

One row per optical module (``topology.links[...].modules``), one column per lane. Reading the whole pod at
time ``t`` is a handful of numpy operations, with no events and no stored history:

    value(t) = baseline + ageing drift * t + fault overrides(t) + measurement noise(seed, t bucket)

- Baselines are drawn once per run from ``sim.rng("dom")`` around healthy values kept well inside MindCluster's
  thresholds (:class:`~faultlib.telemetry.params.TelemetryParams`); a few "marginal" modules run closer to the
  Rx warn threshold, as in a real fleet.
- Light travels: lane *i* of a module's Tx feeds lane *i* of its peer's Rx, so a Tx drift or decay on one module
  shows as falling Rx power at the other end. SNR follows Rx power (``dom_snr_per_rx_db``).
- Measurement noise is fixed within one ``dom_sample_period_s`` bucket and derived deterministically from
  (seed, bucket): two rolls of pre-drawn normal pools, shifted by a hash of the bucket.
- Plant state shows as loss of light (``dom_los_dbm``): a link that is not up (FAILED, ISOLATED, RESETTING)
  reads LOS at both ends; a dead module, or a module on a dead switch chip or node, reads LOS and emits
  nothing (its peer reads LOS too); ``state.lanes_down(link)`` darkens that many lanes at both ends (the
  weakest lanes, by noise-free Rx power).
- Fault models change the optics with :meth:`DomModel.set_decay`, :meth:`DomModel.set_offset` and
  :meth:`DomModel.clear`; :meth:`DomModel.crossing_time` predicts when a lane reaches a power level.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from faultlib.health import UP
from faultlib.state import UnknownComponent
from faultlib.telemetry.params import TelemetryParams

if TYPE_CHECKING:
    from faultlib.engine import Simulation

FIELDS = ("rx_dbm", "tx_dbm", "bias_ma", "snr_db")
_RX, _TX, _BIAS, _SNR = range(4)
_FIELD_ALIASES = {"rx": _RX, "rx_dbm": _RX, "tx": _TX, "tx_dbm": _TX, "bias": _BIAS, "bias_ma": _BIAS,
                  "snr": _SNR, "snr_db": _SNR}
_DAY = 86400.0

Reading = dict[str, np.ndarray]


@dataclass(frozen=True, slots=True)
class _Override:
    row: int
    field: int
    lanes: tuple[bool, ...]
    start_t: float
    offset: float      # added from start_t on (field units)
    rate_per_s: float  # added per second after start_t (field units; negative = falls)


class DomModel:
    """DOM readings of every module of every L1-L2 optical link; see the module docstring."""

    def __init__(self, sim: Simulation) -> None:
        self.sim = sim
        self.p: TelemetryParams = sim.params.telemetry
        topo = sim.topology
        self.lanes = topo.params.lanes_per_optical_link
        modules: list[str] = []
        link_of: list[str] = []
        peer: list[int] = []
        self._link_ids: list[str] = []
        self._link_rows: dict[str, tuple[int, ...]] = {}
        for lk in topo.links.values():
            if lk.kind != "ub_optical" or not lk.modules:
                continue
            r0 = len(modules)
            rows = tuple(range(r0, r0 + len(lk.modules)))
            modules.extend(lk.modules)
            link_of.extend([lk.id] * len(rows))
            peer.extend(reversed(rows))  # two modules: each other's peer; one module: itself (no coupling)
            self._link_ids.append(lk.id)
            self._link_rows[lk.id] = rows
        self.modules: tuple[str, ...] = tuple(modules)
        """Module id of each row."""
        self.link_of: tuple[str, ...] = tuple(link_of)
        """Link id of each row."""
        self.row: dict[str, int] = {m: i for i, m in enumerate(modules)}
        """Row of each module id."""
        self.peer = np.asarray(peer, dtype=np.int64)
        self._peer_w = (self.peer != np.arange(len(modules))).astype(float)[:, None]
        self._deaths = self._death_map()
        self._draw_baselines()
        self._overrides: list[_Override] = []
        self._ov_version = 0
        self._ov_compiled: tuple[int, tuple[np.ndarray, ...]] | None = None
        self._dark_cache: tuple[int, np.ndarray, np.ndarray, dict[str, int]] | None = None
        self._noise_cache: tuple[int, np.ndarray] | None = None
        self._read_cache: tuple[tuple[float, bool, int, int], Reading] | None = None

    # ---- set-up --------------------------------------------------------------------------------------
    def _draw_baselines(self) -> None:
        p, m, lanes = self.p, len(self.modules), self.lanes
        rng = self.sim.rng("dom")
        marginal = rng.random(m) < p.dom_marginal_fraction
        loss = rng.uniform(0.0, 2.0 * p.dom_marginal_loss_db, m) * marginal
        rx_mod = rng.normal(p.dom_rx_mean_dbm, p.dom_rx_module_sd_db, m) - loss
        self._rx0 = rx_mod[:, None] + rng.normal(0.0, p.dom_rx_lane_sd_db, (m, lanes))
        self._tx0 = rng.normal(p.dom_tx_mean_dbm, p.dom_tx_sd_db, (m, lanes))
        self._bias0 = rng.normal(p.dom_bias_mean_ma, p.dom_bias_sd_ma, (m, lanes))
        self._snr0 = rng.normal(p.dom_snr_mean_db, p.dom_snr_sd_db, (m, lanes)) - p.dom_snr_per_rx_db * loss[:, None]
        self._tx_age = rng.exponential(p.dom_ageing_tx_db_per_day, m) / _DAY if p.dom_ageing_tx_db_per_day else \
            np.zeros(m)
        self._bias_age = rng.exponential(p.dom_ageing_bias_ma_per_day, m) / _DAY \
            if p.dom_ageing_bias_ma_per_day else np.zeros(m)
        self._pool = rng.standard_normal((2, 4 * m * lanes), dtype=np.float32)
        self._noise_key = [int(x) for x in rng.integers(0, 2**63, size=2)]
        self._noise_sd = (np.array([p.dom_noise_rx_db, p.dom_noise_tx_db, p.dom_noise_bias_ma,
                                    p.dom_noise_snr_db], dtype=np.float32) * np.float32(np.sqrt(0.5)))[:, None, None]

    def _death_map(self) -> dict[str, np.ndarray]:
        """Component id -> rows whose module is dark when that component is down (module, switch chip, node)."""
        owned: dict[str, list[int]] = {}
        for r, mod in enumerate(self.modules):
            owned.setdefault(mod, []).append(r)
            owner = mod.rsplit("/", 1)[0]
            owned.setdefault(owner, []).append(r)
            parent = self.sim.topology.parent.get(owner)
            if parent is not None and self.sim.topology.kind.get(parent) == "node":
                owned.setdefault(parent, []).append(r)
        return {k: np.asarray(v, dtype=np.int64) for k, v in owned.items()}

    # ---- targets and overrides ---------------------------------------------------------------------------
    def rows_of(self, target: str) -> tuple[int, ...]:
        """Rows of a module id (one) or of a link id (its modules)."""
        if target in self.row:
            return (self.row[target],)
        if target in self._link_rows:
            return self._link_rows[target]
        raise UnknownComponent(target)

    def _lane_mask(self, lanes: Iterable[int] | None) -> tuple[bool, ...]:
        if lanes is None:
            return (True,) * self.lanes
        sel = set(lanes)
        bad = [x for x in sel if not 0 <= x < self.lanes]
        if bad or not sel:
            raise ValueError(f"lanes must be a non-empty subset of 0..{self.lanes - 1}, got {sorted(sel)}")
        return tuple(i in sel for i in range(self.lanes))

    def _add(self, target: str, field: str, start_t: float, offset: float, rate_per_s: float,
             lanes: Iterable[int] | None) -> None:
        if field not in _FIELD_ALIASES:
            raise ValueError(f"unknown DOM field {field!r} (one of rx, tx, bias, snr)")
        mask = self._lane_mask(lanes)
        for r in self.rows_of(target):
            self._overrides.append(_Override(r, _FIELD_ALIASES[field], mask, float(start_t), offset, rate_per_s))
        self._ov_version += 1

    def set_decay(self, target: str, start_t: float, dbm_per_hour: float, lanes: Iterable[int] | None = None,
                  field: str = "rx") -> None:
        """From ``start_t`` on, ``field`` (rx, tx or snr) of ``target`` falls by ``dbm_per_hour`` dB per hour.

        A module id degrades that module; a link id degrades both its modules (a fibre or connector loss hits
        both directions). A Tx decay also lowers the peer module's Rx power. ``lanes`` defaults to all lanes.
        """
        if _FIELD_ALIASES.get(field) == _BIAS:
            raise ValueError("set_decay applies to rx, tx or snr (dB quantities); use set_offset for bias")
        self._add(target, field, start_t, 0.0, -float(dbm_per_hour) / 3600.0, lanes)

    def set_offset(self, target: str, delta: float, start_t: float | None = None,
                   lanes: Iterable[int] | None = None, field: str = "rx") -> None:
        """From ``start_t`` (default: now) on, add ``delta`` (dB, or mA for bias) to ``field`` of ``target``."""
        self._add(target, field, self.sim.now if start_t is None else start_t, float(delta), 0.0, lanes)

    def clear(self, target: str, field: str | None = None) -> int:
        """Remove the overrides of ``target`` (of one field, or all); returns how many were removed."""
        rows = set(self.rows_of(target))
        fidx = None if field is None else _FIELD_ALIASES[field]
        keep = [o for o in self._overrides if not (o.row in rows and (fidx is None or o.field == fidx))]
        removed = len(self._overrides) - len(keep)
        if removed:
            self._overrides = keep
            self._ov_version += 1
        return removed

    def _compiled(self) -> tuple[np.ndarray, ...]:
        if self._ov_compiled is None or self._ov_compiled[0] != self._ov_version:
            ov = self._overrides
            arrays = (np.array([o.row for o in ov], dtype=np.int64), np.array([o.field for o in ov], dtype=np.int64),
                      np.array([o.lanes for o in ov], dtype=float).reshape(len(ov), self.lanes),
                      np.array([o.start_t for o in ov]), np.array([o.offset for o in ov]),
                      np.array([o.rate_per_s for o in ov]))
            self._ov_compiled = (self._ov_version, arrays)
        return self._ov_compiled[1]

    def _override_deltas(self, t: float) -> np.ndarray | None:
        """(4, modules, lanes) sum of the active overrides at ``t``, or None when there are none."""
        if not self._overrides:
            return None
        acc = np.zeros((4, len(self.modules), self.lanes))
        rows, fields, mask, start, offset, rate = self._compiled()
        amt = np.where(t >= start, offset + rate * (t - start), 0.0)
        np.add.at(acc, (fields, rows), amt[:, None] * mask)
        return acc

    # ---- plant state -------------------------------------------------------------------------------------
    def _dark(self) -> tuple[np.ndarray, np.ndarray, dict[str, int]]:
        """(dead rows mask, loss-of-light rows mask, link -> lanes down), recomputed when plant state changes."""
        st = self.sim.state
        if self._dark_cache is not None and self._dark_cache[0] == st.version:
            return self._dark_cache[1], self._dark_cache[2], self._dark_cache[3]
        m = len(self.modules)
        dead = np.zeros(m, dtype=bool)
        los = np.zeros(m, dtype=bool)
        for cid, h in st.unhealthy().items():
            if h in UP:
                continue
            if cid in self._deaths:
                dead[self._deaths[cid]] = True
            elif cid in self._link_rows:
                los[list(self._link_rows[cid])] = True
        los |= dead
        los[self.peer[dead & (self._peer_w[:, 0] > 0)]] = True
        lanes = {lid: n for lid in self._link_ids if (n := st.lanes_down(lid))}
        self._dark_cache = (st.version, dead, los, lanes)
        return dead, los, lanes

    # ---- reading -----------------------------------------------------------------------------------------
    def _noise(self, t: float) -> np.ndarray:
        """(4, modules, lanes) measurement noise of the time bucket holding ``t``: the sum of two pre-drawn
        normal pools, each cyclically shifted by a hash of (seed, bucket) (a few array copies per bucket)."""
        bucket = int(np.floor(t / self.p.dom_sample_period_s))
        if self._noise_cache is None or self._noise_cache[0] != bucket:
            shifts = np.random.SeedSequence([*self._noise_key, bucket & (2**63 - 1)]).generate_state(2, np.uint64)
            a, b = self._pool
            n = a.size
            out = np.empty(n, dtype=np.float32)
            s = int(shifts[0]) % n
            out[: n - s], out[n - s:] = a[s:], a[:s]
            s = int(shifts[1]) % n
            out[: n - s] += b[s:]
            out[n - s:] += b[:s]
            noise = out.reshape(4, len(self.modules), self.lanes)
            noise *= self._noise_sd
            self._noise_cache = (bucket, noise)
        return self._noise_cache[1]

    def _model(self, t: float) -> np.ndarray:
        """Noise-free (4, modules, lanes) values at ``t`` before plant state (LOS) is applied."""
        ov = self._override_deltas(t)
        out = np.empty((4, len(self.modules), self.lanes))
        tx_delta = -(self._tx_age * t)[:, None] + (0.0 if ov is None else ov[_TX])
        np.add(self._tx0, tx_delta, out=out[_TX])
        np.multiply(np.broadcast_to(tx_delta, out[_TX].shape)[self.peer], self._peer_w, out=out[_RX])
        if ov is not None:
            out[_RX] += ov[_RX]
        np.multiply(out[_RX], self.p.dom_snr_per_rx_db, out=out[_SNR])  # rx delta -> SNR delta
        out[_RX] += self._rx0
        out[_SNR] += self._snr0
        np.add(self._bias0, (self._bias_age * t)[:, None], out=out[_BIAS])
        if ov is not None:
            out[_SNR] += ov[_SNR]
            out[_BIAS] += ov[_BIAS]
        return out

    def read(self, t: float | None = None, noise: bool = True) -> Reading:
        """All modules at ``t`` (default: now): ``{"rx_dbm", "tx_dbm", "bias_ma", "snr_db"}`` -> (modules, lanes).

        Row *i* is module ``self.modules[i]``. The arrays are read-only (the last read is cached). Reading
        records nothing: no trace events, no metrics.
        """
        t = self.sim.now if t is None else float(t)
        key = (t, noise, self.sim.state.version, self._ov_version)
        if self._read_cache is not None and self._read_cache[0] == key:
            return self._read_cache[1]
        vals = self._model(t)
        dead, los, lanes_down = self._dark()
        dark_lanes = np.zeros((len(self.modules), self.lanes), dtype=bool)
        for lid, n in lanes_down.items():
            rows = list(self._link_rows[lid])
            worst = np.argsort(vals[_RX, rows].min(axis=0), kind="stable")[:n]
            dark_lanes[np.ix_(np.asarray(rows), worst)] = True
        if noise:
            vals += self._noise(t)
        los_dbm = self.p.dom_los_dbm
        dark = dark_lanes | los[:, None]
        vals[_RX][dark] = los_dbm
        vals[_SNR][dark] = 0.0
        vals[_TX][dead] = los_dbm
        vals[_BIAS][dead] = 0.0
        out: Reading = {}
        for i, name in enumerate(FIELDS):
            arr = vals[i]
            arr.flags.writeable = False
            out[name] = arr
        self._read_cache = (key, out)
        return out

    def read_module(self, module_id: str, t: float | None = None, noise: bool = True) -> Reading:
        """One module's lanes at ``t``: the same values as the matching row of :meth:`read`."""
        r = self.rows_of(module_id)
        if len(r) != 1:
            raise ValueError(f"{module_id!r} is a link, not a module (its modules: {self.modules_of(module_id)})")
        full = self.read(t, noise)
        return {k: v[r[0]].copy() for k, v in full.items()}

    def modules_of(self, link_id: str) -> tuple[str, ...]:
        return tuple(self.modules[r] for r in self._link_rows[link_id])

    def crossing_time(self, module_id: str, lane: int, level_dbm: float, after_t: float | None = None,
                      horizon_s: float = 30 * _DAY) -> float | None:
        """When the noise-free Rx power of ``lane`` first falls to ``level_dbm`` at or after ``after_t``.

        Exact for the piecewise-linear model (ageing + overrides known now); None if not within ``horizon_s``.
        Plant state (LOS) is not considered.
        """
        (row,) = self.rows_of(module_id)
        t0 = self.sim.now if after_t is None else float(after_t)
        end = t0 + horizon_s
        peer, w = int(self.peer[row]), float(self._peer_w[row, 0])
        relevant = [o for o in self._overrides if o.lanes[lane] and
                    ((o.row == row and o.field == _RX) or (w and o.row == peer and o.field == _TX))]
        cuts = sorted({t0, end, *(o.start_t for o in relevant if t0 < o.start_t < end)})

        def value(t: float) -> float:
            return float(self._model(t)[_RX, row, lane])

        def slope(t: float) -> float:
            s = -self._tx_age[peer] * w
            s += sum(o.rate_per_s * (1.0 if o.field == _RX else w) for o in relevant if o.start_t <= t)
            return float(s)

        for a, b in zip(cuts, cuts[1:], strict=False):
            va, sa = value(a), slope(a)
            if va <= level_dbm:
                return a
            if sa < 0 and va + sa * (b - a) <= level_dbm:
                return a + (level_dbm - va) / sa
        return None


def classify(reading: Reading, p: TelemetryParams) -> dict[str, np.ndarray]:
    """Severity per lane (0 ok, 1 warn, 2 alarm) of each DOM check, as MindCluster's thresholds define them.

    Keys: ``rx``, ``tx``, ``bias``, ``snr`` -> (modules, lanes); ``spread`` -> (modules,) (lane-to-lane Rx
    difference among lanes that have light); ``worst`` -> (modules,) the highest severity of the module.
    """
    rx, tx, bias, snr = (reading[k] for k in FIELDS)

    def power(v: np.ndarray, warn: float, alarm: float) -> np.ndarray:
        sev = np.where(v < warn, 1, 0) + np.where(v < alarm, 1, 0)
        high = np.where(v > p.dom_power_high_warn_dbm, 1, 0) + np.where(v > p.dom_power_high_alarm_dbm, 1, 0)
        return np.maximum(sev, high).astype(np.int8)

    out = {
        "rx": power(rx, p.dom_rx_warn_dbm, p.dom_rx_alarm_dbm),
        "tx": power(tx, p.dom_tx_warn_dbm, p.dom_tx_alarm_dbm),
        "bias": np.where((bias < p.dom_bias_low_ma) | (bias > p.dom_bias_high_ma), 1, 0).astype(np.int8),
        "snr": (np.where(snr < p.dom_snr_warn_db, 1, 0) + np.where(snr < p.dom_snr_alarm_db, 1, 0)).astype(np.int8),
    }
    lit = rx > p.dom_rx_alarm_dbm
    hi = np.max(rx, axis=1, where=lit, initial=-np.inf)
    lo = np.min(rx, axis=1, where=lit, initial=np.inf)
    spread = np.where(lit.any(axis=1), hi - lo, 0.0)
    out["spread"] = np.where(spread > p.dom_lane_spread_alarm_db, 2, 0).astype(np.int8)
    lanes_worst = np.max(np.stack([out[k] for k in ("rx", "tx", "bias", "snr")]), axis=(0, 2))
    out["worst"] = np.maximum(lanes_worst, out["spread"]).astype(np.int8)
    return out
