"""How fresh a real source's readings are (tester AC): an exporter that stamps its chips a few hundred ms apart is
healthy; a page whose stamps are all old is one stale exporter, not every NPU lost; collected outputs carry their
collection time, and findings from old ones are stale, not current Criticals."""

from __future__ import annotations

import json
import os
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

from opsbrain.cli import cli
from opsbrain.sources.exporter import parse_page
from opsbrain.sources.freshness import Collected, collection_time, stamp_of
from opsbrain.sources.readings import CollectionHistory, snapshot_from
from opsbrain.sweeps.params import SweepParams
from opsbrain.sweeps.sweep import sweep_snapshot

P = SweepParams()


def spread_page(n: int, newest_ms: int, step_ms: int, host: str = "") -> str:
    """``n`` chips stamped ``step_ms`` apart, the last at ``newest_ms`` (MindCluster's example page: ~350 ms)."""
    inst = f'instance="{host}:8082",' if host else ""
    return "".join(f'npu_chip_info_temperature{{{inst}id="{i}"}} 45 {newest_ms - (n - 1 - i) * step_ms}\n'
                   f'npu_chip_info_health_status{{{inst}id="{i}"}} 1 {newest_ms - (n - 1 - i) * step_ms}\n'
                   for i in range(n))


def heartbeat(text: str, now: float) -> list:
    snap = snapshot_from(parse_page(text, default_host="node-1", now=now), CollectionHistory(), P)
    return [f for f in sweep_snapshot(snap, P, ["heartbeat"]).findings]


def test_chips_stamped_350_ms_apart_are_healthy() -> None:
    now = time.time()
    assert heartbeat(spread_page(16, int(now * 1000) - 1000, 350), now) == []  # 5.25 s from first to last stamp
    assert heartbeat(spread_page(8, int(now * 1000) - 1000, 350), now) == []


def test_a_chip_a_refresh_and_more_behind_is_still_found() -> None:
    now = time.time()
    ms = int(now * 1000)
    text = spread_page(4, ms - 500, 100) + f'npu_chip_info_temperature{{id="9"}} 45 {ms - 500 - 40_000}\n'
    found = heartbeat(text, now)
    assert [(f.component, f.severity) for f in found] == [("node-1/npu9", "Critical")]
    assert "lag its node's newest by 40 s" in found[0].evidence


def test_a_page_twenty_minutes_old_is_one_stale_exporter_not_every_npu_lost() -> None:
    now = time.time()
    found = heartbeat(spread_page(8, int(now * 1000) - 1_200_000, 0), now)
    assert [(f.component, f.check, f.severity) for f in found] == [("node-1", "heartbeat", "Alarm")]
    assert "metrics stale" in found[0].evidence and "1200 s old" in found[0].evidence
    assert found[0].data["stale_node"] is True


def test_one_stale_node_of_a_federated_page_leaves_the_other_alone() -> None:
    now = time.time()
    ms = int(now * 1000)
    text = spread_page(4, ms - 1000, 300, host="a") + spread_page(4, ms - 900_000, 300, host="b")
    found = heartbeat(text, now)
    assert [(f.component, f.severity) for f in found] == [("b", "Alarm")]


# ---- collected command outputs: their collection time, and stale ones (tester AC, 13) -------------------------------
LINK_DOWN = "/usr/local/Ascend/driver/tools/hccn_tool -i 4 -link -g\nlink status: DOWN\n"


def _sweep_dir(tmp_path: Path, text: str, mtime: float | None = None) -> dict:
    host = tmp_path / "c" / "bj-npu-0421"
    host.mkdir(parents=True, exist_ok=True)
    f = host / "npu_info_before.txt"
    f.write_text(text)
    if mtime is not None:
        os.utime(f, (mtime, mtime))
    res = CliRunner().invoke(cli, ["sweep", "once", "--source", "commands", "--dir", str(tmp_path / "c"), "--json"],
                             env={"OPSBRAIN_HOME": str(tmp_path / "home")})
    assert res.exit_code in (0, 1), res.output
    return json.loads(res.stdout)


def test_outputs_collected_three_days_ago_are_stale_not_current_criticals(tmp_path: Path) -> None:
    then = datetime.now() - timedelta(days=3)  # the Datetime: stamp is the collecting host's local time
    out = _sweep_dir(tmp_path, f"Datetime: {then:%Y-%m-%d %H:%M:%S.%f}\n\n" + LINK_DOWN)
    (f,) = out["findings"]
    assert (f["component"], f["severity"], f["data"]["severity_when_collected"]) == ("bj-npu-0421/npu4/port",
                                                                                     "Warning", "Critical")
    assert f["data"]["stale"] is True and f["evidence"].startswith("[stale: from outputs collected ")
    assert "3.0 d ago" in f["evidence"] and out["exit_code"] == 0 and out["severity"] == "Warning"
    (c,) = out["coverage"]["collected"]
    assert c["node"] == "bj-npu-0421" and c["from"] == "its Datetime: line" and c["stale"] is True
    assert c["age_s"] == pytest.approx(3 * 86400, abs=60)


def test_without_a_stamp_the_files_mtime_is_its_collection_time(tmp_path: Path) -> None:
    out = _sweep_dir(tmp_path, LINK_DOWN, mtime=time.time() - 3 * 86400)
    assert out["findings"][0]["severity"] == "Warning" and out["findings"][0]["data"]["stale"] is True
    assert out["coverage"]["collected"][0]["from"] == "the file's modification time"


def test_fresh_outputs_stay_current(tmp_path: Path) -> None:
    out = _sweep_dir(tmp_path, f"Datetime: {datetime.now():%Y-%m-%d %H:%M:%S.%f}\n\n" + LINK_DOWN,
                     mtime=time.time() - 3 * 86400)  # the file's own stamp wins over a copy's old mtime
    assert out["findings"][0]["severity"] == "Critical" and "stale" not in out["findings"][0]["data"]
    assert out["exit_code"] == 1 and out["coverage"]["collected"][0]["stale"] is False


def test_stamps_a_file_states() -> None:
    assert stamp_of("Sat Dec  5 02:50:00 UTC 2026\n" + LINK_DOWN) == Collected(
        datetime(2026, 12, 5, 2, 50, tzinfo=UTC).timestamp(), "its date line")
    assert stamp_of("Sat Dec  5 10:50:00 +0800 2026\n").t == datetime(2026, 12, 5, 2, 50, tzinfo=UTC).timestamp()
    assert stamp_of(LINK_DOWN) is None
    ahead = datetime.now() + timedelta(hours=8)  # a collecting host eight zones east, read as our local time
    got = collection_time(f"Datetime: {ahead:%Y-%m-%d %H:%M:%S}\n", mtime=1000.0)
    assert got.t == 1000.0 and "8.0 h ahead" in got.how
