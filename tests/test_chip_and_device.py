"""A text that gives a process's logical device (torch_npu's ``(PID:4242, Device:0, ...)``) and the runtime's physical
chip id of the same process (``device(chipId:7, dieId:0)``) names one device in the headline and the root cluster,
and says which number is which: ``device 0 (chip 7)`` (session 32, tester BA case 10: the headline said device 7,
the root cluster device 0)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

SAME_LINE = (
    "RuntimeError: npuSynchronizeDevice: NPU function error: AclrtSynchronizeDeviceWithTimeout, error code is 507015\n"
    "[ERROR] 2025-11-08-21:35:27 (PID:4242, Device:0, RankID:-1) ERR00100 PTA call acl api failed\n"
    "EZ9999: Inner Error!\n"
    "EZ9999: [PID: 4242] 2025-11-08-21:35:27.904.479 The error from device(chipId:7, dieId:0), serial number is 1, "
    "there is an exception of fftsplus aivector error, core id is 32, error code = 0x800000\n")
BLOCK = (
    "[PID: 920] 2026-05-08-03:20:31.847.821 Invalid_Argument(EL0003): The argument is invalid.\n"
    "        TraceBack (most recent call last):\n"
    "        The error from device(chipId:6, dieId:0), serial number is 3, there is an exception of fftsplus aicore "
    "error, core id is 3, error code = 0x800000\n"
    "[ERROR] 2026-05-08-03:20:32 (PID:920, Device:12, RankID:-1) ERR02005 DIST internal error\n"
    "[ERROR] 2026-05-08-03:20:32 (PID:920, Device:12, RankID:-1) ERR02005 DIST internal error\n")


@pytest.fixture(scope="module")
def engine() -> Any:
    from opsbrain.kb.training import load_engine

    return load_engine()


@pytest.mark.parametrize("text, device, chip", [(SAME_LINE, 0, 7), (BLOCK, 12, 6)], ids=["same-line", "block"])
def test_the_headline_and_the_root_cluster_name_one_device_and_its_chip(engine: Any, text: str, device: int,
                                                                        chip: int) -> None:
    from opsbrain.diagnosis.oneclick import diagnose_logs

    d = diagnose_logs("-", engine, stdin=io.BytesIO(text.encode()))["diagnosis"]
    assert (d["root"]["device"], d["root"].get("chip")) == (device, chip), d["root"]
    root = d["root_cluster"]["roots"][0]
    assert (root["device"], root.get("chip")) == (device, chip), root
    assert d["root_cluster"]["root"] == f"device {device} (chip {chip})"


def test_a_chip_of_another_process_is_not_taken(engine: Any) -> None:
    from opsbrain.diagnosis.oneclick import diagnose_logs

    text = SAME_LINE.replace("[PID: 4242]", "[PID: 5151]")
    d = diagnose_logs("-", engine, stdin=io.BytesIO(text.encode()))["diagnosis"]
    assert d["root_cluster"]["roots"][0].get("chip") is None and d["root_cluster"]["root"] == "device 0"


def test_the_text_output_says_which_is_which(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from opsbrain.cli import cli

    f = tmp_path / "paste.txt"
    f.write_text(SAME_LINE)
    run = CliRunner().invoke(cli, ["diagnose", "--logs", str(f), "--data-dir", str(tmp_path / "home")])
    assert run.exit_code == 0, run.output
    head = run.stdout.splitlines()[0]
    assert "at device 0 (chip 7)" in head, head
    assert "root device 0 (chip 7)" in run.stdout
    run = CliRunner().invoke(cli, ["diagnose", "--logs", str(f), "--json", "--data-dir", str(tmp_path / "home")])
    assert json.loads(run.stdout)["diagnosis"]["root"]["chip"] == 7


def test_a_bundle_names_the_device_and_its_chip_alike(tmp_path: Path, engine: Any) -> None:
    from opsbrain.bundle import diagnose_bundle

    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "console.log").write_text(SAME_LINE)
    d = diagnose_bundle(tmp_path / "b", engine)["diagnosis"]
    assert (d["root"]["device"], d["root"].get("chip")) == (0, 7), d["root"]
    assert d["root_cluster"]["root"].endswith("device 0 (chip 7)")
