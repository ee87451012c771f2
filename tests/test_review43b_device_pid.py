"""Review43b: a pasted device log's line heads print a device-side process's pid (the AI CPU scheduler's
``HCCL(3496,aicpu_scheduler)``, the HCCP service's ``HCCP(2988,hccp_service.bin)``), not the host process whose
device it is (``ingest.rankrecords.DEVICE_PROCESSES``). ``ranks.line_pid`` gave that pid, so the cause-first rule's
per-process split (``diagnosis.causefirst``) took a host plog and its own device log pasted together for two
processes: the scheduler read as a rank "waiting" on its own host process, or the scheduler's pid named as the cause.
A device-side line is of no process now.

Lines: W0/W1 are test_causefirst's plogs; the device log's notify wait is ascend-fd's AI CPU TaskException form
(``st_aicpu_notify_testcase``, as in test_rootcluster.py); the HCCP and host lines of the first test are hicann/hccl
docs/zh/user_guide/fault_diagnosis/link_timeout_EI0006.md's. The device-side out-of-memory line of the last test is
constructed: W1's driver line under the scheduler's head (the head form of a device log's DRV lines)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from opsbrain.ingest.ranks import device_side, line_pid
from tests.test_causefirst import W0, W1

NOTIFY = ("[ERROR] HCCL(3496,aicpu_scheduler):2024-05-10-08:12:31.511.020 [aicpu_communicator.cc:3083] [3896]"
          "[TaskException]base information is streamId:149, sqid:153, head:1488, tail:136, type:NOTIFY WAIT, "
          "localRank:8, remoteRank:0, taskId:26064, notifyId:760\n")
"""Process 4101's device log (rank 8): its AI CPU scheduler's notify wait."""


def test_a_device_side_line_prints_no_job_process() -> None:
    hccp = ("[INFO] HCCP(2988,hccp_service.bin):2025-10-24-15:39:26.133.826 [rs_ssl.c:1529]tid:2988,"
            "rs_ssl_init(1529) : TLS SWITCH (1)")
    host = ("[ERROR] HCCL(17528,python3):2026-03-18-10:33:52.113.454 [hccl_socket_manager.cc:861] [18744][Wait]"
            "[LinksEstablishCompleted] is failed. ret[9].")
    assert device_side(hccp) and device_side(NOTIFY) and not device_side(host)
    assert line_pid(hccp) is None and line_pid(NOTIFY) is None  # before: "2988", "3496"
    assert line_pid(host) == "17528"


def _diagnose(engine: Any, path: Path, text: str) -> dict[str, Any]:
    from opsbrain.diagnosis.oneclick import diagnose_logs

    path.write_text(text, encoding="utf-8")
    return diagnose_logs(str(path), engine)["diagnosis"]


def test_a_host_plog_and_its_device_log_are_one_process(tmp_path: Path, engine: Any) -> None:
    d = _diagnose(engine, tmp_path / "paste.log", W1 + NOTIFY)
    assert d["fault_class"] == "npu_oom", d
    said = " ".join(d["evidence"])
    assert "process 3496" not in said, said  # before: "process 3496's errors are a wait ... process 4101's ..."
    assert d["root"].get("name") is None  # one job process: not read apart (as W1 alone)


def test_the_cause_is_not_named_at_the_scheduler(tmp_path: Path, engine: Any) -> None:
    device_oom = W1.splitlines(keepends=True)[1].replace("DRV(4101,python3)", "DRV(3496,aicpu_scheduler)")
    d = _diagnose(engine, tmp_path / "paste.log", W0 + device_oom)
    assert d["root"].get("name") != "process 3496", d["root"]  # before: npu_oom 0.66 at "process 3496"
    assert "process 3496" not in " ".join(d["evidence"])


def test_two_job_processes_with_a_device_log_are_still_read_apart(tmp_path: Path, engine: Any) -> None:
    d = _diagnose(engine, tmp_path / "paste.log", W0 + W1 + NOTIFY)
    assert d["fault_class"] == "npu_oom" and d["root"]["name"] == "process 4101", d
    assert any("process 3052's errors are a wait" in e for e in d["evidence"])
