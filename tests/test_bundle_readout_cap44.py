"""A bundle whose only evidence is status readouts is capped as ``--logs`` caps it (session 44, bundle44).

conf44 capped an answer resting on readouts alone at :data:`opsbrain.diagnosis.statecap.READOUT_CAP` under
``--logs`` only; a real collection's ``environment_check/worker-N/npu_info_before.txt`` holds such readouts, and
``--bundle`` answered roce_port_down at 0.69 from eight ports DOWN without optical modules. The files are laid out as
the MindCluster FaultDiag collection writes them (full command path, its answer, a blank line: ascend-fd's fixture
component/ascend-faultdiag/test/st_module_testcase/kg_parse/npu_info_before.txt at Ascend/mind-cluster 22bb3d98,
whose ``-optical -g`` answers ``present              : not present`` and ``-net_health -g`` ``net health status:
Socket failed``); ``link status: DOWN`` is ``hccn_tool -i N -link -g``'s answer (same commit,
component/ascend-common/devmanager/hccn/hccn_tool.go ``GetNPULinkStatus``). The stated fault beside them is device
0's port link-down event 0x81078603 in its device-OS log (hicann/driver@ef377e95 dms_event.c:1410, written by
faultlib.telemetry.devicelines.device_os_event)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from faultlib.telemetry.devicelines import device_os_event
from opsbrain.bundle import diagnose_bundle
from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.diagnosis.statecap import READOUT_CAP

HCCN = "/usr/local/Ascend/driver/tools/hccn_tool"
HEAD = "Datetime: 2024-09-09 13:13:44.179645\n\n"


def _port(i: int, health: str | None = None) -> str:
    out = (f"{HCCN} -i {i} -link -g\nlink status: DOWN\n\n"
           f"{HCCN} -i {i} -optical -g\noptical info:\npresent              : not present\n\n")
    return out + (f"{HCCN} -i {i} -net_health -g\nnet health status: {health}\n\n" if health else "")


def _collection(root: Path, health: str | None = None, event: bool = False) -> Path:
    env = root / "environment_check" / "worker-0"
    env.mkdir(parents=True)
    (env / "npu_info_before.txt").write_text(HEAD + "".join(_port(i, health) for i in range(8)), encoding="utf-8")
    if event:
        log = root / "device_log/slog/dev-os-0/run/device-os/device-os_20240909131002000.log"
        log.parent.mkdir(parents=True)
        log.write_text(device_os_event(datetime(2024, 9, 9, 13, 10, 2), 0, "0x81078603", uptime_s=1800.4) + "\n",
                       encoding="utf-8")
    return root


def _capped(d: dict[str, Any]) -> bool:
    return d["confidence"] <= READOUT_CAP and any("readout" in e for e in d["evidence"])


def test_a_bundle_of_readouts_alone_is_capped(engine: Any, tmp_path: Path) -> None:
    d = diagnose_bundle(_collection(tmp_path), engine)["diagnosis"]
    assert d["fault_class"] == "roce_port_down"  # the class stays: the states are consistent with it
    assert _capped(d), (d["confidence"], d["evidence"])


def test_net_health_readouts_are_capped_both_ways(engine: Any, tmp_path: Path) -> None:
    root = _collection(tmp_path, health="Socket failed")
    logs, bundle = diagnose_logs(str(root), engine)["diagnosis"], diagnose_bundle(root, engine)["diagnosis"]
    assert logs["fault_class"] == bundle["fault_class"] == "roce_port_down"
    assert _capped(logs) and _capped(bundle), (logs["confidence"], bundle["confidence"])


def test_a_command_line_and_its_answer_stay_two_lines() -> None:
    from opsbrain.ingest.pasterows import goes_on

    assert not goes_on(f"{HCCN} -i 0 -net_health -g", "net health status: Socket failed")
    assert goes_on("ValueError: the number of devices given in ASCEND_RT_VISIBLE_DEVICES must be less than the",
                   "number of visible devices (0).")  # a paste cut at its width is still joined


def test_a_stated_fault_beside_readouts_lifts_the_cap(engine: Any, tmp_path: Path) -> None:
    d = diagnose_bundle(_collection(tmp_path, event=True), engine)["diagnosis"]
    assert d["fault_class"] == "roce_port_down"
    assert not any("readout" in e for e in d["evidence"]), d["evidence"]
    assert d["confidence"] > READOUT_CAP
