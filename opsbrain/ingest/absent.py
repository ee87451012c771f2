"""Fault words a line says were absent: a report's "无 NaN、Inf、OOM 或分布式 hang" (none of NaN, Inf, OOM or a
distributed hang) or "no NaN or Inf" states that the run had none of them, and is read without those words
(:func:`absent_faults_removed`); the rest of the line is read as before."""

from __future__ import annotations

from opsbrain.lazyre import lazy_compile

_WORD = r"(?i:NaNs?|Infs?|OOMs?|hangs?|errors?|timeouts?|crash(?:es)?|failures?)(?![A-Za-z0-9_])"
_CJK = r"报错|错误|异常|超时|崩溃|卡死"
_ITEM = r"(?:(?:[\u4e00-\u9fff]{1,4}\s+)?" + _WORD + "|" + _CJK + ")"
NEGATED_FAULTS = lazy_compile(r"(?:(?<![A-Za-z])(?i:no|without)\s+|无\s*|没有\s*|未(?:出现|发生)\s*)(?:" + _WORD +
                              "|" + _CJK + r")(?:\s*(?:[、,，/]|(?i:\bor\b|\band\b)|或|和|及|与)\s*" + _ITEM + r")*")
"""A negation (no, without, 无, 没有, 未出现, 未发生) governing a fault word or a list of them (NaN, Inf, OOM, hang,
error, timeout, crash, failure; 报错, 错误, 异常, 超时, 崩溃, 卡死), an English word of a list's later item with
an optional Chinese qualifier before a space (``或分布式 hang``; none before a Chinese word: ``无响应超时`` is a
timeout for want of an answer). Not on the first item (review51): there the Chinese characters after the negation
are the word it starts, not a qualifier, and the fault is there: ``设备无响应 timeout 3000ms`` (unresponsive),
``参数无效 error`` (invalid), ``没有响应 timeout``. The English word must not run on into a letter, digit or
``_``: ``AER: can't recover (no error_detected callback)`` (rwth-i6/returnn#1500, the kernel's PCIe recovery: the
driver has no error_detected handler) names a callback, not an absent error. Reports of runs that went well say so
in these words: ByteDance-Seed/VeOmni#1034, the Ascend NPU Qwen3.5-MoE LoRA test report ("Ascend NPU 与 H200
均完成 8 rank、500 optimizer step 训练，退出码为 0；两端 loss 均从约 `1.44` 下降到约 `0.0011`，无 NaN、Inf、OOM
或分布式 hang"), read npu_oom 0.67 from its ``OOM`` (session 51,
tester51b); "无 NaN/Inf" and "No NaN or Inf in any arm" are the same statement in other training reports. A negation of
something else is no statement of absence and stays: "无法分配内存" (cannot allocate memory), "no available memory"
(the thing missing is memory, a fault)."""


_CUES = ("无", "没有", "未出现", "未发生", "no ", "No ", "NO ", "without", "Without", "WITHOUT")
"""Substrings one of the negations holds: a line without any is returned as it is (most lines, at a substring test
each)."""


def absent_faults_removed(text: str) -> str:
    """``text`` without the fault words it says were absent (:data:`NEGATED_FAULTS`); ``text`` itself when none."""
    if not any(cue in text for cue in _CUES):
        return text
    return NEGATED_FAULTS.sub(" ", text)
