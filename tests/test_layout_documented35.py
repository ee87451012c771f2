"""Session 35: more documented collection layouts, read alike by ``--bundle`` and ``--logs``.

- MindCluster FaultDiag's usage example on shared storage (hiascend mindx-dl faultdiag fdug "使用示例"; mind-cluster
  docs/zh/faultdiag/user_guide/02_example.md): ``<store>/device_log/worker-0/`` (msnpureport_auto_export.sh's output
  for that server) beside ``<store>/<job id>/worker-0/{process_log,train_log,environment_check}/``. Before, every
  server's device logs were read on one host named after the store (``ascend_cluster_log``), device 2 of worker-1
  and device 3 of worker-0 on one host.
- MindCluster's job log tree (training-script samples, FAQ "Training Logs Are Overwritten After Task Rescheduling"):
  ``alllogs/<MINDX_TASK_ID>/plogs/<node address>/plog/`` and ``trainlogs/<address>-<rank>-<time>/``. Before, the
  bundle named the plog's host ``<address>/plog`` and the console's folder was a host of its own.

The lines are tests/fixtures/bundles' (real formats): hbm-uce-real's HBM UCE on device 3, roce-down-single's port
event on device 2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

FIX = Path(__file__).parent / "fixtures" / "bundles"
W = FIX / "hbm-uce-real" / "worker-0"
R = FIX / "roce-down-single"
DEVOS = "device-os_20250301100000000.log"
ROCE = "device-os_20250301095900000.log"
PLOG = "plog-23456_20250301100000123.log"
UID = "8c1f8a52-8d1e-4c8e-9a57-3f1b2c4d5e6f"
S = "ascend_cluster_log"

STORE = {
    f"{S}/device_log/worker-0/20250301100600/slog/dev-os-3/run/device-os/{DEVOS}":
        W / "device_log/slog/dev-os-3/run/device-os" / DEVOS,
    f"{S}/device_log/worker-0/20250301100600/hisi_logs/device-3/history.log":
        W / "device_log/hisi_logs/device-3/history.log",
    f"{S}/device_log/worker-1/20250301100600/slog/dev-os-2/run/device-os/{ROCE}":
        R / "device_log/slog/dev-os-2/run/device-os" / ROCE,
    f"{S}/job202405181309/worker-0/process_log/run/plog/{PLOG}": W / "process_log/run/plog" / PLOG,
    f"{S}/job202405181309/worker-0/train_log/rank-3.txt": W / "rank-3.log",
    f"{S}/job202405181309/worker-0/environment_check/npu_info_before.txt": W / "environment_check/npu_info_before.txt",
    f"{S}/job202405181309/worker-1/environment_check/npu_info_before.txt": R / "environment_check/npu_info_before.txt",
}
JOBLOGS = {
    f"code/alllogs/{UID}/plogs/192.168.10.11/plog/{PLOG}": W / "process_log/run/plog" / PLOG,
    f"code/alllogs/{UID}/trainlogs/192.168.10.11-3-20250301100000/train.log": W / "rank-3.log",
}


def _lay(root: Path, files: dict[str, Path]) -> Path:
    for rel, src in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(src.read_bytes())
    return root


@pytest.fixture(scope="module")
def engine() -> Any:
    from opsbrain.kb.training import load_engine

    return load_engine()


def _both(b: Path, engine: Any) -> list[dict[str, Any]]:
    from opsbrain.bundle import diagnose_bundle
    from opsbrain.diagnosis.oneclick import diagnose_logs

    return [diagnose_bundle(b, engine), diagnose_logs(str(b), engine)]


def test_a_servers_device_logs_on_shared_storage_are_that_servers(tmp_path: Path, engine: Any) -> None:
    b = _lay(tmp_path / "store", STORE)
    bundle, logs = _both(b, engine)
    for rep in (bundle, logs):
        d = rep["diagnosis"]
        assert d["fault_class"] == "hbm_uce", d["evidence"]
        assert (d["root"]["host"], d["root"]["device"]) == ("worker-0", 3), d["root"]
        assert S not in json.dumps(d["root"]), d["root"]
    port = [i for i in bundle["incidents"] if "npu2" in json.dumps(i["diagnosis"])]
    assert [i["nodes"] for i in port] == [["worker-1"]], port  # worker-1's port, not on worker-0's host
    assert any(ev.endswith("on worker-1/npu2") for ev in logs["diagnosis"]["evidence"]), logs["diagnosis"]["evidence"]


def test_the_device_store_rule() -> None:
    from opsbrain.bundle import layout as L
    from opsbrain.ingest.asys import host_dirs
    from opsbrain.ingest.workers import device_store, host_root

    assert host_root(f"{S}/device_log/worker-0/20250301100600/slog/dev-os-3/run/device-os/{DEVOS}")[0] == \
        f"{S}/device_log/worker-0"
    # a file right in the server's folder is that server's under --logs as in a bundle (session 35's review: --logs
    # gave it to the store, the bundle's layout to the server)
    for rel in (f"{S}/device_log/worker-0/x.log", "device_log/worker-0/x.log"):
        assert host_root(rel)[0] == L._worker_before(rel, ("device_log",)) == rel.rpartition("/")[0], rel
    for below in ("slog/dev-os-3/run/device-os", "20250301100600/slog/dev-os-3", "hisi_logs/device-3", "dev-os-3/run"):
        assert device_store(f"node-a/device_log/{below}/x.log".split("/")) is None, below  # a device log's own tree
    store = [f"{S}/device_log/worker-0", f"{S}/job1/worker-0", f"{S}/device_log/worker-2"]
    assert host_dirs(store) == {store[0]: store[1], store[1]: store[1], store[2]: store[2]}
    other = [f"{S}/device_log/worker-0", f"{S}2/job1/worker-0"]  # another store's worker-0 is not this server's
    assert host_dirs(other) == {other[0]: other[0], other[1]: other[1]}


def test_mindcluster_job_log_tree_names_the_host_by_its_address(tmp_path: Path, engine: Any) -> None:
    b = _lay(tmp_path / "job", JOBLOGS)
    bundle, logs = _both(b, engine)
    for rep in (bundle, logs):
        d = rep["diagnosis"]
        assert (d["fault_class"], d["root"]["host"], d["root"]["device"]) == ("hbm_uce", "192.168.10.11", 3), d
    assert {w["name"] for w in bundle["workers"]} == {"192.168.10.11"}, bundle["workers"]
    assert [i["nodes"] for i in bundle["incidents"]] == [["192.168.10.11"]], bundle["incidents"]
