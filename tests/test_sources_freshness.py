"""How fresh a real source's readings are (tester AC): an exporter that stamps its chips a few hundred ms apart is
healthy; a page whose stamps are all old is one stale exporter, not every NPU lost."""

from __future__ import annotations

import time

from opsbrain.sources.exporter import parse_page
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
