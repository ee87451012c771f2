"""Multi-node collective text from session 45's blind look (tester45b): devices whose TLS switches differ are the
documented cause of the link set-up timeout, so the root cluster's wait does not outrank the configuration error when
the switches sit in the devices' own run logs (another process's lines than the waiting plog's)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from opsbrain.diagnosis.oneclick import diagnose_logs

# hicann/hccl@f97e5675 docs/zh/user_guide/fault_diagnosis/link_timeout_EI0006.md: the guide's link set-up timeout
# example (one rank's debug plog) and, under 排查点5, the two devices' run-log TLS lines it greps ("若两端的tls开关不
# 一致，则socket创建时会校验失败导致两端均建链超时").
PLOG = """\
[ERROR] HCCL(17528,python3):2026-03-18-10:33:52.113.403 [hccl_socket_manager.cc:797] [18744][Wait][LinkEstablish]wait socket establish timeout, role[1] rank[1] timeout[120 s]
[ERROR] HCCL(17528,python3):2026-03-18-10:33:52.113.454 [hccl_socket_manager.cc:861] [18744][Wait][LinksEstablishCompleted] is failed. ret[9].
[ERROR] HCCL(17528,python3):2026-03-18-10:33:52.113.646 [hccl_socket_manager.cc:623] [18744]   _________________________LINK_ERROR_INFO___________________________
[ERROR] HCCL(17528,python3):2026-03-18-10:33:52.113.650 [hccl_socket_manager.cc:624] [18744]   |  comm error, device[1]
[ERROR] HCCL(17528,python3):2026-03-18-10:33:52.113.653 [hccl_socket_manager.cc:626] [18744]   |  dest_ip(user_rank)  |   dest_port   |  src_ip(user_rank)   |   src_port   |   MyRole   |   Status   |    TlsStatus   |
[ERROR] HCCL(17528,python3):2026-03-18-10:33:52.113.655 [hccl_socket_manager.cc:628] [18744]   |----------------------|---------------|----------------------|--------------|------------|------------|----------------|
[ERROR] HCCL(17528,python3):2026-03-18-10:33:52.113.706 [hccl_socket_manager.cc:583] [18744]   |  192.0.2.199(0)   |  16666  |   192.0.3.198(1)   |  3234403008  |  client  | time out |   DISABLE  | LinkInfo
[ERROR] HCCL(17528,python3):2026-03-18-10:34:43.142.013 [transport_manager.cc:1325] [18744][InitChannelStage][Timeout]Transport init error! createLink para:rank[1]-localUserrank[1]-localIpAddr[192.168.200.100/1], remoteRank[0]-remoteUserrank[0]-remoteIpAddr[192.168.200.100/0], machineType[1], linkMode[1], isUsedRdma[0], tag[HcomAllReduce_6629421139219749105_0]
"""  # noqa: E501
TLS_ON = ("[INFO] HCCP(2988,hccp_service.bin):2025-10-24-15:39:26.133.826 [rs_ssl.c:1529]tid:2988,rs_ssl_init(1529) : "
          "TLS SWITCH (1)")
TLS_OFF = ("[INFO] HCCP(30877,hccp_service.bin):2025-10-24-15:39:25.142.466 [rs_ssl.c:1529]tid:30877,rs_ssl_init(1529)"
           " : TLS SWITCH (0)")


def _job(root: Path, dev1: str) -> Path:
    (root / "debug" / "plog").mkdir(parents=True)
    (root / "debug" / "plog" / "plog-17528_20260318103300000.log").write_text(PLOG)
    for dev, line in ((0, TLS_ON), (1, dev1)):
        (root / "run" / f"device-{dev}").mkdir(parents=True)
        (root / "run" / f"device-{dev}" / f"device-284933{dev}_20251024153927364.log").write_text(line + "\n")
    return root


def test_a_tls_mismatch_is_the_cause_of_the_link_set_up_wait(tmp_path: Path, engine: Any) -> None:
    d = diagnose_logs(str(_job(tmp_path / "job", TLS_OFF)), engine)["diagnosis"]
    assert d["fault_class"] == "config_error"
    assert any("cfg:tls_mismatch" in e for e in d["evidence"] + [str(x) for x in d["evidence_lines"]])


def test_the_same_switches_leave_the_wait(tmp_path: Path, engine: Any) -> None:
    """Both devices with TLS on: no mismatch, the wait for the silent peer stays the root cluster's class."""
    d = diagnose_logs(str(_job(tmp_path / "job", TLS_OFF.replace("(0)", "(1)"))), engine)["diagnosis"]
    assert d["fault_class"] == "collective_timeout_sw"
