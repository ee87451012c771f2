"""Tester 36b: sweeping npu-exporter pages as a real cluster serves them.

Several exporters behind one address and port, told apart by the path: a reverse proxy (``http://gw/node-1/metrics``)
or the Kubernetes API server's proxy (``/api/v1/nodes/<node>:8082/proxy/metrics``, Kubernetes docs "Proxies in
Kubernetes": the apiserver proxy reaches a node's or pod's port by its name in the path). Before, every such page's
series that name no node were named ``<address>:<port>``: one node's page overwrote the other's, and a node with a
chip at 98 C and a link down swept OK when a healthy node's page came after it.
"""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler

import pytest

from opsbrain.sources.base import PrometheusSource, page_hosts, sweep_source
from tests.test_sources_http import Handler, page, serving

LABELS = 'container_name="",model_name="Ascend910B3",namespace="",pod_name=""'


def _by_path(pages: dict[str, str]) -> Handler:
    def handle(h: BaseHTTPRequestHandler) -> None:
        body = pages.get(h.path, "").encode()
        h.send_response(200 if body else 404)
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        h.wfile.write(body)
        h.close_connection = True
    return handle


def test_exporters_behind_one_address_and_port_keep_their_series_apart_by_path() -> None:
    hot = page({2: 98.0}) + 'npu_chip_info_link_status{id="5"} 0\n'
    cool = page({2: 45.0}) + 'npu_chip_info_link_status{id="5"} 1\n'
    with serving(_by_path({"/node-1/metrics": hot, "/node-2/metrics": cool})) as base:
        rep = sweep_source(PrometheusSource([f"{base}/node-1/metrics", f"{base}/node-2/metrics"]))
    got = {(f.check, f.component) for f in rep.findings}
    assert got == {("npu_temp", "node-1/npu2"), ("link_light", "node-1/npu5/port")}, rep.findings


def test_the_name_each_page_goes_by() -> None:
    api = "https://10.0.0.1:6443/api/v1/nodes/{}:8082/proxy/metrics"
    pods = "http://127.0.0.1:8001/api/v1/namespaces/npu-exporter/pods/{}:8082/proxy/metrics"
    urls = [api.format("gz-a3-n01"), api.format("gz-a3-n02"), pods.format("npu-exporter-x7k2p"),
            pods.format("npu-exporter-q9z4m"), "http://gw/node-1/metrics", "http://gw/node-2/metrics",
            "http://b:3/m", "http://b:4/m", "http://c/metrics?x=1", "http://c/metrics?x=2"]
    assert page_hosts(urls) == {
        urls[0]: "gz-a3-n01", urls[1]: "gz-a3-n02", urls[2]: "npu-exporter-x7k2p", urls[3]: "npu-exporter-q9z4m",
        urls[4]: "node-1", urls[5]: "node-2", urls[6]: "b:3", urls[7]: "b:4",
        urls[8]: "c", urls[9]: "c"}  # (the same path: nothing tells them apart, as before)
    assert page_hosts(["http://gw/node-1/metrics"]) == {"http://gw/node-1/metrics": "gw"}  # one page: its host


def test_a_window_shorter_than_a_minute_is_said_in_seconds(monkeypatch: pytest.MonkeyPatch) -> None:
    """``sweep run --interval 10s`` (or two ``sweep once`` runs 20 s apart): the findings said ``15000 RoCE FCS errors
    ... in the last 0 min`` and ``1 new in the last 0 min``; now ``in the last 20 s``."""
    import tests.test_sources_linkerrors as le
    from opsbrain.sweeps.finding import window_words

    monkeypatch.setattr(le, "STEP_S", 20.0)
    reps = le.sweeps_of([le.exporter_page(0.0, None), le.exporter_page(15_000.0, None)])
    (f,) = [f for f in reps[1].findings if f.check == "link_crc"]
    assert "errors (frames with a bad checksum) in the last 20 s," in f.evidence, f.evidence
    assert [window_words(s) for s in (0.4, 20, 59.6, 60, 600, 3600, 86400)] == [
        "0 s", "20 s", "1 min", "1 min", "10 min", "1.0 h", "24.0 h"]


def test_what_several_pages_did_not_use_is_one_line_per_reason() -> None:
    """Two nodes' pages with the same unread series printed the same "not used" line twice (``8 npu_chip_info_power
    series not read by opsbrain ...`` once per page, neither naming its node): now one line counting both."""
    power = "".join(f'npu_chip_info_power{{id="{i}"}} 180.5\n' for i in range(8))
    with serving(_by_path({"/node-1/metrics": page({0: 45.0}) + power,
                           "/node-2/metrics": page({0: 45.0}) + power})) as base:
        src = PrometheusSource([f"{base}/node-1/metrics", f"{base}/node-2/metrics"])
        sweep_source(src)
    lines = [n for n in src.dropped if "npu_chip_info_power" in n]
    assert lines == ["16 npu_chip_info_power series not read by opsbrain (no check uses them) (first: id 0 180.5)"]


def test_an_electrical_link_s_crc_errors_do_not_send_the_operator_to_the_optics() -> None:
    """An NPU's SIO link joins its two dies inside the package and its HCCS links are electrical (board or
    backplane): their CRC findings said "inspect the optics", which neither has. The RoCE port keeps its optics."""
    import tests.test_sources_linkerrors as le

    def page_(sio: float, hccs: float, fcs: float) -> str:
        return (le.exporter_page(fcs, hccs) + f'npu_chip_info_sio_crc_rx_err_cnt{{id="0",vdie_id="d0"}} {sio!r}\n')

    reps = le.sweeps_of([page_(0.0, 0.0, 0.0), page_(20_000.0, 2_000.0, 20_000.0)])
    act = {f.component.rsplit("/", 1)[1]: f.suggested_action for f in reps[1].findings if f.check == "link_crc"}
    assert set(act) == {"sio", "hccs3", "port"}, act
    assert "inspect the optics" not in act["sio"] and "the NPU" in act["sio"], act["sio"]
    assert "inspect the optics" not in act["hccs3"] and "electrical" in act["hccs3"], act["hccs3"]
    assert "inspect the optics" in act["port"], act["port"]
