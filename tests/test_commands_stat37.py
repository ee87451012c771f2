"""``hccn_tool -i N -stat -g`` in collected command outputs (session 37): the RoCE port's packet counters, read as
npu-exporter reads them (devmanager/hccn/hccn_tool.go ``GetNPUStatInfo``), feed the checks npu-exporter's
``npu_chip_roce_*`` / ``npu_chip_info_rx_fcs_num`` series feed: damaged packets and CRC errors rising between two
collections."""

from __future__ import annotations

import os
import time
from pathlib import Path

from opsbrain.ingest.commands import parse_command_outputs
from opsbrain.sources import sweep_source
from opsbrain.sources.commands import CommandDirSource
from opsbrain.sweeps import SweepParams

# ascend-fd's fixture st_testcase/modelarts-job-testdt/.../worker-0/npu_info_after.txt (Ascend/mind-cluster), as it is
FIXTURE = """/usr/local/Ascend/driver/tools/hccn_tool -i 5 -stat -g
packet statistics:
roce_rx_err_pkt_num:11
roce_tx_err_pkt_num:0
"""


def _stat(dev: int, rx_err: int, fcs: int) -> str:
    return (f"/usr/local/Ascend/driver/tools/hccn_tool -i {dev} -stat -g\npacket statistics:\n"
            f"mac_rx_fcs_err_pkt_num:{fcs}\nmac_rx_bad_pkt_num:0\nroce_rx_all_pkt_num:912345\n"
            f"roce_rx_err_pkt_num:{rx_err}\nroce_tx_err_pkt_num:0\nroce_new_pkt_rty_num:0\n")


def test_the_fixtures_counters_are_read() -> None:
    got = parse_command_outputs(FIXTURE, "worker-0")
    assert got.port_stats == {5: {"roce_rx_err_pkt_num": 11, "roce_tx_err_pkt_num": 0}}
    assert got.commands == 1 and not got.failed


def test_counters_rising_between_collections_are_findings(tmp_path: Path) -> None:
    host = tmp_path / "worker-4"
    host.mkdir()
    out = host / "stat.txt"
    src, p = CommandDirSource(tmp_path), SweepParams()
    now = time.time()
    out.write_text(_stat(0, 0, 0) + _stat(1, 0, 0))
    os.utime(out, (now - 600, now - 600))
    first = sweep_source(src, p)
    assert not [f for f in first.findings if f.check in ("roce_errors", "link_crc")]
    out.write_text(_stat(0, 50_000, 0) + _stat(1, 0, 60_000))
    os.utime(out, (now, now))
    got = {(f.component, f.check) for f in sweep_source(src, p).findings if f.severity != "OK"}
    assert ("worker-4/npu0/port", "roce_errors") in got
    assert ("worker-4/npu1/port", "link_crc") in got
    assert not {c for c, k in got if c.startswith("worker-4/npu1") and k == "roce_errors"}
