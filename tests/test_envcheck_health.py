"""The npu-smi health column of ``environment_check``'s ``npu_info_*.txt`` in a bundle: read through the parser that
``--logs`` uses (:data:`opsbrain.ingest.parsers.device.RE_SMI_HEALTH`), from the file that is the state at collection
(``npu_info_after.txt``; a before file only where it is the one snapshot), and the host named from the
``environment_check/<worker>/`` directory, not from a generic top folder.

The table is ``npu-smi info`` as the collection prints it (HDK npu-smi reference, "npu-smi info"; the command line
with its full path and a blank line after, as in ascend-fd's fixture ``st_module_testcase/kg_parse/
npu_info_before.txt``; MindCluster FaultDiag guide, ``docs/en/faultdiag/user_guide/03_collecting_logs.md``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

SMI = "/usr/local/bin/npu-smi info"


def _table(health: dict[int, str]) -> str:
    rows = []
    for k in range(8):
        rows.append(f"| {k:<5} 910B3               | {health.get(k, 'OK'):<13} | {90 + k}.1        {40 + k}"
                    "                0    / 0             |\n"
                    f"| 0                         | 0000:C{k + 1}:00.0  | 0           0    / 0          3390 / 65536"
                    "         |\n"
                    "+===========================+===============+==================================================="
                    "=+\n")
    return ("+------------------------------------------------------------------------------------------------+\n"
            "| npu-smi 24.1.rc2                 Version: 24.1.rc2                                             |\n"
            "+---------------------------+---------------+----------------------------------------------------+\n"
            "| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|\n"
            "| Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |\n"
            "+===========================+===============+====================================================+\n"
            + "".join(rows))


def _npu_info(stamp: str, health: dict[int, str]) -> str:
    links = "".join(f"/usr/local/Ascend/driver/tools/hccn_tool -i {k} -link -g\nlink status: UP\n\n"
                    f"/usr/local/Ascend/driver/tools/hccn_tool -i {k} -link_stat -g\n"
                    f"[devid {k}]current time        : Sat Mar  1 09:20:00 2025\n"
                    f"[devid {k}]link up count       : 1\n[devid {k}]link change records :\n"
                    f"[devid {k}]    Sat Mar  1 09:00:00 2025    LINK UP\n\n" for k in range(8))
    return f"Datetime: {stamp}\n\n{SMI}\n{_table(health)}\n{links}"


def _bundle(root: Path, after: dict[int, str] | None, before: dict[int, str] | None = None) -> Path:
    env = root / "out" / "environment_check" / "worker-5"
    env.mkdir(parents=True)
    if before is not None:
        (env / "npu_info_before.txt").write_text(_npu_info("2025-03-01 09:00:00.179645", before))
    if after is not None:
        (env / "npu_info_after.txt").write_text(_npu_info("2025-03-01 09:20:00.179645", after))
    return root / "out"


@pytest.fixture(scope="module")
def engine() -> Any:
    from opsbrain.kb.training import load_engine

    return load_engine()


def _smi(res: dict[str, Any]) -> list[str]:
    return [e for inc in res["incidents"] for e in (inc["diagnosis"] or {}).get("evidence", []) if "smi:" in e] + [
        e for e in res["diagnosis"].get("evidence", []) if "smi:" in e]


def test_the_health_column_of_the_after_file_is_read_and_the_worker_named(tmp_path: Path, engine: Any) -> None:
    """Tester U's b10: only environment_check/worker-5/, NPU 4 Critical after the job (before: "no known fault signal
    in 8 lines", the worker named after the top folder ``out``; ``--logs`` saw smi:critical on npu4)."""
    from opsbrain.bundle import read_bundle
    from opsbrain.bundle.diagnose import diagnose_bundle

    b = _bundle(tmp_path, after={4: "Critical"}, before={})
    _lines, rep = read_bundle(b)
    assert [w["name"] for w in rep["workers"]] == ["worker-5"], rep["workers"]
    res = diagnose_bundle(b, engine)
    assert any("(smi:critical) on" in e and "npu4" in e for e in _smi(res)), res
    d = res["diagnosis"]
    assert d["root"]["host"] == "worker-5" and d["root"]["device"] == 4, d
    assert res["incidents"][0]["opened_at"].startswith("2025-03-01T09:20:00")  # the after file's Datetime line
    from click.testing import CliRunner

    from opsbrain.cli import cli

    out = CliRunner().invoke(cli, ["diagnose", "--bundle", str(b)]).output
    assert "worker . (named worker-5" in out and "pod0/node0" not in out and "no known fault signal" not in out, out


def test_a_before_file_critical_the_after_file_no_longer_shows_is_not_read(tmp_path: Path, engine: Any) -> None:
    """The after file is the state at collection: NPU 4 Critical before the job and OK after is no fault now."""
    from opsbrain.bundle.diagnose import diagnose_bundle

    res = diagnose_bundle(_bundle(tmp_path, after={}, before={4: "Critical"}), engine)
    assert not _smi(res), res


def test_a_before_file_alone_is_the_one_snapshot(tmp_path: Path, engine: Any) -> None:
    from opsbrain.bundle.diagnose import diagnose_bundle

    res = diagnose_bundle(_bundle(tmp_path, after=None, before={2: "Alarm"}), engine)
    assert any("smi:alarm on" in e and "npu2" in e for e in _smi(res)), res


def test_bundle_and_logs_read_the_same_health_signal(tmp_path: Path, engine: Any) -> None:
    from opsbrain.bundle.diagnose import diagnose_bundle
    from opsbrain.diagnosis.oneclick import diagnose_logs

    b = _bundle(tmp_path, after={4: "Critical"})
    got_b, got_l = diagnose_bundle(b, engine)["diagnosis"], diagnose_logs(str(b), engine)["diagnosis"]
    assert got_b["fault_class"] == got_l["fault_class"]
    assert got_b["root"]["device"] == got_l["root"]["device"] == 4


@pytest.mark.parametrize("top", ["out/", ""])
def test_each_environment_check_folder_of_several_is_its_own_worker(tmp_path: Path, engine: Any, top: str) -> None:
    """Two hosts' checks in one bundle (``environment_check/worker-5/`` with NPU 4 Critical, ``.../worker-6/`` with NPU
    2 Critical), below a top folder or at the bundle's root: two workers, each device on its own host (before: one
    worker ``out``, or the bundle's name, holding both, and ``--logs`` named no host at the root)."""
    from opsbrain.bundle import read_bundle
    from opsbrain.bundle.diagnose import diagnose_bundle
    from opsbrain.diagnosis.oneclick import diagnose_logs

    b = tmp_path / "b"
    for name, bad in (("worker-5", 4), ("worker-6", 2)):
        env = b / f"{top}environment_check" / name
        env.mkdir(parents=True)
        (env / "npu_info_after.txt").write_text(_npu_info("2025-03-01 09:20:00.179645", {bad: "Critical"}))
    _lines, rep = read_bundle(b)
    assert sorted(w["name"] for w in rep["workers"]) == ["worker-5", "worker-6"], rep["workers"]
    res = diagnose_bundle(b, engine)
    placed = {(n, e.rsplit(" on ", 1)[1]) for inc in res["incidents"] for n in inc["nodes"]
              for e in inc["diagnosis"]["evidence"] if "(smi:critical) on" in e}  # worded since session 33
    assert placed == {("worker-5", "worker-5/npu4"), ("worker-6", "worker-6/npu2")}, placed  # (their names)
    for d in (res["diagnosis"], diagnose_logs(str(b), engine)["diagnosis"]):
        assert (d["root"]["host"], d["root"]["device"]) in {("worker-5", 4), ("worker-6", 2)}, d["root"]
    single = diagnose_logs(str(b / f"{top}environment_check" / "worker-6" / "npu_info_after.txt"), engine)
    assert single["diagnosis"]["root"]["device"] == 2
