"""MindCluster NPU exporter pages (Prometheus text format) -> :class:`~opsbrain.sources.readings.Readings`. The
metric table is :mod:`opsbrain.sources.exporter_metrics`; the twin's pod rendered as such a page (so the twin and a
real cluster are read by the same parser) is :mod:`opsbrain.sources.twinpage` (both re-exported here).

The page's text is read into samples by :mod:`opsbrain.sources.pagetext` (prometheus_client's text parser); this
module maps the samples to components and readings. Metric names and labels are npu-exporter's own
(Ascend/mind-cluster ``component/npu-exporter/collector/metrics/*.go``; the page layout as in MindCluster's
"Prometheus Metrics接口" reference, default port 8082). :data:`METRIC_TABLE` maps each one to the check it feeds;
docs/real-cluster.md prints the table. A page may hold several nodes (a Prometheus ``/federate`` page adds an
``instance`` label per target); without one the URL's host names the node.

Component ids follow the ingestion layer (``opsbrain.ingest.where``): ``<node>/npu<id>``, ``<node>/npu<id>/hbm``,
and for an optical port ``<node>/npu<id>/udie<u>/port<p>`` (its module: ``.../xcvr``). The twin's optics sit in
UB switch chips; its page publishes them in the same UB-port series with the switch chip as ``instance`` and the
switch port as ``port`` (a twin convention, said in the docs), which the parser maps back to the twin's module
and link ids through the ingestion layer's switch-port naming.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

from faultlib.ids import A3_DIES_PER_NPU, npu_die
from opsbrain.ingest.parsers.twin import l1_uplink, l2_downlink
from opsbrain.ingest.where import is_twin_node, node_component
from opsbrain.sources import exporter_ports as ports
from opsbrain.sources.exporter_metrics import COVERS as COVERS
from opsbrain.sources.exporter_metrics import METRIC_TABLE as METRIC_TABLE
from opsbrain.sources.pagetext import PageParser, Sample
from opsbrain.sources.readings import UB_UNKNOWN, Readings
from opsbrain.sources.twinpage import render_twin_page as render_twin_page

NO_LIGHT_DBM = -40.0
"""A legacy power series of 0 mW (no light) in dBm: the floor modules report without light (SweepParams.los_below_dbm
treats anything below -30 dBm as loss of signal)."""
_RE_POWER = re.compile(r"^npu_chip_(info_)?optical_(rx|tx)_power_(\d)$")
_RE_POWER_NAMED = re.compile(r"^npu_chip_info_optical_(rx|tx)_power_(\d)_(\d+)_(\d+)$")
"""The same UB-port series under npu-exporter's ``-enableLegacyMetrics`` names, the port in the name:
``npu_chip_info_optical_rx_power_Z_X_Y`` (Z the lane, X the udie, Y the port; its metrics reference,
collector_for_ub_legacy.go)."""
_RE_LINK_NAMED = re.compile(r"^npu_chip_info_link_status_(\d+)_(\d+)$")
"""A UB port's link status with its udie X and port Y in the name (``npu_chip_info_link_status_X_Y``, its metrics
reference; collector_for_network_legacy.go)."""
_RE_CRC_NAMED = re.compile(r"^npu_chip_info_crc_error_sum_(\d+)_(\d+)$")
"""A UB port's CRC error count with its udie X and port Y in the name (``npu_chip_info_crc_error_sum_X_Y``, its metrics
reference, UB data; collector_for_ub_legacy.go): read as ``npu_chip_info_crc_error_sum`` with those labels (session
35; before, not read and noted as a series no check uses)."""
_PORT_METRICS = {"npu_chip_info_link_status": "link_oper_down", "npu_chip_info_network_status": "link_net_unhealthy"}
"""Per-port states, 1 good / 0 bad (-1 not read): the link status is ``hccn_tool -i N -link -g`` (UP 1, DOWN 0;
collector_for_network.go, ``hccn.GetNPULinkStatus``), the network status the device's network health (healthy 1,
unhealthy 0; collector_for_npu.go, ``GetDeviceNetWorkHealth``, Init and Success healthy). Without udie/port labels a
series is the NPU's RoCE port, ``<node>/npu<id>/port``, the id ``hccn_tool -i N`` gives the same port."""
_RE_HCCS_CRC = re.compile(r"^npu_chip_info_hccs_statistic_info_crc_err_cnt_(\d)$")
"""CRC errors (in flits) received on the NPU's HCCS link X (1..7; 2..7 on Atlas 9000 A3 SuperPoD): a counter read as
the CRC errors of the link ``<node>/npu<id>/hccs<X>`` (collector_for_hccs.go; -1 a failed read)."""
RX_FCS = "npu_chip_info_rx_fcs_num"
"""Frames the NPU's RoCE port received with a bad FCS (the frame's CRC-32; ``hccn_tool -i N -stat -g``
``mac_rx_fcs_err_pkt_num``, collector_for_roce.go): a counter read as the CRC errors of ``<node>/npu<id>/port``."""
_RE_CODE = re.compile(r"^npu_chip_info_error_code(?:_(\d))?$")
"""The device's fault event codes: the first as ``npu_chip_info_error_code``, the next nine as ``..._1`` .. ``_9``
(its metrics reference: "only the first ten error codes that occur are reported"; collector_for_npu.go,
``GetDeviceAllErrorCode``), each a 32-bit event id as a decimal value (0x80E01801 = 2162169857)."""
CODE_MAX = 0xFFFFFFFF
ECC_FLAG = "npu_chip_info_hbm_ecc_enable_flag"
"""Whether the chip's HBM ECC detection is on (1) or off (0): DCMI's ``enable_flag`` of the HBM ECC info
(collector_for_hbm.go ``updateHbmEccInfo``, ``descEccEnableFlag``; ascend-common devmanager ``ECCInfo.EnableFlag``, 1
in its mock). With detection off the ECC counters count nothing: read as 0 errors they passed hbm_ce and hbm_uce as
OK. Since session 42 such a chip's counters are not read, and said (before: the flag was listed as not read)."""
CHIP_FAMILY = "npu_chip_"
"""npu-exporter's chip series (``npu_chip_info_*``, ``npu_chip_link_*``, ``npu_chip_optical_*``): one it holds that
no check reads is named in ``Readings.notes``, one line per metric with its series count; other exporters' series
on the page (``machine_npu_nums``, ``container_*``, node_exporter's) are not the chip's and pass unnoted."""
_RE_PORT_DIGITS = re.compile(r"_\d+_\d+$")
"""A per-port legacy name's udie and port (``npu_chip_info_bandwidth_rx_0_1``): one note line for all its ports."""
_RE_HCCS_DIGIT = re.compile(r"^(npu_chip_info_hccs_\w+)_\d$")
"""An HCCS link's number in a name (``npu_chip_info_hccs_statistic_info_tx_cnt_3``): one note line for its links."""


def _family(name: str) -> str:
    """A metric's name with its port or HCCS link numbers as ``_X_Y`` / ``_X``, for a note line."""
    return _RE_HCCS_DIGIT.sub(r"\1_X", _RE_PORT_DIGITS.sub("_X_Y", name))
_TWIN_SWITCH = re.compile(r"^(pod\d+-node\d+-l1sw\d+|pod\d+-l2plane\d+-sw\d+)$")
_CHIP_METRICS = {"npu_chip_info_temperature": "npu_temp_c", "npu_chip_info_hbm_temperature": "hbm_temp_c",
                 "npu_chip_info_health_status": "npu_health",
                 "npu_chip_info_hbm_ecc_total_single_bit_error_cnt": "hbm_ce_total",
                 "npu_chip_info_hbm_ecc_total_double_bit_error_cnt": "hbm_ue_total",
                 "npu_chip_info_hbm_ecc_single_bit_isolated_pages_cnt": "hbm_rows",
                 "npu_chip_info_hbm_ecc_double_bit_isolated_pages_cnt": "hbm_rows"}


NODE_LABELS = ("node", "nodename", "kubernetes_node", "node_name")
"""Labels a scrape config relabels the node's name into (``__meta_kubernetes_pod_node_name`` -> ``node``, as in
public npu-exporter dashboards' queries ``npu_chip_info_health_status{node="..."}``)."""


EXPORTED = "exported_"
"""Prometheus's prefix for a scraped label that clashes with one the scrape sets (``honor_labels: false``, the
default; Prometheus docs, scrape_config): a Prometheus that federates another, or scrapes a relay, keeps each node's
``instance`` as ``exported_instance`` and sets its own ``instance`` (the federated server's), the same for every
node."""


def _host(labels: dict[str, str], default: str | None) -> str | None:
    """The host a series names: the node name a Kubernetes scrape relabels in (``node``, ``nodename``,
    ``kubernetes_node``, ``node_name``: its ``instance`` is then the exporter pod's address), else its ``instance``
    without the port (``[v6]:port`` too) or ``host``; else ``default`` as given (the page's, which keeps a port where
    two pages share an address). Each label's ``exported_`` copy (:data:`EXPORTED`) comes before it: it is the
    node's own, the plain one the federating server's (before, every node of a federation read as one host, and one
    node's NPU 2 overwrote another's)."""
    for key in NODE_LABELS:
        if name := labels.get(EXPORTED + key) or labels.get(key):
            return name
    inst = (labels.get(EXPORTED + "instance") or labels.get("instance") or labels.get(EXPORTED + "host")
            or labels.get("host"))
    if not inst:
        return default or None
    if inst.startswith("["):
        return inst[1:].partition("]")[0] or None
    if inst.count(":") == 1:
        inst = inst.rsplit(":", 1)[0]
    return inst or None


def series_node(labels: dict[str, str], default: str | None) -> str | None:
    """The node component a series names (its node or ``instance`` label, else ``default``), as the page reader
    places it (for :mod:`opsbrain.ingest.exporterpage`)."""
    return node_component(_host(labels, default))


def port_ids(host: str | None, labels: dict[str, str]) -> tuple[str, str]:
    """(module id, link id) of an optical port series."""
    port = labels.get("port")
    if host and port is not None and port.isdigit() and _TWIN_SWITCH.match(host):
        base = host.replace("-", "/")
        link = l1_uplink(host, int(port)) if "-l1sw" in host else l2_downlink(host, int(port))
        return f"{base}/osfp{int(port):02d}", link or base
    npu = chip_npu(node_component(host), labels)
    link = npu + (f"/udie{labels['udie']}/port{port}" if names_ub_port(labels) else "/port")
    return link + "/xcvr", link


def chip_npu(node: str | None, labels: dict[str, str]) -> str:
    """The NPU a chip series names, ``<node>/npu<id>``: npu-exporter's ``id`` as written (a real host's, as its logs'
    ids are read), but on the twin's nodes (Atlas A3) the id is a die's (npu-exporter labels each logical device's
    series with its own id: :data:`opsbrain.sources.twinpage.CHIP_IDS`), read as the NPU the die belongs to
    (:func:`faultlib.ids.npu_die`), where the twin keeps its chip readings (session 38)."""
    dev = labels.get("id", "0")
    if node and dev.isdigit() and is_twin_node(node):
        dev = str(npu_die(int(dev))[0])
    return f"{node}/npu{dev}" if node else f"npu{dev}"


def names_ub_port(labels: dict[str, str]) -> bool:
    """Whether a series names a UB port: its ``udie`` and ``port`` labels (npu-exporter gives both). A ``port``
    alone (a scrape's relabelling: the exporter's TCP port) names none (session 35's review: it read as a KeyError
    on every series of such a page)."""
    return "port" in labels and "udie" in labels


def port_link(name: str, labels: dict[str, str], default_host: str | None = None) -> str | None:
    """The link id of a port's link-status series (``npu_chip_info_link_status``, its legacy ``_X_Y`` names), as a
    page's sample of it is read (:func:`readings_of_samples`); None for any other metric."""
    kind, attr = _kind(name)[:2]
    if attr != "link_oper_down":
        return None
    if ":" in kind:  # the legacy name holds the udie and port
        _base, udie, port = kind.split(":")
        labels = {**labels, "udie": udie, "port": port}
    return port_ids(_host(labels, default_host), labels)[1]


def _kind(name: str) -> tuple[str, str, int, bool]:
    """What a metric feeds: ("chip", attribute, 0, _), ("power", field, lane, in dBm), ("crc", ...), ("port", the
    Readings attribute, ...) or ("skip", ...); a name holding its port reads ``<what>:<udie>:<port>``."""
    if name in _CHIP_METRICS:
        return "chip", _CHIP_METRICS[name], 0, False
    if name == "npu_chip_info_crc_error_sum":
        return "crc", "", 0, False
    if name == RX_FCS:
        return "crc", "fcs", 0, False
    if name == ports.SIO_RX_CRC:
        return "crc", "sio", 0, False
    if m := _RE_HCCS_CRC.match(name):
        return "crc", "hccs", int(m.group(1)), False
    if name == ECC_FLAG:
        return "ecc", "", 0, False
    if m := _RE_CODE.match(name):
        return "code", "npu_fault_codes", int(m.group(1) or 0), False
    if name in _PORT_METRICS:
        return "port", _PORT_METRICS[name], 0, False
    if m := _RE_CRC_NAMED.match(name):
        return f"crc:{m.group(1)}:{m.group(2)}", "", 0, False
    if m := _RE_LINK_NAMED.match(name):
        return f"port:{m.group(1)}:{m.group(2)}", "link_oper_down", 0, False
    if m := _RE_POWER.match(name):
        return "power", f"{m.group(2)}_dbm", int(m.group(3)), bool(m.group(1))
    if m := _RE_POWER_NAMED.match(name):  # the port's udie and number in the name: labels of their own
        return f"power:{m.group(3)}:{m.group(4)}", f"{m.group(1)}_dbm", int(m.group(2)), True
    return ports.kind(name) or ("skip", "", 0, False)


NOT_THE_PART = frozenset({"job", "namespace", "pod_name", "container_name"})
"""Labels that do not tell one chip's series from another's: the scrape job, and the container npu-exporter names
as using the chip (its card labels ``namespace``, ``pod_name``, ``container_name``: collector/common ``CardLabel``,
set per pod at each refresh). After a pod starts or ends on an NPU, a Prometheus server answers an instant query with
both label sets for up to its 5-min look-back (the exporter's stamped samples get no staleness marker)."""


def _repeated(name: str, labels: dict[str, str], seen: set[tuple[str, frozenset[tuple[str, str]]]]) -> bool:
    """Whether a series that is added up (isolated rows, CRC errors) came before on the page under another ``job``
    (one exporter scraped by two jobs, federated: its 10 rows read as 20) or another container's labels
    (:data:`NOT_THE_PART`: a chip's 10 isolated pages under its old and new pod read as 20, a Warning)."""
    ident = (name, frozenset((k, v) for k, v in labels.items() if k not in NOT_THE_PART))
    if ident in seen:
        return True
    seen.add(ident)
    return False


SAME_CLOCK_S = 86400.0
"""A page whose newest sample is within a day of the collection's time is read on our clock (its samples' age is
their lag behind now: an exporter frozen for 20 minutes showed none); a page further off is read on its own clock, as
a replayed or simulated one (the twin's pages start 2025-03-01), from its newest sample."""
FAILED_READ = -1.0
"""npu-exporter's value for a metric it could not read (``FailedMetricValue``, its common_utils.go): a lifetime ECC
counter read as -1 then 5000 was a counter reset and a 5001-error storm."""
FUTURE_TOLERANCE_S = 5.0
"""How far after the collection time (``now``) a sample may be stamped and still count as the chip's read time. A
real stamp is at most about a second ahead: the exporter stamps a sample before it answers and ``now`` is the HTTP
``Date`` header (whole seconds), and NTP keeps a cluster's clocks within a second. Kept below the heartbeat alarm
(10 s, SweepParams.heartbeat_alarm_s): a stamp it lets through can age its node's other chips by no more than a
Warning. A stamp further ahead is not the chip's read time (its node's other chips read as stale by as much: one
stamped 3 days ahead made its neighbour 'lost' for 262800 s) and does not move the page's clock; a page whose
samples are all ahead is on a clock of its own (:data:`SAME_CLOCK_S`, as before)."""
TEMP_RANGE_C = (-40.0, 150.0)
"""Plausible NPU/HBM temperatures. No Ascend datasheet limit was found to cite, so an engineering reason: -40 C is
the bottom of the industrial temperature grade and no cooled server sits below it; 150 C is the highest junction
temperature silicon parts are rated for (JEDEC's top grade), far over the sweep's own critical levels (105 C) at
which the chip throttles and shuts down. A value outside is a sensor or exporter fault, not a temperature."""
HEALTH_VALUES = frozenset({0.0, 1.0})
"""``npu_chip_info_health_status``: 1 healthy, 0 unhealthy (-1, not read, is :data:`FAILED_READ`): METRIC_TABLE's
documented values; any other is not a health."""
DBM_MAX = 8.2
"""The most a module's DOM reports: SFF-8636 / CMIS monitors hold optical power as an unsigned 16-bit count of
0.1 uW, 0 .. 6.5535 mW = +8.16 dBm. A dBm series above it (or an mW series above 6.5535, or below 0) is not a
reading. Below :data:`NO_LIGHT_DBM` (the monitor's smallest non-zero count, 0.1 uW) a series reads as that floor
(no light either way), noted: dropping it would hide a dark lane from the loss-of-signal check."""
MW_MAX = 6.5535
COUNT_MIN = 0.0
"""Counters and page counts (ECC errors, isolated pages, CRC errors) are never negative (-1 is
:data:`FAILED_READ`): a negative one is dropped, not summed into a neighbour's rows."""
_RANGES: dict[str, tuple[float, float]] = {
    "npu_temp_c": TEMP_RANGE_C, "hbm_temp_c": TEMP_RANGE_C, "hbm_ce_total": (COUNT_MIN, math.inf),
    "hbm_ue_total": (COUNT_MIN, math.inf),
    "hbm_rows": (COUNT_MIN, math.inf), "crc": (COUNT_MIN, math.inf)}


class _Notes:
    """What a page held but was not used, counted per reason with the first example."""

    def __init__(self) -> None:
        self.counts: dict[str, tuple[int, str]] = {}

    def add(self, reason: str, example: str) -> None:
        n, first = self.counts.get(reason, (0, example))
        self.counts[reason] = (n + 1, first)

    def lines(self) -> list[str]:
        return [f"{n} {reason} (first: {ex})" for reason, (n, ex) in self.counts.items()]


def _shown(v: float) -> str:
    return f"{v:.6g}"


_PER_CHIP = (("npu_temp_c", "", "npu_chip_info_temperature", "npu_temp"),
             ("npu_health", "", "npu_chip_info_health_status", "npu_health"),
             ("hbm_temp_c", "/hbm", "npu_chip_info_hbm_temperature", "hbm_temp"),
             ("hbm_ue_total", "/hbm", "npu_chip_info_hbm_ecc_total_double_bit_error_cnt", "hbm_uce"))
"""Per-chip readings whose absence on one NPU, where its node's other NPUs have them, is said (_chips_without)."""


def _chips_without(r: Readings, notes: _Notes) -> None:
    """Name each NPU that lacks a reading its node's other NPUs have (no series, or NaN / -1): npu-exporter leaves a
    series out when the chip's read failed (``doUpdateMetricWithValidateNum`` drops -1 and 0xFFFFFFFF, its
    common_utils.go), so that chip's check reads nothing of it; before, it passed as OK without a word. A node that
    has the reading on none of its NPUs is a release or card without it (``coverage.not_fed``), not named here."""
    npus = set(r.npu_temp_c) | set(r.npu_health) | set(r.npu_sample_t) | set(r.npu_fault_codes) | {
        k[:-4] for d in (r.hbm_temp_c, r.hbm_ce_total, r.hbm_ue_total, r.hbm_rows) for k in d}
    by_node: dict[str, set[str]] = {}
    for n in npus:
        by_node.setdefault(n.rpartition("/npu")[0], set()).add(n)
    for attr, suffix, metric, check in _PER_CHIP:
        have = {k[:len(k) - len(suffix)] if suffix else k for k in getattr(r, attr)}
        for members in by_node.values():
            if members & have:
                for n in sorted(members - have):
                    notes.add(f"NPUs without a {metric} reading that their node's other NPUs have (no series, or "
                              f"NaN / -1): their {check} not checked", n)


def parse_page(text: str, default_host: str | None = None, now: float | None = None,
               parser: PageParser | None = None) -> Readings:
    """Readings of an exporter page. The collection time is ``now`` (and at least the newest sample's time stamp),
    or the newest sample's time stamp for a page on another clock (:data:`SAME_CLOCK_S`).
    Raises ValueError (with the parser's message) for text that is not the Prometheus text format."""
    pp = parser or PageParser()
    r = readings_of_samples(pp.keyed_samples(text), default_host, now, pp)
    r.notes += pp.stamp_lines()  # a stamp that is no millisecond time (session 42): said, one line per reason
    return r


def readings_of_samples(samples: Iterable[Sample], default_host: str | None = None, now: float | None = None,
                        parser: PageParser | None = None) -> Readings:
    """Readings of (name, label string or None, labels, value, time stamp) samples, from a page or a query API.

    A value outside its metric's plausible range (:data:`TEMP_RANGE_C`, :data:`HEALTH_VALUES`, :data:`COUNT_MIN`,
    :data:`DBM_MAX`) is not used; a repeated series keeps its first sample (as Prometheus does: it rejects the
    later one as a duplicate sample); a time stamp more than :data:`FUTURE_TOLERANCE_S` after ``now`` is not a read
    time. Each is counted in ``Readings.notes``."""
    pp = parser or PageParser()
    r = Readings(0.0, covers=set(COVERS))
    newest = -math.inf
    newest_ahead = -math.inf
    ahead_t: dict[str, float] = {}
    notes = _Notes()
    horizon = now + FUTURE_TOLERANCE_S if now is not None else math.inf
    firsts: set[tuple[str, object]] = set()
    kinds: dict[str, tuple[str, str, int, bool]] = {}
    ids_cache = pp.ids
    sample_t = r.npu_sample_t
    seen: set[tuple[str, frozenset[tuple[str, str]]]] = set()
    ecc_off: set[str] = set()
    for name, key, labels, value, ts in samples:
        ahead = False
        if ts is not None:
            if ts > horizon:
                ahead, newest_ahead = True, max(newest_ahead, ts)
            elif ts > newest:
                newest = ts
        kind = kinds.get(name)
        if kind is None:
            kind = kinds[name] = _kind(name)
        if kind[0] == "skip":
            if name.startswith(CHIP_FAMILY):  # one of the chip's series no check uses: named, not dropped silently
                notes.add(f"{_family(name)} series not read by opsbrain (no check uses them)",
                          f"id {labels.get('id', '?')} {_shown(value)}")
            continue
        if ":" in kind[0]:  # a legacy name that holds the port: its labels are the name's too
            base, udie, port = kind[0].split(":")
            kind = (base, *kind[1:])
            labels = {**labels, "udie": udie, "port": port}
            key = None if key is None else f"{key}#{udie}:{port}"
        ident = ids_cache.get((key, default_host)) if key is not None else None
        if ident is None:
            host = _host(labels, default_host)
            ident = (chip_npu(node_component(host), labels), port_ids(host, labels))
            if key is not None and len(ids_cache) < pp.max_cached:
                ids_cache[(key, default_host)] = ident
        what, attr, lane, native = kind
        if not math.isfinite(value) or (value == FAILED_READ and not native):
            # no reading: NaN / Inf, or the exporter's mark of a read that failed (not a dBm of -1). npu-exporter
            # marks a failed read -1 (common_utils.go FailedMetricValue), so a NaN or Inf (a relay, a rule) is said: the
            # component's check reads nothing of it (before: skipped without a word); -1 stays unsaid, as before
            if not math.isfinite(value):
                notes.add(f"{_family(name)} series read "
                          f"{'NaN' if math.isnan(value) else _shown(value).replace('inf', 'Inf')}: no reading, not "
                          "checked", ident[0] if what in ("chip", "code", "ecc") else ident[1][1])
            continue
        where = ident[0] if what in ("chip", "code", "ecc") else ident[1][1]
        if attr != "hbm_rows" and what != "crc":  # summed series: _repeated below
            first = (name, key if key is not None else frozenset(labels.items()))
            if first in firsts:
                notes.add(f"repeated {name} series (the first kept)", f"{where} {_shown(value)}")
                continue
            firsts.add(first)
        if what == "ports":  # session 35: NPU count, RoCE packet counters, link speed, optical module presence
            if attr == "npu_count" and is_twin_node(ident[0].rpartition("/npu")[0]):
                value /= A3_DIES_PER_NPU  # (the twin's A3 node lists its dies; its chips are read as NPUs)
            if why := ports.take(r, attr, ident[0], ident[1][1], ident[1][0], value):
                notes.add(f"{why}, not used", f"{where} {_shown(value)}")
            continue
        if what == "ecc":
            if value not in HEALTH_VALUES:
                notes.add(f"{name} not 0 or 1, not used", f"{where} {_shown(value)}")
            elif value == 0.0:
                ecc_off.add(where)
            continue
        if what == "code":  # 0: no fault
            if value != int(value) or not 0 <= value <= CODE_MAX:
                notes.add(f"{name} not a device fault code (an integer 0 .. 0xFFFFFFFF), not used",
                          f"{where} {_shown(value)}")
                continue
            codes = r.npu_fault_codes.setdefault(where, [])
            if value and (code := f"{int(value):08X}") not in codes:
                codes.append(code)
            continue
        lo, hi = _RANGES.get(what if what == "crc" else attr or what, (-math.inf, math.inf))
        state = attr == "npu_health" or what == "port"
        if not lo <= value <= hi or (state and value not in HEALTH_VALUES):
            shown = "1, 0 or -1" if state else (f"{_shown(lo)} .. {_shown(hi)}" if hi < math.inf
                                                else f">= {_shown(lo)}")
            notes.add(f"{name} outside {shown}, not used", f"{where} {_shown(value)}")
            continue
        if what == "port":  # 1 up / healthy, 0 down / unhealthy
            getattr(r, attr)[where] = value == 0.0
            continue
        if what == "chip":
            npu = ident[0]
            if die := labels.get("vdie_id"):
                r.npu_die[npu] = die
            d = getattr(r, attr)
            if attr == "npu_health":  # 1 healthy, 0 unhealthy: Alarm (HEALTH_STATES)
                d[npu] = 0 if value >= 1 else 2
            elif attr == "hbm_rows":
                if _repeated(name, labels, seen):
                    notes.add(f"repeated {name} series (another job's or pod's copy: not added)",
                              f"{where} {_shown(value)}")
                    continue
                d[npu + "/hbm"] = d.get(npu + "/hbm", 0.0) + value
            else:
                d[npu if attr == "npu_temp_c" else npu + "/hbm"] = value
            if ts is not None and ahead:
                if ts > ahead_t.get(npu, -math.inf):
                    ahead_t[npu] = ts
            elif ts is not None and ts > sample_t.get(npu, -math.inf):
                sample_t[npu] = ts
            continue
        module, link = ident[1]
        if what == "crc":
            if attr in ("hccs", "sio"):  # the NPU's HCCS link X or its die-to-die link, not an optical port
                link = f"{ident[0]}/hccs{lane}" if attr == "hccs" else f"{ident[0]}/{attr}"
            elif not attr and not names_ub_port(labels):  # a UB port's count that names no port: not the RoCE port's
                link = f"{ident[0]}/{UB_UNKNOWN}"
            if _repeated(name, labels, seen):
                notes.add(f"repeated {name} series (another job's or pod's copy: not added)",
                          f"{link} {_shown(value)}")
                continue
            r.link_crc_total[link] = r.link_crc_total.get(link, 0.0) + value
            continue
        if value > (DBM_MAX if native else MW_MAX) or (not native and value < 0):
            unit = "dBm" if native else "mW"
            notes.add(f"{name} outside the module's range (up to {_shown(DBM_MAX if native else MW_MAX)} {unit}), "
                      "not used", f"{module} {_shown(value)}")
            continue
        dbm = value if native else (10.0 * math.log10(value) if value > 0 else NO_LIGHT_DBM)
        if dbm < NO_LIGHT_DBM:
            notes.add(f"{name} below the module's floor, read as {NO_LIGHT_DBM:g} dBm (no light)",
                      f"{module} {_shown(dbm)}")
            dbm = NO_LIGHT_DBM
        fields = r.optics.get(module)
        if fields is None:
            fields = r.optics[module] = {}
            r.module_link[module] = link
        lanes = fields.get(attr)
        if lanes is None:
            lanes = fields[attr] = []
        while len(lanes) <= lane:
            lanes.append(math.nan)
        lanes[lane] = dbm
    if math.isfinite(newest_ahead):
        if math.isfinite(newest):  # the page's other samples are on our clock: these stamps are not read times
            for npu, ts in ahead_t.items():
                notes.add(f"sample time stamps more than {FUTURE_TOLERANCE_S:g} s after the collection: not a read "
                          "time (the chip's heartbeat age unknown)", f"{npu} {_shown(ts - (now or 0.0))} s ahead")
        else:  # all ahead: a page on a clock of its own (SAME_CLOCK_S), as before
            newest = newest_ahead
            for npu, ts in ahead_t.items():
                sample_t[npu] = max(ts, sample_t.get(npu, -math.inf))
    _chips_without(r, notes)
    for npu in sorted(ecc_off):  # detection off: counters that count nothing are no evidence of health
        r.hbm_ce_total.pop(npu + "/hbm", None)
        r.hbm_ue_total.pop(npu + "/hbm", None)
        notes.add(f"NPUs with HBM ECC detection off ({ECC_FLAG} 0): their ECC error counters count nothing, "
                  "not read (hbm_ce, hbm_uce not checked on them)", npu)
    r.notes = notes.lines()
    if not math.isfinite(newest):
        r.t = now if now is not None else 0.0
    else:  # on our clock (NTP keeps a cluster's within a second), a frozen exporter's samples age; else on the page's
        r.t = max(now, newest) if now is not None and abs(now - newest) <= SAME_CLOCK_S else newest
    return r
