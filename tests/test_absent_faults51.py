"""A line that says faults were absent ("无 NaN、Inf、OOM 或分布式 hang", "no NaN or Inf"): the negated fault words are
no signal and no failing words of the text fallback, the rest of the line is read as before (session 51, tester51b).
Sources beside :data:`opsbrain.ingest.absent.NEGATED_FAULTS`."""

from __future__ import annotations

from opsbrain.ingest.absent import absent_faults_removed
from opsbrain.ingest.parsers import parse_line
from tests.textviews import view_of

# ByteDance-Seed/VeOmni#1034 (Ascend NPU Qwen3.5-MoE LoRA report: 8 ranks x 500 steps, exit code 0): read npu_oom 0.67
VEOMNI = "- 两端 loss 均从约 `1.44` 下降到约 `0.0011`，无 NaN、Inf、OOM 或分布式 hang；"
# vllm-project/vllm-omni#1199 (title): a real allocation failure keeps its reading
NPU_OOM = ("RuntimeError: NPU out of memory. Tried to allocate 52.00 MiB (NPU 0; 60.96 GiB total capacity; 59.36 GiB "
           "already allocated;")
# hiyouga/LlamaFactory#8439 (NaN loss on a 910B): a NaN that is there
NAN_LOSS = "{'loss': 0.0, 'grad_norm': nan, 'learning_rate': 4.510703363914373e-06, 'epoch': 0.02}"


def test_negated_fault_list_gives_no_signal() -> None:
    assert [s.kind for s in parse_line(VEOMNI)] == []
    assert not view_of(VEOMNI).errors


def test_only_the_negated_words_go() -> None:
    left = absent_faults_removed(VEOMNI)
    assert "OOM" not in left and "NaN" not in left and "hang" not in left
    assert "两端 loss 均从约 `1.44` 下降到约 `0.0011`" in left


def test_faults_that_are_there_keep_their_reading() -> None:
    assert "mem:oom" in [s.kind for s in parse_line(NPU_OOM)]
    assert absent_faults_removed(NPU_OOM) == NPU_OOM
    assert absent_faults_removed(NAN_LOSS) == NAN_LOSS
    # "无法" (unable) and "no available memory" negate no fault word: the line is read as it is
    for line in ("无法分配内存", "RuntimeError: no available memory on device 0"):
        assert absent_faults_removed(line) == line


# review51. rwth-i6/returnn#1500 (blind46 b46c-02, the kernel's AER lines): "error_detected" is the name of the
# driver callback that is missing, not an error said to be absent
AER = "[  +0.000844] nvidia 0000:03:00.0: AER: can't recover (no error_detected callback)"
# Constructed in the module's own documented shape ("无响应超时", a timeout for want of an answer) with the English
# word after a space, as Chinese messages mix them: the negation starts the word (无响应 unresponsive, 无效 invalid,
# 没有响应 no response), the fault is there
THERE = ("设备无响应 timeout 3000ms", "PushPlus 回调请求体无效 errors=[...]", "服务没有响应 timeout after 30s")


def test_a_negation_that_starts_a_word_keeps_the_fault_word() -> None:
    assert absent_faults_removed(AER) == AER
    for line in THERE:
        assert absent_faults_removed(line) == line, line
        assert view_of(line).errors, line
    # the later items of a list still take a qualifier (the VeOmni report's "或分布式 hang")
    assert "hang" not in absent_faults_removed(VEOMNI)
