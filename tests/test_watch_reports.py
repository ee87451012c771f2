"""``opsbrain watch`` reports what an operator must hear (session 31, a tester's real-format runs): noise does not
keep an incident open, so a second HBM UCE on a node is reported, as the repeat that calls for separating the NPU;
webhook posts never hold the poll loop or a stop; an exporter finding that clears and comes back is reported again;
a stop reports the incident still collecting, and a watch started again with its state file reads on where it
stopped."""

from __future__ import annotations

import threading
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from faultlib.telemetry import formats as fmt
from opsbrain.detection.params import DetectorParams
from opsbrain.sources.watch import Watcher

DT = datetime(2026, 12, 5, 2, 45, 10)
EXPORTER = ("[ERROR]    2026/12/05 02:45:{s:02d}.034681 60      collector/npu_collector.go:1924    get npu link stat "
            "failed, no such file or directory")


@pytest.fixture(scope="module")
def engine() -> Any:
    from opsbrain.kb.training import load_engine

    return load_engine()


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def _node(tmp_path: Path) -> tuple[Path, Path, Path]:
    root = tmp_path / "logs"
    exp = root / "npu-b07" / "dl_log" / "npu-exporter" / "npu-exporter.log"
    dev = root / "npu-b07" / "device_log" / "device-os.log"
    for f in (exp, dev):
        f.parent.mkdir(parents=True)
        f.write_text("")
    return root, exp, dev


def _append(path: Path, line: str) -> None:
    with path.open("a") as fh:
        fh.write(line + "\n")


def _watcher(root: Path, engine: Any, clock: Clock, **kw: Any) -> tuple[Watcher, list[dict[str, Any]]]:
    got: list[dict[str, Any]] = []
    return Watcher(root, engine, got.append, clock=clock, wall=lambda: 1.8e9 + clock.t, **kw), got


def test_exporter_noise_does_not_hide_a_second_uce_and_the_repeat_is_said(tmp_path: Path, engine: Any) -> None:
    root, exp, dev = _node(tmp_path)
    clock = Clock()
    w, got = _watcher(root, engine, clock)
    for i in range(19):  # npu-exporter's own read failure every 5 s (a monitoring self-failure, not the node's)
        clock.t = 5.0 * i
        _append(exp, EXPORTER.format(s=i * 3 % 60))
        if i == 0:
            _append(dev, fmt.device_os_event(DT, 3, "80E01801"))
        if i == 15:  # 75 s later: the same NPU's HBM fails again
            _append(dev, fmt.device_os_event(DT + timedelta(seconds=75), 3, "80E01801"))
        w.step()
        clock.t += 2.5
        w.step()
    uce = [r for r in got if r["fault_class"] == "hbm_uce"]
    assert [r["incident"] for r in uce] == ["w0001", "w0002"], [(r["incident"], r["fault_class"]) for r in got]
    assert uce[0]["repeat"] is None and uce[0]["advice"]["runbook"] == "rb-hbm-uce"
    rep = uce[1]["repeat"]
    assert rep["count"] == 2 and rep["earlier"] == ["w0001"] and rep["rule"]["to"] == "rb-hbm-uce-repeat"
    assert uce[1]["advice"]["runbook"] == "rb-hbm-uce-repeat"  # twice in 24 h: separate the NPU


def test_the_same_fault_again_within_an_incident_is_reported(tmp_path: Path, engine: Any) -> None:
    root, _exp, dev = _node(tmp_path)
    clock = Clock()
    w, got = _watcher(root, engine, clock)
    _append(dev, fmt.device_os_event(DT, 3, "80E01801"))
    w.step()
    clock.t = 3.0
    w.step()
    assert [r["update"] for r in got] == [False]
    clock.t = 30.0  # within the grouping window: the same incident, the same fault again
    _append(dev, fmt.device_os_event(DT + timedelta(seconds=30), 3, "80E01801"))
    w.step()
    clock.t = 32.0
    w.step()
    assert [r["update"] for r in got] == [False, True]
    assert "again" in got[1]["news"][0] and got[1]["repeat"]["count"] == 2
    assert got[1]["advice"]["runbook"] == "rb-hbm-uce-repeat"



def test_a_silent_webhook_holds_neither_polling_nor_the_stop(tmp_path: Path, engine: Any, blackhole: str) -> None:
    root = tmp_path / "logs"
    for h in ("a1", "a2", "a3"):
        (root / h).mkdir(parents=True)
        (root / h / "device-os.log").write_text("")
    got: list[dict[str, Any]] = []
    w = Watcher(root, engine, got.append, webhook=blackhole, poll_s=0.05)
    stop = threading.Event()
    out: dict[str, Any] = {}
    th = threading.Thread(target=lambda: out.update(w.run(stop)))
    th.start()
    try:
        time.sleep(0.3)
        t0 = time.monotonic()
        for h in ("a1", "a2", "a3"):
            _append(root / h / "device-os.log", fmt.device_os_event(DT, 3, "80E01801"))
        while len(got) < 3 and time.monotonic() - t0 < 8:
            time.sleep(0.05)
        assert len(got) == 3, "the webhook held the poll loop"  # each POST waits on the receiver's timeout
    finally:
        t_stop = time.monotonic()
        stop.set()
        th.join(60)
    from opsbrain.sources.watch import STOP_BUDGET_S

    assert time.monotonic() - t_stop <= STOP_BUDGET_S + 3.0
    assert any("not sent" in e or "not confirmed" in e for e in out["webhook_errors"]), out["webhook_errors"]


class _Source:
    name = "exporter"
    not_read: list[str] = []


def test_an_exporter_finding_that_clears_and_comes_back_is_reported_again(tmp_path: Path, engine: Any,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from opsbrain.sweeps.checks import Finding
    from opsbrain.sweeps.sweep import SweepReport

    link = Finding("node1/npu2", "link_light", "Alarm", "link down", "check the optics")
    pages = [[link], [], [link], [link], [Finding("node1/npu2", "link_light", "Critical", "down", "replace")]]

    def sweep(_src: Any) -> SweepReport:
        fs = pages.pop(0)
        return SweepReport(0.0, fs, {}, 1.0, {f.component: f.severity for f in fs})

    monkeypatch.setattr("opsbrain.sources.base.sweep_source", sweep)
    (tmp_path / "logs").mkdir()
    clock = Clock()
    w, got = _watcher(tmp_path / "logs", engine, clock, source=_Source(), sweep_every_s=1.0)
    for k in range(5):
        clock.t = 1.0 * k
        w.step()
    assert [(r["finding"]["severity"], r["again"]) for r in got] == [("Alarm", False), ("Alarm", True),
                                                                     ("Critical", False)]


def test_a_stop_reports_the_incident_still_collecting_and_a_restart_reads_on(tmp_path: Path, engine: Any) -> None:
    root = tmp_path / "logs"
    (root / "h9").mkdir(parents=True)
    log = root / "h9" / "device-os.log"
    log.write_text("[INFO] 2026-12-05 02:00:00 started\n")
    state = tmp_path / "watch.state"
    clock = Clock()
    w, got = _watcher(root, engine, clock, params=DetectorParams(collect_s=30.0), state_file=state)
    _append(log, fmt.device_os_event(DT, 3, "80E01801"))
    clock.t = 1.0
    w.step()
    assert got == []  # still collecting
    stop = threading.Event()
    stop.set()  # SIGTERM
    summary = w.run(stop)
    assert [(r["incident"], r["at_stop"], r["fault_class"]) for r in got] == [("w0001", True, "hbm_uce")]
    assert summary["reported_at_stop"] == 1 and state.exists()
    _append(log, fmt.device_os_event(DT + timedelta(hours=1), 5, "80E01801"))  # written while it is stopped
    clock2 = Clock()
    w2, got2 = _watcher(root, engine, clock2, state_file=state)
    w2.step()
    clock2.t = 3.0
    w2.step()
    assert [(r["incident"], r["root"]["device"]) for r in got2] == [("w0002", 5)]  # read on, numbered on
    assert w2.follower.resumed == 1 and got2[0]["evidence_lines"][0]["line"] == 2  # from where reading began
