"""``npu-smi info -t health -i N``'s answer in a collection's npu_info file is read alike by ``--bundle`` and
``--logs DIR`` (session 33: the bundle reader skipped it, so an HBM UCE npu-smi showed was "no fault found" there and
hbm_uce under ``--logs``); an answer saying OK / NA gives nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from opsbrain.bundle.diagnose import diagnose_bundle
from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.ingest.npuinfo import NpuInfoScan

FAULTY = ("$ npu-smi info -t health -i 3 -c 0\n"
          "        Health Status                  : Alarm\n"
          "        Error Code                     : 80E01801\n"
          "        Error Information              : node type=HBM, sensor type=Memory, event state=Uncorrectable ECC\n")
HEALTHY = ("$ npu-smi info -t health -i 0 -c 0\n"
           "        Health Status                  : OK\n"
           "        Error Code                     : NA\n"
           "        Error Information              : NA\n")


@pytest.fixture(scope="module")
def engine() -> Any:
    from opsbrain.kb.training import load_engine

    return load_engine()


def _bundle(root: Path, text: str) -> Path:
    env = root / "worker-0" / "environment_check"
    env.mkdir(parents=True)
    (env / "npu_info_before.txt").write_text(text)
    return root


def test_the_health_answer_is_a_line_of_the_npu_queried() -> None:
    scan = NpuInfoScan()
    reads = [scan.step(x) for x in FAULTY.splitlines()]
    assert [(r.line, r.npu) for r in reads[1:]] == [(True, 3)] * 3
    scan = NpuInfoScan()
    assert not any(scan.step(x).line for x in HEALTHY.splitlines())
    # the next command ends the answer, written with its full path as real collections write it
    scan = NpuInfoScan()
    lines = [*FAULTY.splitlines()[:2], "/usr/local/bin/npu-smi info -t temp -i 3", "Health Status : Alarm"]
    assert [scan.step(x).line for x in lines] == [False, True, False, False]


def test_both_modes_read_an_hbm_uce_npu_smi_showed(tmp_path: Path, engine: Any) -> None:
    root = _bundle(tmp_path / "b", FAULTY)
    b = diagnose_bundle(root, engine)["diagnosis"]
    logs = diagnose_logs(str(root), engine)["diagnosis"]
    assert b["fault_class"] == logs["fault_class"] == "hbm_uce"
    assert "npu3" in str(b["component"]) and logs["root"]["device"] == 3


def test_an_ok_answer_is_no_fault_in_either_mode(tmp_path: Path, engine: Any) -> None:
    root = _bundle(tmp_path / "h", HEALTHY)
    for d in (diagnose_bundle(root, engine)["diagnosis"], diagnose_logs(str(root), engine)["diagnosis"]):
        assert d["fault_class"] == "unknown" and d["evidence"][0].startswith("no fault found"), d
