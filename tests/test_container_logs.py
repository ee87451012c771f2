"""A node's container logs in a collection (kubelet's /var/log/pods, Docker's json-file logs): read as that node's
console lines under --bundle and --logs, the node named by the directory above them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from opsbrain.bundle import layout as L
from opsbrain.ingest.workers import host_root

POD = "pods/default_train-worker-1_3f2a9c1e-1111-2222-3333-444455556666/pytorch"
CID = "0123456789abcdef" * 4
HCCL = ("[ERROR] HCCL(12339,python):2023-07-04-22:15:59.592.125 [heartbeat.cc:551][12339][283607][Heartbeat]cqe err "
        "status[12], time:[2023-07-04 22:15:59.095390], remote ip:[51.38.68.155], local ip:[51.38.68.154]")
OOM = ("RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB (NPU 3; 60.00 GiB total capacity; 58.00 GiB "
       "already allocated)")


@pytest.mark.parametrize(("rel", "tag", "worker"), [
    (f"node-1/var/log/{POD}/0.log", "pod", "node-1"),
    (f"node-1/var/log/{POD}/2.log.20250301-100000", "pod", "node-1"),  # kubelet's rotation
    (f"{POD}/0.log", "pod", ""),
    ("node-3/var/log/pods/kube-system_npu-exporter-node-3_6d2f1c0e9a8b7c6d5e4f3a2b1c0d9e8f/exporter/0.log", "pod",
     "node-3"),  # a static pod: its uid the manifest's MD5
    (f"node-2/var/lib/docker/containers/{CID}/{CID}-json.log", "docker", "node-2"),
    (f"node-2/var/lib/docker/containers/{CID}/{CID}-json.log.1", "docker", "node-2"),
])
def test_container_logs_are_their_nodes_console(rel: str, tag: str, worker: str) -> None:
    kind = L.classify(rel)
    assert kind is not None and (kind.kind, kind.tag, kind.worker) == (L.OTHER, tag, worker)
    assert host_root(rel)[0] == worker


@pytest.mark.parametrize("rel", [
    "node-1/var/log/pods/readme/x/0.log",  # no <ns>_<pod>_<uid> directory
    f"node-2/var/lib/docker/containers/{CID}/config.v2.json",
    "node-1/var/log/containers/train-worker-1_default_pytorch-abc.log",  # kubelet's links: read through pods/
])
def test_other_files_there_are_not_read_as_consoles(rel: str) -> None:
    assert L.classify(rel) is None


@pytest.fixture(scope="module")
def engine() -> Any:
    from opsbrain.kb.training import load_engine

    return load_engine()


def _read_as(d: dict[str, Any]) -> str:
    """The class, or an abstention's best guess: a lone HCCL ``cqe err status[12]`` line (secondary for two or three
    classes) is read as roce_port_down near the 0.4 bar, on either side of it with each retrain (0.44, 0.375)."""
    if d["fault_class"] != "unknown":
        return str(d["fault_class"])
    return str(d["alternatives"][0][0]) if d.get("alternatives") else "unknown"


def test_a_collection_of_container_logs_is_diagnosed_per_node(tmp_path: Path, engine: Any) -> None:
    from opsbrain.bundle.diagnose import diagnose_bundle
    from opsbrain.diagnosis.oneclick import diagnose_logs

    pod = tmp_path / "c" / "node-1" / "var" / "log" / POD / "0.log"
    pod.parent.mkdir(parents=True)
    pod.write_text(f"2025-03-01T10:03:20.123456789Z stderr F {OOM}\n")
    docker = tmp_path / "c" / "node-2" / "var" / "lib" / "docker" / "containers" / CID / f"{CID}-json.log"
    docker.parent.mkdir(parents=True)
    docker.write_text(json.dumps({"log": HCCL + "\n", "stream": "stderr", "time": "2025-03-01T10:03:21.5Z"}) + "\n")
    rep = diagnose_bundle(tmp_path / "c", engine)
    assert [w["dir"] for w in rep["workers"]] == ["node-1", "node-2"] and not rep["skipped"]
    found = {(_read_as(i["diagnosis"]), host) for i in rep["incidents"] for host in i["nodes"]}
    assert ("npu_oom", "node-1") in found and ("roce_port_down", "node-2") in found
    d = diagnose_logs(str(tmp_path / "c" / "node-1"), engine)["diagnosis"]
    assert d["fault_class"] == "npu_oom" and d["root"]["device"] == 3


def test_plog_lines_a_console_prints_feed_the_multi_rank_analysis(tmp_path: Path, engine: Any) -> None:
    """With ASCEND_SLOG_PRINT_TO_STDOUT=1 a process prints its plog lines to its console: a bundle of consoles only
    (here a pod's) still has its root cluster, as --logs finds it in the same files."""
    from opsbrain.bundle.diagnose import diagnose_bundle
    from opsbrain.diagnosis.oneclick import diagnose_logs

    pod = tmp_path / "c" / "node-1" / "var" / "log" / POD / "0.log"
    pod.parent.mkdir(parents=True)
    pod.write_text(f"2025-03-01T10:03:20.123456789Z stderr F {HCCL}\n")
    for rep in (diagnose_bundle(tmp_path / "c", engine), diagnose_logs(str(tmp_path / "c"), engine)):
        assert rep["diagnosis"]["root_cluster"]["chain"] == "node-1 process 12339 -> 51.38.68.155"
