"""A tool's answer about itself is no fault of the job or the device (session 46, tester46e).

npu-smi answers a query or setting the product does not offer with a sentence alone on its line (``This device does
not support querying version.``, Ascend 950 npu-smi manual; ``This device does not support querying hccs.``, Atlas
200I A2 npu-smi manual): the text fallback counted it as a failing line (alone it read config_error 0.46; the 950
manual's two firmware-version outputs pasted without their commands 0.43). torch_npu's profiler, parsing a profile
without ACL-to-NPU flow records, prints ``[ERROR] [pid] profiler.py: Failed to get acl to npu flow events.`` and goes
on (vllm-ascend#1210's offline profile, which read framework_error 0.60). Sources beside
:data:`opsbrain.ingest.benign.BENIGN`.
"""

from __future__ import annotations

import io
from typing import Any

import pytest

from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.ingest.benign import BENIGN
from opsbrain.ingest.parsers import parse_line
from tests.textviews import view_of

# https://github.com/hicann/driver/blob/ef377e950a32b1641c108c59481e39e9643b7d63/docs/en/Ascend_950_npu-smi/
# Ascend_950_npu-smi/querying-the-firmware-version.md (the outputs of its two usage examples, verbatim, as pasted
# without the commands: read config_error 0.43 before)
VRD = """VRD Count                      : 6
VRD Name                       : AIC_D0
Current Version                : 4
Target Version                 : 4
Remaining Upgrade Count        : 255

VRD Name                       : BUS_D0
Current Version                : 4
Target Version                 : 4
Remaining Upgrade Count        : 255

VRD Name                       : 1V2PFM
Current Version                : 4
Target Version                 : 4
Remaining Upgrade Count        : 255

VRD Name                       : AIC_D1
Current Version                : 4
Target Version                 : 4
Remaining Upgrade Count        : 255

VRD Name                       : BUS_D1
Current Version                : 4
Target Version                 : 4
Remaining Upgrade Count        : 255

VRD Name                       : 0V5PFM
Current Version                : 4
Target Version                 : 4
Remaining Upgrade Count        : 255
This device does not support querying version.
"""
# https://www.hiascend.com/document/detail/zh/Atlas%20200I%20A2/2550/re/npu/topic_0000002481386286.html and
# topic_0000002513466059.html (npu-smi info -t hccs ... usage examples)
HCCS = ["This device does not support querying hccs.", "This device does not support hccs topo. "]
# https://github.com/vllm-project/vllm-ascend/issues/1210 (the output of start_profiler.sh)
PROFILE = """xx/prefill_input10240_bs1/38e29b050563_905261_20250613101111987_ascend_pt
2025-06-13 10:11:38 [INFO] [912663] profiler.py: CANN profiling data parsed in a total time of 0:00:03.026016
2025-06-13 10:13:28 [ERROR] [911684] profiler.py: Failed to get acl to npu flow events.
2025-06-13 10:13:30 [INFO] [911684] profiler.py: All profiling data parsed in a total time of 0:02:18.205685
"""



@pytest.mark.parametrize("line", ["This device does not support querying version.", *HCCS,
                                  "[2025-06-13 10:13:28] [ERROR] [911684] profiler.py: Failed to get acl to npu flow "
                                  "events."])
def test_tool_answers_give_no_signal_and_no_failing_line(line: str) -> None:
    assert BENIGN.search(line)
    assert [s.kind for s in parse_line(line)] == []
    assert view_of(line).failing == 0


@pytest.mark.parametrize("text", [VRD, PROFILE])
def test_the_excerpts_read_no_fault(engine: Any, text: str) -> None:
    d = diagnose_logs("-", engine, stdin=io.BytesIO(text.encode()))["diagnosis"]
    assert d["fault_class"] == "unknown", (d["fault_class"], d["confidence"], d.get("evidence_lines"))


@pytest.mark.parametrize("line", [
    # constructed: an error raised about a dtype or operator keeps its reading, as does another profiler error
    "RuntimeError: This device does not support bf16.",
    "[2025-06-13 10:13:28] [ERROR] [911684] profiler.py: Failed to parse the CANN profiling data.",
])
def test_other_lines_keep_their_reading(line: str) -> None:
    assert not BENIGN.search(line)
    assert view_of(line).failing == 1
