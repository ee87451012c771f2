"""Collective-communication text from session 43's blind look (tester43c): HCCL's refusal to create a queue pair for
lack of device memory is an out-of-memory, not a socket error."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.ingest.text import ingest_text

# https://github.com/xiaobingling93-pixel/Ascend-mscommreport/tree/19fbe71/test_data/标准目录结构/13_cclBuffer内存申请失败
# (log1/debug/device-1/device-514_ccrBuffer内存申请失败.log), the message of CHK_OOM_RET in hicann/hcomm@e11f953a
# src/platform/common/adapter/adapter_hccp.cc ("[%s] ra qp create fail, reason: out of memory. qpInfo:[%s],
# return: ret[%d]", with EI0011 and HCCL_E_OOM).
QP_OOM = ("[ERROR] HCCL(514,python):2026-05-08-01:19:45.111.856 [adapter_hccp.cc:1337] [2795][Recv][RaSocket]"
          "errNo[0x0000000005000013] ra qp create fail, reason: out of memory. qpInfo:[2], return: ret[79]")
# The same function's other failure (hicann/hcomm@e11f953a, HrtRaQpCreate: "[Create][RaQp]errNo[0x%016llx] ra qp
# create fail. qpInfo:[%s], return: ret[%d]", HCCL_E_NETWORK) names no memory: it stays no out-of-memory.
QP_FAIL = ("[ERROR] HCCL(514,python):2026-05-08-01:19:45.111.856 [adapter_hccp.cc:80] [2795][Create][RaQp]"
           "errNo[0x0000000005000013] ra qp create fail. qpInfo:[2], return: ret[79]")


def test_the_qp_out_of_memory_line_is_an_oom() -> None:
    kinds = {s.kind for s in ingest_text(QP_OOM + "\n")[0]}
    assert "mem:oom" in kinds and "hccl:socket_error" not in kinds


def test_a_qp_create_failure_naming_no_memory_is_no_oom() -> None:
    assert "mem:oom" not in {s.kind for s in ingest_text(QP_FAIL + "\n")[0]}


def test_the_qp_out_of_memory_reads_npu_oom(tmp_path: Path, engine: Any) -> None:
    log = tmp_path / "paste.log"
    log.write_text(QP_OOM + "\n")
    assert diagnose_logs(str(log), engine)["diagnosis"]["fault_class"] == "npu_oom"
