"""``opsbrain watch``: real-format lines appended to a followed directory become incidents with the right class
and an advised (dry-run) runbook within seconds; SIGTERM stops it within 5 s; the twin actuator executes advice."""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from faultlib.telemetry import formats as fmt
from opsbrain.sources.advice import AdvisedStep, TwinActuator, advise
from opsbrain.sources.follow import LogFollower
from opsbrain.sources.watch import IncidentGrouper

DT = datetime(2025, 3, 1, 10, 3, 20)
UCE = [fmt.device_os_event(DT, 3, "80E01801"),  # event id 0x80E01801: RestartBusiness in faultCode.json
       fmt.device_plugin_fault(DT, 3, "80E01801", "RestartBusiness")]
LINK_DOWN = fmt.hccn_link_stat(DT, 5, [(DT, False)])  # hccn_tool -i 5 -link_stat -g with one LINK DOWN record


def _read_line(proc: subprocess.Popen[str], stream: Any, deadline: float) -> str | None:
    sel = selectors.DefaultSelector()
    sel.register(stream, selectors.EVENT_READ)
    while time.monotonic() < deadline:
        if sel.select(timeout=max(0.0, deadline - time.monotonic())):
            return stream.readline()
    return None


def _start(tmp_path: Path, logs: Path, *extra: str) -> subprocess.Popen[str]:
    env = dict(os.environ, OPSBRAIN_HOME=str(tmp_path / "home"))
    proc = subprocess.Popen([sys.executable, "-m", "opsbrain", "watch", "--logs", str(logs), "--json", "--poll", "0.1",
                             *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    line = _read_line(proc, proc.stderr, time.monotonic() + 120)  # the engine loads first
    assert line and "watching" in line, line
    return proc


def test_appended_uce_and_link_down_become_two_incidents_then_sigterm(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    (logs / "worker-1").mkdir(parents=True)
    (logs / "worker-2").mkdir()
    proc = _start(tmp_path, logs)
    try:
        t0 = time.monotonic()
        with (logs / "worker-1" / "device-os.log").open("a") as fh:  # a new file, then appended to
            fh.write(UCE[0] + "\n")
            fh.flush()
            fh.write(UCE[1] + "\n")
        with (logs / "worker-2" / "hccn_link_stat.txt").open("a") as fh:
            fh.write("\n".join(LINK_DOWN) + "\n")
        got: dict[str, dict[str, Any]] = {}
        while len(got) < 2:
            line = _read_line(proc, proc.stdout, t0 + 5.0)
            assert line, f"only {len(got)} incidents within 5 s"
            d = json.loads(line)
            got[d["node"]] = d
        wall = time.monotonic() - t0
        assert wall <= 5.0
        uce, link = got["worker-1"], got["worker-2"]
        assert uce["fault_class"] == "hbm_uce" and uce["root"]["device"] == 3
        assert uce["advice"]["runbook"] == "rb-hbm-uce" and uce["advice"]["advisory"]
        assert uce["advice"]["steps"][0]["target"] == "worker-1/npu3/hbm" and uce["executed"] == []
        assert link["fault_class"] == "roce_port_down" and link["root"]["device"] == 5
        assert link["advice"]["runbook"] == "rb-roce-port-down" and link["advice"]["steps"]
        t_stop = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=5)
        assert time.monotonic() - t_stop <= 5.0 and proc.returncode == 0
        summary = json.loads(proc.stdout.read().strip().splitlines()[-1])["summary"]
        assert summary["stopped_by"] == "SIGTERM" and summary["incidents"] == 2
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


class _Hook(BaseHTTPRequestHandler):
    posts: list[dict[str, Any]] = []

    def do_POST(self) -> None:  # noqa: N802
        n = int(self.headers["Content-Length"])
        _Hook.posts.append(json.loads(self.rfile.read(n)))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


def test_webhook_gets_each_incident_and_max_runtime_stops(tmp_path: Path) -> None:
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Hook)
    th = threading.Thread(target=srv.serve_forever, daemon=True)
    th.start()
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "old.log").write_text(UCE[0] + "\n")  # already there: followed from its end, not reported
    try:
        url = f"http://127.0.0.1:{srv.server_address[1]}/hook"
        proc = _start(tmp_path, logs, "--webhook", url, "--max-runtime", "4")
        (logs / "worker-9").mkdir()
        (logs / "worker-9" / "device.log").write_text("\n".join(UCE) + "\n")
        out, err = proc.communicate(timeout=30)
        assert proc.returncode == 0, err
        assert [p["fault_class"] for p in _Hook.posts] == ["hbm_uce"] and _Hook.posts[0]["node"] == "worker-9"
        assert json.loads(out.strip().splitlines()[-1])["summary"]["stopped_by"] == "max-runtime"
    finally:
        srv.shutdown()
        srv.server_close()


def test_bad_watch_input_is_one_line_exit_2(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from opsbrain.cli import cli

    for args, why in ((["--logs", str(tmp_path / "nope")], "no such directory"),
                      (["--logs", str(tmp_path), "--webhook", "ftp://x"], "not an http(s) URL"),
                      (["--logs", str(tmp_path), "--max-runtime", "0"], "--max-runtime")):
        res = CliRunner().invoke(cli, ["watch", *args], env={"OPSBRAIN_HOME": str(tmp_path)})
        assert res.exit_code == 2 and why in res.stderr, res.output


def test_follower_reads_appends_partial_lines_and_truncation(tmp_path: Path) -> None:
    f = tmp_path / "h1" / "a.log"
    f.parent.mkdir()
    follow = LogFollower(tmp_path)
    f.write_text(UCE[0][:40])
    assert follow.poll(1.0) == []  # a partial line waits for its end
    with f.open("a") as fh:
        fh.write(UCE[0][40:] + "\n")
    (sig, *_rest) = follow.poll(2.0)
    assert sig.component == "h1/npu3" and sig.file == os.path.join("h1", "a.log") and sig.line_no == 1
    f.write_text(fmt.hccn_link_record(DT, 5, False) + "\n")  # rewritten shorter: read again from the start
    again = follow.poll(3.0)
    assert "hccn:down" in {x.kind for x in again} and {x.line_no for x in again} == {1}


def test_grouper_keeps_nodes_apart_and_joins_within_the_window() -> None:
    from opsbrain.ingest import Signal

    g = IncidentGrouper()
    g.feed(Signal(0, "dev:80E01801", "a/npu1", "a", 2, "x"), 0.0)
    g.feed(Signal(0, "rt:507053", "a/npu1", "a", 2, "y"), 1.0)
    g.feed(Signal(0, "hccn:down", "b/npu2", "b", 2, "z"), 1.0)
    g.feed(Signal(0, "dev:80E01801", "a/npu1", "a", 2, "x"), 200.0)  # past the window: a new incident
    assert [len(i.signals) for i in g.incidents] == [2, 1, 1]
    assert [i.id for i in g.due(2.5)] == ["w0001"]  # collected for detection.collect_s (2 s) first
    assert [i.id for i in g.due(3.5)] == ["w0001", "w0002"]


def test_twin_actuator_executes_the_advised_row_isolation() -> None:
    from faultlib.engine import Simulation
    from faultlib.simparams import SimParams
    from faultlib.topology import Topology, TopologyParams

    topo = Topology.build(TopologyParams(nodes_per_pod=4, l1_per_node=1, l2_planes=1, l2_per_plane=1, l2_ports=4),
                          pods=1)
    sim = Simulation(SimParams(), seed=0, topology=topo)
    advice = advise("rb-hbm-uce", "pod0/node1/npu3")
    act = TwinActuator(sim)
    step = AdvisedStep(**advice["steps"][0])
    assert step.target == "pod0/node1/npu3/hbm"
    out = act.execute(step)
    assert out["status"] == "succeeded", out
    assert act.execute(AdvisedStep(**advice["steps"][1]))["status"] == "skipped"  # workloads: not in the logs


@pytest.mark.parametrize("rb", ["rb-node-crash", "rb-link-down", "rb-roce-port-down"])
def test_advice_resolves_every_step_or_says_it_cannot(rb: str) -> None:
    adv = advise(rb, "worker-3/npu2")
    assert adv["advisory"] and adv["steps"]
    for st in adv["steps"]:
        assert st["target"] is None or st["target"].startswith("worker-3"), st


def test_watch_also_sweeps_an_exporter_and_reports_new_alarms_once(tmp_path: Path) -> None:
    from opsbrain.sources.exporter import render_twin_page
    from opsbrain.sources.serve import PageServer
    from tests.test_sources import T, small_pod, static_faults

    sim = small_pod()
    static_faults(sim)
    sim.run(T)
    page = render_twin_page(sim)
    logs = tmp_path / "logs"
    logs.mkdir()
    with PageServer(lambda: page) as srv:
        proc = _start(tmp_path, logs, "--url", srv.url, "--sweep-interval", "0.5", "--max-runtime", "3")
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    rows = [json.loads(x) for x in out.strip().splitlines()]
    summary = rows.pop()["summary"]
    found = [(r["finding"]["component"], r["finding"]["check"]) for r in rows]
    assert ("pod0/node0/npu3", "npu_temp") in found and len(found) == len(set(found))  # each reported once
    assert summary["sweeps"] >= 2 and not summary["source_errors"] and all(r["advisory"] for r in rows)
