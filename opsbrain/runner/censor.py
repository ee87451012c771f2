"""A fault the run ended too soon after to be detected is ``censored``, not missed (helper AD, D9).

Whether an undetected fault was missed or never had the time: the earliest moment any detection path could have
reported it (:func:`earliest_detection`) against the run's end. Every path holds a line for the detector's watermark
(``detector.reorder_s``: nothing is processed before its time stamp plus it), so a fault less than that before the end
cannot be detected. A progressive fault (an optical module's decay) reports nothing until a lane drops or the link
dies (a plant change of its own, then the hold) or, before that, until the sweeps' Rx trend predicts the alarm
threshold within ``sweeps.trend_alarm_horizon_s`` (its noise-free crossing time, from the DOM model, minus that
horizon; only with in-run sweeps). A model that first waits silently (silent data corruption until its NaN,
``detect_delay_s``) says how long (``ActiveFault.quiet_s``): nothing can see it before then. A fault that shows
only through a metric its model ramps (an HBM over-temperature, :data:`RAMPS`) is seen first when the ramp crosses
the sweeps' warning threshold (with in-run sweeps) or the level at which the model prints its first line (then the
hold). These are lower bounds: a fault undetected although its earliest moment had passed is missed; one whose
earliest moment lay beyond the end is censored and left out of accuracy, counted apart. A fault whose model changed
nothing at all (``quiet_s`` unbounded: a crash of a host that had already stopped) has no earliest moment: it is
censored too, its note saying nothing could have detected it (:data:`NOTHING`).
"""

from __future__ import annotations

import math
from typing import Any

PROGRESSIVE = ("optical_degradation",)  # kinds that announce themselves only when their decay crosses a threshold
RAMPS: dict[str, tuple[str, str, str]] = {"hbm_overtemp": ("hbm_temp_c", "hbm_temp_alarm_c", "hbm_temp_warn_c")}
"""Kinds that show only through a metric their model ramps from the onset: (metric, the fault parameter at whose
crossing the model prints its first line, the sweeps' threshold that flags the metric first)."""


NOTHING = "nothing could have detected it"
"""How a ``detection_note`` begins for a fault that changed nothing any detection path reads (no time would do)."""


def metric_crossing(sim: Any, metric: str, component: str, level: float, after: float) -> float:
    """The first time at or after ``after`` the plant's piecewise-linear ``metric`` of ``component`` reaches
    ``level`` (inf if it never does)."""
    segs = sim.telemetry.metrics.series(metric, component)
    for k, (t0, v0, slope) in enumerate(segs):
        t_end = segs[k + 1][0] if k + 1 < len(segs) else math.inf
        if t_end <= after:
            continue
        start = max(t0, after)
        v = v0 + slope * (start - t0)
        if v >= level:
            return start
        if slope > 0 and (tc := start + (level - v) / slope) < t_end:
            return tc
    return math.inf


def _ramp_detection(sim: Any, f: Any, hold_s: float, sweep: Any | None) -> tuple[float, str]:
    metric, line_param, sweep_param = RAMPS[f.kind]
    line_at = getattr(sim.params.faults, line_param)
    by_line = metric_crossing(sim, metric, f.target, line_at, f.at_s) + hold_s
    warn = getattr(sweep, sweep_param) if sweep is not None else None
    by_sweep = metric_crossing(sim, metric, f.target, warn, f.at_s) if warn is not None else math.inf
    if by_sweep < by_line:
        return by_sweep, f"its {metric} reaching {warn:g}, the sweeps' warning threshold"
    return by_line, f"its first line at {metric} {line_at:g} and the detector's {hold_s:g} s watermark hold"


def earliest_detection(sim: Any, f: Any, hold_s: float, sweep: Any | None) -> tuple[float, str]:
    """The earliest moment ``f`` could have been detected, and by what (in words)."""
    quiet = float(getattr(f, "quiet_s", 0.0) or 0.0)
    if math.isinf(quiet):  # the model changed nothing (why: its quiet_why, or its fault_end's cause)
        why = getattr(f, "quiet_why", "") or next((e.detail.get("cause") for e in sim.trace.events
                                                   if e.kind == "fault_end" and e.detail.get("id") == f.id
                                                   and e.detail.get("cause")), None)
        return math.inf, "the fault changed nothing a detection path reads" + (f": {why}" if why else "")
    if f.kind in RAMPS:
        return _ramp_detection(sim, f, hold_s, sweep)
    if f.kind not in PROGRESSIVE:
        if quiet > 0:  # the model shows nothing before then (silent data corruption's NaN delay)
            return f.at_s + quiet + hold_s, (f"the fault shows nothing for {quiet:g} s after its onset, then the "
                                             f"detector's {hold_s:g} s watermark hold")
        return f.at_s + hold_s, f"the detector's {hold_s:g} s watermark hold"
    own = f"fault:{f.id}"
    first = min((e.t for e in sim.trace.events if e.kind in ("health", "lanes") and e.detail.get("cause") == own),
                default=math.inf)
    by_event = first + hold_s
    by_trend = math.inf
    dom = getattr(sim, "dom", None)
    if sweep is not None and dom is not None:
        crossings = [t for m in dom.modules_of(f.target) for lane in range(dom.lanes)
                     if (t := dom.crossing_time(m, lane, sweep.rx_alarm_dbm, after_t=f.at_s)) is not None]
        if crossings:
            by_trend = max(f.at_s, min(crossings) - sweep.trend_alarm_horizon_s)
    if sweep is not None and by_trend < by_event:
        return by_trend, (f"the Rx trend's alarm horizon ({sweep.trend_alarm_horizon_s / 3600:g} h before the "
                          "predicted alarm crossing)")
    return by_event, "its first lane drop or link-down and the detector's hold"


def detection(sim: Any, f: Any, detected: float | None, end: float, hold_s: float,
              sweep: Any | None) -> dict[str, Any]:
    """``detection``: ``detected``, ``missed`` or ``censored`` (with ``detection_note``: why there was no time)."""
    if detected is not None:
        return {"detection": "detected"}
    at, how = earliest_detection(sim, f, hold_s, sweep)
    if at <= end:
        return {"detection": "missed"}
    if math.isinf(at):
        return {"detection": "censored", "detection_note": f"{NOTHING}: {how}"}
    return {"detection": "censored",
            "detection_note": f"injected {end - f.at_s:.1f} s before the run's end; the earliest it could have been "
                              f"detected is {at - f.at_s:.1f} s after its onset ({how})"}
