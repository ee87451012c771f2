"""``opsbrain watch``: real-format lines appended to a followed directory become incidents with the right class
and an advised (dry-run) runbook within seconds; SIGTERM stops it within 5 s; the twin actuator executes advice."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import threading
import time
import weakref
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


_PENDING: weakref.WeakKeyDictionary[Any, bytes] = weakref.WeakKeyDictionary()
"""Per child pipe: the bytes :func:`_read_line` read past the last line it returned."""


def _read_line(proc: subprocess.Popen[str], stream: Any, deadline: float) -> str | None:
    """The next line of a child's pipe ("" at its end), or None if none is complete by ``deadline``. It reads the
    pipe's descriptor itself and keeps what it read past the line (:func:`_rest` gives it back): select() on a pipe
    does not see a line that a text stream's readline() has already pulled into its own buffer. Before session 42 it
    did select + readline, so when the watch printed two incidents together (both due in the same poll) and the test
    read late (a loaded machine, ``-n 2``), both lines came in one read and the second waited in that buffer until
    the deadline: "only 1 incidents within 5 s" (operator42)."""
    fd, buf = stream.fileno(), _PENDING.get(stream, b"")
    while b"\n" not in buf:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            _PENDING[stream] = buf
            return None
        chunk = os.read(fd, 65536)
        if not chunk:  # the pipe's end: what is left, as readline() gives it
            _PENDING[stream] = b""
            return buf.decode()
        buf += chunk
    line, _, _PENDING[stream] = buf.partition(b"\n")
    return line.decode() + "\n"


def _rest(stream: Any) -> str:
    """The rest of a pipe read by :func:`_read_line`, to its end."""
    return _PENDING.pop(stream, b"").decode() + stream.read()


def _budget(seconds: float) -> float:
    """A wall-clock bound the watch documents (docs/real-cluster.md: two incidents within 5 s of their lines, a stop
    within 5 s), widened on a loaded machine by its runnable processes per core (the 1-minute load average over the
    CPU count), at least 1 and at most 3 times: the child gets only part of a core then, and wall time measures the
    load, not the watch (session 42: with two busy loops on a 2-core machine the 2 s collection window and the two
    diagnoses took up to 4.0 s of the 5; 2.2-2.6 s without them). On an idle machine the bound is the documented one."""
    return seconds * min(3.0, max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1)))


def _start(tmp_path: Path, logs: Path, *extra: str) -> subprocess.Popen[str]:
    env = dict(os.environ, OPSBRAIN_HOME=str(tmp_path / "home"))
    proc = subprocess.Popen([sys.executable, "-m", "opsbrain", "watch", "--logs", str(logs), "--json", "--poll", "0.1",
                             *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    deadline, seen = time.monotonic() + 120, []  # the engine loads first (and may say so on a line of its own)
    while not seen or "watching" not in seen[-1]:
        line = _read_line(proc, proc.stderr, deadline)
        assert line, seen
        seen.append(line)
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
        budget = _budget(5.0)
        while len(got) < 2:
            line = _read_line(proc, proc.stdout, t0 + budget)
            assert line, f"only {len(got)} incidents within {budget:.1f} s"
            d = json.loads(line)
            got[d["node"]] = d
        wall = time.monotonic() - t0
        assert wall <= budget
        uce, link = got["worker-1"], got["worker-2"]
        assert uce["fault_class"] == "hbm_uce" and uce["root"]["device"] == 3
        assert uce["advice"]["runbook"] == "rb-hbm-uce" and uce["advice"]["advisory"]
        assert uce["advice"]["steps"][0]["target"] == "worker-1/npu3/hbm" and uce["executed"] == []
        assert link["fault_class"] == "roce_port_down" and link["root"]["device"] == 5
        assert link["advice"]["runbook"] == "rb-roce-port-down" and link["advice"]["steps"]
        t_stop = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=budget)
        assert time.monotonic() - t_stop <= budget and proc.returncode == 0
        summary = json.loads(_rest(proc.stdout).strip().splitlines()[-1])["summary"]
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


def test_read_line_returns_each_line_of_one_write_at_once() -> None:
    """The race behind the SIGTERM test's rare failure under ``-n 2`` (:func:`_read_line`): two lines that reach the
    reader in one read. A child writes both in one write (atomic below PIPE_BUF) and then sleeps; the second line
    must come at once, not at the deadline."""
    code = "import sys, time; sys.stdout.write('one\\ntwo\\n'); sys.stdout.flush(); time.sleep(60)"
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert _read_line(proc, proc.stdout, time.monotonic() + 60) == "one\n"
        t = time.monotonic()
        assert _read_line(proc, proc.stdout, t + 3.0) == "two\n" and time.monotonic() - t < 1.0
        assert _read_line(proc, proc.stdout, time.monotonic() + 0.2) is None  # nothing more yet: None at the deadline
    finally:
        proc.kill()
        proc.wait()
    assert _rest(proc.stdout) == ""
