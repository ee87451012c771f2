"""HIXL / ADXL statuses as Mooncake's AscendDirectTransport prints them (session 46, hixl46): the number is read as
the message category of its documented meaning (HIXL error codes, hiascend CANNCommunityEdition 900 API hixlug
llmcrv2_42_36; cann/hixl docs/zh/api/cpp/HIXL-error-code.md), only on the printer's own shapes (Mooncake
transfer_executor_base.cpp / ascend_direct_transport.cpp ``LOG(ERROR) << "..., status: " << status``)."""

from __future__ import annotations

import pytest

from opsbrain.ingest.text import ingest_text


def kinds(text: str) -> set[str]:
    return {s.kind for s in ingest_text(text)[0]}


@pytest.mark.parametrize("line, kind", [
    # vllm-ascend#4866 (decode pod of a 1P1D DeepSeek-R1; closed with a configuration fix): PARAM_INVALID
    ("E1210 03:24:54.778028 2548307 ascend_direct_transport.cpp:820] Failed to connect to target: "
     "172.16.100.99:25389, status: 103900", "msg:parameter_or_usage"),
    # vllm-ascend#5044 (1P1D store connector, decode get): TIMEOUT
    ("E1215 11:46:28.725225   497 ascend_direct_transport.cpp:611] Transfer slice failed with status: 103901",
     "msg:timeout"),
    # vllm-ascend#7401 (2P1D, after a connect timeout to the peer): NOT_CONNECTED, on the transfer and the disconnect
    ("E20260608 14:45:44.404292 342420 ascend_direct_transport.cpp:836] Transfer slice failed with status: 103902",
     "msg:comm"),
    ("E20260608 14:45:44.404398 342420 ascend_direct_transport.cpp:1138] Failed to disconnect to: 10.24:20033, "
     "status: 103902", "msg:comm"),
    # Mooncake PR#857 (engine start): FAILED
    ("E0923 12:12:19.110647 29135 ascend_direct_transport.cpp:164] Failed to initialize AdxlEngine, status: 503900",
     "msg:internal"),
])
def test_a_hixl_status_reads_as_its_documented_category(line: str, kind: str) -> None:
    assert kind in kinds(line)


def test_an_info_line_of_the_same_transport_names_no_category() -> None:
    # vllm-ascend#7401, the line between the two above
    line = ("I20260608 14:45:44.404325 342420 ascend_direct_transport.cpp:843] transfer failed and disconnect "
            "to:10.2:20033")
    assert not {k for k in kinds(line) if k.startswith("msg:")}


def test_the_same_number_elsewhere_is_no_hixl_status() -> None:
    # a batch's own status (vllm-ascend#5044, the line after the transfer): Mooncake's TransferStatusEnum, not HIXL
    line = ("E1215 11:46:28.725270   298 transfer_task.cpp:247] Transfer failed for batch 187651611544208 task 0 "
            "with status 6")
    assert not {k for k in kinds(line) if k.startswith("msg:")}
