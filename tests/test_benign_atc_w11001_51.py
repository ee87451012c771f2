"""The graph engine's W11001 after an ATC conversion (session 51, tester51e): an operator placed on a lower-priority
engine, a performance notice of a build that went on. No signal, no error line of the text fallback, in either
wording. Sources beside :data:`opsbrain.ingest.runnotices.RUN_NOTICES`."""

from __future__ import annotations

import io
from typing import Any

import pytest

from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.ingest.benign import BENIGN
from opsbrain.ingest.parsers import parse_line
from tests.textviews import view_of

# older CANN: https://github.com/Ascend/ModelZoo-PyTorch/blob/05360171699bbe3bb1916bbafa84a445bd112e87/ACL_PyTorch/
# contrib/cv/segmentation/ICNet/readme.md, lines 419-436 (the README's ATC run, then its inference)
OLD = [
    "W11001: High-priority service of op[PartitionedCall_AvgPool_45_2] is invalid, low-priority service is used. "
    "It can work normally but may affect performance.",
    "W11001: High-priority service of op[PartitionedCall_AvgPool_52_6] is invalid, low-priority service is used. "
    "It can work normally but may affect performance.",
]
# the code's ErrMessage (hicann/metadef @afc8ede2 error_manager/error_code.json, W11001
# Performance_Not_Optimal_Operator), as Ascend/mindxsdk-referenceapps contrib/YOLOX's README shows it, and with the
# [PID] head of newer releases as an Orange Pi AIpro YOLOv10 README shows it
NEW = [
    "W11001: Op [Slice_30] does not hit the high-priority operator information library, which might result in "
    "compromised performance.",
    "W11001: [PID: 23383] 2025-08-27-20:57:16.972.690 Op [/model.23/Mod] does not hit the high-priority operator "
    "information library, which might result in compromised performance.",
]
ICNET_RUN = "\n".join([
    "ATC start working now, please wait for a moment.",
    "=================================",
    "ntc dst shape: [1, 19, 1024, 2048]",
    "=================================",
    "ATC run success, welcome to the next use.",
    *OLD,
    "bs1:",
    "[INFO] Dataset number: 19 finished cost 535.227ms",
    "[INFO] PureInfer result saved in ./result/PureInfer_perf_of_ICNet_bs1_in_device_0.txt",
    "-----------------PureInfer Performance Summary------------------",
    "[INFO] ave_throughputRate: 1.86946samples/s, ave_latency: 535.118ms",
]) + "\n"


@pytest.mark.parametrize("line", [*OLD, *NEW])
def test_the_w11001_notice_gives_no_signal(line: str) -> None:
    assert BENIGN.search(line)
    assert [s.kind for s in parse_line(line)] == []
    assert view_of(line).failing == 0


def test_a_conversion_that_succeeded_reads_no_fault(engine: Any) -> None:
    d = diagnose_logs("-", engine, stdin=io.BytesIO(ICNET_RUN.encode()))["diagnosis"]
    assert d["fault_class"] == "unknown", (d["fault_class"], d["confidence"], d.get("evidence_lines"))


@pytest.mark.parametrize("line", [
    # the conversion's failures keep their words (Ascend/samples#11; Ascend/ModelZoo-PyTorch#6)
    "EZ3003: No supported Ops kernel and engine are found for [AddDsl], optype [AddDsl].",
    "E19010: No parser is registered for Op [/down_blocks.1/FindMax, optype [ai.onnx::11::FindMax]].",
    # another code, or the notice's words inside an error, are not the notice
    "W11002: In the compression weight configuration file cfg.json, some nodes do not exist in graph: conv1.",
    "ERROR: High-priority service of op[conv1] is invalid and no low-priority service is available",
])
def test_other_lines_are_not_the_notice(line: str) -> None:
    assert not BENIGN.search(line)
