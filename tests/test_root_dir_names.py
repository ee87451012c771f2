"""``diagnose --logs DIR``: the directory given names a host only where the layout says so (session 32, tester BA:
a folder of unrelated pastes called ``cases`` was printed in the root cluster's host slot, ``root cases device 0``,
while the headline named the host the files' own lines give)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

TORCH = "[ERROR] 2025-11-08-21:35:27 (PID:4242, Device:0, RankID:-1) ERR00100 PTA call acl api failed\n"
KUBELET = ("Nov  8 21:35:20 gpu-host-17 kubelet[1761]: E1108 21:35:20.414082 1761 pod_workers.go:1324] "
           "\"Error syncing pod, skipping\" err=\"failed to start container\"\n")


@pytest.fixture(scope="module")
def engine() -> Any:
    from opsbrain.kb.training import load_engine

    return load_engine()


def _dir(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_a_folder_of_unrelated_pastes_names_no_host(tmp_path: Path, engine: Any) -> None:
    from opsbrain.diagnosis.oneclick import diagnose_logs

    d = diagnose_logs(str(_dir(tmp_path / "cases", {"10-torch.txt": TORCH, "09-kubelet.txt": KUBELET})),
                      engine)["diagnosis"]
    rc = d["root_cluster"]
    assert [r["host"] for r in rc["roots"]] == [""], rc["roots"]  # was "cases"
    assert "cases" not in rc["root"] and "cases" not in str(d["root"]), (rc["root"], d["root"])


@pytest.mark.parametrize("name, files", [
    ("node-a12", {"10-torch.txt": TORCH}),  # a host's name (a digit: not a job's or a collection's folder)
    ("mylogs", {"slog/run/x.log": "started\n", "10-torch.txt": TORCH}),  # a node's own log tree at its top
    ("mylogs", {"messages": "Nov  8 21:35:20 localhost kernel: x\n", "10-torch.txt": TORCH}),  # its host syslog
])
def test_a_directory_the_layout_makes_a_host_keeps_its_name(tmp_path: Path, engine: Any, name: str,
                                                             files: dict[str, str]) -> None:
    from opsbrain.diagnosis.oneclick import diagnose_logs

    d = diagnose_logs(str(_dir(tmp_path / name, files)), engine)["diagnosis"]
    assert [r["host"] for r in d["root_cluster"]["roots"]] == [name]


def test_root_names_host_rule() -> None:
    from opsbrain.ingest.hostnames import root_names_host

    assert not root_names_host("cases", ["01-a.txt", "02-b.log"])
    assert not root_names_host("", ["messages"])
    assert root_names_host("ascend-a01", ["01-a.txt"])
    assert not root_names_host("20250619092715", ["01-a.txt"])  # msnpureport's export stamp: a date, no host
    assert not root_names_host("var", ["log/messages"])  # a folder that only holds logs (session 36)
    assert root_names_host("collected", ["dmesg", "01-a.txt"])
    assert root_names_host("mylogs", ["process_log/run/plog/plog-1_20250101000000000.log"])
    assert not root_names_host("mylogs", ["worker-0/process_log/run/plog/plog-1_20250101000000000.log"])
