"""Health checks: pure functions ``check_x(snapshot, params) -> list[Finding]``, vectorised over a whole pod.

Each check compares the :class:`~opsbrain.sweeps.snapshot.Snapshot` with the thresholds of
:class:`~opsbrain.sweeps.params.SweepParams` and returns one :class:`Finding` per component that is not OK
(nothing for healthy components); a DOM lane threshold must hold on the last ``dom_confirm_reads``
collections. Severities, least to most severe: OK, Warning (watch, plan), Alarm (act now, before it fails:
opens a proactive incident), Critical (failed or about to fail now). The optics' checks (light, DOM readings) are
:mod:`opsbrain.sweeps.optics`, the ports' :mod:`opsbrain.sweeps.portchecks`; :data:`CHECKS` lists them all.
"""

from __future__ import annotations

import math

import numpy as np

from opsbrain.sweeps.finding import LEVEL as LEVEL
from opsbrain.sweeps.finding import SEVERITIES as SEVERITIES
from opsbrain.sweeps.finding import Check as Check
from opsbrain.sweeps.finding import CheckFn as CheckFn
from opsbrain.sweeps.finding import Finding as Finding
from opsbrain.sweeps.finding import json_safe as json_safe
from opsbrain.sweeps.finding import levels as _levels
from opsbrain.sweeps.finding import row_reduce as row_reduce
from opsbrain.sweeps.finding import window_words as _hours
from opsbrain.sweeps.finding import worst as worst
from opsbrain.sweeps.heartbeat import check_heartbeat
from opsbrain.sweeps.npuhealth import check_npu_health, health_scope
from opsbrain.sweeps.optics import (
    check_dom_bias,
    check_dom_rx,
    check_dom_snr,
    check_dom_spread,
    check_dom_tx,
    check_link_light,
)
from opsbrain.sweeps.params import SweepParams
from opsbrain.sweeps.portchecks import check_link_speed, check_npu_count, check_optics_present, check_roce_errors
from opsbrain.sweeps.snapshot import Snapshot


# ---- HBM -------------------------------------------------------------------------------------------------------
def check_hbm_ce(s: Snapshot, p: SweepParams) -> list[Finding]:
    """Correctable-error rate of each HBM stack over the last window: a storm often precedes a UCE."""
    rate = s.hbm_ce * 3600.0 / max(s.windows["hbm_ce"], 1e-9)
    lv = _levels(rate, p.hbm_ce_warn_per_h, p.hbm_ce_alarm_per_h)
    out = []
    for i in np.flatnonzero(lv):
        sev = SEVERITIES[lv[i]]
        out.append(Finding(
            s.hbms[i], "hbm_ce", sev,
            f"{s.hbm_ce[i]:.0f} correctable ECC errors in the last {_hours(s.windows['hbm_ce'])} "
            f"({rate[i]:.0f}/h; warn {p.hbm_ce_warn_per_h:.0f}/h, alarm {p.hbm_ce_alarm_per_h:.0f}/h)",
            "CE storm: an uncorrectable error may follow; save a checkpoint of the jobs on this NPU, isolate the "
            "failing rows and plan to move the work off it" if sev == "Alarm" else
            "elevated correctable-error rate: watch the stack over the next sweeps",
            data={"errors": s.hbm_ce[i], "per_h": rate[i]}))
    return out


def check_hbm_rows(s: Snapshot, p: SweepParams) -> list[Finding]:
    """Isolated-row headroom (16 warn, 64 replace) and, from the recent growth, when 64 will be reached."""
    rows = np.nan_to_num(s.hbm_rows, nan=0.0)
    before = np.nan_to_num(s.hbm_rows_before, nan=0.0)
    span = max(s.windows["hbm_rows"], 1e-9)
    growth = (rows - before) / span
    with np.errstate(divide="ignore", invalid="ignore"):
        eta = np.where((growth > 0) & (rows < p.hbm_rows_replace), (p.hbm_rows_replace - rows) / growth, np.inf)
    lv = np.where(rows >= p.hbm_rows_replace, 3,
                  np.where(eta < p.trend_alarm_horizon_s, 2,
                           np.where((rows >= p.hbm_rows_warn) | (eta < p.trend_warn_horizon_s), 1, 0)))
    out = []
    for i in np.flatnonzero(lv):
        sev = SEVERITIES[lv[i]]
        n, head = int(rows[i]), int(p.hbm_rows_replace - rows[i])
        text = f"{n} isolated HBM rows (warn {p.hbm_rows_warn}, replace at {p.hbm_rows_replace})"
        if sev == "Critical":
            text += ": no headroom left"
            action = "separate the NPU (SeparateNPU), move its work to a spare and replace the part"
        else:
            text += f": headroom {head} rows"
            action = ("rows are running out: move the work off this NPU before the limit and schedule a "
                      "replacement" if sev == "Alarm" else "watch the row count; schedule a replacement window")
        if math.isfinite(eta[i]):
            text += (f"; +{rows[i] - before[i]:.0f} rows in the last {_hours(span)} => "
                     f"{p.hbm_rows_replace} in ~{_hours(eta[i])}")
        out.append(Finding(s.hbms[i], "hbm_rows", sev, text, action,
                           float(eta[i]) if math.isfinite(eta[i]) else None,
                           {"rows": n, "headroom": max(head, 0), "rows_per_h": growth[i] * 3600}))
    return out


def check_hbm_uce(s: Snapshot, p: SweepParams) -> list[Finding]:
    """Uncorrectable (double-bit) ECC errors of each HBM stack: new ones within ``hbm_ue_window_s`` (one: Alarm, the
    job on the NPU fails, MindCluster's RestartBusiness for 0x80E01801; ``hbm_ue_separate``: Critical, its
    ManuallySeparateNPU escalation), else any over the stack's lifetime (Warning)."""
    if s.hbm_ue_total is None:
        return []
    new = s.hbm_ue if s.hbm_ue is not None else np.full(len(s.hbms), np.nan)
    total = np.nan_to_num(s.hbm_ue_total, nan=0.0)
    lv = np.maximum(_levels(new, 1, 1, p.hbm_ue_separate), (total > 0).astype(np.int8))
    span = _hours(s.windows.get("hbm_ue", 0.0))
    out = []
    for i in np.flatnonzero(lv):
        sev = SEVERITIES[lv[i]]
        text = f"{total[i]:.0f} uncorrectable (double-bit) ECC errors over the stack's lifetime"
        if math.isfinite(new[i]):
            text += f", {new[i]:.0f} new in the last {span}"
        else:
            text += " (new ones need an earlier collection)"
        if sev == "Critical":
            text += (f" (>= {p.hbm_ue_separate} in {_hours(p.hbm_ue_window_s)}: MindCluster escalates 0x80E01801 to "
                     "ManuallySeparateNPU)")
            action = "separate the NPU (ManuallySeparateNPU), move its work to a spare and replace the part"
        elif sev == "Alarm":
            text += " (HBM UCE: 0x80E01801, MindCluster level RestartBusiness)"
            action = ("the job on this NPU hits the UCE: re-run it (resumable training restarts from the last "
                      "checkpoint); another UCE within a day separates the NPU")
        else:
            action = "past UCEs on this stack: watch its error counts and isolated rows"
        out.append(Finding(s.hbms[i], "hbm_uce", sev, text, action,
                           data={"errors": total[i], "new_errors": new[i] if math.isfinite(new[i]) else None}))
    return out


# ---- optical links and modules -----------------------------------------------------------------------------
def check_link_downs(s: Snapshot, p: SweepParams) -> list[Finding]:
    """Link-down events per link over the last 24 h (warn 3, alarm 5: MindCluster isolates at 5). On a real source
    without the link's down records, the UP->DOWN changes of its state between readings: a lower bound, said so."""
    lv = np.where(s.link_admin_down, 0, _levels(s.link_downs, p.link_down_warn, p.link_down_alarm))
    out = []
    states = s.link_downs_from_states
    for i in np.flatnonzero(lv):
        sev = SEVERITIES[lv[i]]
        seen = states is not None and bool(states[i])
        text = (f"at least {s.link_downs[i]:.0f} link-down events in the last "
                f"{_hours(s.windows.get('link_down_states', 0.0))} (a lower bound: its link state seen going from UP "
                "to DOWN between two readings; a down and up again between two readings is not seen, and a missing "
                "or unread state is neither UP nor DOWN)" if seen else
                f"{s.link_downs[i]:.0f} link-down events in the last {_hours(s.windows['link_down'])}")
        out.append(Finding(
            s.links[i], "link_downs", sev,
            f"{text} (warn {p.link_down_warn}, alarm {p.link_down_alarm})",
            "a flapping link: isolate it and re-route, then clean or replace the optics" if sev == "Alarm" else
            "the link flaps: inspect and clean the fibre end-faces",
            data={"downs": int(s.link_downs[i]), **({"lower_bound": True} if seen else {})}))
    return out


def check_link_crc(s: Snapshot, p: SweepParams) -> list[Finding]:
    """Post-FEC CRC errors per link over the last window (on a real source also an NPU's RoCE FCS and HCCS CRC
    errors, ``Snapshot.link_crc_what``, with the rate over the last collection interval)."""
    lv = np.where(s.link_admin_down, 0, _levels(s.link_crc, p.crc_warn_errors, p.crc_alarm_errors))
    out = []
    for i in np.flatnonzero(lv):
        sev = SEVERITIES[lv[i]]
        what = (s.link_crc_what[i] if s.link_crc_what is not None else "") or "CRC errors"
        rate = s.link_crc_rate_per_s[i] if s.link_crc_rate_per_s is not None else math.nan
        now = f", {rate:.3g}/s over the last collection interval" if what != "CRC errors" and rate == rate else ""
        out.append(Finding(
            s.links[i], "link_crc", sev,
            f"{s.link_crc[i]:.0f} {what} in the last {_hours(s.windows['crc'])}{now} "
            f"(warn {p.crc_warn_errors:.0f}, alarm {p.crc_alarm_errors:.0f})",
            f"frames are being lost: drain and re-route the link, then inspect {_part(s.links[i])}" if sev == "Alarm"
            else f"watch the link's error counters; inspect {_part(s.links[i])} if it repeats",
            data={"errors": s.link_crc[i], **({"per_s": float(rate)} if rate == rate else {}),
                  **({"counter": what} if what != "CRC errors" else {})}))
    return out


def _part(link: str) -> str:
    """What to inspect on a link with CRC errors: the optics, but not on an NPU's die-to-die SIO link (inside its
    package, npu-exporter ``collector_for_sio.go``) or an electrical HCCS link (session 36: both said optics)."""
    end = link.rpartition("/")[2]
    return ("the NPU (its die-to-die link is inside the package: no cable or optics)" if end == "sio" else
            "the NPU's board connection (an electrical HCCS link: no optics)" if end.startswith("hccs") else
            "the optics")


def check_link_fec(s: Snapshot, p: SweepParams) -> list[Finding]:
    """Pre-FEC bit error ratio per link (corrected errors per second / line rate) over the last window."""
    ber = s.link_fec_per_s / s.line_bps if s.line_bps > 0 else np.zeros(len(s.links))
    lv = np.where(s.link_admin_down, 0, _levels(ber, p.fec_ber_warn, p.fec_ber_alarm))
    out = []
    for i in np.flatnonzero(lv):
        sev = SEVERITIES[lv[i]]
        out.append(Finding(
            s.links[i], "link_fec", sev,
            f"pre-FEC bit error ratio {ber[i]:.1e} ({s.link_fec_per_s[i]:.3g} corrected errors/s over the last "
            f"{_hours(s.windows['fec'])}; warn {p.fec_ber_warn:.0e}, alarm {p.fec_ber_alarm:.0e})",
            "the FEC margin is nearly used up: drain and re-route the link, then replace the optics"
            if sev == "Alarm" else "the link's signal is degrading: check its DOM readings and schedule cleaning",
            data={"pre_fec_ber": ber[i]}))
    return out


# ---- NPUs ----------------------------------------------------------------------------------------------------
def _temp_check(ids: tuple[str, ...], temp: np.ndarray, check: str, what: str, levels: tuple[float, float, float]
                ) -> list[Finding]:
    lv = _levels(temp, *levels)
    actions = {1: f"{what} runs hot: check the cooling of the chassis",
               2: f"{what} is over its alarm temperature: the chip throttles; move latency-critical work off it "
                  "and fix the cooling",
               3: f"{what} is at its fatal limit: separate the NPU and move its work to a spare"}
    return [Finding(ids[i], check, SEVERITIES[lv[i]],
                    f"{what} temperature {temp[i]:.1f} C (warn {levels[0]:.0f} C, alarm {levels[1]:.0f} C, "
                    f"critical {levels[2]:.0f} C)", actions[int(lv[i])], data={"temp_c": temp[i]})
            for i in np.flatnonzero(lv)]


def check_npu_temp(s: Snapshot, p: SweepParams) -> list[Finding]:
    """SoC temperature of each NPU."""
    return _temp_check(s.npus, s.npu_temp_c, "npu_temp", "NPU",
                       (p.npu_temp_warn_c, p.npu_temp_alarm_c, p.npu_temp_critical_c))


def check_hbm_temp(s: Snapshot, p: SweepParams) -> list[Finding]:
    """Temperature of each HBM stack (alarm 0x80E00209 at 95 C, fatal 0x80E0020B at 105 C)."""
    return _temp_check(s.hbms, s.hbm_temp_c, "hbm_temp", "HBM",
                       (p.hbm_temp_warn_c, p.hbm_temp_alarm_c, p.hbm_temp_critical_c))


def check_stragglers(s: Snapshot, p: SweepParams) -> list[Finding]:
    """Ranks whose step time exceeds the job's healthy step time (a synchronous job runs at its slowest rank)."""
    out = []
    for job in s.jobs:
        if job.stalled or job.step_time_s <= 0 or not len(job.ranks):
            continue
        ref = job.baseline_step_s
        if not math.isfinite(ref):
            ref = float(np.nanmedian(job.rank_step_s)) if np.isfinite(job.rank_step_s).any() else math.nan
        if not math.isfinite(ref) or ref <= 0:
            continue
        ratio = job.rank_step_s / ref
        lv = _levels(ratio, p.straggler_warn_ratio, p.straggler_alarm_ratio)
        for i in np.flatnonzero(lv):
            sev = SEVERITIES[lv[i]]
            out.append(Finding(
                job.ranks[i], "straggler", sev,
                f"rank step time {job.rank_step_s[i]:.2f} s is {ratio[i]:.2f}x the healthy {ref:.2f} s of job "
                f"{job.name} (warn {p.straggler_warn_ratio:.2f}x, alarm {p.straggler_alarm_ratio:.2f}x); the job "
                f"steps at {job.step_time_s:.2f} s",
                "a slow rank holds the whole job back: check the NPU's temperature and clocks; move the rank to a "
                "spare if it stays slow" if sev == "Alarm" else "watch the rank's step time",
                data={"job": job.name, "rank_step_s": job.rank_step_s[i], "ratio": ratio[i]}))
    return out


def check_spares(s: Snapshot, p: SweepParams) -> list[Finding]:
    """Usable warm spare nodes per pod (a warning below ``spare_min_nodes``)."""
    if p.spare_min_nodes <= 0:
        return []
    out = []
    for pod in s.pods:
        mine = [i for i, n in enumerate(s.spares) if n.startswith(pod + "/")]
        usable = int(sum(bool(s.spare_usable[i]) for i in mine))
        if usable < p.spare_min_nodes:
            out.append(Finding(
                pod, "spares", "Warning",
                f"{usable} usable spare nodes ({len(mine)} in the pool, {len(mine) - usable} without heartbeat; "
                f"want >= {p.spare_min_nodes})",
                "replenish the spare pool: return repaired nodes or cordon a node as a warm spare",
                data={"usable": usable, "pool": len(mine)}))
    return out


CHECKS: tuple[Check, ...] = (
    Check("hbm_ce", check_hbm_ce, lambda s: len(s.hbms)),
    Check("hbm_uce", check_hbm_uce, lambda s: len(s.hbms) if s.hbm_ue_total is not None else 0),
    Check("hbm_rows", check_hbm_rows, lambda s: len(s.hbms)),
    Check("link_light", check_link_light, lambda s: len(s.links)),
    Check("dom_rx", check_dom_rx, lambda s: len(s.modules)),
    Check("dom_tx", check_dom_tx, lambda s: len(s.modules)),
    Check("dom_bias", check_dom_bias, lambda s: len(s.modules)),
    Check("dom_snr", check_dom_snr, lambda s: len(s.modules)),
    Check("dom_spread", check_dom_spread, lambda s: len(s.modules)),
    Check("link_downs", check_link_downs, lambda s: len(s.links)),
    Check("link_crc", check_link_crc, lambda s: len(s.links)),
    Check("link_fec", check_link_fec, lambda s: len(s.links)),
    Check("heartbeat", check_heartbeat, lambda s: len(s.npus) + len(s.node_sample_age_s or ())),
    Check("npu_temp", check_npu_temp, lambda s: len(s.npus)),
    Check("npu_health", check_npu_health, health_scope),
    Check("hbm_temp", check_hbm_temp, lambda s: len(s.hbms)),
    Check("straggler", check_stragglers, lambda s: sum(len(j.ranks) for j in s.jobs)),
    Check("spares", check_spares, lambda s: len(s.pods)),
    Check("npu_count", check_npu_count, lambda s: len(s.ports.nodes) if s.ports else 0),
    Check("roce_errors", check_roce_errors, lambda s: len(s.ports.ports) if s.ports else 0),
    Check("link_speed", check_link_speed, lambda s: len(s.ports.speed_links) if s.ports else 0),
    Check("optics_present", check_optics_present, lambda s: len(s.ports.modules) if s.ports else 0),
)
"""The static checks, in report order (the trend check lives in :mod:`opsbrain.sweeps.predict`)."""
