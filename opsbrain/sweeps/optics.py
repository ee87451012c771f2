"""The optics' health checks (split out of :mod:`opsbrain.sweeps.checks` in session 43): lanes without light, and
each module's DOM readings (Rx / Tx power, bias current, SNR, the spread of Rx power between lanes) against the
thresholds of :class:`~opsbrain.sweeps.params.SweepParams`; a DOM lane threshold must hold on the last
``dom_confirm_reads`` collections. Pure functions ``check_x(snapshot, params) -> list[Finding]``, vectorised over a
whole pod, as every check."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from opsbrain.sweeps.finding import SEVERITIES, Finding, row_reduce
from opsbrain.sweeps.finding import dark as _dark
from opsbrain.sweeps.finding import fmt as _fmt
from opsbrain.sweeps.finding import levels as _levels
from opsbrain.sweeps.finding import low_levels as _low_levels
from opsbrain.sweeps.hostlinks import unread_host_findings
from opsbrain.sweeps.params import SweepParams
from opsbrain.sweeps.snapshot import Snapshot


def check_link_light(s: Snapshot, p: SweepParams) -> list[Finding]:
    """Lanes without light on a link the operator did not take down: all lanes = link down, some = sub-healthy.
    A module with no reading (its host's exporter down, or not collected) is left out: a link whose modules read
    are all dark is down, not "4 of 4 lanes" sub-healthy; several such links with their unread end on one host are
    one finding on the host (:mod:`opsbrain.sweeps.hostlinks`; session 35)."""
    dark, _ = _dark(s, p)
    nl = len(s.links)
    lanes = dark.shape[1]
    read = ~row_reduce(np.logical_and, np.isnan(s.dom["rx_dbm"])) if len(dark) else np.zeros(0, dtype=bool)
    mods = np.bincount(s.module_link, weights=read, minlength=nl)
    unread = np.bincount(s.module_link, weights=~read, minlength=nl) > 0
    any_dark = row_reduce(np.logical_or, dark)
    lost = np.zeros(nl, dtype=np.int64)
    mods_dark: np.ndarray = np.zeros(nl)
    if any_dark.any():
        rows = np.flatnonzero(any_dark)
        mods_dark = np.bincount(s.module_link[rows], weights=dark[rows].all(axis=1), minlength=nl)
        np.maximum.at(lost, s.module_link[rows], dark[rows].sum(axis=1))
    down = (mods > 0) & (mods_dark == mods)
    bad = ~s.link_admin_down & (lost > 0)
    out = []
    oper = s.link_oper_down if s.link_oper_down is not None else np.zeros(nl, dtype=bool)
    if s.link_oper_down is not None:  # the port says it is down, whatever light its module reads (or none)
        for i in np.flatnonzero(oper & ~s.link_admin_down & ~(bad & down)):
            out.append(Finding(
                s.links[i], "link_light", "Critical", "link down: the port reports its link status DOWN "
                "(hccn_tool -link -g; npu-exporter npu_chip_info_link_status 0)", "re-route the traffic of the "
                "link's node around it (HCCL retries the interrupted operator), then check the port, cable and "
                "optics", data={"oper_down": True}))
    if s.link_net_unhealthy is not None:  # up (or not read), yet its network health check fails: a down link says more
        for i in np.flatnonzero(s.link_net_unhealthy & ~oper & ~s.link_admin_down & ~(bad & down)):
            out.append(Finding(
                s.links[i], "link_light", "Alarm", "network unreachable: the NPU's network health check fails "
                "(hccn_tool -net_health -g other than Success; npu-exporter npu_chip_info_network_status 0)",
                "collective operations over this port will time out: drain and re-route the node's traffic, then "
                "check the port's IP and detection-IP configuration (hccn_tool -ip -g, -netdetect -g), the switch "
                "port and the peer", data={"net_unhealthy": True}))
    grouped, covered = unread_host_findings(s, np.flatnonzero(bad & down & unread), read, lanes)
    out.extend(grouped)
    for i in np.flatnonzero(bad & ~covered):
        if down[i]:
            out.append(Finding(
                s.links[i], "link_light", "Critical",
                "link down: no light on any lane at the end read; the other end has no reading (its exporter does "
                "not answer)" if unread[i] else "link down: no light on any lane at either end (loss of signal)",
                "re-route the traffic of the link's node around it (HCCL retries the interrupted operator), then "
                "clean or replace the optics", data={"lanes_dark": lanes}))
        else:
            out.append(Finding(
                s.links[i], "link_light", "Alarm",
                f"{lost[i]} of {lanes} lanes without light (port sub-healthy, partial lane failure 0x81078605)",
                "the link runs on fewer lanes: drain and re-route it before the rest fail, then replace the module",
                data={"lanes_dark": int(lost[i])}))
    return out


def _lane_text(values: np.ndarray, unit: str, nd: int = 2) -> str:
    return "/".join(_fmt(v, nd) for v in values) + f" {unit} on lanes 0-{len(values) - 1}"


def _dom_findings(s: Snapshot, p: SweepParams, check: str, key: str, unit: str, lv: np.ndarray, what: str,
                  limits: Callable[[float, int], str], actions: dict[int, str]) -> list[Finding]:
    """One finding per module whose worst lane level is > 0 (lv: (modules, lanes) 0..2)."""
    worst_lane = row_reduce(np.maximum, lv)
    vals = s.dom[key]
    out = []
    for r in np.flatnonzero(worst_lane):
        lane = int(np.argmax(lv[r]))
        v = float(vals[r, lane])
        out.append(Finding(
            s.modules[r], check, SEVERITIES[worst_lane[r]],
            f"{what} {_fmt(v, 2)} {unit} on lane {lane} {limits(v, int(worst_lane[r]))} "
            f"({_lane_text(vals[r], unit)}; link {s.links[s.module_link[r]]})",
            actions[int(worst_lane[r])],
            data={"lane": lane, "value": v, "link": s.links[s.module_link[r]]}))
    return out


_OPTICS_ACTIONS = {1: "watch the module; clean the fibre end-faces at the next maintenance window",
                   2: "drain and re-route the link, then clean the connectors or replace the module"}


def _power_check(s: Snapshot, p: SweepParams, key: str, check: str, what: str, warn: float, alarm: float
                 ) -> list[Finding]:
    dark, admin = _dark(s, p)
    skip = dark | admin[:, None] | (s.dom[key] < p.los_below_dbm)
    low = _low_levels(s.dom_hi[key], warn, alarm)
    high = _levels(s.dom_lo[key], p.power_high_warn_dbm, p.power_high_alarm_dbm)
    lv = np.where(skip, 0, np.maximum(low, high)).astype(np.int8)

    def limits(x: float, level: int) -> str:
        if x > p.power_high_warn_dbm:
            return f"above the {_fmt((p.power_high_warn_dbm, p.power_high_alarm_dbm)[level - 1])} dBm " \
                   f"{('warn', 'alarm')[level - 1]} threshold"
        return f"below the {_fmt((warn, alarm)[level - 1])} dBm {('warn', 'alarm')[level - 1]} threshold"

    return _dom_findings(s, p, check, key, "dBm", lv, what, limits, _OPTICS_ACTIONS)


def check_dom_rx(s: Snapshot, p: SweepParams) -> list[Finding]:
    """Rx power per lane against MindCluster's low (warn -6.5, alarm -10 dBm) and high thresholds."""
    return _power_check(s, p, "rx_dbm", "dom_rx", "Rx power", p.rx_warn_dbm, p.rx_alarm_dbm)


def check_dom_tx(s: Snapshot, p: SweepParams) -> list[Finding]:
    """Tx power per lane against MindCluster's low (warn -7, alarm -9.6 dBm) and high thresholds."""
    return _power_check(s, p, "tx_dbm", "dom_tx", "Tx power", p.tx_warn_dbm, p.tx_alarm_dbm)


def check_dom_bias(s: Snapshot, p: SweepParams) -> list[Finding]:
    """Tx bias current per lane outside the healthy 6-10 mA window (a warning: the laser is ageing)."""
    dark, admin = _dark(s, p)
    lit_tx = s.dom["tx_dbm"] >= p.los_below_dbm
    out_of_window = (s.dom_hi["bias_ma"] < p.bias_low_ma) | (s.dom_lo["bias_ma"] > p.bias_high_ma)
    lv = (out_of_window & lit_tx & ~admin[:, None]).astype(np.int8)

    def limits(x: float, level: int) -> str:
        return f"outside the {_fmt(p.bias_low_ma)}-{_fmt(p.bias_high_ma)} mA window"

    return _dom_findings(s, p, "dom_bias", "bias_ma", "mA", lv, "Tx bias", limits,
                         {1: "the laser is ageing or its driver drifts: schedule a module replacement"})


def check_dom_snr(s: Snapshot, p: SweepParams) -> list[Finding]:
    """Lane SNR against MindCluster's thresholds (warn < 20 dB, alarm < 18 dB)."""
    dark, admin = _dark(s, p)
    lv = np.where(dark | admin[:, None], 0, _low_levels(s.dom_hi["snr_db"], p.snr_warn_db, p.snr_alarm_db))

    def limits(x: float, level: int) -> str:
        return f"below the {_fmt((p.snr_warn_db, p.snr_alarm_db)[level - 1])} dB {('warn', 'alarm')[level - 1]} " \
               "threshold"

    return _dom_findings(s, p, "dom_snr", "snr_db", "dB", lv.astype(np.int8), "SNR", limits, _OPTICS_ACTIONS)


def check_dom_spread(s: Snapshot, p: SweepParams) -> list[Finding]:
    """Lane-to-lane Rx power difference among lit lanes (alarm above 3 dB): one lane's optics are failing."""
    dark, admin = _dark(s, p)
    rx = s.dom["rx_dbm"]
    spread = row_reduce(np.maximum, rx) - row_reduce(np.minimum, rx)
    odd = np.flatnonzero(row_reduce(np.logical_or, dark) | admin)  # few rows: lanes without light are left out there
    if len(odd):
        lit = ~dark[odd] & ~admin[odd, None]
        hi = np.max(rx[odd], axis=1, where=lit, initial=-np.inf)
        lo = np.min(rx[odd], axis=1, where=lit, initial=np.inf)
        spread[odd] = np.where(lit.sum(axis=1) >= 2, hi - lo, 0.0)
    out = []
    for r in np.flatnonzero(spread > p.lane_spread_alarm_db):
        out.append(Finding(
            s.modules[r], "dom_spread", "Alarm",
            f"Rx power differs by {_fmt(spread[r], 2)} dB between lanes (alarm above "
            f"{_fmt(p.lane_spread_alarm_db)} dB; {_lane_text(rx[r], 'dBm')}; link {s.links[s.module_link[r]]})",
            _OPTICS_ACTIONS[2], data={"spread_db": spread[r], "link": s.links[s.module_link[r]]}))
    return out
