"""A worker folder that only numbers its host (``worker-1``, a collection's folder, the bundle's root) is named after
the one host its syslog names (``node-a12``), under ``--bundle`` as under ``--logs DIR``; a folder that names a host
keeps its name, and a job's folder never names one (opsbrain.ingest.hostnames)."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

FIX = Path(__file__).parent / "fixtures" / "bundles" / "hbm-uce-real"


@pytest.fixture(scope="module")
def engine() -> Any:
    from opsbrain.kb.training import load_engine

    return load_engine()


def _job(root: Path, dirs: tuple[str, str], hosts: tuple[str, str]) -> Path:
    """hbm-uce-real's two workers (HBM UCE on worker-0's device 3) in the folders ``dirs``, their syslogs naming
    ``hosts``."""
    for src, dst, host in zip(("worker-0", "worker-1"), dirs, hosts, strict=True):
        shutil.copytree(FIX / src, root / dst)
        msgs = root / dst / "messages"
        msgs.write_text(msgs.read_text().replace(f"ascend-a0{int(src[-1]) + 1} ", f"{host} "))
    return root


def _roots(root: Path, engine: Any) -> tuple[str, str]:
    from opsbrain.bundle.diagnose import diagnose_bundle
    from opsbrain.diagnosis.oneclick import diagnose_logs

    b, d = diagnose_bundle(root, engine)["diagnosis"], diagnose_logs(str(root), engine)["diagnosis"]
    assert b["root"]["device"] == d["root"]["device"] == 3
    return b["root"]["host"], d["root"]["host"]


def test_a_replica_folder_is_named_after_its_syslogs_host(tmp_path: Path, engine: Any) -> None:
    """``collect/worker-0/messages`` says ``node-a12``: the root is ``node-a12`` in the verdict, its JSON root and
    the root cluster, the folder beside it in the report (before: ``worker-0``)."""
    from click.testing import CliRunner

    from opsbrain.cli import cli

    root = _job(tmp_path / "b", ("collect/worker-0", "collect/worker-1"), ("node-a12", "node-a13"))
    assert _roots(root, engine) == ("node-a12", "node-a12")
    run = CliRunner().invoke(cli, ["diagnose", "--bundle", str(root), "--data-dir", str(tmp_path / "d")])
    assert "worker collect/worker-0 (named node-a12" in run.output and "pod0/node0" not in run.output, run.output
    assert "hbm_uce at host node-a12, device 3" in run.output, run.output
    run = CliRunner().invoke(cli, ["diagnose", "--logs", str(root), "--json", "--data-dir", str(tmp_path / "d")])
    d = json.loads(run.stdout)["diagnosis"]
    assert d["root"]["host"] == "node-a12" and d["root_cluster"]["root"] == "node-a12 device 3", d["root_cluster"]


@pytest.mark.parametrize(("dirs", "hosts", "want"), [
    (("ascend-x01", "ascend-x02"), ("node-a12", "node-a13"), "ascend-x01"),  # a folder that names a host keeps it
    (("worker-0", "worker-1"), ("node-a12", "node-a12"), "worker-0"),  # two workers claim one host: neither is
    (("worker-0", "worker-1"), ("localhost", "node-a13"), "worker-0"),  # localhost names no host
])
def test_a_folder_keeps_its_name_where_the_syslog_does_not_name_it(tmp_path: Path, engine: Any,
                                                                    dirs: tuple[str, str], hosts: tuple[str, str],
                                                                    want: str) -> None:
    assert _roots(_job(tmp_path / "b", dirs, hosts), engine) == (want, want)


def test_the_rule() -> None:
    from opsbrain.ingest.hostnames import host_syslog, numbers_host, real_names

    assert all(numbers_host(d, d) for d in ("", "worker-3", "collect/llama-worker-12",
                                            "out/asys_output_20250301101010"))
    assert not any(numbers_host(d, d) for d in ("node-3", "ascend-a01", "10.0.0.5", "job/worker-3-logs"))
    assert numbers_host("node-a", "worker-5")  # named after its environment_check/worker-5/ folder
    assert all(host_syslog(p) for p in ("w/messages", "w/var/log/messages-20250301.gz", "w/syslog.1", "kern.log",
                                        "n1/asys_output_20250301101010123/dfx/log/host/message/messages"))
    assert not any(host_syslog(p) for p in ("w/device_log/message/dev-os-3/messages", "w/20250619092715/message/syslog",
                                            "w/messages.md", "w/plog-1_2.log"))
    got = real_names({"worker-0": ("worker-0", Counter({"n1": 9})), "worker-1": ("worker-1", Counter({"n1": 1})),
                      "worker-2": ("worker-2", Counter({"n2": 5, "n3": 1})), "worker-3": ("worker-3", None),
                      "worker-4": ("worker-4", Counter({"node-5": 2})), "node-5": ("node-5", None),
                      "": ("bundle", Counter({"n9": 3, "localhost": 4}))})
    assert got == {"": "n9"}
