"""The fault codes ``npu-smi info -t health`` prints (``Error Code``), read by the commands source into the same
``Readings.npu_fault_codes`` the exporter's ``npu_chip_info_error_code`` fills, so the sweep's ``npu_health`` finding
names each code with the knowledge base's meaning (opsbrain/sweeps/devcodes.py) whichever source read it.

Layouts: Huawei's npu-smi manual ("查询指定芯片健康状态", ``npu-smi info -t health -i id -c chip_id``: ``Health
Status``, ``Error Code``, ``Error Information``, ``NA`` when healthy; the device-level ``npu-smi info -t health -i
id``: ``NPU ID``, ``Health``, ``Error Code``, ``Error Information``) and MindCluster ascend-fd's collection fixture
``test/st_module_testcase/kg_parse/npu_info_after.txt`` (several codes on one line, separated by spaces, and the
``Error Information`` continued on lines with no key of their own). The codes and texts below are ours in that
layout."""

from __future__ import annotations

from pathlib import Path

import pytest

from opsbrain.ingest.commands import parse_command_outputs
from opsbrain.sources import sweep_source
from opsbrain.sources.commands import CommandDirSource, readings_of
from tests.test_exporter_series import NOW, by, sweep

AFTER = (Path(__file__).resolve().parents[2] / "shared" / "reference" / "ascend-fd-fixtures" / "st_module_testcase"
         / "kg_parse" / "npu_info_after.txt")

CHIP = ("/usr/local/bin/npu-smi info -i {dev} -c 0 -t health\n"
        "\tHealth Status                  : {health}\n"
        "\tError Code                     : {codes}\n"
        "\tError Information              : {info}\n")
DEVICE = ("npu-smi info -t health -i {dev}\n"
          "        NPU ID                         : {dev}\n"
          "        Health                         : {health}\n"
          "        Error Code                     : {codes}\n"
          "        Error Information              : NA\n")


def test_several_codes_on_a_line_are_read_as_the_exporters_and_rated_by_the_knowledge_base() -> None:
    text = (CHIP.format(dev=3, health="Alarm", codes="80E01801 80E18401",
                        info="node type=HBM, sensor type=Memory, event state=uncorrectable ECC")
            + "\t                               : node type=L2BUFF, sensor type=Memory, event state=multi-bit ECC\n"
            + CHIP.format(dev=1, health="OK", codes="NA", info="NA")
            + DEVICE.format(dev=2, health="Warning", codes="80DEAD01"))
    c = parse_command_outputs(text, "w")
    assert c.fault_codes == {3: ["80E01801", "80E18401"], 1: [], 2: ["80DEAD01"]} and c.notes == []
    r = readings_of([c], NOW)
    assert r.npu_fault_codes == {"w/npu3": ["80E01801", "80E18401"], "w/npu1": [], "w/npu2": ["80DEAD01"]}
    assert r.npu_health == {"w/npu3": 2, "w/npu1": 0, "w/npu2": 1}
    got = by(sweep(r), "npu_health")
    assert sorted(got) == ["w/npu2", "w/npu3"]
    f3 = got["w/npu3"]  # the same words as for the exporter's npu_chip_info_error_code (tests/test_exporter_series.py)
    assert f3.severity == "Alarm"
    assert "0x80E01801" in f3.evidence and "uncorrectable (multi-bit) ECC error on an HBM access" in f3.evidence
    assert "hbm_uce" in f3.evidence and "RestartBusiness" in f3.evidence and "0x80E18401" in f3.evidence
    assert [x["code"] for x in f3.data["fault_codes"]] == ["0x80E01801", "0x80E18401"]
    assert "re-run the job" in f3.suggested_action
    assert got["w/npu2"].severity == "Warning" and "not in the knowledge base" in got["w/npu2"].evidence


def test_a_codes_meaning_is_the_same_from_either_source() -> None:
    from opsbrain.sources.exporter import parse_page
    from tests.test_exporter_series import family

    page = (family("npu_chip_info_health_status", {0: 0.0}) + family("npu_chip_info_error_code", {0: 0x80E01801}))
    exp = by(sweep(parse_page(page, "w", now=NOW)), "npu_health")["w/npu0"]
    cmd = by(sweep(readings_of([parse_command_outputs(CHIP.format(dev=0, health="Alarm", codes="80E01801",
                                                                   info="x"), "w")], NOW)), "npu_health")["w/npu0"]
    assert cmd.data["fault_codes"] == exp.data["fault_codes"] and cmd.severity == exp.severity
    assert cmd.evidence.split("; ", 1)[1] == exp.evidence.split("; ", 1)[1]  # past the stated-health clause


def test_chips_of_an_npu_are_read_together_and_the_worse_health_kept() -> None:
    text = (CHIP.format(dev=4, health="OK", codes="NA", info="NA")
            + CHIP.format(dev=4, health="Critical", codes="0x80E01801", info="x").replace("-c 0", "-c 1")
            + "npu-smi info\n"
            "| 4     Ascend910           | OK            | 180.2       51                0    / 0             |\n")
    c = parse_command_outputs(text, "n")
    assert c.fault_codes == {4: ["80E01801"]} and c.health_status == {4: "Critical"} and c.npu_health == {4: "OK"}
    assert readings_of([c], NOW).npu_health == {"n/npu4": 3}  # the table's OK and -t health's Critical: the worse


def test_garbled_health_outputs_are_noted_not_raised(tmp_path: Path) -> None:
    text = (DEVICE.format(dev=0, health="Alarm", codes="80E01801, GARBAGE; 1801 00000000")  # 1 good, 2 bad, 1 none
            + "npu-smi info -t health -i 7\nError parameter of -i\n"                   # no Health, no Error Code
            + "npu-smi info -t health\n\x00\xff: :\n"                                  # no device
            + DEVICE.format(dev=5, health="OK", codes="none"))
    c = parse_command_outputs(text, "n")
    assert c.fault_codes == {0: ["80E01801"], 5: []}
    (tmp_path / "n").mkdir()
    (tmp_path / "n" / "health.txt").write_text(text)
    src = CommandDirSource(tmp_path)
    rep = sweep_source(src)
    assert {f.component for f in rep.findings if f.check == "npu_health"} == {"n/npu0"}
    dropped = src.coverage()["dropped"]
    assert len(dropped) == 2, dropped
    assert dropped[0].startswith("2 npu-smi info -t health Error Code values that are no hex fault code")
    assert "GARBAGE" in dropped[0] and dropped[1].startswith("2 npu-smi info -t health outputs without")


@pytest.mark.skipif(not AFTER.is_file(), reason="reference fixtures (../shared) not present")
def test_ascend_fd_collection_fixture() -> None:
    c = parse_command_outputs(AFTER.read_text(errors="replace"), "host-a")
    assert c.fault_codes == {0: ["A4025021", "8C03A000", "8C084E00"]} and c.health_status == {0: "Alarm"}
    f = by(sweep(readings_of([c], NOW)), "npu_health")["host-a/npu0"]
    assert all(f"0x{x}" in f.evidence for x in ("A4025021", "8C03A000", "8C084E00"))
