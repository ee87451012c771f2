"""Bundles of real clusters (hand-built in the collection's layout, non-twin host names): the verdict names the
host and device as the bundle does."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from opsbrain.bundle import diagnose_bundle

HBM_EVENT = ("[ERROR] DRV(1187,dmp_daemon):2025-03-01-10:03:20.400.000 [dms_fault.c:688][dev3]fault event: "
             "event_id=0x80e01801, assertion=occur, severity=critical, dev_id=3, hbm multi-bit ecc error, "
             "uncorrectable\n")


@pytest.fixture(scope="module")
def engine() -> Any:
    from opsbrain.kb.training import load_engine

    return load_engine()


def _device_log(worker: Path, dev: int, text: str) -> None:
    p = worker / "device_log" / "slog" / f"dev-os-{dev}" / "run" / "device-os" / "device-os_20250301100000000.log"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(f"[INFO] DRV(1187,dmp_daemon):2025-03-01-10:00:00.000.000 [dms_main.c:120][dev{dev}]device os "
                 "running\n" + text)


def _plog(worker: Path, pid: int, lines: list[str]) -> None:
    p = worker / "process_log" / "run" / "plog" / f"plog-{pid}_20250301100000000.log"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text("".join(ln + "\n" for ln in lines))


def test_a_real_hosts_component_is_named_as_the_bundle_names_it(tmp_path: Path, engine: Any) -> None:
    """environment_check/worker-3 names the host: the component is ``worker-3/npu3/hbm``, not the reader's
    ``pod0/node0/npu3/hbm`` (kept as ``internal_component``); root host and device as before."""
    w = tmp_path / "collected" / "gz-trn-c12"
    env = w / "environment_check" / "worker-3"
    env.mkdir(parents=True)
    (env / "npu_info_before.txt").write_text("$ npu-smi info -t health -i 3\nHealth Status : OK\n")
    _device_log(w, 3, HBM_EVENT)
    _plog(w, 23456, [
        "[INFO] HCCL(23456,python):2025-03-01-10:00:00.123.456 [hcom.cc:187][23457]hcom init by file success, "
        "rankTablePath[/user/config/rank_table.json], rankNum[8], rank[3], server[192.168.10.11], device[3]",
        "[ERROR] RUNTIME(23456,python):2025-03-01-10:03:20.450.000 [stream.cc:1044][23457]Stream synchronize failed, "
        "device_id=3, retCode=0x7bcad, ErrCode=507053, desc=[device memory uncorrectable ecc error (hbm uce)]"])
    rep = diagnose_bundle(tmp_path / "collected", engine)
    d = rep["diagnosis"]
    assert [w["name"] for w in rep["workers"]] == ["worker-3"]
    assert d["fault_class"] == "hbm_uce"
    assert d["component"] == "worker-3/npu3/hbm" and d["internal_component"] == "pod0/node0/npu3/hbm"
    assert (d["root"]["host"], d["root"]["device"], d["root"]["component"]) == ("worker-3", 3, "worker-3/npu3/hbm")
    assert not any("pod0/node0" in e for e in d["evidence"])
    inc = rep["incidents"][0]["diagnosis"]
    assert inc["component"] == "worker-3/npu3/hbm"


def test_the_twins_own_bundle_keeps_its_ids(tmp_path: Path, engine: Any) -> None:
    """A directory named like the twin's host (``pod0-node5``) is that host: its id is the component, unchanged."""
    w = tmp_path / "b" / "pod0-node5"
    _device_log(w, 3, HBM_EVENT)
    d = diagnose_bundle(tmp_path / "b", engine)["diagnosis"]
    assert d["component"] == "pod0/node5/npu3/hbm" and "internal_component" not in d
