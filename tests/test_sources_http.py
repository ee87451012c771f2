"""Real exporters misbehave (session 26, a second pair of eyes on the real-cluster sources): a page that drips,
is cut short, is gzip'd unasked, sits behind basic auth or a PromQL selector with spaces; one of several exporters
down; pages with no exporter series, NaN, failed reads (-1), duplicate jobs; nodes scraped apart."""

from __future__ import annotations

import gzip
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from opsbrain.errors import InputError
from opsbrain.sources.base import PrometheusSource, page_hosts, sweep_source
from opsbrain.sources.exporter import parse_page
from opsbrain.sources.httpget import authorised_request, fetch, shown_url
from opsbrain.sources.readings import CollectionHistory, snapshot_from
from opsbrain.sweeps.params import SweepParams

Handler = Callable[[BaseHTTPRequestHandler], None]


@contextmanager
def serving(handle: Handler, tls: tuple[Path, Path] | None = None, client_ca: Path | None = None) -> Iterator[str]:
    """A server on 127.0.0.1 answering GETs and POSTs with ``handle``; ``tls``: (certificate, key) to serve HTTPS with;
    ``client_ca``: ask every client for a certificate signed by this CA (mutual TLS)."""
    class H(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            self.server.seen.append(self)  # type: ignore[attr-defined]
            handle(self)

        do_POST = do_GET  # noqa: N815 (an OAuth2 token endpoint: the handler reads self.command)

        def log_message(self, *args: Any) -> None:
            pass

    srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
    if tls is not None:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(*tls)
        if client_ca is not None:
            ctx.verify_mode = ssl.CERT_REQUIRED
            ctx.load_verify_locations(cafile=str(client_ca))
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
        srv.handle_error = lambda *a: None  # type: ignore[method-assign] (a client refusing our certificate)
    srv.daemon_threads = True
    srv.seen = []  # type: ignore[attr-defined]
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        yield f"{'https' if tls else 'http'}://127.0.0.1:{srv.server_address[1]}"
    finally:
        srv.shutdown()
        srv.server_close()


def get(url: str, timeout_s: float, deadline_s: float, max_bytes: int) -> bytes:
    return fetch(url, timeout_s, deadline_s, max_bytes).body


def page(temps: dict[int, float], ts_ms: int | None = None, extra: str = "") -> str:
    stamp = f" {ts_ms}" if ts_ms is not None else ""
    return "".join(f'npu_chip_info_temperature{{id="{i}"}} {t}{stamp}\n' for i, t in temps.items()) + extra


def reply(body: bytes, *, length: int | None = None, headers: dict[str, str] | None = None) -> Handler:
    def handle(h: BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        h.send_header("Content-Length", str(len(body) if length is None else length))
        for k, v in (headers or {}).items():
            h.send_header(k, v)
        h.end_headers()
        h.wfile.write(body)
        h.wfile.flush()
        h.close_connection = True
    return handle


def dripping(data: bytes, pause: float, status: bool) -> Handler:
    """A server that sends ``data`` a byte at a time (after its status and headers when ``status``)."""
    def handle(h: BaseHTTPRequestHandler) -> None:
        if status:
            h.send_response(200)
            h.send_header("Content-Length", str(len(data)))
            h.end_headers()
        for b in data:
            try:
                h.wfile.write(bytes([b]))
                h.wfile.flush()
            except OSError:
                return
            time.sleep(pause)
    return handle


@pytest.mark.parametrize("what", ["body", "headers"])
def test_a_page_that_drips_is_given_up_within_the_deadline(what: str) -> None:
    """A server sending a byte now and then held a sweep for ever (the socket's timeout is per read); found by
    review, its headers too."""
    handler = dripping(page({0: 45.0}).encode(), 0.2, True) if what == "body" else \
        dripping(b"HTTP/1.1 200 OK\r\nX-Slow: " + b"a" * 200, 0.1, False)
    with serving(handler) as url:
        start = time.monotonic()
        with pytest.raises(InputError, match="the page took more than 1 s"):
            get(url + "/metrics", timeout_s=5.0, deadline_s=1.0, max_bytes=1 << 20)
        assert time.monotonic() - start < 4.0


def test_a_page_cut_short_is_refused_not_read_as_its_part() -> None:
    """The last line ``...} 101`` cut to ``...} 10`` read a hot NPU as cool."""
    body = page({0: 45.0, 5: 101.0}).encode()
    with serving(reply(body[:-2], length=len(body))) as url, pytest.raises(InputError, match="page cut short"):
        get(url + "/metrics", 5.0, 15.0, 1 << 20)


def test_gzip_sent_unasked_is_inflated_and_credentials_are_sent_and_never_shown() -> None:
    body = page({5: 101.0}).encode()
    with serving(reply(gzip.compress(body), headers={"Content-Encoding": "gzip"})) as url:
        assert get(url.replace("http://", "http://ops:s3cret@") + "/metrics", 5.0, 15.0, 1 << 20) == body
    assert shown_url("http://ops:s3cret@h:9/m") == "http://ops@h:9/m"
    req = authorised_request('http://ops:s3cret@h:9/federate?match[]={__name__=~"npu_.*", job="x"}')
    assert req.get_header("Authorization") == "Basic b3BzOnMzY3JldA=="
    assert " " not in req.full_url and "@" not in req.full_url and "match[]=" in req.full_url


def test_one_exporter_down_leaves_the_others_swept() -> None:
    def broken(h: BaseHTTPRequestHandler) -> None:
        h.send_error(500)

    with serving(reply(page({5: 101.0}).encode())) as good, serving(broken) as bad:
        src = PrometheusSource([bad + "/metrics", good + "/metrics"])
        rep = sweep_source(src)
        assert [f.check for f in rep.findings] == ["npu_temp"]
        assert len(src.not_read) == 1 and "HTTP 500" in src.not_read[0] and src.coverage()["not_read"]
        with pytest.raises(InputError, match="none of the 2 URLs"):
            sweep_source(PrometheusSource([bad + "/metrics", bad + "/other"]))


@pytest.mark.parametrize("body", [b"", b"node_load1 0.5\nnode_cpu_seconds_total{cpu=\"0\"} 3\n"])
def test_a_page_without_exporter_series_is_no_healthy_cluster(body: bytes) -> None:
    with serving(reply(body)) as url, pytest.raises(InputError, match="no npu-exporter series"):
        sweep_source(PrometheusSource([url + "/metrics"]))


def test_two_exporters_behind_one_address_keep_their_series_apart() -> None:
    hosts = page_hosts(["http://127.0.0.1:1/m", "http://127.0.0.1:2/m", "http://b:3/m"])
    assert hosts == {"http://127.0.0.1:1/m": "127.0.0.1:1", "http://127.0.0.1:2/m": "127.0.0.1:2",
                     "http://b:3/m": "b"}
    with serving(reply(page({5: 101.0}).encode())) as hot, serving(reply(page({5: 40.0}).encode())) as cool:
        rep = sweep_source(PrometheusSource([hot + "/metrics", cool + "/metrics"]))
    assert [f.check for f in rep.findings] == ["npu_temp"]


@pytest.mark.parametrize("value", ["NaN", "+Inf", "-Inf", "-1"])
def test_no_reading_is_no_finding(value: str) -> None:
    """NaN / Inf, and npu-exporter's -1 for a read that failed: no temperature, no dark lane, no counter reset."""
    r = parse_page(page({0: 45.0}) + f'npu_chip_info_temperature{{id="1"}} {value}\n'
                   f'npu_chip_optical_rx_power_0{{id="1"}} {value}\n'
                   f'npu_chip_info_hbm_ecc_total_single_bit_error_cnt{{id="1"}} {value}\n', default_host="n")
    assert r.npu_temp_c == {"n/npu0": 45.0} and not r.optics and not r.hbm_ce_total


def test_one_exporter_scraped_by_two_jobs_is_counted_once() -> None:
    rows = 'npu_chip_info_hbm_ecc_double_bit_isolated_pages_cnt{{instance="n:8082",job="{}",id="3"}} 10\n'
    r = parse_page(rows.format("a") + rows.format("b"))
    assert r.hbm_rows == {"n/npu3/hbm": 10.0}


def test_nodes_scraped_apart_are_no_lost_heartbeat_but_a_chip_left_behind_or_a_frozen_exporter_is() -> None:
    """A federated page: node b scraped 14 s before node a is healthy; a chip 40 s behind its node's others is 35 s
    beyond the exporter's 5 s refresh; a whole page 20 minutes old on our clock is one stale node (its chips are not
    aged: sweeps/heartbeat.py reports the node once)."""
    p = SweepParams()
    now = time.time()

    def snap_of(text: str) -> Any:
        return snapshot_from(parse_page(text, now=now), CollectionHistory(), p)

    def ages(text: str) -> dict[str, float]:
        snap = snap_of(text)
        return dict(zip(snap.npus, snap.heartbeat_age_s.tolist(), strict=True))

    ms = int(now * 1000)
    fed = "".join(f'npu_chip_info_temperature{{instance="{h}:1",id="{i}"}} 45 {ms - lag}\n'
                  for h, lag in (("a", 1000), ("b", 14000)) for i in range(2))
    assert max(ages(fed).values()) == 0.0
    behind = fed + f'npu_chip_info_temperature{{instance="a:1",id="2"}} 45 {ms - 41000}\n'
    assert ages(behind)["a/npu2"] == pytest.approx(40.0 - p.exporter_update_s)
    frozen = page({0: 45.0, 1: 45.0}, ms - 1_200_000)
    assert max(ages(frozen).values()) == 0.0
    assert snap_of(frozen).node_sample_age_s == {"": pytest.approx(1200.0 - p.scrape_skew_s - p.exporter_update_s,
                                                                  abs=1.0)}
    replayed = page({0: 45.0}, ms - 400 * 86_400_000)  # another clock (a replayed or simulated page): its own time
    assert ages(replayed) == {"npu0": 0.0}


def test_twin_like_host_names_are_twin_nodes_only_when_whole() -> None:
    from opsbrain.ingest.where import twin_node

    assert twin_node("pod1-node1") == twin_node("pod1-node1-l1sw3") == "pod1/node1"
    assert twin_node("pod1-node1a") is None and twin_node("pod1-node1b") is None


def test_an_ipv6_instance_is_named_without_its_port() -> None:
    r = parse_page('npu_chip_info_temperature{instance="[fd00::11]:8082",id="3"} 45\n')
    assert r.npu_temp_c == {"fd00::11/npu3": 45.0}


def test_the_devices_own_health_is_a_finding() -> None:
    """npu-exporter's ``npu_chip_info_health_status`` 0 (unhealthy) is an Alarm on that NPU; 1 and -1 (not read) are
    none."""
    body = ('npu_chip_info_health_status{id="0"} 1\nnpu_chip_info_health_status{id="1"} 0\n'
            'npu_chip_info_health_status{id="2"} -1\n' + page({0: 45.0, 1: 45.0, 2: 45.0})).encode()
    with serving(reply(body)) as url:
        rep = sweep_source(PrometheusSource([url + "/metrics"]))
    assert [(f.component, f.check, f.severity) for f in rep.findings] == [("127.0.0.1/npu1", "npu_health", "Alarm")]
    assert rep.checked["npu_health"] == 2


def test_legacy_port_names_and_relabelled_node_names_are_read() -> None:
    """``-enableLegacyMetrics`` puts the lane, udie and port in the name (``..._rx_power_Z_X_Y``): read as the
    labelled series (before: ignored, a dark lane unseen); a Kubernetes scrape's ``node`` label names the host
    (its ``instance`` is the exporter pod's address)."""
    legacy = "".join(f'npu_chip_info_optical_rx_power_{z}_0_3{{id="0",node="a3-node-07",instance="10.244.3.17:8082"}}'
                     f' {-40.0 if z == 2 else -2.0}\n' for z in range(4))
    labelled = "".join(f'npu_chip_info_optical_rx_power_{z}{{id="0",udie="0",port="3",node="a3-node-07"}}'
                       f' {-40.0 if z == 2 else -2.0}\n' for z in range(4))
    a, b = parse_page(legacy), parse_page(labelled)
    assert a.optics == b.optics and list(a.optics) == ["a3-node-07/npu0/udie0/port3/xcvr"]


def test_review_mends_gzip_cut_clock_skew_legacy_selector_and_many_runs_of_npu_smi(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Found by review (session 26): a gzip page cut short was read (101 C as 10 C); a sweeping host whose clock is
    ahead of the cluster's alarmed every NPU (the exporter's Date header is the clock now); the query API never
    asked for the legacy optical names; two runs of npu-smi in one file kept the older worst reading."""
    import email.utils

    from opsbrain.ingest.commands import parse_command_outputs
    from opsbrain.sources.promapi import SELECTOR

    whole = gzip.compress(page({0: 101.0}).encode())
    cut = whole[:len(whole) - 12]

    def no_length(body: bytes) -> Handler:
        def handle(h: BaseHTTPRequestHandler) -> None:
            h.send_response(200)
            h.send_header("Content-Encoding", "gzip")
            h.send_header("Connection", "close")
            h.end_headers()
            h.wfile.write(body)
            h.close_connection = True
        return handle

    with serving(no_length(cut)) as url, pytest.raises(InputError, match="cut short"):
        get(url + "/metrics", 5.0, 15.0, 1 << 20)
    with serving(no_length(whole + gzip.compress(page({1: 40.0}).encode()))) as url:  # two gzip members
        assert get(url + "/metrics", 5.0, 15.0, 1 << 20) == (page({0: 101.0}) + page({1: 40.0})).encode()

    real = time.time()
    body = page({0: 45.0, 1: 45.0}, int(real * 1000)).encode()

    def dated(h: BaseHTTPRequestHandler) -> None:
        h.date_time_string = lambda timestamp=None: email.utils.formatdate(real, usegmt=True)  # type: ignore
        reply(body)(h)

    with serving(dated) as url:
        monkeypatch.setattr(time, "time", lambda: real + 300.0)  # our clock 5 minutes ahead of the cluster's
        rep = sweep_source(PrometheusSource([url + "/metrics"]))
        monkeypatch.undo()
    assert not [f for f in rep.findings if f.check == "heartbeat"]
    assert "npu_chip_info_optical_rx_power_[0-3]_[0-9]+_[0-9]+" in SELECTOR and "_Z_X_Y" not in SELECTOR
    row = "| 5     910B3               | {}         | 96.8        {}                0    / 0             |\n"
    two = ("npu-smi info\n" + row.format("Critical", 99) + "npu-smi info\n" + row.format("OK      ", 45))
    c = parse_command_outputs(two)
    assert c.npu_health == {5: "OK"} and c.npu_temp_c == {5: 45.0}


def test_the_query_api_is_asked_on_the_servers_clock() -> None:
    """Our host's clock 5 minutes ahead of the Prometheus server's: every chip's sample looked 5 minutes old (a
    heartbeat finding on every NPU). The server's Date header now corrects the query time."""
    import email.utils
    import json as js
    from urllib.parse import parse_qs, urlsplit

    from opsbrain.sources.promapi import PrometheusQuerySource

    real = time.time()
    asked: list[float] = []

    def api(h: BaseHTTPRequestHandler) -> None:
        q = parse_qs(urlsplit(h.path).query)
        t = float(q["time"][0])
        asked.append(t)
        fresh = min(t, real) - 5.0  # the newest sample the server holds at t
        if q["query"][0].startswith("timestamp("):
            result = [{"metric": {"id": str(i), "instance": "n:8082"}, "value": [t, str(fresh)]} for i in range(2)]
        else:
            result = [{"metric": {"__name__": "npu_chip_info_temperature", "id": str(i), "instance": "n:8082"},
                       "value": [t, "45"]} for i in range(2)]
        h.date_time_string = lambda timestamp=None: email.utils.formatdate(real, usegmt=True)  # type: ignore
        reply(js.dumps({"status": "success", "data": {"resultType": "vector", "result": result}}).encode())(h)

    with serving(api) as url:
        src = PrometheusQuerySource(url, clock=lambda: time.time() + 300.0)
        rep = sweep_source(src)
    assert not [f for f in rep.findings if f.check == "heartbeat"], rep.findings
    assert max(asked[1:]) < real + 10.0  # the first asks at our time only to read the server's clock
