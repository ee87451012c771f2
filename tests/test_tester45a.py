"""vllm-ascend's corrections of settings it does not run (session 45, tester45a): ``_fix_incompatible_config`` in
vllm_ascend/platform.py (https://github.com/vllm-project/vllm-ascend/blob/main/vllm_ascend/platform.py) warns and
resets every GPU-specific or unsupported parameter a user set, "log a warning and reset them to safe values", and
the serve goes on. Such a line is no operator or configuration fault. Every real line is copied from the source its
comment names."""

from __future__ import annotations

from opsbrain.ingest.benign import BENIGN
from opsbrain.ingest.parsers import parse_line


def kinds(line: str) -> list[str]:
    return [s.kind for s in parse_line(line)]


# https://github.com/vllm-project/vllm-ascend/issues/11514 (a serve that started and served; its crash came later)
RESET = ("(EngineCore pid=36087) WARNING 07-07 12:55:00 [platform.py:1036] GPU-specific parameter is not supported "
         "on Ascend. parameter=disable_cascade_attn, value=True, action: resetting to False.")
# the other forms of the same function (vllm_ascend/platform.py _fix_incompatible_config, its logger.warning texts)
SAME_FUNCTION = (
    "WARNING 07-07 12:55:00 [platform.py:1040] Parameter is not supported on Ascend NPU. "
    "parameter=calculate_kv_scales, action: resetting to False.",
    "WARNING 07-07 12:55:00 [platform.py:1090] Parameter is currently ignored on Ascend. parameter=ubatch_size, "
    "value=2, action: resetting to 0. ",
    "WARNING 07-07 12:55:00 [platform.py:1060] Ignored GPU-specific parameter. parameter=use_trtllm_attention, "
    "action: resetting to False. ",
)


def test_vllm_ascends_parameter_reset_is_no_fault() -> None:
    for line in (RESET, *SAME_FUNCTION):
        assert BENIGN.search(line), line
        assert kinds(line) == [], line


def test_an_unsupported_parameter_that_stops_the_job_keeps_its_reading() -> None:
    # the same words without the reset (constructed): a parameter refused, with nothing done about it, is still read
    line = "ERROR 07-07 12:55:00 [platform.py:1036] GPU-specific parameter is not supported on Ascend."
    assert not BENIGN.search(line)
    assert kinds(line) != []
