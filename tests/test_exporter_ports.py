"""npu-exporter's node NPU count, RoCE packet counters, link speeds, optical module presence and SIO CRC errors
(session 35): read from a page as npu-exporter writes it (HELP/TYPE lines, its card labels) and from a Prometheus
query API, their findings, and a page without them swept as before."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

from opsbrain.sources.base import sweep_source
from opsbrain.sources.exporter import parse_page
from opsbrain.sources.promapi import SELECTOR, PrometheusQuerySource
from opsbrain.sources.readings import SIO_CRC, CollectionHistory, Readings, snapshot_from
from opsbrain.sweeps import SweepParams
from opsbrain.sweeps.portchecks import PortState
from opsbrain.sweeps.sweep import SweepReport, sweep_snapshot
from tests.test_sources_http import reply, serving

P = SweepParams()
T0 = 1_750_000_000.0
CARD = ('container_name="",id="{i}",model_name="Ascend910",namespace="",pcie_bus_info="0000:{b:02X}:00.0",'
        'pod_name="",vdie_id="D{i}"')
HELP = {  # npu-exporter's HELP text for each (collector_for_npu.go, _roce.go, _network.go, _optical.go, _sio.go)
    "npu_chip_info_temperature": "the npu temperature",
    "npu_chip_roce_new_pkt_rty_num": "npu interface receive roce-new-pkt-rty-num",
    "npu_chip_roce_out_of_order_num": "the npu interface receive roce-out-of-order-num",
    "npu_chip_roce_rx_err_pkt_num": "npu interface receive roce-rx-err-pkt-num",
    "npu_chip_roce_verification_err_num": "the npu interface receive roce-verification-err-num",
    "npu_chip_mac_rx_bad_pkt_num": "npu interface receive mac-rx-bad-pkt-num",
    "npu_chip_link_speed": "the npu interface receive link speed, unit is 'Mb/s'",
    "npu_chip_optical_state": "the npu interface receive optical-state",
    "npu_chip_info_sio_crc_rx_err_cnt": "sio received error count between die",
}
OK = {"npu_chip_info_temperature": 45.0, "npu_chip_link_speed": 200000.0, "npu_chip_optical_state": 1.0}


def page(t: float, n: int = 8, listed: int | None = None, odd: dict[tuple[str, int], float] | None = None,
         names: tuple[str, ...] = tuple(HELP)) -> str:
    """A node's npu-exporter page at ``t``: ``n`` NPUs with series, ``machine_npu_nums`` ``listed`` (default n);
    ``odd``: (metric, NPU) -> a value other than the healthy one (counters 0, speed 200000, module present)."""
    ms = int(t * 1000)
    out = ["# HELP machine_npu_nums Amount of npu installed on the machine.", "# TYPE machine_npu_nums gauge",
           f"machine_npu_nums {n if listed is None else listed}"]
    for name in names:
        out += [f"# HELP {name} {HELP[name]}", f"# TYPE {name} gauge"]
        out += [f"{name}{{{CARD.format(i=i, b=0x80 + i)}}} {(odd or {}).get((name, i), OK.get(name, 0.0)):g} {ms}"
                for i in range(n)]
    return "\n".join(out) + "\n"


def sweep_pages(pages: list[tuple[float, str]]) -> tuple[SweepReport, Readings]:
    h = CollectionHistory()
    for t, text in pages[:-1]:
        snapshot_from(parse_page(text, "node-a", t), h, P)
    t, text = pages[-1]
    cur = parse_page(text, "node-a", t)
    return sweep_snapshot(snapshot_from(cur, h, P), P), cur


def found(rep: SweepReport, *checks: str) -> list[tuple[str, str, str]]:
    return sorted((f.component, f.check, f.severity) for f in rep.findings if f.check in checks)


def test_a_real_page_reads_each_series_under_npu_exporters_names_and_labels() -> None:
    r = parse_page(page(T0, odd={("npu_chip_roce_new_pkt_rty_num", 2): 17.0, ("npu_chip_link_speed", 3): 100000.0,
                                 ("npu_chip_optical_state", 1): 0.0, ("npu_chip_info_sio_crc_rx_err_cnt", 4): 9.0,
                                 ("npu_chip_mac_rx_bad_pkt_num", 5): 3.0}), "node-a", T0)
    assert r.node_npu_count == {"node-a": 8.0}
    assert r.port_counters["retries"]["node-a/npu2/port"] == 17.0
    assert r.port_counters["mac_rx_bad"]["node-a/npu5/port"] == 3.0
    assert set(r.port_counters) == {"retries", "out_of_order", "rx_err", "verify_err", "mac_rx_bad"}
    assert r.link_speed["node-a/npu3/port"] == 100000.0 and r.link_speed["node-a/npu0/port"] == 200000.0
    assert r.optics_present["node-a/npu1/port/xcvr"] is False and r.optics_present["node-a/npu0/port/xcvr"] is True
    assert r.link_crc_total["node-a/npu4/sio"] == 9.0
    assert not [n for n in r.notes if "not read by opsbrain" in n], r.notes  # before: each a "not read" line


def test_ub_port_speed_and_its_legacy_name_map_to_the_port() -> None:
    text = ("# HELP npu_chip_info_link_speed the npu port link speed, unit is 'G'\n"
            "# TYPE npu_chip_info_link_speed gauge\n"
            'npu_chip_info_link_speed{container_name="",id="0",model_name="Ascend910",namespace="",pcie_bus_info="",'
            'pod_name="",vdie_id="",udie="1",port="3"} 400\n'
            "# HELP npu_chip_info_link_speed_0_2 the npu port link speed, unit is 'G'\n"
            "# TYPE npu_chip_info_link_speed_0_2 gauge\n"
            'npu_chip_info_link_speed_0_2{container_name="",id="1",model_name="Ascend910",namespace="",'
            'pcie_bus_info="",pod_name="",vdie_id=""} 200\n')
    r = parse_page(text, "node-b", T0)
    assert r.link_speed == {"node-b/npu0/udie1/port3": 400.0, "node-b/npu1/udie0/port2": 200.0}


def test_a_ub_speed_or_a_port_label_that_names_no_ub_port_is_not_the_roce_ports() -> None:
    """Session 35's review: a UB port's speed without ``udie``/``port`` labels (a relabelled or aggregated series)
    was read as the RoCE port's speed, in G against Mb/s, so the RoCE port read 'below its earlier speed' at every
    sweep; and a ``port`` label without ``udie`` (a scrape's relabelling: the exporter's TCP port) on any series was a
    KeyError for the whole page."""
    text = ('npu_chip_link_speed{id="0"} 200000\n'
            'npu_chip_info_link_speed{id="0"} 400\n'
            'npu_chip_info_temperature{id="0",port="9101"} 45\n'
            'npu_chip_info_crc_error_sum{id="0",port="9101"} 7\n')
    r = parse_page(text, "node-b", T0)
    assert r.link_speed == {"node-b/npu0/port": 200000.0}
    assert any("npu_chip_info_link_speed names no udie and port" in n for n in r.notes), r.notes
    assert r.npu_temp_c == {"node-b/npu0": 45.0}
    assert r.link_crc_total == {"node-b/npu0/ub": 7.0}  # a UB count whose port is unknown, not the RoCE port's FCS


def test_implausible_values_are_noted_not_used() -> None:
    r = parse_page(page(T0, listed=None, odd={("npu_chip_optical_state", 0): 2.0,
                                              ("npu_chip_roce_rx_err_pkt_num", 1): -5.0}), "node-a", T0)
    assert "node-a/npu0/port/xcvr" not in r.optics_present and "node-a/npu1/port" not in r.port_counters["rx_err"]
    assert any("npu_chip_optical_state not 0 or 1" in n for n in r.notes), r.notes
    assert any("packet counter below 0" in n for n in r.notes), r.notes


def test_an_npu_gone_from_the_node_is_critical_and_an_unread_one_a_warning() -> None:
    rep, _ = sweep_pages([(T0, page(T0)), (T0 + 300, page(T0 + 300, n=7))])
    assert found(rep, "npu_count") == [("node-a", "npu_count", "Critical")]
    f = next(f for f in rep.findings if f.check == "npu_count")
    assert f.data == {"listed": 7, "listed_before": 8, "with_series": 7}
    rep, _ = sweep_pages([(T0, page(T0, n=7, listed=8))])  # lists 8, publishes series of 7
    assert found(rep, "npu_count") == [("node-a", "npu_count", "Warning")]
    rep, _ = sweep_pages([(T0, page(T0, n=7))])  # 7 from the start: no earlier count, nothing to compare
    assert found(rep, "npu_count") == []


def test_roce_counters_count_their_increase_across_a_reset() -> None:
    rty, bad = "npu_chip_roce_new_pkt_rty_num", "npu_chip_roce_verification_err_num"
    pages = [(T0, page(T0, odd={(bad, 6): 100.0, (rty, 2): 50.0})),
             (T0 + 600, page(T0 + 600, odd={(bad, 6): 6_100.0, (rty, 2): 900.0})),
             (T0 + 1200, page(T0 + 1200, odd={(bad, 6): 5_000.0, (rty, 2): 1_600.0}))]  # NPU 6 reset: 5,000 since
    rep, _ = sweep_pages(pages)
    # 6,000 + 5,000 damaged packets in the hour: an Alarm (not 4,900, the window's ends compared); 1,550 retries: a
    # Warning, never more
    assert found(rep, "roce_errors") == [("node-a/npu2/port", "roce_errors", "Warning"),
                                         ("node-a/npu6/port", "roce_errors", "Alarm")]
    f = next(f for f in rep.findings if f.component == "node-a/npu6/port")
    assert f.data["counts"] == {"verify_err": 11_000.0}
    assert "11000 RoCE packets failing verification" in f.evidence
    big = [(T0, page(T0)), (T0 + 600, page(T0 + 600, odd={(rty, 2): 50_000.0}))]
    assert found(sweep_pages(big)[0], "roce_errors") == [("node-a/npu2/port", "roce_errors", "Warning")]


def test_link_speed_below_its_earlier_reading_or_its_peers_is_a_warning() -> None:
    speed = "npu_chip_link_speed"
    rep, _ = sweep_pages([(T0, page(T0, odd={(speed, 5): 100000.0}))])  # one page: against its node's 7 others
    assert found(rep, "link_speed") == [("node-a/npu5/port", "link_speed", "Warning")]
    odd = {(speed, i): 100000.0 for i in range(8)}  # the whole node dropped: its history says so
    rep, _ = sweep_pages([(T0, page(T0)), (T0 + 300, page(T0 + 300, odd=odd))])
    assert len(found(rep, "link_speed")) == 8
    assert found(sweep_pages([(T0, page(T0, odd={(speed, 5): 0.0}))])[0], "link_speed") == []  # down: link_light's


def test_an_optical_module_lost_is_critical_never_seen_a_warning() -> None:
    state = "npu_chip_optical_state"
    rep, _ = sweep_pages([(T0, page(T0)), (T0 + 300, page(T0 + 300, odd={(state, 1): 0.0}))])
    assert found(rep, "optics_present") == [("node-a/npu1/port/xcvr", "optics_present", "Critical")]
    rep, _ = sweep_pages([(T0, page(T0, odd={(state, 1): 0.0}))])
    assert found(rep, "optics_present") == [("node-a/npu1/port/xcvr", "optics_present", "Warning")]


def test_sio_crc_errors_are_a_link_crc_finding_on_the_die_to_die_link() -> None:
    sio = "npu_chip_info_sio_crc_rx_err_cnt"
    rep, _ = sweep_pages([(T0, page(T0)), (T0 + 600, page(T0 + 600, odd={(sio, 3): 20_000.0}))])
    assert found(rep, "link_crc") == [("node-a/npu3/sio", "link_crc", "Alarm")]
    assert SIO_CRC in next(f for f in rep.findings if f.check == "link_crc").evidence


def test_a_page_without_these_series_sweeps_as_before() -> None:
    text = page(T0, names=("npu_chip_info_temperature",)).split("\n", 3)[3]  # no machine_npu_nums either
    h = CollectionHistory()
    snap = snapshot_from(parse_page(text, "node-a", T0), h, P)
    assert snap.ports is None
    rep = sweep_snapshot(snap, P)
    assert rep.findings == [] and rep.checked["npu_count"] == rep.checked["roce_errors"] == 0
    assert rep.checked["link_speed"] == rep.checked["optics_present"] == 0 and rep.checked["npu_temp"] == 8


def test_port_state_is_a_snapshot_field_only_where_read() -> None:
    snap = snapshot_from(parse_page(page(T0), "node-a", T0), CollectionHistory(), P)
    assert isinstance(snap.ports, PortState) and snap.ports.nodes == ("node-a",)
    assert list(snap.ports.npus_read) == [8.0] and math.isnan(snap.ports.npus_counted_before[0])


# ---- the Prometheus query API path --------------------------------------------------------------------------------
def tsdb(drop_at: float) -> Callable[[BaseHTTPRequestHandler], None]:
    """A query API over one node's npu-exporter series: NPU 7 leaves the bus at ``drop_at`` (machine_npu_nums 8 -> 7,
    its series gone), NPU 2's RoCE port retries 2 packets a second, NPU 4's module was pulled at ``drop_at``."""
    def handle(h: BaseHTTPRequestHandler) -> None:
        q = parse_qs(urlsplit(h.path).query)
        expr, t = q["query"][0], float(q["time"][0])
        lab = {"instance": "10.0.0.1:8082", "job": "npu-exporter", "node": "worker-a"}
        n = 7 if t >= drop_at else 8
        result: list[dict[str, Any]] = []
        if expr == SELECTOR:
            result.append({"metric": {"__name__": "machine_npu_nums", **lab}, "value": [t, str(n)]})
            for i in range(n):
                card = {"container_name": "", "id": str(i), "model_name": "Ascend910", "namespace": "",
                        "pcie_bus_info": "", "pod_name": "", "vdie_id": f"D{i}", **lab}
                for name, v in (("npu_chip_info_temperature", 44.0),
                                ("npu_chip_roce_new_pkt_rty_num", 2.0 * (t - drop_at + 86400) if i == 2 else 0.0),
                                ("npu_chip_optical_state", 0.0 if i == 4 and t >= drop_at else 1.0)):
                    result.append({"metric": {"__name__": name, **card}, "value": [t, f"{v:g}"]})
        elif expr.startswith("timestamp("):
            result += [{"metric": {"id": str(i), "vdie_id": f"D{i}", **lab}, "value": [t, f"{t - 1:.3f}"]}
                       for i in range(n)]
        reply(json.dumps({"status": "success", "data": {"resultType": "vector", "result": result}}).encode())(h)
    return handle


def test_the_query_api_path_reads_the_same_names() -> None:
    import time

    for name in ("machine_npu_nums", "npu_chip_roce_new_pkt_rty_num", "npu_chip_link_speed",
                 "npu_chip_optical_state", "npu_chip_info_sio_crc_rx_err_cnt", "npu_chip_mac_rx_bad_pkt_num"):
        assert f"|{name}|" in SELECTOR or SELECTOR.endswith(f"|{name}\"}}"), name
    with serving(tsdb(time.time() - 1800)) as url:  # type: ignore[arg-type]
        rep = sweep_source(PrometheusQuerySource(url))
    got = found(rep, "npu_count", "roce_errors", "optics_present")
    # 2 retries/s over the hour's kept query times: 7,200, a Warning; the count fell after the 2-h-ago reads
    assert got == [("worker-a", "npu_count", "Critical"), ("worker-a/npu2/port", "roce_errors", "Warning"),
                   ("worker-a/npu4/port/xcvr", "optics_present", "Critical")], got
