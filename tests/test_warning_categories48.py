"""Every category of Python's warnings module, and a rank-prefixed c10 warning, is a warning to the text fallback
(session 48, tester48f).

``warnings.formatwarning`` writes ``{filename}:{lineno}: {category}: {message}`` with the category's class name
(CPython Lib/warnings.py ``_formatwarnmsg_impl``), so any ``Warning`` subclass can head the line: torch.jit's
``TracerWarning`` (torch/jit/_trace.py), torch_npu's ``ImportWarning`` of ``transfer_to_npu``. The parsers
already read the line so (``opsbrain.ingest.parsers.framework.RE_WARNING``: ``\\w*Warning``, optionally after
``[rankN]:``); the fallback's :data:`~opsbrain.diagnosis.realtext.WARNING_STATED` listed six categories and no rank
prefix, so a passing NPU test run's warnings summary, whose TracerWarning says ``Detailed error:``, read
framework_error 0.60, and c10's warning head after the ``[rankN]:`` prefix c10 puts on a ranked process's lines
counted as a failing line. A raised error after the same prefix still fails.
"""

from __future__ import annotations

import io

from opsbrain.diagnosis.realtext import TextView

# https://github.com/huggingface/transformers/pull/27146 (statelesshz, 2023-10-31: test_modeling_bert.py run on
# npu:0, tests PASSED; its pytest warnings summary, cut)
SUMMARY = "\n".join((
    "tests/models/bert/test_modeling_bert.py::BertModelTest::test_torch_fx",
    "  /root/anaconda3/envs/hf/lib/python3.8/site-packages/torch/overrides.py:110: UserWarning: 'has_cuda' is "
    "deprecated, please use 'torch.backends.cuda.is_built()'",
    "    torch.has_cuda,",
    "",
    "tests/models/bert/test_modeling_bert.py::BertModelTest::test_torchscript_device_change",
    "  /root/anaconda3/envs/hf/lib/python3.8/site-packages/torch/jit/_trace.py:1093: TracerWarning: Output nr 1. of "
    "the traced function does not match the corresponding output of the Python function. Detailed error:",
    "  Tensor-likes are not",
    ""))
TRACER = SUMMARY.splitlines()[5]
# https://gitcode.com/Ascend/mind-cluster/blob/master/docs/zh/scheduling/04_usage/04_resumable_training/
# 04_using_resumable_training_on_the_cli.md (a rescheduled Pod that resumed and trains on), Ascend/mind-cluster
# @22bb3d98
RANKED_C10 = ("[rank16]:[W908 11:34:01.252908110 compiler_depend.ts:335] Warning: Cannot create tensor with interal "
              "format while allow_internel_format=False, tensor will be created with base format. (function "
              "operator())")
# https://github.com/vllm-project/vllm-ascend/issues/486 (an HCCL all_reduce that failed)
RANKED_RAISED = ("[rank1]: RuntimeError: InnerRunOpApi:torch_npu/csrc/framework/OpParamMaker.cpp:281 OPS function "
                 "error: HcclAllreduce, error code is 6")


def _view(*lines: str) -> TextView:
    v = TextView()
    for n, line in enumerate(lines, 1):
        v(line, "x.log", n)
    return v


def test_a_tracer_warning_is_no_failing_line() -> None:
    assert _view(TRACER).failing == 0  # before: 1 ("Detailed error:" on a line not read as a warning)


def test_a_ranked_c10_warning_is_no_failing_line() -> None:
    assert _view(RANKED_C10).failing == 0  # before: 1 ("Cannot")


def test_a_ranked_raised_error_still_fails() -> None:
    v = _view(RANKED_RAISED)
    assert v.failing == 1 and v.fails()


def test_the_passing_test_runs_warnings_summary_is_no_fault() -> None:
    from opsbrain.cli.kb_cmds import _matcher
    from opsbrain.diagnosis.oneclick import diagnose_logs
    from opsbrain.kb.training import load_engine

    d = diagnose_logs("-", load_engine(None, say=lambda m: None), _matcher(None),
                      stdin=io.BytesIO(SUMMARY.encode()))["diagnosis"]
    assert d["fault_class"] == "unknown", d  # before: framework_error 0.60 by the text fallback
