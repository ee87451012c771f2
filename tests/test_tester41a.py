"""Hardware text from session 41's blind look (tester41a): the ``npu-smi info`` table rows of the 310 family (310B1,
310P3) carry the same Health column as a 910's, and a row not OK is read the same way (``smi:<word>`` on that NPU)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.ingest.text import ingest_text

# https://www.hiascend.com/forum/thread-02114177666655790005-1-1.html: an Atlas host's ``npu-smi info`` with every
# 310B1 NPU at Alarm, as the forum page keeps it (its column padding collapsed to single spaces); cut after NPU 4.
ALARM_310B = "\n".join([
    "[root@localhost test]# npu-smi info",
    "+" + "-" * 104 + "+",
    "| npu-smi 23.0.5 Version: 23.0.5 |",
    "+-------------------------------+-----------------+------------------------------------------------------+",
    "| NPU Name | Health | Power(W) Temp(C) Hugepages-Usage(page) |",
    "| Chip Device | Bus-Id | AICore(%) Memory-Usage(MB) |",
    "+===============================+=================+======================================================+",
    "| 0 310B1 | Alarm | 0.0 49 15 / 15 |",
    "| 0 0 | 0000:11:00.0 | 0 600 / 7578 |",
    "+===============================+=================+======================================================+",
    "| 1 310B1 | Alarm | 0.0 54 15 / 15 |",
    "| 0 1 | 0000:12:00.0 | 0 597 / 7578 |",
    "+===============================+=================+======================================================+",
    "| 2 310B1 | Alarm | 0.0 54 15 / 15 |",
    "| 0 2 | 0000:13:00.0 | 0 570 / 7578 |",
    "+===============================+=================+======================================================+",
    "| 3 310B1 | Alarm | 0.0 52 15 / 15 |",
    "| 0 3 | 0000:14:00.0 | 0 570 / 7578 |",
    "+===============================+=================+======================================================+",
    "| 4 310B1 | Alarm | 0.0 48 15 / 15 |",
    "| 0 4 | 0000:15:00.0 | 0 570 / 7578 |",
    "+===============================+=================+======================================================+",
]) + "\n"

# The npu-smi reference's own healthy row of the same chip (Atlas 200I A2, npusmi_007:
# https://www.hiascend.com/doc_center/source/zh/Atlas%20200I%20A2/23.0.RC3/re/npu/npusmi_007.html).
OK_310B = ("| 0       310B1                 | OK              | 10.4          66                15    / 15"
           "           |\n"
           "| 0       0                     | NA              | 0            957   / 10810"
           "                           |\n")


def test_a_310_row_not_ok_is_read_on_its_npu() -> None:
    sigs = ingest_text(ALARM_310B)[0]
    assert [(s.kind, s.component) for s in sigs] == [("smi:alarm", f"npu{k}") for k in range(5)]


def test_a_310_row_ok_gives_nothing() -> None:
    assert ingest_text(OK_310B)[0] == []


@pytest.fixture(scope="module")
def engine() -> Any:
    from opsbrain.kb.training import load_engine

    return load_engine()


def test_the_alarm_table_is_not_reported_as_no_fault(tmp_path: Path, engine: Any) -> None:
    log = tmp_path / "npu-smi.txt"
    log.write_text(ALARM_310B)
    d = diagnose_logs(str(log), engine)["diagnosis"]
    assert any("smi:alarm" in e for e in d["evidence"]), d["evidence"]
    assert not any(e.startswith("no fault found") for e in d["evidence"])
