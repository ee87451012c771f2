"""``--logs DIR`` and ``--bundle`` name a verdict's root device by one rule (session 44, bundle44).

Where the verdict's component is a node, a device is named where its failing signals placed on a device are all on
that one (opsbrain.diagnosis.rootdevice). Before, ``--bundle`` named device 3 of a device's own slog (its signals all
on that device) and ``--logs DIR`` of the same files none (session 43's note).

Inputs: a device's own slog (``slog/debug/device-3/device-3_<stamp>.log``, CANN log reference; the lines of
tests/test_device_slog43.py), and a host whose syslog holds a hard lockup and its panic (kernel/watchdog_hld.c and
``Kernel panic - not syncing: Hard LOCKUP``, docs/formats.md "Host kernel texts") beside device 3's port link-down
event 0x81078603 (the driver's fault-manager line, hicann/driver@ef377e95 dms_event.c:1410, written by
faultlib.telemetry.devicelines.device_os_event)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from faultlib.telemetry.devicelines import device_os_event
from opsbrain.bundle import diagnose_bundle
from opsbrain.diagnosis.oneclick import diagnose_logs
from tests.test_device_slog43 import LINES, STAMP

PANIC = ["Jun 19 09:01:38 node-1 kernel: [ 1800.100000] NMI watchdog: Watchdog detected hard LOCKUP on cpu 12",
         "Jun 19 09:01:39 node-1 kernel: [ 1800.200000] Kernel panic - not syncing: Hard LOCKUP"]


def _both(engine: Any, root: Path) -> list[dict[str, Any]]:
    return [diagnose_logs(str(root), engine)["diagnosis"], diagnose_bundle(root, engine)["diagnosis"]]


def test_a_device_slog_names_its_device_both_ways(engine: Any, tmp_path: Path) -> None:
    p = tmp_path / "node-1" / f"var/log/npu/slog/debug/device-3/device-3_{STAMP}.log"
    p.parent.mkdir(parents=True)
    p.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    logs, bundle = _both(engine, tmp_path)
    assert logs["fault_class"] == bundle["fault_class"] != "unknown"
    assert (logs["root"]["host"], logs["root"]["device"]) == (bundle["root"]["host"], bundle["root"]["device"]) \
        == ("node-1", 3), (logs["root"], bundle["root"])


def test_a_node_crash_beside_a_port_event_is_placed_alike(engine: Any, tmp_path: Path) -> None:
    """(A guard, passing before too: both name device 3, ``--bundle`` by the port event's place, ``--logs`` by the
    event line's ``device_id=3``; the rule keeps them together.)"""
    (tmp_path / "node-1").mkdir()
    (tmp_path / "node-1" / "messages").write_text("\n".join(PANIC) + "\n", encoding="utf-8")
    dev = tmp_path / "node-1/device_log/slog/dev-os-3/run/device-os/device-os_20250619090139000.log"
    dev.parent.mkdir(parents=True)
    dev.write_text(device_os_event(datetime(2025, 6, 19, 9, 1, 39), 3, "0x81078603", uptime_s=1800.4) + "\n",
                   encoding="utf-8")
    logs, bundle = _both(engine, tmp_path)
    assert logs["fault_class"] == bundle["fault_class"] == "node_crash"
    assert (logs["root"]["host"], logs["root"]["device"]) == (bundle["root"]["host"], bundle["root"]["device"])


@pytest.mark.parametrize("comps, want", [
    (["w/npu3", "w/npu3/hbm"], "w/npu3"),
    (["w", "w/npu3"], "w/npu3"),  # a node's own line says nothing against the device
    (["w/npu3", "w/npu4"], None),
    ([None, "w/npu3"], "w/npu3"),  # a line placed nowhere does not speak against the device
])
def test_placed_device(comps: list[str | None], want: str | None) -> None:
    from opsbrain.diagnosis.rootdevice import placed_device
    from opsbrain.ingest import Signal

    sigs = [Signal(0.0, "x:y", c, None, 2, "t") for c in comps] + [Signal(0.0, "level:info", "w/npu5", None, 1, "t"),
                                                                    Signal(0.0, "hccn:up", "w/npu6", None, 0, "t")]
    assert placed_device(sigs) == want
