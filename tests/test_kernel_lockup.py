"""A hard lockup is not a soft lockup, and a kernel panic in the crash dump's dmesg is the node's crash.

Found by a session tester: a kdump ``vmcore-dmesg.txt`` with ``NMI watchdog: Watchdog detected hard LOCKUP on cpu
34`` and ``Kernel panic - not syncing: Hard LOCKUP`` answered unknown (node_crash 0.32) and called the hard lockup a
"CPU soft lockup". Lines as the kernel prints them (kernel/watchdog_hld.c, kernel/watchdog.c, kernel/panic.c)."""

from __future__ import annotations

from opsbrain.diagnosis.engine import describe_kind
from opsbrain.diagnosis.knowledge import default_table
from opsbrain.ingest.parsers import parse_line

HARD = "[83213.039556] NMI watchdog: Watchdog detected hard LOCKUP on cpu 34"
SOFT = "[ 1234.567890] watchdog: BUG: soft lockup - CPU#17 stuck for 22s! [python3:4242]"
TAINT = ("[83213.039558] CPU: 34 PID: 9452 Comm: python3 Kdump: loaded Tainted: G           OE    --------- -  - "
         "4.18.0-147.5.2.15.h1109.eulerosv2r10.aarch64 #1")
PANIC = "[83213.039600] Kernel panic - not syncing: Hard LOCKUP"


def kinds(line: str) -> set[str]:
    return {s.kind for s in parse_line(line, 0.0, "node-a", "vmcore_dmesg") if s.kind.startswith("os:")}


def test_hard_and_soft_lockups_are_two_kinds() -> None:
    assert kinds(HARD) == {"os:hard_lockup"}
    assert kinds(SOFT) == {"os:lockup"}
    assert kinds(PANIC) == {"os:panic"}  # the panic names its cause; the line is the panic
    assert "hard" in describe_kind("os:hard_lockup") and "soft" not in describe_kind("os:hard_lockup")
    assert "hard" not in describe_kind("os:lockup")


def test_the_knowledge_base_reads_a_hard_lockup_as_a_hang_that_a_panic_turns_into_a_crash() -> None:
    roles = dict(default_table().of("os:hard_lockup"))
    assert roles == {"node_hang": "primary", "node_crash": "secondary"}
    assert dict(default_table().of("os:panic")).get("node_crash") == "primary"


def test_a_vmcore_dmesg_with_a_hard_lockup_panic_is_a_node_crash(tmp_path) -> None:
    from opsbrain.diagnosis.oneclick import diagnose_logs
    from opsbrain.kb.training import load_engine

    f = tmp_path / "crash" / "127.0.0.1-2025-03-01-10:05:29" / "vmcore-dmesg.txt"
    f.parent.mkdir(parents=True)
    f.write_text("\n".join([HARD, TAINT, PANIC]) + "\n")
    d = diagnose_logs(str(f), load_engine())["diagnosis"]
    assert d["fault_class"] == "node_crash", d
    assert not any("soft lockup" in e for e in d["evidence"])
