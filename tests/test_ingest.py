"""The ingestion layer on real-format lines (each from a public source or Huawei's own fixtures' layout)."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from opsbrain.ingest import ingest_text, parse_line
from opsbrain.ingest.where import device_in, host_in, user_terms

REAL = [
    # (line, kind expected, device expected)
    ("HBM MULTI BIT ECC, Uncorrectable ECC, device_id=3, event_id=0x80e01801, time us=1.", "dev:80E01801", 3),
    ("RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB (NPU 0; 60.97 GiB total capacity)", "mem:oom", 0),
    ("Aug  1 08:38:31 localhost kernel: [ 1197.584409] [ascend] [ERROR] [drv_soft_fault] [heart_beat_judge 318] "
     "<kworker/5:1H:39365> Heartbeat lost! (device=1; old_count=1104; new_count=1104; lost_count=4)",
     "drv:heartbeat_lost", 1),
    ("Mar 15 03:40:50 sha2uvp-gert01 kernel: Out of memory: Kill process 6033 (java) score 367 or sacrifice child",
     "os:oom_killer", None),
    ("[ERROR] HCCL(26251,python3):2025-01-24-11:24:07.476.916 [comm_base.cc:1018][42715]   |  124.0.0.21(0)   |"
     "   124.0.0.11(1)   |  client  | no connect |", "hccl:no_connect", None),
    ("[ERROR] aclrtSynchronizeStream(stream) failed: 507015", "rt:507015", None),
    ("[  293.039556] NMI watchdog: Watchdog detected hard LOCKUP on cpu 34", "os:lockup", None),
    ("[devid 3]    Mon Jan  1 10:00:00 2024    LINK DOWN", "hccn:down", 3),
]


@pytest.mark.parametrize(("line", "kind", "dev"), REAL)
def test_real_lines_become_their_signal(line: str, kind: str, dev: int | None) -> None:
    sigs = parse_line(line)
    kinds = [s.kind for s in sigs]
    assert kind in kinds, kinds
    if dev is not None:
        assert any(s.device == dev for s in sigs if s.kind == kind)


def test_hosts_are_free_form_and_devices_as_found() -> None:
    assert host_in("Mar 15 03:40:50 dn360 kernel: EXT4-fs error") == "dn360"
    assert host_in("worker-7 EH9999: Inner Error!") == "worker-7"
    assert host_in("SetupAgent rankNum[3], rank[1], server[10.20.8.111%bond1], logicDevId[0]") == "10.20.8.111"
    assert host_in("no host here") is None
    for text, want in (("[dev3] x", 3), ("device 5 x", 5), ("chip 2 err", 2), ("npu7 down", 7),
                       ("logicDevId[4]", 4), ("device=1000", None)):
        assert device_in(text) == want, text
    assert user_terms("worker-7/npu3") == {"component": "worker-7/npu3", "host": "worker-7", "device": 3}
    assert user_terms("pod0/node7/npu3/hbm")["host"] == "pod0-node7"


def test_the_same_excerpt_reads_the_same_whatever_the_host_naming() -> None:
    line = "Aug  1 08:38:31 {h} kernel: [ascend] [ERROR] [drv_soft_fault] Heartbeat lost! (device=2; lost_count=4)"
    kinds = {frozenset(s.kind for s in ingest_text(line.format(h=h))[0])
             for h in ("pod0-node7", "worker7", "gpu-host-12")}
    assert len(kinds) == 1 and "drv:heartbeat_lost" in next(iter(kinds))


def test_streaming_keeps_line_numbers_and_counts_cut_lines() -> None:
    text = "x" * 10_000 + "\nnothing\n" + "EI0002: notify wait timeout, remote rank [1]\n"
    sigs, stats = ingest_text(text)
    assert stats.lines == 3 and stats.lines_cut == 1
    assert [s.line_no for s in sigs if s.kind == "hccl:EI0002"] == [3]


def test_stdin_paste_is_diagnosed_by_the_cli() -> None:
    line = b"RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB (NPU 0; 60.97 GiB total capacity)\n"
    out = subprocess.run([sys.executable, "-m", "opsbrain", "diagnose", "--logs", "-", "--json"], input=line,
                         capture_output=True, timeout=120, check=False)
    assert out.returncode == 0, out.stderr
    import json

    d = json.loads(out.stdout)["diagnosis"]
    assert d["fault_class"] == "npu_oom" and d["evidence_lines"][0]["line"] == 1
    assert d["root"]["device"] == 0


def test_a_fault_at_the_end_of_a_big_log_is_found(tmp_path: Path) -> None:
    from opsbrain.diagnosis.oneclick import diagnose_logs
    from opsbrain.kb.training import load_engine

    p = tmp_path / "big.log"
    with p.open("w") as f:
        for i in range(100_000):
            f.write(f"[INFO] GE(1,python):2024-05-01-10:00:00.000.000 [graph.cc:{i}] step {i} ok\n")
        f.write("Aug  1 08:38:31 host3 kernel: [ascend] [ERROR] [drv_soft_fault] Heartbeat lost! (device=5;)\n")
    res = diagnose_logs(str(p), load_engine())
    assert res["input"]["lines"] == 100_001
    assert res["diagnosis"]["fault_class"] == "npu_off_bus" and res["diagnosis"]["root"]["device"] == 5
    assert res["diagnosis"]["evidence_lines"][0]["line"] == 100_001


def test_junk_never_raises() -> None:
    sigs, stats = ingest_text(bytes(range(256)) * 100)
    assert stats.lines >= 1 and isinstance(sigs, list)
    assert parse_line(None) == []  # type: ignore[arg-type]
    assert io is not None


def test_a_port_that_relocks_within_seconds_is_a_flap_not_a_port_down() -> None:
    from opsbrain.ingest import ingest_text

    records = ("[devid 0]link change records :\n"
               "[devid 0]    Sun Oct  5 10:13:51 2025    LINK UP\n"
               "[devid 0]    Sun Oct  5 10:13:50 2025    LINK DOWN\n")  # newest first, as hccn_tool lists them
    sigs, _ = ingest_text(records)
    flaps = [s for s in sigs if s.kind == "hccn:flap"]
    assert len(flaps) == 1 and flaps[0].line_no == 3 and flaps[0].device == 0
    stays = ("[devid 0]    Sun Oct  5 12:00:00 2025    LINK UP\n"
             "[devid 0]    Sun Oct  5 10:13:50 2025    LINK DOWN\n")  # back after a repair, hours later
    sigs, _ = ingest_text(stays)
    assert not [s for s in sigs if s.kind == "hccn:flap"]
