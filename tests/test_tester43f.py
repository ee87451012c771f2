"""Session 43 (tester43f): a blind look at Chinese-language sources (hiascend forum, Huawei Cloud FAQ, CSDN,
vllm-ascend issues in Chinese). Four notices a healthy run prints read as faults; each is printed by a program that
then goes on, as its source shows:

- torch_npu's ProcessGroupHCCL, when HCCL_EXEC_TIMEOUT is longer than init_process_group's watchdog timeout, warns
  ``The HCCL execution timeout Nms is bigger than watchdog timeout Mms which is set by init_process_group! The plog
  may not be recorded.`` (Ascend/pytorch torch_npu/csrc/distributed/ProcessGroupHCCL.cpp, TORCH_NPU_WARN in the
  constructor): two settings compared at start, no collective that timed out (it read hccl:exec_timeout).
- MindIE's ``CheckLogEnv`` prints ``The old environment variable X will be deprecated on 2025/12/31. Please use the
  new environment variable Y as soon as possible.`` for each old log variable set (MindIE-LLM log_config.cpp; the
  renaming is documented in MindIE-LLM docs/zh/user_guide/user_manual/logging_configuration.md): a notice, no missing
  variable (it read cfg:env).
- torch_npu's ``Device do not support double dtype now, dtype cast repalce with float.`` (TORCH_NPU_WARN_ONCE in the
  ``to`` of a double dtype, which then casts to float and goes on), as transfer_to_npu's DoubleTensor notice is.
- The driver installer's hot-reset step: ``device_hot_reset.sh: line 269: echo: write error: No such device`` in the
  output Huawei Cloud's CCE FAQ (cce_faq_00494, NPU驱动升级失败如何解决) shows for a successful upgrade
  ("若回显结果如下，则说明升级成功"); it read drv:api_error.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from opsbrain.ingest.parsers import parse_line

# https://www.hiascend.com/forum/thread-0275180660620754100-1-1.html (MindIE 2.0.T3.1 start)
HCCL_WATCHDOG = ("[W compiler_depend.ts:795] Warning: The HCCL execution timeout 1800000ms is bigger than watchdog "
                 "timeout 300000ms which is set by init_process_group! The plog may not be recorded. (function "
                 "ProcessGroupHCCL)")
# https://www.hiascend.com/forum/thread-02166212303760696077-1-1.html (mindieservice_daemon start)
MINDIE_DEPRECATED = ("The old environment variable MINDIE_LLM_LOG_LEVEL will be deprecated on 2025/12/31. Please "
                     "use the new environment variable MINDIE_LOG_LEVEL as soon as possible.")
# https://blog.csdn.net/qq_65562738/article/details/145454887 (torch_npu on a 310B1)
DOUBLE_CAST = "Warning: Device do not support double dtype now, dtype cast repalce with float."
# https://support.huaweicloud.com/cce_faq/cce_faq_00494.md (a successful driver upgrade)
HOT_RESET = "/usr/local/Ascend/driver/script/device_hot_reset.sh: line 269: echo: write error: No such device"

UPGRADE = """Verifying archive integrity...  100%   SHA256 checksums are OK. All good.
Uncompressing ASCEND DRIVER RUN PACKAGE  100%
[Driver] [2025-04-17 09:39:16] [INFO]Start time: 2025-04-17 09:39:16
[Driver] [2025-04-17 09:39:16] [INFO]base version is 24.1.rc3.1.
[Driver] [2025-04-17 09:39:16] [WARNING]Do not power off or restart the system during the installation/upgrade
[Driver] [2025-04-17 09:39:18] [INFO]device hot reset start
/usr/local/Ascend/driver/script/device_hot_reset.sh: line 269: echo: write error: No such device
[Driver] [2025-04-17 09:39:23] [INFO]driver install type: Direct
[Driver] [2025-04-17 09:39:23] [INFO]upgradePercentage:10%
"""


@pytest.mark.parametrize("line", [HCCL_WATCHDOG, MINDIE_DEPRECATED, DOUBLE_CAST, HOT_RESET])
def test_a_notice_of_a_run_that_goes_on_gives_no_signal(line: str) -> None:
    assert parse_line(line) == []


def test_an_hccl_execution_timeout_still_reads() -> None:
    # the same process group's watchdog when a collective did time out (ProcessGroupHCCL.cpp)
    line = ("[Rank 0] Watchdog caught collective operation timeout: WorkHCCL(SeqNum=6, OpType=ALLREDUCE, "
            "Timeout(ms)=1800000) ran for 1800011 milliseconds before timing out.")
    assert parse_line(line) != []


@pytest.mark.parametrize("text", [
    "\n".join([HCCL_WATCHDOG] * 3) + "\n",
    "g_mainPid = 804\nLogLevelDynamicHandler start\n" + MINDIE_DEPRECATED + "\n",
    UPGRADE,
])
def test_the_healthy_starts_are_no_fault(tmp_path: Path, engine: Any, text: str) -> None:
    from opsbrain.diagnosis.oneclick import diagnose_logs

    f = tmp_path / "start.log"
    f.write_text(text)
    assert diagnose_logs(str(f), engine)["diagnosis"]["fault_class"] == "unknown"
