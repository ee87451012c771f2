"""Collection layouts session 59's probe (probe59b) left: torchrun's ``--log-dir`` tree, ascend-fd's ``bus_log/`` and
an ``environment_check/worker-N/`` folder beside the host directory ``worker-N/`` (session 60)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from opsbrain.cli import cli
from opsbrain.ingest.workers import elastic_head, host_root

OOM = ("[rank3]: Traceback (most recent call last):\n"
       '[rank3]:   File "/workspace/train.py", line 212, in <module>\n'
       "[rank3]: RuntimeError: NPU out of memory. Tried to allocate 4.00 GiB (NPU 1; 60.97 GiB total capacity; "
       "57.80 GiB already allocated; 57.80 GiB current active; 1.10 GiB free; 58.90 GiB reserved in total by "
       "PyTorch)\n")


def _read(tmp_path: Path, path: Path, mode: str) -> dict[str, Any]:
    res = CliRunner().invoke(cli, ["diagnose", mode, str(path), "--json", "--data-dir", str(tmp_path / "d")])
    assert res.exit_code == 0, res.output
    return json.loads(res.output)


def test_torchruns_log_dir_names_the_node_not_the_local_rank(tmp_path: Path) -> None:
    """torch.distributed.elastic writes ``<log_dir>/<run_id>_<random>/attempt_<n>/<local_rank>/stderr.log``: the
    node is the directory above the log directory (before: the local rank's folder ``1`` under ``--logs``)."""
    for node in ("node-0", "node-1"):
        for rank in (0, 1):
            d = tmp_path / "job" / node / "torchelastic" / "none_ab12cd" / "attempt_0" / str(rank)
            d.mkdir(parents=True)
            (d / "stdout.log").write_text("step 1 loss 2.31\n")
            (d / "stderr.log").write_text(OOM if (node, rank) == ("node-1", 1) else "")
    for mode in ("--bundle", "--logs"):
        out = _read(tmp_path, tmp_path / "job", mode)
        d = out.get("diagnosis", out)
        assert d["fault_class"] == "npu_oom"
        assert (d["root"]["host"], d["root"]["device"]) == ("node-1", 1), (mode, d["root"])


def test_elastic_head_keeps_other_paths() -> None:
    assert elastic_head(["node-1", "logs", "none_ab12cd", "attempt_0", "1"]) == ["node-1"]
    assert elastic_head(["node-1", "attempt_0", "x"]) == ["node-1", "attempt_0", "x"]  # no local rank's folder
    assert elastic_head(["node-1", "process_log", "rank_3"]) == ["node-1", "process_log", "rank_3"]
    assert host_root("node-1/logs/none_ab12cd/attempt_2/7/stderr.log")[0] == "node-1"


def test_bus_log_is_a_hosts_folder_not_a_host(tmp_path: Path) -> None:
    """ascend-fd's ``--bus_log`` collection folder (MindCluster 26.0) below a host's collection."""
    host = tmp_path / "node-m1"
    (host / "bus_log").mkdir(parents=True)
    (host / "bus_log" / "log.log").write_text("2025-03-01 10:00:00 INFO bus link up\n")
    (host / "rank-0.txt").write_text(OOM)
    out = _read(tmp_path, host, "--bundle")
    assert len(out["workers"]) == 1, out["workers"]
    assert host_root("node-m1/bus_log/log.log")[0] == "node-m1"


def test_an_environment_check_folder_named_as_a_host_directory_is_that_hosts(tmp_path: Path) -> None:
    """ascend-fd's collection of two hosts: ``environment_check/worker-1/npu_info_after.txt`` (port 4 down) and
    ``worker-1/process_log/...`` (that port's CQE error) are one host's: one worker each, one verdict on worker-1."""
    bundle = tmp_path / "b"
    for w in ("worker-0", "worker-1"):
        env = bundle / "environment_check" / w
        env.mkdir(parents=True)
        down = w == "worker-1"
        (env / "npu_info_after.txt").write_text(
            "Datetime: 2025-03-01 10:15:00.000000\n/usr/local/Ascend/driver/tools/hccn_tool -i 4 -link -g\n"
            f"link status: {'DOWN' if down else 'UP'}\n\n")
        plog = bundle / w / "process_log" / "run" / "plog"
        plog.mkdir(parents=True)
        (plog / "plog-30102_20250301095959000.log").write_text(
            "[ERROR] HCCL(30102,python):2025-03-01-10:03:20.500.000 [heartbeat.cc:551][30109][Heartbeat]cqe err "
            "status[12], time:[2025-03-01 10:03:20.500000], ip:[10.0.0.1]\n" if down else
            "[INFO] GE(30102,python):2025-03-01-10:00:10.000.000 [graph_manager.cc:1201][30105]RunGraph done\n")
    out = _read(tmp_path, bundle, "--bundle")
    assert sorted(w["name"] for w in out["workers"]) == ["worker-0", "worker-1"], out["workers"]
    assert out["diagnosis"]["root"]["host"] == "worker-1", out["diagnosis"]["root"]
