"""The readout cap is decided on the evidence of the answered class, not on the whole input (session 45, readcap45).

Session 44 (conf44, bundle44) capped an answer at :data:`opsbrain.diagnosis.statecap.READOUT_CAP` where every failing
signal of the input was a status readout and no line of it said a program failed. A failing line that has nothing
to do with the answered class lifted the cap all the same: ``link status: DOWN`` (``hccn_tool -i N -link -g``'s
answer; Ascend/mind-cluster @22bb3d98 component/ascend-common/devmanager/hccn/hccn_tool.go ``GetNPULinkStatus``)
beside ``dmesg: read kernel buffer failed: Operation not permitted`` (util-linux ``dmesg`` run without CAP_SYSLOG
where ``kernel.dmesg_restrict = 1``: https://github.com/moby/moby/issues/41318,
https://github.com/virt-s1/rhel-edge/issues/5955) read roce_port_down 0.87 under ``--logs``, and eight ports DOWN
without modules (tests/test_bundle_readout_cap44.py's collection) 0.6872 under ``--logs DIR`` and ``--bundle`` with it.
The class's evidence was the readout alone; the failing line is the operator's tool's. Now the cap asks whether the
signals the knowledge base gives the answered class a role (the ones its vote weighs for it) are all readouts.
A line that supports the class and is no readout still lifts it: the port's LINK DOWN history record and the device
event 0x81078603 (tests/test_readout_cap.py), an HCCL socket error (ambiguous between roce_port_down and two other
classes; tests/test_review44.py), all kept as they were."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from opsbrain.bundle import diagnose_bundle
from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.diagnosis.statecap import READOUT_CAP
from tests.test_bundle_readout_cap44 import _collection

READOUT = "$ hccn_tool -i 0 -link -g\nlink status: DOWN\n"
DMESG = "$ dmesg | tail\ndmesg: read kernel buffer failed: Operation not permitted\n"
HISTORY = "$ hccn_tool -i 0 -link_stat -g\n[device 0]    Tue Jun  6 16:32:10 2023    LINK DOWN\n"


def _capped(d: dict[str, Any]) -> bool:
    return d["confidence"] <= READOUT_CAP and any("readout" in e for e in d["evidence"])


def _verdict(engine: Any, text: str) -> dict[str, Any]:
    return diagnose_logs("-", engine, stdin=io.BytesIO(text.encode()))["diagnosis"]


def test_an_unrelated_failing_line_does_not_lift_the_cap(engine: Any) -> None:
    d = _verdict(engine, READOUT + DMESG)
    assert d["fault_class"] == "roce_port_down"
    assert _capped(d), (d["confidence"], d["evidence"])


def test_a_stated_link_record_beside_an_unrelated_failure_still_lifts_it(engine: Any) -> None:
    d = _verdict(engine, READOUT + DMESG + HISTORY)
    assert d["fault_class"] == "roce_port_down"
    assert not any("readout" in e for e in d["evidence"]), d["evidence"]
    assert d["confidence"] > READOUT_CAP


def test_both_paths_cap_readouts_beside_an_unrelated_failure(engine: Any, tmp_path: Path) -> None:
    root = _collection(tmp_path)
    (root / "environment_check" / "worker-0" / "dmesg.txt").write_text(DMESG, encoding="utf-8")
    logs, bundle = diagnose_logs(str(root), engine)["diagnosis"], diagnose_bundle(root, engine)["diagnosis"]
    assert logs["fault_class"] == bundle["fault_class"] == "roce_port_down"
    assert _capped(logs) and _capped(bundle), (logs["confidence"], bundle["confidence"])


def test_the_supporting_signals_are_those_the_class_has_a_role_for() -> None:
    from opsbrain.diagnosis.statecap import supporting
    from opsbrain.ingest import parse_line

    sigs = [s for line in (READOUT + DMESG + "ModuleNotFoundError: No module named 'decorator'\n").splitlines()
            for s in parse_line(line, 0.0)]
    assert {s.kind for s in supporting("roce_port_down", sigs)} == {"hccn:down"}
    assert "hccn:down" not in {s.kind for s in supporting("config_error", sigs)}
