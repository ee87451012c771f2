"""The twin's exporter page publishes npu-exporter's RoCE FCS and HCCS CRC counters from the twin's own link state
(session 35), so a sweep over the twin page sees a RoCE port going down through them as it would on a real page; a
UB CRC series that names no port is labelled as such, not as RoCE FCS. Pages are served by the test exporter on
127.0.0.1 (opsbrain.sources.serve.PageServer, tests/test_sources_http.py)."""

from __future__ import annotations

import re

from faultlib.engine import Simulation
from faultlib.injection.spec import FaultSpec
from opsbrain.sources import PrometheusSource, sweep_source
from opsbrain.sources.exporter import parse_page, render_twin_page
from opsbrain.sources.pagetext import PageParser
from opsbrain.sources.readings import HCCS_CRC, ROCE_FCS, UB_CRC_UNKNOWN
from opsbrain.sources.serve import PageServer
from opsbrain.sources.twinpage import npu_link_counters
from opsbrain.sweeps.sweep import SweepReport
from tests.test_sources import P, small_pod
from tests.test_sources_linkerrors import crc, exporter_page, sweeps_of

T0 = 3600.0
FCS = "npu_chip_info_rx_fcs_num"
HCCS = re.compile(r"^npu_chip_info_hccs_statistic_info_crc_err_cnt_(\d)$")


def test_twin_page_publishes_fcs_and_hccs_counters_from_link_state() -> None:
    sim = small_pod()
    topo = sim.topology
    npu = "pod0/node2/npu5"
    fcs_links, hccs_links = npu_link_counters(topo, npu)
    assert len(fcs_links) == topo.params.dies_per_npu and all(len(h) == topo.params.dies_per_npu for h in hccs_links)
    store = sim.telemetry.metrics
    store.add("link_crc_total", fcs_links[1], 10.0, 40.0)      # die 1's RoCE port counted 40 bad frames
    store.add("link_crc_total", hccs_links[1][0], 10.0, 7.0)   # die 0's link to L1 chip 1: HCCS link 2
    store.add("link_crc_total", hccs_links[1][1], 10.0, 5.0)   # die 1's: the same HCCS link of the NPU
    sim.run(60.0)
    page = render_twin_page(sim)
    rows = [(n, lb, v) for n, lb, v, _ts in PageParser().samples(page) if n == FCS or HCCS.match(n)]
    npus = sorted(topo.by_kind["npu"])
    xs = {int(m.group(1)) for n, _lb, _v in rows if (m := HCCS.match(n))}
    assert xs == set(range(1, topo.params.l1_per_node + 1))
    dies = topo.params.dies_per_npu
    assert len(rows) == len(npus) * dies * (1 + topo.params.l1_per_node)  # every served die, each counter once
    assert {frozenset(lb) for _n, lb, _v in rows} == {frozenset({"id", "instance"})}
    nonzero = {(n, lb["instance"], lb["id"]): v for n, lb, v in rows if v}
    hccs2 = "npu_chip_info_hccs_statistic_info_crc_err_cnt_2"  # (each die's own links, its own id: 10 and 11)
    assert nonzero == {(FCS, "pod0-node2", "11"): 40.0, (hccs2, "pod0-node2", "10"): 7.0,
                       (hccs2, "pod0-node2", "11"): 5.0}
    r = parse_page(page)
    assert r.link_crc_total["pod0/node2/npu5/port"] == 40.0 and r.link_crc_total["pod0/node2/npu5/hccs2"] == 12.0
    assert r.link_crc_total["pod0/node2/npu4/port"] == 0.0 and not r.notes


def _real_labels(page: str) -> str:
    """The twin page with a real npu-exporter's chip labels added to every chip series ("Label 1": container,
    model, namespace, PCIe, pod and die labels), the node still named by ``instance`` as on a federated page."""
    def labels(m: re.Match[str]) -> str:
        npu, host = m.group(1), m.group(2)
        return (f'{{container_name="",id="{npu}",instance="{host}",model_name="Ascend910",namespace="",'
                f'pcie_bus_info="0000:{int(npu):02d}:00.0",pod_name="",vdie_id="{host}-{npu}"}}')

    return re.sub(r'\{id="(\d+)",instance="([^"]+)"\}', labels, page)


def _sweep_twin(sim: Simulation, pages: dict[str, str], at: list[float], real: bool) -> list[SweepReport]:
    """Sweeps of the twin's page at each of ``at`` by one source (its page relabelled as a real one if ``real``)."""
    src = PrometheusSource(["http://127.0.0.1:1/metrics"])
    out = []
    with PageServer(lambda: pages["now"]) as srv:
        src.urls = [srv.url]
        for t in at:
            page = render_twin_page(sim, t)
            pages["now"] = _real_labels(page) if real else page
            out.append(sweep_source(src, P))
    return out


def test_roce_port_down_is_seen_through_the_twin_pages_fcs_counter_as_on_a_real_page() -> None:
    sim = small_pod()
    port = "pod0/node1/npu3/roce1"
    sim.inject(FaultSpec(T0 + 60.0, "roce_port_down", port))
    sim.run(T0 + 600.0)
    link = f"{port}~pod0/rdma"
    burst = sim.telemetry.metrics.read("link_crc_total", link, T0 + 600.0)
    assert burst is not None and burst >= P.crc_warn_errors  # seed 1's draw: a Warning (precondition, not the test)
    found = {}
    for real in (False, True):
        pages: dict[str, str] = {}
        before, after = _sweep_twin(sim, pages, [T0, T0 + 600.0], real)
        assert not crc(before)  # nothing counted before the fault, and no background made up
        found[real] = crc(after)
        assert set(found[real]) == {"pod0/node1/npu3/port"}  # the port's NPU only: its HCCS links read nothing
        sev, errors, evidence, per_s = found[real]["pod0/node1/npu3/port"]
        assert errors == burst and sev == ("Alarm" if burst >= P.crc_alarm_errors else "Warning")
        assert f"{burst:.0f} {ROCE_FCS} in the last 10 min" in evidence and per_s == burst / 600.0
        assert [f.data["counter"] for f in after.findings if f.check == "link_crc"] == [ROCE_FCS]
    assert found[False] == found[True]  # the real labels read the same
    twin = sim.telemetry.metrics.read("link_crc_total", "pod0/node1/npu3/roce0~pod0/rdma", T0 + 600.0)
    assert twin is None  # the fault's port only: its sibling die's port counted nothing


def test_crc_error_sum_without_a_port_is_ub_crc_of_an_unknown_port_not_roce_fcs() -> None:
    base = exporter_page(None, None)
    pages = [base + f'npu_chip_info_crc_error_sum{{id="0"}} {a}\nnpu_chip_info_rx_fcs_num{{id="0"}} {b}\n'
             f'npu_chip_info_crc_error_sum_0_2{{id="1"}} {c}\n'
             for a, b, c in ((100.0, 10.0, 0.0), (1600.0, 30.0, 3000.0))]
    r = parse_page(pages[1], "node-1")
    assert r.link_crc_total == {"node-1/npu0/ub": 1600.0, "node-1/npu0/port": 30.0, "node-1/npu1/udie0/port2": 3000.0}
    assert not any("crc_error_sum" in n for n in r.notes), r.notes  # the legacy name is read, not "not used"
    _first, rep = sweeps_of(pages)
    got = {k: v[2] for k, v in crc(rep).items()}
    assert set(got) == {"127.0.0.1/npu0/ub", "127.0.0.1/npu1/udie0/port2"}  # 20 FCS errors: no finding
    assert got["127.0.0.1/npu0/ub"].startswith(f"1500 {UB_CRC_UNKNOWN} in the last 5 min")
    assert ROCE_FCS not in got["127.0.0.1/npu0/ub"] and HCCS_CRC not in got["127.0.0.1/npu0/ub"]
    assert got["127.0.0.1/npu1/udie0/port2"].startswith("3000 CRC errors in the last 5 min")


def test_an_npu_off_the_bus_leaves_the_twin_pages_count_until_it_is_back() -> None:
    """Session 35: the twin's page counted every NPU of the topology in ``machine_npu_nums``; the driver stops
    listing a chip off the bus, and npu-exporter's count drops with it."""
    sim = small_pod()
    npu = "pod0/node1/npu3"
    sim.inject(FaultSpec(T0 + 60.0, "npu_off_bus", npu, duration_s=600.0))
    sim.run(T0 + 900.0)
    host = re.escape(fmt_host(npu))

    def listed(t: float) -> int:
        m = re.search(rf'^machine_npu_nums{{instance="{host}"}} (\d+) ', render_twin_page(sim, t), re.M)
        assert m is not None
        return int(m[1])

    assert (listed(T0), listed(T0 + 300.0), listed(T0 + 900.0)) == (16, 14, 16)  # back once repaired at 660 s
    # (the driver lists logical devices: an A3 NPU's two dies, session 38)
    before, during, back = _sweep_twin(sim, {}, [T0, T0 + 300.0, T0 + 900.0], real=False)
    assert not [f for f in before.findings if f.check == "npu_count"]
    assert [(f.component, f.severity) for f in during.findings if f.check == "npu_count"] == [
        ("pod0/node1", "Critical")]
    assert not [f for f in back.findings if f.check == "npu_count"]


def fmt_host(cid: str) -> str:
    from faultlib.telemetry import formats as fmt

    return fmt.hostname(cid)
