"""npu-exporter's metrics and what each feeds (:data:`METRIC_TABLE`, printed in docs/real-cluster.md), and the
checks an exporter page covers (:data:`COVERS`). Read by :mod:`opsbrain.sources.exporter` and, for its query
selector, :mod:`opsbrain.sources.promapi`."""

from __future__ import annotations

from typing import NamedTuple

SRC_GO = "Ascend/mind-cluster component/npu-exporter/collector/metrics/"
DOC_METRICS = "Ascend/mind-cluster docs/en/scheduling/api/npu_exporter/01_prometheus_metrics_api.md"


class MetricRow(NamedTuple):
    metric: str
    labels: str
    unit: str
    feeds: str
    check: str
    source: str


METRIC_TABLE: tuple[MetricRow, ...] = (
    MetricRow("npu_chip_info_temperature", "id", "degC", "NPU temperature", "npu_temp",
              SRC_GO + "collector_for_npu.go"),
    MetricRow("npu_chip_info_hbm_temperature", "id", "degC", "HBM temperature", "hbm_temp",
              SRC_GO + "collector_for_hbm.go"),
    MetricRow("npu_chip_info_health_status", "id", "1 healthy, 0 unhealthy, -1 not read",
              "the device's own health (0: Alarm)", "npu_health",
              "Ascend/mind-cluster docs 06_api/00_npu_exporter/01_prometheus_metrics_api.md"),
    MetricRow("npu_chip_info_error_code", "id", "a 32-bit device fault event id as a decimal (0: none)",
              "the device's first fault code, read as hex (2162169857: 0x80E01801) with the knowledge base's cause, "
              "class and MindCluster level (knowledge_base/codes.yaml device_event_codes); a level asking for no "
              "action, or a code it does not document, a Warning, any other level an Alarm", "npu_health",
              SRC_GO + "collector_for_npu.go (GetDeviceAllErrorCode); " + DOC_METRICS),
    MetricRow("npu_chip_info_error_code_1..9", "id", "as above", "the device's further fault codes (up to ten in "
              "all)", "npu_health", SRC_GO + "collector_for_npu.go; " + DOC_METRICS),
    MetricRow("npu_chip_info_hbm_ecc_total_single_bit_error_cnt", "id", "errors (counter)",
              "correctable ECC errors: increase over the window", "hbm_ce", SRC_GO + "collector_for_hbm.go"),
    MetricRow("npu_chip_info_hbm_ecc_total_double_bit_error_cnt", "id", "errors (counter)",
              "uncorrectable ECC errors over the stack's lifetime (HBM UCE evidence): any, Warning; a new one within "
              "24 h, Alarm; 2 new within 24 h, Critical (SweepParams.hbm_ue_window_s, hbm_ue_separate)", "hbm_uce",
              SRC_GO + "collector_for_hbm.go (TotalDoubleBitErrorCnt); " + DOC_METRICS),
    MetricRow("npu_chip_info_hbm_ecc_enable_flag", "id", "1 on, 0 off", "whether the chip's HBM ECC detection is "
              "on: off, its ECC error counters (which then count nothing) are not read, and said (session 42; "
              "before, their zeros passed as no errors)", "hbm_ce, hbm_uce",
              SRC_GO + "collector_for_hbm.go (descEccEnableFlag, updateHbmEccInfo)"),
    MetricRow("npu_chip_info_hbm_ecc_single_bit_isolated_pages_cnt", "id", "pages",
              "isolated HBM pages (summed with the double-bit ones) as isolated rows", "hbm_rows",
              SRC_GO + "collector_for_hbm.go"),
    MetricRow("npu_chip_info_hbm_ecc_double_bit_isolated_pages_cnt", "id", "pages", "as above", "hbm_rows",
              SRC_GO + "collector_for_hbm.go"),
    MetricRow("npu_chip_info_optical_rx_power_0..3", "id, udie, port", "dBm (hccn_tool 'RxPower LaneN(dBm)')",
              "Rx power per lane (UB port); lanes below the LOS level are dark", "dom_rx, dom_spread, dom_trend, "
              "link_light", SRC_GO + "collector_for_optical.go"),
    MetricRow("npu_chip_info_optical_tx_power_0..3", "id, udie, port", "dBm", "Tx power per lane (UB port)", "dom_tx",
              SRC_GO + "collector_for_optical.go"),
    MetricRow("npu_chip_info_optical_rx_power_Z_X_Y", "id", "dBm", "as above, under -enableLegacyMetrics: lane Z, "
              "udie X, port Y in the name", "dom_rx, dom_spread, dom_trend, link_light",
              SRC_GO + "collector_for_ub_legacy.go"),
    MetricRow("npu_chip_info_optical_tx_power_Z_X_Y", "id", "dBm", "as above (Tx)", "dom_tx",
              SRC_GO + "collector_for_ub_legacy.go"),
    MetricRow("npu_chip_optical_rx_power_0..3", "id", "mW (hccn_tool -optical 'Rx PowerN', Telegraf example "
              "0.7933)", "Rx power per lane (RoCE port), converted to dBm", "dom_rx, dom_spread, dom_trend, "
              "link_light", SRC_GO + "collector_for_optical_legacy.go"),
    MetricRow("npu_chip_optical_tx_power_0..3", "id", "mW", "Tx power per lane (RoCE port), to dBm", "dom_tx",
              SRC_GO + "collector_for_optical_legacy.go"),
    MetricRow("npu_chip_info_crc_error_sum", "id, udie, port", "errors (counter)", "CRC errors: increase over the "
              "window; without udie/port labels the NPU's UB CRC errors, port unknown (<node>/npu<id>/ub; session "
              "35, before read as the RoCE port's FCS)", "link_crc", SRC_GO + "collector_for_ub.go"),
    MetricRow("npu_chip_info_crc_error_sum_X_Y", "id", "errors (counter)", "as above, under -enableLegacyMetrics: "
              "udie X, port Y in the name (session 35)", "link_crc",
              SRC_GO + "collector_for_ub_legacy.go; " + DOC_METRICS + " (UB data)"),
    MetricRow("npu_chip_info_rx_fcs_num", "id", "frames (counter)",
              "the NPU's RoCE port: frames received with a bad FCS (the Ethernet frame's CRC-32; hccn_tool -i N -stat "
              "-g's mac_rx_fcs_err_pkt_num), read as link CRC errors: increase over the window, a decrease a reset",
              "link_crc", SRC_GO + "collector_for_roce.go (descRxFCSNum); " + DOC_METRICS + " (RoCE data, "
              "npu_chip_info_rx_fcs_num)"),
    MetricRow("npu_chip_info_hccs_statistic_info_crc_err_cnt_1..7", "id", "flits (counter; -1 not read)",
              "HCCS link X of the NPU (X 1..7; 2..7 on Atlas 9000 A3 SuperPoD): flits received with a CRC error, "
              "read as link CRC errors: increase over the window, a decrease a reset", "link_crc",
              SRC_GO + "collector_for_hccs.go (hccsErrDescs); " + DOC_METRICS + " (HCCS data, "
              "npu_chip_info_hccs_statistic_info_crc_err_cnt_X)"),
    MetricRow("npu_chip_info_link_status", "id (udie, port on UB ports)", "1 UP, 0 DOWN, -1 not read",
              "the port's link status, read by hccn_tool -i N -link -g (0: link down, as that command's DOWN); its "
              "UP->DOWN changes between kept collections, or (prometheus-api) between the samples the server kept in "
              "24 h, are counted as link-down events (a lower bound: a flap between two readings is not seen; a "
              "missing or -1 reading is neither UP nor DOWN)", "link_light, link_downs",
              SRC_GO + "collector_for_network.go (hccn.GetNPULinkStatus); values: " + DOC_METRICS),
    MetricRow("npu_chip_info_link_status_X_Y", "id", "as above", "as above, under -enableLegacyMetrics: udie X, port "
              "Y in the name", "link_light, link_downs", SRC_GO + "collector_for_network_legacy.go; " + DOC_METRICS),
    MetricRow("npu_chip_info_network_status", "id", "1 healthy, 0 unhealthy, -1 not read",
              "the NPU's network health (hccn_tool -net_health -g's answer; 0: network unreachable, Alarm)",
              "link_light", SRC_GO + "collector_for_npu.go (GetDeviceNetWorkHealth: Init, Success healthy); values: "
              + DOC_METRICS),
    MetricRow("machine_npu_nums", "(none: the node's instance)", "NPUs",
              "the NPUs the node's exporter lists (its DCMI device list, re-read on a ticker; session 35): fewer than "
              "in an earlier kept collection, an NPU gone from the node (Critical); fewer NPUs with series than it "
              "lists, unread NPUs (Warning)", "npu_count", SRC_GO + "collector_for_npu.go (machineInfoNPUDesc, "
              "len(chips)); collector/common/npu_collector.go (getNPUChipList); " + DOC_METRICS),
    MetricRow("machine_unhealthy_npu_nums", "(none: the node's instance)", "NPUs",
              "the NPUs of the node's chip list whose DCMI health is unhealthy (session 42): more than its NPUs' own "
              "series show at fault (health 0 or a fault code), an unhealthy NPU no per-device reading explains "
              "(Alarm, on the node)", "npu_count", SRC_GO + "collector_for_npu.go (machineUnhealthyDesc, "
              "countHealthStatus); " + DOC_METRICS),
    MetricRow("machine_unknown_npu_nums", "(none: the node's instance)", "NPUs",
              "the NPUs whose health the exporter could not read, or has not read yet (session 42): any, Warning",
              "npu_count", SRC_GO + "collector_for_npu.go (machineUnknownDesc, countHealthStatus); " + DOC_METRICS),
    MetricRow("npu_chip_roce_rx_err_pkt_num", "id", "packets (counter)", "RoCE packets received in error: "
              "increase over the CRC window, the largest of the three damaged-packet counters against the CRC "
              "thresholds (session 35)", "roce_errors", SRC_GO + "collector_for_roce.go; " + DOC_METRICS),
    MetricRow("npu_chip_roce_verification_err_num", "id", "packets (counter)", "RoCE packets failing field "
              "verification (ICRC, length, destination port): as above", "roce_errors",
              SRC_GO + "collector_for_roce.go; " + DOC_METRICS),
    MetricRow("npu_chip_mac_rx_bad_pkt_num", "id", "packets (counter)", "bad packets received at the MAC: as above",
              "roce_errors", SRC_GO + "collector_for_roce.go; " + DOC_METRICS),
    MetricRow("npu_chip_roce_new_pkt_rty_num", "id", "packets (counter)", "RoCE retransmissions: increase over the "
              "CRC window, the larger of it and out-of-order packets over crc_warn_errors a Warning (session 35)",
              "roce_errors", SRC_GO + "collector_for_roce.go; " + DOC_METRICS),
    MetricRow("npu_chip_roce_out_of_order_num", "id", "packets (counter)", "RoCE packets with a PSN above the "
              "expected or repeated (loss makes the sender retry): as above", "roce_errors",
              SRC_GO + "collector_for_roce.go; " + DOC_METRICS),
    MetricRow("npu_chip_info_sio_crc_rx_err_cnt", "id", "packets (counter)", "packets the NPU's die-to-die SIO link "
              "received with a CRC error (<node>/npu<id>/sio; A3, A5): link CRC errors, increase over the window "
              "(session 35)", "link_crc", SRC_GO + "collector_for_sio.go; " + DOC_METRICS),
    MetricRow("npu_chip_link_speed", "id", "the port's speed (HELP Mb/s, reference MB/s)", "the RoCE port's speed: "
              "below its highest in the kept collections, or below most of its node's RoCE ports' (3 or more), a "
              "Warning (session 35)", "link_speed", SRC_GO + "collector_for_network.go; " + DOC_METRICS),
    MetricRow("npu_chip_info_link_speed", "id, udie, port", "G", "a UB port's speed: as above, against its node's UB "
              "ports; without udie/port labels not used (session 35)", "link_speed",
              SRC_GO + "collector_for_network.go (buildUbDesc link_speed)"),
    MetricRow("npu_chip_info_link_speed_X_Y", "id", "G", "as above, under -enableLegacyMetrics: udie X, port Y in "
              "the name", "link_speed", SRC_GO + "collector_for_network_legacy.go; " + DOC_METRICS),
    MetricRow("npu_chip_optical_state", "id", "1 present, 0 not present", "the RoCE port's optical module "
              "(<node>/npu<id>/port/xcvr): not present, Critical where it was present in a kept collection, else "
              "Warning (session 35)", "optics_present", SRC_GO + "collector_for_optical.go (getMainOptInfo); "
              + DOC_METRICS),
    MetricRow("(sample time stamp of the chip's series)", "id", "ms", "age of the last successful read of the chip "
              "(collection time - sample time)", "heartbeat", SRC_GO + "collector_for_npu.go (doUpdateMetric with "
              "the chip's collection time stamp)"),
)
"""npu-exporter metric -> what it feeds. Checks with no exporter metric: dom_bias, dom_snr (no bias/SNR series:
read them from ``hccn_tool -optical -g`` outputs), link_fec, straggler, spares. link_downs only as a lower bound:
the exporter's ``npu_chip_link_up_num`` counts link-ups per NPU, not downs per link, and ``npu_chip_info_link_status``
is the state now, so only its UP->DOWN changes between kept collections are counted
(:func:`opsbrain.sources.readings.state_downs`), or, from a Prometheus server, between the samples it kept
(:func:`opsbrain.sources.promapi.link_downs_query`); a missing or -1 sample is neither UP nor DOWN, and a flap
between two samples is missed (``-link_stat -g`` records have them all)."""

COVERS = frozenset({"npu_temp", "hbm_temp", "hbm_ce", "hbm_uce", "hbm_rows", "dom_rx", "dom_tx", "dom_spread",
                    "dom_trend", "link_light", "link_crc", "heartbeat", "npu_health", "link_downs", "npu_count",
                    "roce_errors", "link_speed", "optics_present"})


GATES = frozenset({"npu_chip_info_hbm_ecc_enable_flag"})
"""Metrics that say whether a check's readings mean anything, feeding it none themselves (session 42)."""


def metrics_feeding(check: str) -> list[str]:
    """The npu-exporter metrics :data:`METRIC_TABLE` feeds ``check`` from (for ``coverage.not_fed``)."""
    return [row.metric for row in METRIC_TABLE
            if check in row.check.split(", ") and row.metric[0] != "(" and row.metric not in GATES]
