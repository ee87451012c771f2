"""ACL_ERROR_RT_SUSPECT_REMOTE_ERROR 507057 (torch_npu's 'SUSPECT REMOTE ERROR', the runtime's 'suspect remote error')
is ambiguous: the AscendCL return-code reference names a faulty peer memory or the current device's own access out of
bounds, MindCluster's network-fault recovery raises it with a link-down, and real stacks print it for an operator's
out-of-range access (session 48, tester48h)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from opsbrain.diagnosis.knowledge import documented_kinds

# Real lines: vllm-project/vllm-ascend#12461 (GLM5.2 multi-node, closed; the reporter traced it to an out-of-range
# memory access in the MoE forward during cross-node EP communication), the worker prefix kept.
GLM52 = (
    '(Worker_DP1_TP0_EP16 pid=6925) ERROR 07-21 10:31:12 [multiproc_executor.py:962]        The exte'
    'nd info: errcode:(0x800000, 0, 0) errorStr: The DDR address of the MTE instruction is out of ra'
    'nge. fixp_error0 info: 0x600009b, fixp_error1 info: 0x58, fsmId:0, tslot:6, thread:0, ctxid:0, '
    'blk:12, sublk:0, subErrType:4.[FUNC:PrintCoreInfo][FILE:device_error_core_proc.cc][LINE:658]\n'
    '(Worker_DP1_TP0_EP16 pid=6925) ERROR 07-21 10:31:12 [multiproc_executor.py:962]        Kernel t'
    'ask happen error, retCode=0x26, [aicore exception].[FUNC:PreCheckTaskErr][FILE:davinci_kernel_t'
    'ask.cc][LINE:1729]\n'
    '(Worker_DP1_TP0_EP16 pid=6925) ERROR 07-21 10:31:12 [multiproc_executor.py:962]        rtStream'
    'SynchronizeWithTimeout execution failed, reason=suspect remote error[FUNC:FuncErrorReason][FILE'
    ':error_message_manage.cc][LINE:65]\n'
    '(Worker_DP1_TP0_EP16 pid=6925) ERROR 07-21 10:31:12 [multiproc_executor.py:962]        synchron'
    'ize stream with timeout failed, runtime result = 507057[FUNC:ReportCallError][FILE:log_inner.cp'
    'p][LINE:148]\n'
)


def test_507057_and_its_texts_name_no_class_alone() -> None:
    kinds = documented_kinds()
    assert set(kinds["rt:507057"].values()) == {"ambiguous"}
    assert kinds["msg:remote_access"] == {"hbm_uce": "ambiguous", "link_down": "ambiguous",
                                          "framework_error": "ambiguous"}


def test_suspect_remote_error_beside_an_out_of_range_access_is_no_hbm_uce(tmp_path: Path, engine: Any) -> None:
    from opsbrain.diagnosis.oneclick import diagnose_logs

    f = tmp_path / "worker.log"
    f.write_text(GLM52)
    got = diagnose_logs(str(f), engine)["diagnosis"]
    assert got["fault_class"] == "framework_error", got  # before: hbm_uce 0.41 on 507057's text
