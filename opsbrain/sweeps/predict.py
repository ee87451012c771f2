"""Trend prediction: when will a falling Rx power reach the alarm threshold?

For every module lane, a straight line is fitted by least squares to the lit Rx readings of the trend window
(all lanes of the pod at once: a few vectorised sums over the window). A lane whose slope is significantly
negative (t-statistic with a read-noise floor, minimum slope, reads and span) is projected from its fitted level now;
the time until it reaches the Rx alarm threshold is its predicted failure time. Within the warn horizon it is a
Warning, within the alarm horizon an Alarm: drain and re-route the link before it goes down.

:class:`~opsbrain.sweeps.snapshot.SweepHistory` keeps the readings of past sweeps (a scheduled service passes one
to every sweep); without it, the snapshot re-reads the DOM store at a few past times.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from opsbrain.sweeps.checks import Finding, row_reduce
from opsbrain.sweeps.params import SweepParams
from opsbrain.sweeps.snapshot import Snapshot


@dataclass(frozen=True, eq=False)
class TrendFit:
    """Per-lane least-squares line over the window (arrays shaped like one reading, (modules, lanes))."""

    slope_db_per_h: np.ndarray
    level_now_dbm: np.ndarray
    """The fitted value at the snapshot time."""
    tstat: np.ndarray
    """slope / its standard error; negative when the power falls."""
    points: np.ndarray
    """Lit reads used per lane."""


def fit_trend(times: np.ndarray, rx: np.ndarray, t_now: float, los_below_dbm: float,
              max_slope_db_per_h: float = np.inf, noise_floor_db: float = 0.0,
              reach: tuple[float, float] | None = None) -> TrendFit:
    """Fit ``rx[k] ~ a + b (times[k] - t_now)`` per lane over the reads with light (vectorised).

    The sums run over the float32 readings at once; lanes with a dark read in the window are redone with a
    mask. Only lanes whose slope is at most ``max_slope_db_per_h`` (and, with ``reach = (level, hours)``, whose
    line reaches ``level`` within ``hours``) get a standard error (others: tstat 0), so callers that care about
    falling lanes skip most of that work. The residual standard deviation is taken as at least
    ``noise_floor_db``.
    """
    k = len(times)
    shape = rx.shape[1:]
    y = rx.reshape(k, -1)
    lit = y >= np.float32(los_below_dbm)
    x = (np.asarray(times, dtype=np.float64) - t_now) / 3600.0
    m = y.shape[1]
    n, sx, sxx = np.full(m, float(k)), np.full(m, x.sum()), np.full(m, (x * x).sum())
    # numpy loops rather than BLAS: a threaded BLAS gains nothing on (K x 43k) and thrashes on a busy host
    sy, sxy = y.sum(axis=0).astype(np.float64), np.einsum("kn,k->n", y, x.astype(np.float32)).astype(np.float64)
    partial = np.flatnonzero(~lit.all(axis=0))
    if len(partial):
        wp = lit[:, partial].astype(np.float64)
        yp = np.where(lit[:, partial], y[:, partial], 0.0)
        n[partial], sx[partial] = wp.sum(axis=0), np.einsum("kn,k->n", wp, x)
        sxx[partial], sy[partial] = np.einsum("kn,k->n", wp, x * x), yp.sum(axis=0)
        sxy[partial] = np.einsum("kn,k->n", yp, x)
    with np.errstate(divide="ignore", invalid="ignore"):
        xbar, ybar = sx / n, sy / n
        cxx = sxx - n * xbar * xbar
        cxy = sxy - n * xbar * ybar
        slope = np.where(cxx > 1e-12, cxy / cxx, 0.0)
        level = np.where(n > 0, ybar - slope * xbar, np.nan)
        tstat = np.zeros_like(slope)
        want = (cxx > 1e-12) & (n > 2) & (slope <= max_slope_db_per_h)
        if reach is not None:
            want &= level + slope * reach[1] <= reach[0]
        cand = np.flatnonzero(want)
        if len(cand):
            yk = np.where(lit[:, cand], y[:, cand], 0.0) - np.where(lit[:, cand], ybar[cand], 0.0)
            sse = np.maximum(np.einsum("kn,kn->n", yk, yk) - slope[cand] * cxy[cand], 0.0)
            c_n = n[cand]
            se = np.sqrt(np.maximum(sse / (c_n - 2), max(noise_floor_db ** 2, 1e-12)) / cxx[cand])
            tstat[cand] = slope[cand] / se
    return TrendFit(slope.reshape(shape), level.reshape(shape), tstat.reshape(shape), n.reshape(shape))


def check_dom_trend(s: Snapshot, p: SweepParams) -> list[Finding]:
    """Modules with a lane whose Rx power falls fast and significantly enough to reach the Rx alarm threshold
    within the warn horizon; predicted_failure_s = the time until it does."""
    if len(s.trend_t) < p.trend_min_points or s.windows.get("trend", 0.0) < p.trend_min_span_s:
        return []
    fit = fit_trend(s.trend_t, s.trend_rx, s.t, p.los_below_dbm, -p.trend_min_slope_db_per_h, p.trend_noise_floor_db,
                    reach=(p.rx_alarm_dbm, p.trend_warn_horizon_s / 3600.0))
    lit_now = ~s.dark & ~s.module_admin_down[:, None]
    falling = (lit_now & (fit.points >= p.trend_min_points) & (fit.slope_db_per_h <= -p.trend_min_slope_db_per_h)
               & (fit.tstat <= -p.trend_min_tstat) & (fit.level_now_dbm > p.rx_alarm_dbm))
    with np.errstate(divide="ignore", invalid="ignore"):
        eta = np.where(falling, (p.rx_alarm_dbm - fit.level_now_dbm) / fit.slope_db_per_h * 3600.0, np.inf)
    eta = np.where(eta < p.trend_warn_horizon_s, eta, np.inf)
    best = row_reduce(np.minimum, eta)
    out = []
    for r in np.flatnonzero(np.isfinite(best)):
        lane = int(np.argmin(eta[r]))
        when = float(best[r])
        sev = "Alarm" if when < p.trend_alarm_horizon_s else "Warning"
        link = s.links[s.module_link[r]]
        slope, level = float(fit.slope_db_per_h[r, lane]), float(fit.level_now_dbm[r, lane])
        h = when / 3600
        out.append(Finding(
            s.modules[r], "dom_trend", sev,
            f"Rx power on lane {lane} falls {-slope:.2f} dB/h (t = {fit.tstat[r, lane]:.1f} over "
            f"{fit.points[r, lane]:.0f} reads in {s.windows.get('trend', 0.0) / 3600:.1f} h), now {level:.2f} dBm: "
            f"reaches the {p.rx_alarm_dbm:.1f} dBm alarm threshold in ~"
            + (f"{h:.1f} h" if h >= 1 else f"{when / 60:.0f} min") + f" (link {link})",
            f"proactive: drain and re-route link {link} now, then replace the module" if sev == "Alarm" else
            f"schedule the replacement of the module (link {link}) before it fails",
            when, {"link": link, "lane": lane, "slope_db_per_h": slope, "rx_dbm": level,
                   "tstat": float(fit.tstat[r, lane])}))
    return out
