"""Session 52, tester52d (PD disaggregation / KV transfer on Ascend): HCCL's one-sided service (under HIXL /
LLM-DataDist / Mooncake's AscendDirectTransport) refusing a same-server device pair that HCCS does not link, while
intra-node RoCE is off. HCCL's source (CANN Open Software, hccl_one_sided_service.cc
``HcclOneSidedService::IsUsedRdma``): on a 910B, a pair on one server uses RDMA only if
``GetExternalInputIntraRoceSwitch()`` (HCCL_INTRA_ROCE_ENABLE) is set; otherwise the pair's link type must be
``HCCS_TYPE``, else ``HCCL_ERROR("[HcclOneSidedService][IsUsedRdma]localDeviceId: %d, remoteDeviceId: %d, linkType
%u is not supported")`` and ``HCCL_E_NOT_SUPPORT``. The deployment (the cards chosen, the intra-node RoCE switch),
not an operator: ``cfg:env``, not ``op:unsupported``."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.ingest.text import ingest_text


def kinds(text: str) -> set[str]:
    return {s.kind for s in ingest_text(text)[0]}


# vllm-ascend#13175, the decode node's plog (single host, two cards, PD with Mooncake)
LINK = ("[ERROR] HCCL(4237,):2026-08-03-15:02:17.599.026 [hccl_one_sided_service.cc:103] [4762][HcclOneSidedService]"
        "[IsUsedRdma]localDeviceId: 0, remoteDeviceId: 2, linkType 1 is not supported")


def test_the_one_sided_link_refusal_is_the_deployment() -> None:
    assert "cfg:env" in kinds(LINK)


def test_the_one_sided_link_refusal_is_no_unsupported_operator() -> None:
    assert "op:unsupported" not in kinds(LINK)


def test_the_excerpt_reads_config_error(tmp_path: Path, engine: Any) -> None:
    text = "\n".join((
        LINK,
        "[ERROR] HCCL(4237,):2026-08-03-15:02:17.599.033 [hccl_one_sided_service.cc:695] [4762][InitIsUsedRdmaMap]"
        "call trace: hcclRet -> 5",
        "[ERROR] GE(4237,):2026-08-03-15:02:17.599.098 [channel.cc:69]4762 Initialize: ErrorNo: 103905() [GE][MODULE]"
        "Call hccl api failed, ret: 0x5",
    )) + "\n"
    (tmp_path / "plog.log").write_text(text)
    assert diagnose_logs(str(tmp_path / "plog.log"), engine)["diagnosis"]["fault_class"] == "config_error"


@pytest.mark.parametrize("line, kind", [
    # an operator that is not supported stays one (torch_npu's form)
    ("RuntimeError: aclnnFoo is not supported on this device", "op:unsupported"),
    # the same service's other refusals are not this reading
    ("[ERROR] HCCL(4237,):2026-08-03-15:02:17.599.033 [hccl_one_sided_service.cc:695] [4762][InitIsUsedRdmaMap]"
     "call trace: hcclRet -> 5", "hcclret:5"),
])
def test_near_misses_keep_their_reading(line: str, kind: str) -> None:
    assert kind in kinds(line)
    assert "cfg:env" not in kinds(line)


def test_a_link_type_word_at_info_is_no_fault() -> None:
    line = ("[INFO] HCCL(4237,):2026-08-03-15:02:17.599.026 [hccl_one_sided_service.cc:103] [4762][HcclOneSidedService]"
            "[IsUsedRdma]localDeviceId: 0, remoteDeviceId: 1, linkType 0")
    assert "cfg:env" not in kinds(line)


def test_hostile_line_is_linear() -> None:
    line = "[IsUsedRdma]localDeviceId: " + "0, remoteDeviceId: " * 3000 + "linkType " + "1" * 8000
    start = time.perf_counter()
    kinds(line[:65536])
    assert time.perf_counter() - start < 2.0
