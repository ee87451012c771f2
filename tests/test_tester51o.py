"""vllm-ascend's sleep-mode allocator refusing to start is the install's or the allocator setting's (``cfg:env``),
not a defect of the framework (session 51, tester51o). Sleep mode (``enable_sleep_mode=True``, what verl, OpenRLHF,
trl and ms-swift use to offload the rollout engine between RL steps) needs the CANN-mem pluggable allocator of
vllm-ascend's compiled extension: ``vllm_ascend/device_allocator/camem.py`` sets ``camem_available`` only when
``from vllm_ascend.vllm_ascend_C import ...`` succeeds, and ``CaMemAllocator.get_instance`` asserts
``assert camem_available, "camem allocator is not available"``; its ``__init__`` asserts ``"Expandable segments are
not compatible with memory pool. Please track https://github.com/pytorch/pytorch/issues/147851 for the latest
updates."`` when the allocator configuration enables expandable segments (vllm-project/vllm-ascend
vllm_ascend/device_allocator/camem.py @0bdaad4b; vLLM's vllm/device_allocator/cumem.py carries the same assertion).
The maintainers' answer to the first is a build setting (vllm-ascend#556: "set ``export COMPILE_CUSTOM_KERNELS=1``
and then re-install vllm-ascend"; vllm-ascend#3998 moves on to that rebuild), to the second a setting too
(ms-swift#6636: ``export PYTORCH_NPU_ALLOC_CONF="expandable_segments:False"``; vllm-ascend PR#9242 and vLLM PR#40812
describe the assertion as forcing users to choose one of the two). Both read framework_error 0.60 from the bare
``AssertionError`` before. Only the assertion as raised or echoed: review text that names the allocator
(vllm-ascend PR#10771) is not read."""

from __future__ import annotations

import io
from typing import Any

from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.ingest.parsers import parse_line

ISSUE_3998 = "AssertionError: camem allocator is not available"  # vllm-ascend#3998's title, the raised exception
ISSUE_556 = '[rank12]:     assert camem_available, "camem allocator is not available"'  # vllm-ascend#556, all ranks
EXPANDABLE = ("AssertionError: Expandable segments are not compatible with memory pool. Please track "
              "https://github.com/pytorch/pytorch/issues/147851 for the latest updates.")  # camem.py's message
REVIEW = ("Import `camem_available` to check if the custom allocator is available before attempting to use it. This "
          "prevents unnecessary initialization and potential assertion failures when sleep mode is disabled.")


def kinds(line: str) -> list[str]:
    return [s.kind for s in parse_line(line)]


def test_the_sleep_mode_allocator_refusals_read_as_configuration() -> None:
    for line in (ISSUE_3998, ISSUE_556, EXPANDABLE):
        assert "cfg:env" in kinds(line), (line, kinds(line))


def test_review_text_naming_the_allocator_is_not_read() -> None:
    assert kinds(REVIEW) == [], kinds(REVIEW)  # vllm-ascend PR#10771, a review comment


def test_the_raised_assertion_answers_config_error(engine: Any) -> None:
    for line in (ISSUE_3998, EXPANDABLE):
        d = diagnose_logs("-", engine, stdin=io.BytesIO((line + "\n").encode()))["diagnosis"]
        assert d["fault_class"] == "config_error", (line, d["fault_class"], d["confidence"])
