"""A real host's device ids read as Atlas A3 dies' logical ids when, and only when, its own npu-smi output shows A3
(session 38, opsbrain/ingest/chipmap.py); an A2 host's, and a host's whose output shows nothing, as written.

The npu-smi outputs below are in the tools' real layouts (values of our own): ``npu-smi info -m``'s A3 columns with
Chip Phy-ID and ``Ascend910`` chips and an MCU row of ``-`` ids (the shape Ascend/mind-cluster's ascend-faultdiag
toolkit documents in core/common/chip_generation.py and parses in host_ssh_fetcher.py), its A2 columns without
Phy-ID and ``Ascend 910B3`` chips, and the status table of A3 hosts (two chip rows an NPU ID under ``Chip  Phy-ID``,
vllm-ascend issues #2035 and #2534) and of A2 hosts (one ``Chip`` row, vllm-ascend #975)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from opsbrain.bundle import diagnose_bundle
from opsbrain.bundle.hosts import NO_PRODUCT
from opsbrain.bundle.reader import signals_of
from opsbrain.bundle.records import BundleLine
from opsbrain.ingest.chipmap import A2, A3, chip_map
from opsbrain.ingest.where import device_component, reporting_npu, user_terms
from opsbrain.runner.scoring import most_specific

SMI = "/usr/local/bin/npu-smi"
_COL = 31  # npu-smi info -m pads each column to 31 characters after a tab


def _map_table(rows: list[tuple[object, ...]], phy: bool) -> list[str]:
    head = ("NPU ID", "Chip ID", "Chip Logic ID", *(("Chip Phy-ID",) if phy else ()), "Chip Name")
    return [f"{SMI} info -m", "\t" + "".join(f"{h:<{_COL}}" for h in head).rstrip()] + [
        "\t" + "".join(f"{str(c):<{_COL}}" for c in r).rstrip() for r in rows] + [""]


def a3_map(npus: list[int] = [0, 1], first_logic: int = 0) -> list[str]:  # noqa: B006 - read only
    rows: list[tuple[object, ...]] = []
    lid = first_logic
    for n in npus:
        rows += [(n, 0, lid, lid, "Ascend910"), (n, 1, lid + 1, lid + 1, "Ascend910"), (n, 2, "-", "-", "Mcu")]
        lid += 2
    return _map_table(rows, phy=True)


def a2_map(n: int = 4) -> list[str]:
    return _map_table([r for k in range(n) for r in ((k, 0, k, "Ascend 910B3"), (k, 1, "-", "Mcu"))], phy=False)


_RULE = "+---------------------------+---------------+----------------------------------------------------+"
_TOP = "+===========================+===============+====================================================+"


def status_table(npus: int, dies: int, name: str) -> list[str]:
    chip_head = "Chip  Phy-ID" if dies == 2 else "Chip"
    out = [f"{SMI} info", _RULE, "| NPU   Name                | Health        | Power(W)    Temp(C)           "
           "Hugepages-Usage(page)|", f"| {chip_head:<26}| Bus-Id        | AICore(%)   Memory-Usage(MB)  "
           "HBM-Usage(MB)        |", _TOP]
    for k in range(npus):
        for d in range(dies):
            chip = f"{d}     {k * dies + d}" if dies == 2 else "0"
            out += [f"| {k:<5} {name:<20}| OK            | 170.2       37                0    / 0             |",
                    f"| {chip:<26}| 0000:{0x9D + 2 * k + d:02X}:00.0  | 0           0    / 0          3120 / 65536"
                    "         |", _RULE if d + 1 < dies else _TOP]
    return [*out, ""]


def test_info_m_of_an_a3_host_gives_its_table() -> None:
    m = chip_map(a3_map())
    assert m is not None and m.a3 and m.product == A3 and "info -m" in m.by
    assert m.chips == ((0, 0, 0), (1, 0, 1), (2, 1, 0), (3, 1, 1))
    assert m.die_of(3) == (1, 1) and m.logic_of(1, 1) == 3


def test_the_table_not_the_rule_where_they_differ() -> None:
    """A container that sees NPUs 4 and 5 only: their dies' logic ids are 0-3, so logic id 3 is die 1 of NPU 5 (the
    rule ``id // 2`` would say NPU 1)."""
    m = chip_map(a3_map([4, 5]))
    assert m is not None and m.die_of(3) == (5, 1) and m.logic_of(5, 1) == 3
    assert device_component("w0", 3, m) == "w0/npu5/die1"
    assert user_terms("w0/npu5/die1", m)["logic_id"] == 3


def test_info_m_and_status_tables_of_a2_hosts_and_others() -> None:
    assert (a2 := chip_map(a2_map())) is not None and a2.product == A2 and not a2.a3
    assert device_component("w0", 3, a2) == "w0/npu3"
    assert (st := chip_map(status_table(4, 1, "910B2"))) is not None and st.product == A2
    a3 = chip_map(status_table(2, 2, "Ascend910"))
    assert a3 is not None and a3.a3 and a3.chips == () and a3.die_of(3) == (1, 1)
    assert chip_map(status_table(1, 2, "310P3")) is None  # a two-chip inference card: neither, as written
    assert chip_map(["Datetime: 2025-03-01 09:59:00.123456", "", f"{SMI} info -t health -i 3", "Health Status : OK"]
                    ) is None


def test_a_die_speaks_for_its_npu_in_scoring() -> None:
    assert reporting_npu("worker-0/npu1/die1") == "worker-0/npu1"
    assert most_specific({"worker-0", "worker-0/npu1/die1"}) == {"worker-0/npu1"}


def test_a_real_hosts_job_event_by_its_numbering() -> None:
    m = chip_map(a3_map())
    line = BundleLine(0.0, None, "clusterd", None, "job event", "clusterd.log", 1,
                      ("job-1", "crash", {"node": "pod0/node0", "device": 3}))
    sigs, _ = signals_of([line], {}, real=frozenset({"pod0/node0"}), chips={"pod0/node0": m} if m else {})
    assert [s.component for s in sigs] == ["pod0/node0/npu1/die1"]
    sigs, _ = signals_of([line], {}, real=frozenset({"pod0/node0"}))
    assert [s.component for s in sigs] == ["pod0/node0/npu3"]


# ---- bundles of a real host whose device lines name id 3 --------------------------------------------------------
@pytest.fixture(scope="module")
def engine() -> Any:
    from opsbrain.kb.training import load_engine

    return load_engine()


TSCPU_LOST = ("[EVENT] DRV(1187,dms_poll_task):2025-03-01-10:03:20.000.000 [dms_event.c:1410][fault_manager]"
              "[ 610.000000] event_id=0x80fa4e00; device_id=3; node_type=0x7d[TSCPU]; node_id=0; sub_node_id=0; "
              "assertion=1[occur]")


def _bundle(root: Path, smi: list[str]) -> Path:
    w = root / "collected" / "gz-trn-n07"
    dev = w / "device_log" / "slog" / "dev-os-3" / "run" / "device-os" / "device-os_20250301100000000.log"
    dev.parent.mkdir(parents=True)
    dev.write_text("[INFO] DRV(1187,dmp_daemon):2025-03-01-10:00:00.000.000 [dms_main.c:120][dev3]device os "
                   f"running\n{TSCPU_LOST}\n")
    env = w / "environment_check" / "worker-0"
    env.mkdir(parents=True)
    (env / "npu_info_before.txt").write_text("\n".join(["Datetime: 2025-03-01 09:59:00.123456", "", *smi]) + "\n")
    return root / "collected"


def test_an_a3_hosts_device_3_is_npu_1_die_1(tmp_path: Path, engine: Any) -> None:
    rep = diagnose_bundle(_bundle(tmp_path, a3_map() + status_table(2, 2, "Ascend910")), engine)
    root = rep["diagnosis"]["root"]
    assert (root["host"], root["device"], root["die"], root["logic_id"]) == ("worker-0", 1, 1, 3)
    assert root["device_ids"].startswith(A3)
    assert rep["workers"][0]["numbering"]["product"] == A3


def test_an_a3_host_told_by_its_status_table_alone(tmp_path: Path, engine: Any) -> None:
    root = diagnose_bundle(_bundle(tmp_path, status_table(2, 2, "Ascend910")), engine)["diagnosis"]["root"]
    assert (root["device"], root["die"], root["logic_id"]) == (1, 1, 3)


def test_an_a2_hosts_device_3_is_device_3(tmp_path: Path, engine: Any) -> None:
    rep = diagnose_bundle(_bundle(tmp_path, a2_map() + status_table(4, 1, "910B3")), engine)
    root = rep["diagnosis"]["root"]
    assert (root["host"], root["device"], root.get("die")) == ("worker-0", 3, None)
    assert root["device_ids"].startswith(A2)


def test_a_host_whose_output_shows_nothing_keeps_device_3_and_says_so(tmp_path: Path, engine: Any) -> None:
    root = diagnose_bundle(_bundle(tmp_path, [f"{SMI} info -t health -i 3", "Health Status : OK"]),
                           engine)["diagnosis"]["root"]
    assert (root["device"], root.get("die"), root["device_ids"]) == (3, None, NO_PRODUCT)


def test_an_a3_hosts_npu_smi_health_query_names_the_npu_it_asked(tmp_path: Path, engine: Any) -> None:
    """``npu-smi info -t health -i 1 -c 1``: ``-i`` is an NPU ID on A3 too, and a chip's codes are its NPU's
    (opsbrain.ingest.smihealth): NPU 1, not the die whose logic id is 1 (NPU 0's die 1)."""
    smi = [*a3_map(), f"{SMI} info -t health -i 1 -c 1", "Health Status : Critical",
           "Error Code : 80FA4E00", ""]
    b = _bundle(tmp_path, smi)
    (b / "gz-trn-n07" / "device_log").rename(tmp_path / "gone")  # the query alone
    root = diagnose_bundle(b, engine)["diagnosis"]["root"]
    assert (root["device"], root.get("die")) == (1, None)


# ---- diagnose --logs DIR: the same decision, from a first pass over the host's npu_info files --------------------
@pytest.mark.parametrize(("smi", "want"), [
    (a3_map() + status_table(2, 2, "Ascend910"), (1, 1, 3)),
    (status_table(2, 2, "Ascend910"), (1, 1, 3)),
    (a2_map() + status_table(4, 1, "910B3"), (3, None, None)),
    ([f"{SMI} info -t health -i 3", "Health Status : OK"], (3, None, None))])
def test_logs_dir_reads_a_real_hosts_ids_by_its_npu_smi_output(tmp_path: Path, smi: list[str],
                                                             want: tuple[int, int | None, int | None]) -> None:
    """Session 38: ``--logs DIR`` read every real host's ids as written, where ``--bundle`` of the same directory
    read an A3 host's device 3 as NPU 1's die 1."""
    from click.testing import CliRunner

    from opsbrain.cli import cli
    from opsbrain.ingest.textpaths import ingest_paths

    b = _bundle(tmp_path, smi)
    sigs, stats, _ = ingest_paths([str(b)])
    dev = {s.component for s in sigs if s.kind.startswith("dev:")}
    assert dev == ({"npu1/die1"} if want[1] is not None else {"npu3"})
    assert any(n.startswith("gz-trn-n07: Atlas A3") for n in stats.notes) == (want[1] is not None)
    res = CliRunner().invoke(cli, ["diagnose", "--logs", str(b), "--json"],
                             env={"OPSBRAIN_HOME": str(tmp_path / "home")})
    root = json.loads(res.stdout)["diagnosis"]["root"]
    assert (root["host"], root["device"], root.get("die"), root.get("logic_id")) == ("worker-0", *want)
