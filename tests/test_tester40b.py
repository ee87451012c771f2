"""Hardware and fabric text from session 40's blind look (tester40b): a tool's counters are measurements, not a
program's failure words; the Ascend 950 ``hccn_tool -g -dev_info`` port rows; a Huawei switch's ``display
interface`` state line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.diagnosis.realtext import TextView
from opsbrain.ingest.benign import COUNTER_LINE
from opsbrain.ingest.text import ingest_text

DRIVER_DOCS = ("https://github.com/hicann/driver/blob/ef377e950a32b1641c108c59481e39e9643b7d63/docs/en/"
               "Ascend_950_HCCN_Tool/Ascend_950_HCCN_Tool/")

# DRIVER_DOCS + querying-the-port-status.md: the documented output of ``hccn_tool -g -port_info`` for a linked port
# (whole; its one error word is the name of a zero counter, ``decoded_fail_block_num: 0x0``).
PORT_INFO = "\n".join([
    'hccn_tool -g -port_info -i 0 -u 0 -p 4',
    'port_id: 0x4',
    '======================= UB PORT LINK INFO =======================',
    'target_speed: LANE_400G_X4',
    'speed_ability: 400Gbps',
    'lane_num: X4',
    'fec: FEC RS',
    'sds_rate: unset',
    'port_usage: used',
    'port_enable: on',
    'port_link: link',
    'driver_type: TYPE_NONE',
    'port_mode: PORT_MODE_SHARED',
    'link_down_err: 0x302',
    'link_state: 0x0003 0x7310 0x5002 0x0000 0x0000 0x0000 0x0000 '
    '0x0000 0x0000 0x0000 0x0000 0x0000 0x0000 0x0000 0x0000 0x0000 ',
    '======================== UB DLPHY INFO ==========================',
    'port_cna: 0x20',
    'clock_freq: 0x4a3',
    'fec: FEC Mode 1 RS (128, 120,T=4)',
    'phy_mode_ctrl: Mode2',
    'sds_rate: 106.25G',
    'cur_speed: data rate8',
    'cur_tx_lane_num: X4',
    'cur_rx_lane_num: X4',
    'init_succ_tx_lane_num: X4',
    'init_succ_rx_lane_num: X4',
    'port_en: on',
    'port_mode: X4 2port',
    'port_mode_en: on',
    'dl_link: link',
    'phy_link: link',
    'cur_port_type: slave',
    'lstm_state: LINK_ACTIVE',
    'decoded_fail_block_num: 0x0',
    'fec_err: 0x841876',
    'retry_cnt: 0x0',
    'dl_link_fsm: Initialization succeeded.',
]) + "\n"

# DRIVER_DOCS + querying-the-number-of-port-bit-errors.md (the documented example, whole)
BIT_ERR = """hccn_tool -g -bit_err -i 0 -u 0 -p 4
-------------------------- dl-bit_err --------------------------
port_id: 0x4
st_fec_decoding_fail_num: 0x4
st_fec_err_bit_num: 0x3868275f
"""

# DRIVER_DOCS + querying-the-npu-device-information.md (the first table of the documented example); "Link Status,
# which can be DOWN or UP"
DEV_INFO = """hccn_tool -g -dev_info -i 0
+---------+---------+---------------------+-----------+-------------+------------+
| UDie ID | Port ID | Speed Ability(Gbps) | Port Type | Link Status | Media Type |
+---------+---------+---------------------+-----------+-------------+------------+
| 0       | 4       | 400                 | UB        | UP          | Electrical |
| 0       | 5       | 400                 | UB        | UP          | Electrical |
| 0       | 6       | 400                 | UB        | UP          | Electrical |
+---------+---------+---------------------+-----------+-------------+------------+
"""

# https://cloud.tencent.cn/developer/article/1825155 (a Huawei CE switch's port in error-down for link flapping; the
# field: https://support.huawei.com/enterprise/en/doc/EDOC1100086959, "Troubleshooting Interface Down Problems")
ERROR_DOWN = """<HUAWEI> display interface 10ge 1/0/1
10GE1/0/1 current state : ERROR DOWN(link-flap) (ifindex: 5)
Line protocol current state : DOWN
"""


def kinds(text: str) -> list[str]:
    return [s.kind for s in ingest_text(text)[0]]


def failing(text: str) -> int:
    view = TextView()
    for i, line in enumerate(text.splitlines(), 1):
        view(line, "<stdin>", i)
    return view.failing


def test_a_counter_named_for_errors_is_no_failure_line() -> None:
    assert failing(PORT_INFO) == 0
    assert failing(BIT_ERR) == 0
    assert failing("        HBM Double Bit Error Count               : 0\n") == 0  # npu-smi info -t ecc


@pytest.mark.parametrize("line", [
    "        Error Code                     : 80E01801",  # npu-smi info -t health: a code, not a count
    "error code: 507035",
    "RuntimeError: launch failed, retry count exceeded",
])
def test_codes_and_messages_are_no_counters(line: str) -> None:
    assert not COUNTER_LINE.match(line)
    assert failing(line + "\n") == 1


def test_the_950_dev_info_port_rows_are_read() -> None:
    assert "hccn:down" not in kinds(DEV_INFO)
    down = DEV_INFO.replace("| UP          |", "| DOWN        |", 1)  # the documented other value
    assert kinds(down) == ["hccn:down"]


def test_the_switch_interface_state_line_is_read() -> None:
    sigs = ingest_text(ERROR_DOWN)[0]
    # session 42 (link42): the cause link-flap is the port's flapping (tests/test_link42_error_down.py)
    assert [(s.kind, s.component) for s in sigs] == [("tk:switch_port_flap", "switch/10GE1/0/1~peer")]
    assert "port:down" not in kinds("10GE1/0/2 current state : Administratively DOWN (ifindex: 6)\n")


@pytest.fixture(scope="module")
def engine() -> Any:
    from opsbrain.kb.training import load_engine

    return load_engine()


@pytest.mark.parametrize("text", [PORT_INFO, BIT_ERR, ERROR_DOWN])
def test_tool_outputs_are_not_read_as_a_program_s_failure(tmp_path: Path, engine: Any, text: str) -> None:
    log = tmp_path / "paste.log"
    log.write_text(text)
    d = diagnose_logs(str(log), engine)["diagnosis"]
    assert d["fault_class"] not in ("config_error", "framework_error", "npu_oom", "collective_timeout_sw")
