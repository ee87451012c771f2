"""``--logs DIR`` and ``--bundle`` name a switch as the root where a verdict's failing signals are all on it
(session 45, bundle45): one rule (opsbrain.diagnosis.rootswitch), the switch by its folder in the collection
(``lcne_log/<switch>/``), as the user's collection names it.

Before, ``--bundle`` named no root host for such a verdict (a switch is no worker) and ``--logs DIR`` named the
folder ``lcne_log/NAME-D01-XX.224`` (its ``sysname`` taken for a host written in that directory) or the directory
given (``sw``: a switch chip's log placed on the root's name).

Inputs: a UB switch chip's LCNE log with the chip's alarm (``UBSW/4/ALARM: ... alarmID=0x08520003 port=UB0/0/5``:
ascend-fd's lcne_log fixture form and SwitchFaultCode.json's tuple, tests/test_telemetry_origin.py's "switch alarm")
and a port trap (``%%01IFNET/2/linkDown_active(l)``, the VRP trap of tests/test_bundle_real_names.py), and a
switch's ``display`` answers in its LCNE folder (``diag_display_info.txt``: MindCluster's switch_logs sample, TX lane 0
of 400GE1/0/25 at 7.98 dBm over its 7.00 dBm threshold; tests/test_transceiver_power.py's ``CE_224`` with its
source)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from opsbrain.bundle import diagnose_bundle
from opsbrain.diagnosis.oneclick import diagnose_logs
from tests.test_transceiver_power import CE_224

CHIP = "gz-l2p2-sw05"
LOG = [f"2025-03-01 00:10:00.000 {CHIP} UBSW/4/ALARM: WARN [0x08520003,na,L2,na] Assertion alarmID=0x08520003 "
       "port=UB0/0/5",
       f"2025-03-01 00:10:00.000 {CHIP} %%01IFNET/2/linkDown_active(l): The interface status changes. "
       "(ifName=UB0/0/36, AdminStatus=UP, OperStatus=DOWN)"]
DUMPS = {
    "chip log": (CHIP, {f"lcne_log/{CHIP}/log.log": "\n".join(LOG) + "\n"}),
    "display dump": ("NAME-D01-XX.224", {"lcne_log/NAME-D01-XX.224/diag_display_info.txt":
                                         "#\nsysname NAME-D01-XX.224\n#\n" + CE_224}),
    "display dump, sample's name": ("NAME-D01-XX.224", {"lcne_log/NAME-D01-XX.224/diag_display_info_224.txt": CE_224}),
}


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


@pytest.mark.parametrize("case", sorted(DUMPS))
def test_a_switch_only_verdict_names_the_switch_both_ways(engine: Any, tmp_path: Path, case: str) -> None:
    switch, files = DUMPS[case]
    root = _write(tmp_path / "sw1", files)  # (a directory name with a digit: --logs may take it for a host's)
    logs = diagnose_logs(str(root), engine)["diagnosis"]
    bundle = diagnose_bundle(root, engine)["diagnosis"]
    assert logs["fault_class"] == bundle["fault_class"], (logs, bundle)
    for d in (logs, bundle):
        r = d["root"]
        assert (r.get("host"), r.get("switch"), r.get("device")) == (switch, switch, None), r
        assert str(r.get("component")).split("/")[0] == switch, r
        assert any(f"switch {switch}" in e for e in d["evidence"]), d["evidence"]
    assert logs["root"] == bundle["root"]


def test_a_chip_of_a_host_stays_the_host_s(engine: Any, tmp_path: Path) -> None:
    """(A guard: an L1 chip named after a host of the collection is a part of that host, both ways, as before.)"""
    chip = "gz-a3-r07-n36-l1sw2"
    root = _write(tmp_path / "b", {
        "gz-a3-r07-n36/environment_check/npu_info_before.txt": "$ npu-smi info -t health -i 0\nHealth Status : OK\n",
        f"lcne_log/{chip}/log.log": LOG[0].replace(CHIP, chip) + "\n"})
    for d in (diagnose_logs(str(root), engine)["diagnosis"], diagnose_bundle(root, engine)["diagnosis"]):
        assert d["root"].get("host") == "gz-a3-r07-n36" and d["root"].get("switch") is None, d["root"]
