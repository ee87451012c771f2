"""Telemetry sources: the twin's pod served as npu-exporter pages by a small exporter on 127.0.0.1 is swept with
the same findings as the twin's own sweep of the same state; bad pages and URLs are one line and exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from faultlib.engine import Simulation
from faultlib.params import apply_overrides
from faultlib.simparams import SimParams
from faultlib.topology import Topology, TopologyParams
from opsbrain.cli import cli
from opsbrain.sources import PrometheusSource, sweep_source
from opsbrain.sources.exporter import COVERS, METRIC_TABLE, parse_page, render_twin_page
from opsbrain.sources.pagetext import PageParser
from opsbrain.sources.serve import PageServer
from opsbrain.sweeps import SweepParams, run_sweep
from opsbrain.sweeps.sweep import CHECK_NAMES

P = SweepParams()
QUIET = {"telemetry.dom_noise_rx_db": 0.0, "telemetry.dom_noise_tx_db": 0.0, "telemetry.dom_noise_bias_ma": 0.0,
         "telemetry.dom_noise_snr_db": 0.0}
T = 3 * 3600.0
POINT_IN_TIME = ("npu_temp", "hbm_temp", "hbm_rows", "dom_rx", "dom_tx", "dom_spread", "link_light", "heartbeat")


def small_pod(quiet: bool = True, seed: int = 1) -> Simulation:
    """A 4-node pod (32 NPUs, 16 optical links) with every chip's gauges written from t=0."""
    topo = Topology.build(TopologyParams(nodes_per_pod=4, l1_per_node=2, l2_planes=2, l2_per_plane=2, l2_ports=4),
                          pods=1)
    sim = Simulation(apply_overrides(SimParams(), QUIET) if quiet else SimParams(), seed=seed, topology=topo)
    store = sim.telemetry.metrics
    for i, npu in enumerate(sorted(topo.by_kind["npu"])):
        store.set("npu_temp_c", npu, 0.0, 45.0 + i % 7)
        store.set("hbm_temp_c", npu + "/hbm", 0.0, 60.0 + i % 5)
        store.set("hbm_isolated_rows", npu + "/hbm", 0.0, float(i % 3))
        store.set("npu_heartbeat_age_s", npu, 0.0, 0.5)
        store.set("hbm_ce_total", npu + "/hbm", 0.0, 0.0)
    return sim


def static_faults(sim: Simulation) -> dict[str, str]:
    """Faults whose readings hold still for hours (point-in-time checks agree whatever the reads compared)."""
    store = sim.telemetry.metrics
    npus = sorted(sim.topology.by_kind["npu"])
    store.set("npu_temp_c", npus[3], 0.0, 97.0)                 # Alarm
    store.set("hbm_temp_c", npus[5] + "/hbm", 0.0, 106.0)       # Critical
    store.set("hbm_isolated_rows", npus[7] + "/hbm", 0.0, 20)   # Warning
    store.set("npu_heartbeat_age_s", npus[9], 0.0, 40.0)        # Critical: the chip has not been read for 40 s
    links = sorted(set(sim.dom.link_of))
    dark = links[2]
    sim.dom.set_offset(dark, -45.0, start_t=0.0, field="rx_dbm")  # no light at either end: link down
    low = sim.dom.modules_of(links[4])[0]
    sim.dom.set_offset(low, -12.0, start_t=0.0, lanes=[1], field="rx_dbm")  # one lane far below the alarm
    return {"dark": dark, "low": low}


def _keys(findings: list) -> set[tuple[str, str, str]]:
    return {(f["component"], f["check"], f["severity"]) if isinstance(f, dict) else (f.component, f.check, f.severity)
            for f in findings}


def test_metric_table_names_are_npu_exporters_and_cover_the_checks() -> None:
    names = {r.metric for r in METRIC_TABLE}
    assert {"npu_chip_info_temperature", "npu_chip_info_hbm_temperature", "npu_chip_info_crc_error_sum"} <= names
    assert all(r.source.startswith("Ascend/mind-cluster") for r in METRIC_TABLE)
    assert set(CHECK_NAMES) >= COVERS
    assert {c for r in METRIC_TABLE for c in r.check.split(", ")} == set(COVERS)


def test_cli_sweep_once_prometheus_matches_the_twins_sweep(tmp_path: Path) -> None:
    sim = small_pod()
    static_faults(sim)
    sim.run(T)
    twin = run_sweep(sim, params=P, checks=POINT_IN_TIME)
    assert {f.check for f in twin.findings} >= {"npu_temp", "hbm_temp", "hbm_rows", "heartbeat", "link_light", "dom_rx"}
    page = render_twin_page(sim)
    with PageServer(lambda: page) as srv:
        res = CliRunner().invoke(cli, ["sweep", "once", "--source", "prometheus", "--url", srv.url, "--json"],
                                 env={"OPSBRAIN_HOME": str(tmp_path)})
    assert res.exit_code == 1, res.output  # Alarm and Critical findings
    out = json.loads(res.stdout)
    mine = [f for f in out["findings"] if f["check"] in POINT_IN_TIME]
    assert _keys(mine) == _keys(twin.findings)
    by_key = {(f["component"], f["check"]): f["evidence"] for f in mine}
    for f in twin.findings:
        if f.check != "heartbeat":  # the age is carried in whole milliseconds of the samples' time stamps
            assert by_key[(f.component, f.check)] == f.evidence
    assert out["coverage"]["collections_kept"] == 1 and "dom_snr" in out["coverage"]["not_covered"]


def test_scheduled_scrapes_match_the_twin_on_every_covered_check() -> None:
    """Scrapes at the times the twin's cold sweep reads (window starts, trend re-read points) give the same
    findings on every covered check: windowed counts and the Rx trend included."""
    sim = small_pod(quiet=False, seed=4)
    static_faults(sim)
    store = sim.telemetry.metrics
    hbm = sorted(sim.topology.by_kind["hbm"])[11]
    store.add("hbm_ce_total", hbm, T - 300.0, 400.0)               # a correctable-error storm in the last 10 min
    link = sorted(set(sim.dom.link_of))[6]
    store.add("link_crc_total", link, T - 1200.0, 20_000.0)         # CRC errors in the last hour
    decaying = sim.dom.modules_of(sorted(set(sim.dom.link_of))[9])[1]
    sim.dom.set_decay(decaying, T - 2 * 3600.0, 2.0, lanes=[2])     # Rx falling 2 dB/h: the trend check
    times = sorted({T - P.trend_window_s * k / (P.trend_reread_points - 1) for k in range(P.trend_reread_points)}
                   | {T - P.hbm_ce_window_s, T - P.crc_window_s, T - P.hbm_rows_rate_window_s})
    sim.run(T)
    at = {"t": times[0]}
    src = PrometheusSource(["http://127.0.0.1:1/metrics"])
    with PageServer(lambda: render_twin_page(sim, at["t"])) as srv:
        src.urls = [srv.url]
        for x in times:
            at["t"] = x
            rep = sweep_source(src, P)
    checks = sorted(COVERS)
    twin = run_sweep(sim, params=P, checks=checks)
    assert {"hbm_ce", "link_crc", "dom_trend"} <= {f.check for f in twin.findings}
    assert _keys(rep.findings) == _keys(twin.findings)
    nodes = len(sim.topology.by_kind["node"])  # a real source's heartbeat check also judges each node's exporter
    # the page also names each NPU's RoCE port and HCCS links (their FCS / CRC counters, session 35), which the
    # twin's own sweep does not read: the link checks count them too
    npus, hccs = len(sim.topology.by_kind["npu"]), sim.topology.params.l1_per_node
    more = {c: twin.checked[c] + npus * (1 + hccs) for c in ("link_light", "link_downs", "link_crc")}
    # and each node's machine_npu_nums (session 35: npu_count), which the twin's own sweep has no reading of
    assert rep.checked == {**twin.checked, "heartbeat": twin.checked["heartbeat"] + nodes, **more, "npu_count": nodes}
    assert twin.checked["npu_count"] == 0 and not [f for f in rep.findings if f.check == "npu_count"]
    trend = [f for f in rep.findings if f.check == "dom_trend"]
    twin_trend = [f for f in twin.findings if f.check == "dom_trend"]
    # the source fits every kept collection in the window (one more than the twin's seven re-read points: the
    # 10-min window start), so the projection differs by that read's weight, not by its method
    assert [f.predicted_failure_s for f in trend] == pytest.approx([f.predicted_failure_s for f in twin_trend],
                                                                   rel=0.05)


def test_parser_agrees_with_prometheus_client_on_every_sample() -> None:
    from prometheus_client.parser import text_string_to_metric_families

    sim = small_pod()
    static_faults(sim)
    sim.run(600.0)
    page = render_twin_page(sim)
    ref = sorted((s.name, tuple(sorted(s.labels.items())), s.value, float(s.timestamp))
                 for fam in text_string_to_metric_families(page) for s in fam.samples)
    mine = sorted((n, tuple(sorted(lb.items())), v, ts) for n, lb, v, ts in PageParser().samples(page))
    assert mine == ref
    odd = 'npu_chip_info_temperature{id="1",instance="w\\"x}y",x="a b"} 50 1700000000000\n'
    ((name, labels, value, ts),) = list(PageParser().samples(odd))
    assert labels["instance"] == 'w"x}y' and value == 50.0 and ts == 1700000000.0


def test_real_hosts_and_units() -> None:
    page = ('# TYPE npu_chip_info_temperature gauge\n'
            'npu_chip_info_temperature{container_name="",id="3",model_name="910B3",namespace="",pcie_bus_info="",'
            'pod_name="",vdie_id=""} 96 1700000000000\n'
            'npu_chip_optical_rx_power_0{id="3"} 0.7933 1700000000000\n'
            'npu_chip_optical_rx_power_1{id="3"} 0 1700000000000\n')
    r = parse_page(page, default_host="worker-7")
    assert r.npu_temp_c == {"worker-7/npu3": 96.0}
    rx = r.optics["worker-7/npu3/port/xcvr"]["rx_dbm"]
    assert rx[0] == pytest.approx(-1.006, abs=1e-3) and rx[1] == -40.0
    assert r.t == 1700000000.0


@pytest.mark.parametrize("page, why", [("this is not a metrics page\n", "not a Prometheus text page"),
                                       ('m{id="1" 3\n', "not a Prometheus text page")])
def test_bad_page_is_one_line_exit_2(tmp_path: Path, page: str, why: str) -> None:
    with PageServer(lambda: page) as srv:
        res = CliRunner().invoke(cli, ["sweep", "once", "--source", "prometheus", "--url", srv.url],
                                 env={"OPSBRAIN_HOME": str(tmp_path)})
    assert res.exit_code == 2 and why in res.stderr and len(res.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("args, why", [(["--url", "http://127.0.0.1:1/metrics"], "cannot fetch"),
                                       (["--url", "ftp://x/metrics"], "not an http(s) URL"),
                                       ([], "at least one --url")])
def test_bad_url_is_one_line_exit_2(tmp_path: Path, args: list[str], why: str) -> None:
    res = CliRunner().invoke(cli, ["sweep", "once", "--source", "prometheus", *args],
                             env={"OPSBRAIN_HOME": str(tmp_path)})
    assert res.exit_code == 2 and why in res.stderr and "Traceback" not in res.output


@pytest.mark.parametrize("args, why", [(["--url", "http://127.0.0.1:1"], "cannot query"),
                                       ([], "takes one --url")])
def test_bad_query_api_is_one_line_exit_2(tmp_path: Path, args: list[str], why: str) -> None:
    res = CliRunner().invoke(cli, ["sweep", "once", "--source", "prometheus-api", *args],
                             env={"OPSBRAIN_HOME": str(tmp_path)})
    assert res.exit_code == 2 and why in res.stderr and len(res.stderr.strip().splitlines()) == 1


def test_sweep_service_on_a_real_source_uses_the_same_scheduler_store_and_metrics(tmp_path: Path) -> None:
    import threading
    import urllib.request

    from opsbrain.service.scheduler import TriggerSpec, run_service
    from opsbrain.sources.service import SourcePod
    from opsbrain.store import RunStore

    sim = small_pod()
    static_faults(sim)
    sim.run(T)
    page = render_twin_page(sim)
    stop = threading.Event()
    seen: dict[str, object] = {}

    def on_start(svc: object) -> None:
        seen["url"] = svc.server.url  # type: ignore[attr-defined]

    def on_sweep(d: dict) -> None:
        seen.setdefault("sweeps", []).append(d)  # type: ignore[union-attr]
        if len(seen["sweeps"]) >= 2:  # type: ignore[arg-type]
            seen["metrics"] = urllib.request.urlopen(seen["url"], timeout=5).read().decode()
            stop.set()

    with PageServer(lambda: page) as srv:
        pod = SourcePod(PrometheusSource([srv.url]), name="lab")
        summary = run_service("lab", TriggerSpec("interval", "1.0"), metrics_port=0, home=tmp_path,
                              max_runtime_s=30, on_sweep=on_sweep, on_start=on_start, stop=stop, pod=pod)
    assert summary["sweeps"] >= 2 and not summary["errors"] and summary["schedule"]["id"] == "sweep-lab"
    first = seen["sweeps"][0]  # type: ignore[index]
    assert {f["check"] for f in first["findings"]} >= {"npu_temp", "heartbeat", "link_light"}
    assert 'opsbrain_sweep_component_health{component="pod0/node0/npu3"} 2.0' in seen["metrics"]  # type: ignore[operator]
    assert len(RunStore(tmp_path).list_sweeps()) >= 2


def test_docs_list_every_metric_of_the_table() -> None:
    doc = (Path(__file__).resolve().parents[1] / "docs" / "real-cluster.md").read_text()
    for row in METRIC_TABLE:
        if row.metric.startswith("npu_"):
            assert f"`{row.metric}`" in doc, row.metric


def test_twin_options_with_a_real_source_are_refused(tmp_path: Path) -> None:
    for args in (["sweep", "once", "--source", "prometheus", "--url", "http://127.0.0.1:1/m", "--at", "60"],
                 ["sweep", "run", "--source", "prometheus", "--url", "http://127.0.0.1:1/m", "--scenario", "x"],
                 ["sweep", "once", "--url", "http://127.0.0.1:1/m"]):
        res = CliRunner().invoke(cli, args, env={"OPSBRAIN_HOME": str(tmp_path)})
        assert res.exit_code == 2 and ("belong to --source twin" in res.stderr or "need --source" in res.stderr), args


class _FakePrometheusAPI:
    """A Prometheus server's instant-query API over the twin: the series of its npu-exporter page at time T."""

    def __init__(self, sim: Simulation) -> None:
        import re
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
        from threading import Thread
        from urllib.parse import parse_qs, urlsplit

        epoch = sim.wallclock(0.0).timestamp()
        outer = self
        self.queries = 0

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                q = parse_qs(urlsplit(self.path).query)
                expr, t = q["query"][0], float(q["time"][0])
                page = render_twin_page(sim, t - epoch)
                result = []
                if expr.startswith("resets("):  # the link-down count: the twin's link states do not flap here
                    result = []
                elif expr.startswith(("timestamp(", "last_over_time(timestamp(")):  # every twin chip answers now
                    want = expr.split("timestamp(", 1)[1].split(")", 1)[0]
                    result = [{"metric": lb, "value": [t, str(ts)]}
                              for n, lb, _v, ts in PageParser().samples(page) if n == want]
                else:
                    rx = re.compile(expr.split('=~"', 1)[1].rsplit('"', 1)[0])
                    result = [{"metric": {"__name__": n, **lb}, "value": [t, repr(v)]}
                              for n, lb, v, _ts in PageParser().samples(page) if rx.fullmatch(n)]
                body = json.dumps({"status": "success", "data": {"resultType": "vector", "result": result}}).encode()
                outer.queries += 1
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_prometheus_query_api_gives_history_at_the_first_sweep() -> None:
    """One sweep through a Prometheus server's query API sees the windows and the trend at once, with the
    twin's own findings on every covered check."""
    from opsbrain.sources.promapi import PrometheusQuerySource

    sim = small_pod(quiet=False, seed=4)
    static_faults(sim)
    hbm = sorted(sim.topology.by_kind["hbm"])[11]
    sim.telemetry.metrics.add("hbm_ce_total", hbm, T - 300.0, 400.0)
    decaying = sim.dom.modules_of(sorted(set(sim.dom.link_of))[9])[1]
    sim.dom.set_decay(decaying, T - 2 * 3600.0, 2.0, lanes=[2])
    sim.run(T)
    api = _FakePrometheusAPI(sim)
    try:
        src = PrometheusQuerySource(api.url, clock=lambda: sim.wallclock(T).timestamp())
        rep = sweep_source(src, P)
    finally:
        api.close()
    twin = run_sweep(sim, params=P, checks=sorted(COVERS))
    assert {"hbm_ce", "dom_trend", "heartbeat"} <= {f.check for f in twin.findings}
    assert _keys(rep.findings) == _keys(twin.findings)
    trend = [f.predicted_failure_s for f in rep.findings if f.check == "dom_trend"]
    assert trend == pytest.approx([f.predicted_failure_s for f in twin.findings if f.check == "dom_trend"], rel=0.05)
