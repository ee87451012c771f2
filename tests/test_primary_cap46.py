"""An answer that no primary signature of its class supports, where one of another class is present, is not a
confident one (session 46, primcap46; :mod:`opsbrain.diagnosis.primcap`).

tester46c's b46c-08 (sonic-net/sonic-buildimage#4822: four hung-task reports of kernel/hung_task.c on a switch's
Debian host, nothing else) read qingtian_failure 0.85: in the twin only a Qingtian card's failure prints hung tasks
without a soft lockup, while the knowledge base makes ``os:hung_task`` a primary signature of node_hang and no
signature of qingtian_failure. The answer keeps its class below the 0.8 of a confident one and says which class the
signature names. An answer whose class has a primary signature of its own is left as it is, whatever other class's
signature is beside it (the twin's npu_off_bus incidents carry a driver message, driver_firmware_error's)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from opsbrain.bundle import diagnose_bundle
from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.diagnosis.primcap import PRIMARY_CAP, primary_capped
from opsbrain.ingest import Signal

# sonic-net/sonic-buildimage#4822 (kernel/hung_task.c check_hung_task: the report, the taint line, the advice line)
TAINT = "      Tainted: G        W   E     4.19.0-6-amd64 #1 Debian 4.19.67-2+deb10u2"
ADVICE = '"echo 0 > /proc/sys/kernel/hung_task_timeout_secs" disables this message.'
HUNG = "".join(f"[26825.{t}] INFO: task {task} blocked for more than 120 seconds.\n[26825.{t + 1}] {TAINT}\n"
               f"[26825.{t + 2}] {ADVICE}\n" for t, task in ((855448, "kworker/2:1:5747"), (873379, "ntpd:11794"),
                                                            (888053, "snmpd:12767"), (904202, "zebra:13083")))
CONFIDENT = 0.8


def _verdict(engine: Any, text: str) -> dict[str, Any]:
    return diagnose_logs("-", engine, stdin=io.BytesIO(text.encode()))["diagnosis"]


def _says_why(d: dict[str, Any], other: str) -> bool:
    return any("primary signature" in e and other in e for e in d["evidence"])


def test_hung_tasks_alone_are_no_confident_qingtian_card_failure(engine: Any) -> None:
    d = _verdict(engine, HUNG)
    assert d["fault_class"] == "qingtian_failure"  # the class stays: the twin's reading, no longer a confident one
    assert d["confidence"] <= PRIMARY_CAP < CONFIDENT, d["confidence"]
    assert _says_why(d, "node_hang"), d["evidence"]


def test_a_bundle_of_the_same_lines_is_capped_too(engine: Any, tmp_path: Path) -> None:
    env = tmp_path / "environment_check" / "worker-0"
    env.mkdir(parents=True)
    (env / "dmesg.txt").write_text(HUNG, encoding="utf-8")
    d = diagnose_bundle(tmp_path, engine)["diagnosis"]
    assert d["fault_class"] != "unknown"
    assert d["confidence"] <= PRIMARY_CAP, (d["fault_class"], d["confidence"], d["evidence"])
    assert _says_why(d, "node_hang"), d["evidence"]


def _sig(kind: str, comp: str, severity: int = 2) -> Signal:
    return Signal(100.0, kind, comp, "pod0/node3", severity, kind)


def test_the_rule_reads_the_knowledge_bases_roles() -> None:
    hung = [_sig("os:hung_task", "pod0/node3")]
    d = {"fault_class": "qingtian_failure", "confidence": 0.93, "evidence": []}
    primary_capped(d, hung, hung)
    assert d["confidence"] == PRIMARY_CAP and _says_why(d, "node_hang"), d
    # a warning naming another class is no such signature (an AER report's driver message beside a fatal AER)
    warn = [_sig("msg:driver", "pod0/node3", severity=1)]
    d = {"fault_class": "npu_off_bus", "confidence": 0.72, "evidence": []}
    primary_capped(d, warn, warn)
    assert d["confidence"] == 0.72 and not d["evidence"]


def test_a_class_with_its_own_primary_signature_keeps_its_confidence() -> None:
    # a twin npu_off_bus incident's kinds (held-out run 1000014: the device lost, a fatal PCIe error, the driver's
    # message, which is a primary signature of driver_firmware_error): its own primary signature is there
    own = [_sig("msg:device_lost", "pod0/node3/npu2"), _sig("msg:device_lost", "pod0/node3/npu2"),
           _sig("os:pcie_fatal", "pod0/node3"), _sig("msg:driver", "pod0/node3")]
    d = {"fault_class": "npu_off_bus", "confidence": 0.856, "evidence": []}
    primary_capped(d, own, own)
    assert d["confidence"] == 0.856 and not d["evidence"]
    # node_hang's own soft lockup beside a kernel panic (node_crash's primary signature)
    hang = [_sig("os:lockup", "pod0/node3"), _sig("os:panic", "pod0/node3")]
    d = {"fault_class": "node_hang", "confidence": 0.9, "evidence": []}
    primary_capped(d, hang, hang)
    assert d["confidence"] == 0.9 and not d["evidence"]
    # without its own signature the same answer is capped
    d = {"fault_class": "npu_off_bus", "confidence": 0.856, "evidence": []}
    primary_capped(d, own[2:], own[2:])
    assert d["confidence"] == PRIMARY_CAP and _says_why(d, "driver_firmware_error"), d


def test_the_twins_own_decision_is_not_capped(engine: Any) -> None:
    # the twin's Qingtian incidents print these lines and nothing else does there: its evaluation (Engine.decide) is
    # left as fitted; only the real-text answer is capped
    sigs = [_sig("os:hung_task", "pod0/node3") for _ in range(6)] + [_sig("msg:host_hang", "pod0/node3")] * 6
    d = engine.diagnose_signals(sigs, 200.0)
    assert not any("primary signature" in e for e in d.evidence), d.evidence
