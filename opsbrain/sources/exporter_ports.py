"""npu-exporter series read since session 35 beside the chip's own (:mod:`opsbrain.sources.exporter` parses the page and
hands each of these samples here): the node's NPU count, the RoCE port's packet error and retry counters, a port's
link speed and the RoCE port's optical module presence (and the SIO CRC counter's name, which the CRC path reads).
Names, labels and units are npu-exporter's
(Ascend/mind-cluster ``component/npu-exporter/collector/metrics/``: collector_for_npu.go ``machine_npu_nums``,
collector_for_roce.go, collector_for_network.go / _legacy.go, collector_for_optical.go); what each feeds is in
:data:`opsbrain.sources.exporter_metrics.METRIC_TABLE`."""

from __future__ import annotations

import re

from opsbrain.sources.readings import Readings

NPU_COUNT = "machine_npu_nums"
"""The NPUs the node's exporter lists: ``len(chips)`` of the chip list it re-reads from DCMI (``GetDeviceList``) on
its card-info ticker (collector_for_npu.go, common/npu_collector.go ``getNPUChipList``). No ``id`` label: one per node
(its ``instance`` or node label names the node; on a page without either, the page's host, as every series; a series
naming no host at all, as a query API's without ``instance``, is noted and not used: session 35). An NPU that left
the PCIe bus is no longer listed."""

HEALTH_COUNTS = {"machine_unhealthy_npu_nums": "npu_unhealthy", "machine_unknown_npu_nums": "npu_unknown"}
"""The node's health summary (session 42): the NPUs of its chip list whose cached DCMI health is unhealthy, and those
whose health it could not read (or has not read yet); with ``machine_healthy_npu_nums`` they add up to
``machine_npu_nums`` (collector_for_npu.go ``countHealthStatus``, ``machineUnhealthyDesc`` / ``machineUnknownDesc``;
added 2026-08, commit b6b4a760; no time stamp, one per node). ``machine_healthy_npu_nums`` is not read: the other
two and the NPU count say it. Kept in ``Readings.node_npu_unhealthy`` / ``node_npu_unknown``."""

PORT_COUNTERS = {
    "npu_chip_roce_new_pkt_rty_num": "retries",
    "npu_chip_roce_out_of_order_num": "out_of_order",
    "npu_chip_roce_rx_err_pkt_num": "rx_err",
    "npu_chip_roce_verification_err_num": "verify_err",
    "npu_chip_mac_rx_bad_pkt_num": "mac_rx_bad",
}
"""The NPU's RoCE port counters read (``hccn_tool -i N -stat -g``'s ``roce_new_pkt_rty_num``, ``roce_out_of_order_num``,
``roce_rx_err_pkt_num``, ``roce_verification_err_num``, ``mac_rx_bad_pkt_num``; collector_for_roce.go, label ``id``;
packets, counters since the device's last reset): key -> the short name ``Readings.port_counters`` keeps them under
(damaged packets or retries: :data:`opsbrain.sweeps.portchecks.BAD`, :data:`~opsbrain.sweeps.portchecks.RETRY`)."""

SPEED_ROCE = "npu_chip_link_speed"
"""The RoCE port's speed (``hccn_tool -i N -speed -g``; collector_for_network.go, label ``id``; its HELP says Mb/s,
the metrics reference MB/s, and its Telegraf example shows 104857600000 for a 100G port: only compared with the same
port's and its node's other ports' readings, never with a figure of ours)."""
SPEED_UB = "npu_chip_info_link_speed"
"""A UB port's speed in G (collector_for_network.go, labels ``id``, ``udie``, ``port``)."""
_RE_SPEED_NAMED = re.compile(r"^npu_chip_info_link_speed_(\d+)_(\d+)$")
"""The same under ``-enableLegacyMetrics``: udie X and port Y in the name (collector_for_network_legacy.go)."""
OPTICAL_STATE = "npu_chip_optical_state"
"""The RoCE port's optical module: 1 present, 0 not present (``hccn_tool -i N -optical -g``'s ``present`` line;
collector_for_optical.go ``getMainOptInfo``; -1 unreadable, which the exporter leaves out)."""

SIO_RX_CRC = "npu_chip_info_sio_crc_rx_err_cnt"
"""Packets the NPU's SIO (the die-to-die link of an Atlas A3 NPU's two dies) received with a CRC error
(collector_for_sio.go, label ``id``; A3 and A5 only): a counter read as the CRC errors of ``<node>/npu<id>/sio``
(session 35). Its ``..._tx_err_cnt`` (errors in what the die sent) is not read: receive errors are the link's evidence,
as for the FCS and HCCS counters."""


def kind(name: str) -> tuple[str, str, int, bool] | None:
    """The exporter parser's kind of one of these metrics (``("ports", what, 0, False)``; a legacy name holding its
    port ``("ports:<udie>:<port>", ...)``), None for any other."""
    if name == NPU_COUNT:
        return "ports", "npu_count", 0, False
    if name in HEALTH_COUNTS:
        return "ports", HEALTH_COUNTS[name], 0, False
    if name in PORT_COUNTERS:
        return "ports", PORT_COUNTERS[name], 0, False
    if name == SPEED_ROCE:
        return "ports", "speed", 0, False
    if name == SPEED_UB:
        return "ports", "speed_ub", 0, False
    if m := _RE_SPEED_NAMED.match(name):
        return f"ports:{m.group(1)}:{m.group(2)}", "speed_ub", 0, False
    if name == OPTICAL_STATE:
        return "ports", "optical_state", 0, False
    return None


def take(r: Readings, what: str, npu: str, link: str, module: str, value: float) -> str:
    """Keep one sample (the exporter parser has dropped NaN, -1 and repeated series) in ``r``; the reason it is not
    used, or ''. ``npu``, ``link``, ``module``: the series' NPU, port and module ids as the parser names them."""
    if what in ("npu_count", "npu_unhealthy", "npu_unknown"):
        name = NPU_COUNT if what == "npu_count" else f"machine_{what[4:]}_npu_nums"
        if value != int(value) or value < 0:
            return f"{name} not a count"
        if not (node := npu.rpartition("/npu")[0]):  # no node label, instance or page host: a count of no node
            return f"{name} names no host (no node or instance label, no page host)"  # (before: node "")
        {"npu_count": r.node_npu_count, "npu_unhealthy": r.node_npu_unhealthy,
         "npu_unknown": r.node_npu_unknown}[what][node] = value
    elif what in ("speed", "speed_ub"):
        if value < 0:
            return "link speed below 0"
        if what == "speed_ub" and "/udie" not in link:  # else read as the RoCE port's, in another unit (session 35's
            return f"{SPEED_UB} names no udie and port"  # review: a degraded-speed Warning at every sweep)
        r.link_speed[link] = value
    elif what == "optical_state":
        if value not in (0.0, 1.0):
            return f"{OPTICAL_STATE} not 0 or 1"
        r.optics_present[module] = value == 1.0
    else:
        if value < 0:
            return "a packet counter below 0"
        r.port_counters.setdefault(what, {})[link] = value
    return ""
