"""``environment_check`` as MindCluster's FaultDiag collection leaves it: the optical-module answers embedded in a
real host's ``npu_info_after.txt`` (``hccn_tool -i N -optical -g``, the FaultDiag guide's collected-file example,
Ascend/mind-cluster docs/en/faultdiag/user_guide/03_collecting_logs.md) are read on the queried device, and files of
``environment_check`` the reader does not know are named in the answer's notes."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from opsbrain.bundle import read_bundle
from opsbrain.cli import cli

TOOL = "/usr/local/Ascend/driver/tools/hccn_tool"


def _optical(dev: int, present: bool = True, rx_los: str = "0x0") -> str:
    """One ``-optical -g`` answer in the guide's layout, followed by a blank line as the collection writes it."""
    if not present:
        return f"{TOOL} -i {dev} -optical -g\noptical info:\npresent              : not present\n\n"
    return (f"{TOOL} -i {dev} -optical -g\noptical info:\npresent              : present\n"
            "Tx Power             : 4.4035 mW\nRx Power             : 1.0189 mW\n"
            "Tx Bias              : 7.9360 mA\nTx Los Flag          : 0x0\n"
            f"Rx Los Flag          : {rx_los}\nTx LoL Flag          : 0x0\nRx LoL Flag          : {rx_los}\n\n")


def _bundle(root: Path, nested: bool) -> Path:
    env = root / "node-a" / "environment_check" / ("worker-0" if nested else "")
    env.mkdir(parents=True)
    (env / "npu_info_after.txt").write_text(
        "Datetime: 2025-03-01 10:06:00.123456\n"
        + "".join(f"{TOOL} -i {i} -link -g\nlink status: UP\n\n" for i in range(4))
        + _optical(0) + _optical(1, present=False) + _optical(2, rx_los="0xff") + _optical(3))
    return root / "node-a"


def test_a_real_hosts_optical_answers_are_read_on_their_devices(tmp_path: Path) -> None:
    for nested in (False, True):
        b = _bundle(tmp_path / str(nested), nested)
        lines, _rep = read_bundle(b)
        got = sorted((ln.origin, ln.text.split(":")[0].strip()) for ln in lines if ln.source == "hccn")
        assert ("pod0/node0/npu1", "present") in got, got
        assert ("pod0/node0/npu2", "Rx Los Flag") in got and ("pod0/node0/npu2", "Rx LoL Flag") in got
        assert len({ln.t for ln in lines}) == 1  # at the file's own time


def test_optical_faults_name_their_device_in_the_diagnosis(tmp_path: Path) -> None:
    from opsbrain.bundle import diagnose_bundle
    from opsbrain.kb.training import load_engine

    res = diagnose_bundle(_bundle(tmp_path, nested=True), load_engine())
    ev = " ".join(e for inc in res["incidents"] for e in (inc["diagnosis"] or {}).get("evidence", []))
    assert "hccn:optical_absent" in ev and "hccn:optical_loss" in ev, res["incidents"]
    assert res["diagnosis"]["fault_class"] == "roce_port_down"
    assert res["diagnosis"]["root"]["device"] in (1, 2)


def test_optical_lines_of_a_pasted_collection_name_their_device() -> None:
    """The same answers given to --logs: each optical signal is on the queried device (before: on none)."""
    from opsbrain.ingest.text import ingest_text

    sigs, _ = ingest_text(_optical(1, present=False) + _optical(2, rx_los="0xff"))
    assert {(s.kind, s.device) for s in sigs} == {("hccn:optical_absent", 1), ("hccn:optical_loss", 2)}


def test_unknown_environment_check_files_are_named_in_the_notes(tmp_path: Path) -> None:
    """A file of environment_check that the reader does not know is named in a note of its own (before: one skipped
    line among the performance tables, cut off after ten in the text answer); the tables it knows are not."""
    b = _bundle(tmp_path, nested=True)
    env = b / "environment_check" / "worker-0"
    for i in range(12):
        (env / f"npu_{i}_details.csv").write_text("time,aicore\n")
    (env / "hccn_check.txt").write_text("some check output\n")
    (b / "environment_check" / "card_info.txt").write_text("x\n")
    _lines, rep = read_bundle(b)
    notes = [n for n in rep["limits"] if "environment_check" in n]
    assert [n.split(":")[0] for n in notes] == ["environment_check/card_info.txt",
                                                "environment_check/worker-0/hccn_check.txt"], rep["limits"]
    assert all("not read" in n for n in notes)
    res = CliRunner().invoke(cli, ["diagnose", "--bundle", str(b)])
    assert res.exit_code == 0 and "note: environment_check/worker-0/hccn_check.txt:" in res.output, res.output
    assert "more skipped" in res.output
