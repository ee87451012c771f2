"""HCCL's connect-timeout detection result names the peer a rank waited on (session 51).

Source of the plog lines: hicann/hccl@09300b70 docs/zh/user_guide/fault_diagnosis/param_link_stage.md ("建链超时
（EI0006）"), cut, never edited. The guide: the source rank failed to connect to the destination in time; look at the
destination's own logs next (no error there: its process hung or exited). The console form puts the same line under
the error manager's EI0006 head (``Communication_Error_Get_Socket(EI0006): Getting socket times out. Reason:``), as
a vllm-ascend report pasted it (with IPv6 server addresses); here it is written with the guide's addresses."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.ingest.rankrecords import connect_detect

H = "[ERROR] HCCL(17528,python3):2026-03-18-10:3"
PLOG = [
    H + "3:52.113.403 [hccl_socket_manager.cc:797] [18744][Wait][LinkEstablish]wait socket establish timeout, "
        "role[1] rank[1] timeout[120 s]",
    H + "4:34.224.286 [detect_connect_anomalies.cc:494] [20039][CreateClientConnect]GetStatus fail, ret[9]",
    H + "4:43.141.949 [detect_connect_anomalies.cc:127] [18744]-------------------CONNECT TIMEOUT DETECT RESULT"
        "-----------------------",
    H + "4:43.141.966 [detect_connect_anomalies.cc:132] [18744]This node (server 192.168.200.100, device ID 1) "
        "detects that srcRank (server 192.168.200.100, device ID 1) fails to connect to dstRank (server "
        "192.168.200.100, device ID 0). Continue to analyze the fault based on the logs of srcRank and dstRank.",
]
DETECT = ("This node (server {a}, device ID {i}) detects that srcRank (server {a}, device ID {i}) fails to connect "
          "to dstRank (server {b}, device ID {j}). Continue to analyze the fault based on the logs of srcRank and "
          "dstRank.")


def _root(engine: Any, tmp_path: Path, lines: list[str]) -> dict[str, Any]:
    p = tmp_path / "excerpt.log"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return diagnose_logs(str(p), engine)["diagnosis"]["root"]


def test_the_detect_line_names_the_destination_only_from_the_source() -> None:
    assert connect_detect(PLOG[3]) == ("192.168.200.100", 0)
    v6 = DETECT.format(a="2605:340:cd51:7702:37be:bc77:9407:e620", i=2, b="2605:340:cd51:7702:bbee:9ccb:ec00:6164",
                       j=10)
    assert connect_detect(v6) == ("2605:340:cd51:7702:bbee:9ccb:ec00:6164", 10)
    # a node that reports a pair it is not the source of waited on nobody
    other = PLOG[3].replace("This node (server 192.168.200.100, device ID 1)",
                            "This node (server 192.168.200.100, device ID 0)")
    assert connect_detect(other) is None


def test_a_plog_detect_result_places_the_root_on_the_destination(engine: Any, tmp_path: Path) -> None:
    """Before: no line named the peer (the socket timeout's own lines name none): root unknown."""
    root = _root(engine, tmp_path, PLOG)
    assert (root.get("host"), root.get("device")) == ("192.168.200.100", 0), root


def test_a_console_detect_result_places_the_root_on_the_destination(engine: Any, tmp_path: Path) -> None:
    """Before: the device of torch_npu's error head (device 1) was the root; the peer was not named."""
    lines = ["[ERROR] 2026-03-18-10:34:43 (PID:17528, Device:1, RankID:-1) ERR02200 DIST call hccl api failed.",
             "[PID: 17528] 2026-03-18-10:34:43.142.013 Communication_Error_Get_Socket(EI0006): Getting socket times "
             "out. Reason: ",
             DETECT.format(a="192.168.200.100", i=1, b="192.168.200.101", j=5)]
    root = _root(engine, tmp_path, lines)
    assert (root.get("host"), root.get("device")) == ("192.168.200.101", 5), root


def test_a_console_detect_line_outside_its_block_names_nothing(engine: Any, tmp_path: Path) -> None:
    """A guard: the detect line counts only inside the error manager's block (its pid and time)."""
    lines = ["[ERROR] 2026-03-18-10:34:43 (PID:17528, Device:1, RankID:-1) ERR02200 DIST call hccl api failed.",
             "[PID: 17528] 2026-03-18-10:34:43.142.013 Communication_Error_Get_Socket(EI0006): Getting socket times "
             "out. Reason: ",
             "some other unindented line",
             DETECT.format(a="192.168.200.100", i=1, b="192.168.200.101", j=5)]
    root = _root(engine, tmp_path, lines)
    assert root.get("host") != "192.168.200.101", root
