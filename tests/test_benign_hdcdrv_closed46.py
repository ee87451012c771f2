"""A device's late connect reply to a session the user's process already closed is no fault (session 46, tester46j).

The host-device channel driver logs ``Session has already closed. (session=N; dev_id=N; service_type="service_dmp";
local_close_state="closed_by_user"; ...)`` from ``hdcdrv_session_alive_check`` and then ``Command executed Failed.
(dev=N; cmd=2; error_code=-22)`` (cmd 2 = HDCDRV_CTRL_MSG_TYPE_CONNECT_REPLY, -22 = HDCDRV_SESSION_HAS_CLOSED): the
reply is dropped. The newer driver prints nothing for the DMP service and a warning otherwise (hicann/driver
@ef377e95 src/sdk_driver/hdc/pcie/common/hdcdrv_core.c). vllm-ascend#9873's dmesg (an Atlas A3 host) read
framework_error 0.53 from these lines. Sources beside :data:`opsbrain.ingest.benign.BENIGN`.
"""

from __future__ import annotations

import io
from typing import Any

import pytest

from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.ingest.benign import BENIGN
from opsbrain.ingest.parsers import parse_line
from tests.textviews import view_of

# https://github.com/vllm-project/vllm-ascend/issues/9873 (dmesg posted in the thread)
CLOSED = ('[1717961.940895] [T3346535] [ascend] [hdcdrv] [ERROR] [hdcdrv_session_alive_check 934] '
          '<kworker/143:3:3346535> Session has already closed. (session=32964; dev_id=1; service_type="service_dmp";'
          'local_close_state="closed_by_user"; remote_close_state="closed_by_user"; local_session_fd=32964; '
          'remote_session_fd=-1)')
REPLY = ('[1717961.940907] [T3346535] [ascend] [hdcdrv] [ERROR] [hdcdrv_ctrl_msg_recv_exception_report 3721] '
         '<kworker/143:3:3346535> Command executed Failed. (dev=1; cmd=2; error_code=-22)')
DMESG = "\n".join([
    '[1717806.299412] [T3261014] [ascend] [ts_agent] [tsagent_mailbox_update 1478] <VLLM::Worker_DP:3261014,3261014> '
    'peak value of dma desc is: dma_cnt[15]=18058.',
    CLOSED, REPLY,
    '[1718548.960404] [T3477165] [ascend] [hdcdrv] [ERROR] [hdcdrv_session_alive_check 934] <kworker/146:0:3477165> '
    'Session has already closed. (session=34833; dev_id=4; service_type="service_dmp";local_close_state="closed_by_'
    'user"; remote_close_state="closed_by_user"; local_session_fd=34833; remote_session_fd=-1)',
    '[1718548.960416] [T3477165] [ascend] [hdcdrv] [ERROR] [hdcdrv_ctrl_msg_recv_exception_report 3721] '
    '<kworker/146:0:3477165> Command executed Failed. (dev=4; cmd=2; error_code=-22)',
]) + "\n"



@pytest.mark.parametrize("line", [CLOSED, REPLY])
def test_late_reply_lines_give_no_signal(line: str) -> None:
    assert BENIGN.search(line)
    assert [s.kind for s in parse_line(line)] == []
    assert view_of(line).failing == 0


def test_the_dmesg_reads_no_fault(engine: Any) -> None:
    d = diagnose_logs("-", engine, stdin=io.BytesIO(DMESG.encode()))["diagnosis"]
    assert d["fault_class"] == "unknown", (d["fault_class"], d["confidence"], d.get("evidence_lines"))


@pytest.mark.parametrize("line", [
    # constructed from the same format: a session a device reset or a release ended, another command's failure
    CLOSED.replace('local_close_state="closed_by_user"', 'local_close_state="closed_by_release"'),
    REPLY.replace("cmd=2; error_code=-22", "cmd=1; error_code=-22"),
])
def test_other_hdcdrv_lines_keep_their_reading(line: str) -> None:
    assert not BENIGN.search(line)
    assert [s.kind for s in parse_line(line)] != []
