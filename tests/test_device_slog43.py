"""A device's own slog below ``slog/`` is device N's log, never a host process's plog (session 43, diag43b).

CANN's log reference (logreference_0003, the Ascend RC table: ``/var/log/npu/slog/debug/device-id/device-id_*.log``,
the system logs of the device's non-Ctrl CPUs) and MindCluster's FaultDiag guide ("Device侧日志", mindxdlFDUG027:
``device_log/slog/dev-os-3/device-0/device-0_{time}.log`` in HDK 23.0.RC3's export, below ``debug/`` since 23.0.3)
name these files by the device's id. Before, the rank analysis (``RE_PLOG_FILE``) read
``slog/debug/device-0/device-0_<stamp>.log`` as process 0's log: ``--logs DIR`` named "node-1 process 3" the root
of a device log's errors, and the rank table of a bundle fed to the collector listed "ascend-a01 process 0"; a
level-less ``slog/device-3/`` file was placed on no device under ``--logs DIR``. The lines are CANN's log format as
tests/test_rootcluster.py writes them (AI CPU scheduler lines of a device log); the paths are the references'."""

from __future__ import annotations

from pathlib import Path

import pytest

from opsbrain.bundle import diagnose_bundle
from opsbrain.ingest.rankrecords import RE_PLOG_FILE
from opsbrain.ingest.workers import device_dir
from tests.test_rootcluster import chain_bundle, collect, ts

STAMP = "20250619092715212"
SLOGS = [f"var/log/npu/slog/debug/device-{{d}}/device-{{d}}_{STAMP}.log",
         f"var/log/npu/slog/run/device-{{d}}/device-{{d}}_{STAMP}.log",
         f"device_log/slog/dev-os-{{d}}/debug/device-{{d}}/device-{{d}}_{STAMP}.log",
         f"device_log/slog/device-{{d}}/device-{{d}}_{STAMP}.log"]
LINES = [f"[ERROR] HCCP(1234,hccp_service.bin):{ts(99)} [ra_hdc.c:100][tid:5]hdc recv failed, ret -1",
         f"[ERROR] HCCL(3496,aicpu_scheduler):{ts(99.5)} [aicpu_communicator.cc:3083] [3896][TaskException]base "
         "information is streamId:149, sqid:153, head:1488, tail:136, type:NOTIFY WAIT, localRank:0, remoteRank:1, "
         "taskId:26064, notifyId:760"]


@pytest.mark.parametrize("rel", SLOGS)
def test_a_device_slog_is_no_process_log_and_names_its_device(rel: str) -> None:
    path = "node-1/" + rel.format(d=3)
    assert RE_PLOG_FILE.search(path) is None
    assert device_dir(path) == 3 or "dev-os-" in rel  # (dev-os-N/device-M: the export's own question, not here)
    # a process's CANN device log is still one
    assert RE_PLOG_FILE.search(f"node-1/process_log/debug/device-3/device-1365_{STAMP}.log").group("pid") == "1365"


@pytest.mark.parametrize("rel", SLOGS)
def test_the_rank_analysis_adds_no_process_for_a_device_slog(rel: str) -> None:
    files = chain_bundle(2)
    files["ascend-a01/" + rel.format(d=0)] = LINES
    assert [p.name for p in collect(files).processes] == ["ascend-a01 device 0", "ascend-a02 device 1"]


@pytest.mark.parametrize("rel", SLOGS[:2] + SLOGS[3:])
def test_logs_dir_and_bundle_place_a_device_slog_at_its_device(rel: str, tmp_path: Path) -> None:
    from opsbrain.diagnosis.oneclick import diagnose_logs
    from opsbrain.kb.training import load_engine

    p = tmp_path / "node-1" / rel.format(d=3)
    p.parent.mkdir(parents=True)
    p.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    engine = load_engine(None, say=lambda m: None)
    for d in (diagnose_logs(str(tmp_path), engine)["diagnosis"], diagnose_bundle(tmp_path, engine)["diagnosis"]):
        assert "on node-1/npu3" in d["evidence"][0], d["evidence"]
        assert "process" not in str((d.get("root_cluster") or {}).get("root")), d.get("root_cluster")
        assert "pid" not in str(d.get("component")), d
