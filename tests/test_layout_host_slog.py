"""Session 35: the host's slog, ``/var/log/npu/slog/host-0/host-0_<stamp>.log``, is read by the bundle.

Older drivers and CANN wrote the host side's logs through slogd to files prefixed ``host-0`` (Huawei's Atlas log
reference, "Log Processing Mechanism": "Logs on the host side are saved in log files prefixed with host-0 by the slogd
and sklogd"; Ascend's samples print AscendCL's ERROR / INFO / DEBUG logs "to /var/log/npu/slog/host-0/host-xxxx.log");
CANN's slog names them ``host-0_<17-digit stamp>.log``, as it names plog and device-os files. Their lines are the CANN
log format, the one every CANN log is written in (CANN log reference, "Log Format": ``[Level] ModuleName(PID,PName):
DateTimeMS [FileName:LineNumber]LogContent``). Before, the bundle skipped the file as unknown, where ``--logs`` read
its lines (hbm_uce on device 3 of the host in ``--logs``, nothing in ``--bundle``).

The lines are hbm-uce-real's plog's (real CANN format: an HBM UCE on device 3)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

PLOG = Path(__file__).parent / "fixtures/bundles/hbm-uce-real/worker-0/process_log/run/plog" / \
    "plog-23456_20250301100000123.log"
HOST0 = "var/log/npu/slog/host-0/host-0_20250301100000123.log"


@pytest.fixture(scope="module")
def engine() -> Any:
    from opsbrain.kb.training import load_engine

    return load_engine()


def _host(root: Path) -> Path:
    f = root / "ascend-a01" / HOST0
    f.parent.mkdir(parents=True)
    f.write_bytes(PLOG.read_bytes())
    return root / "ascend-a01"


def test_the_host_slog_is_read_in_both_modes(tmp_path: Path, engine: Any) -> None:
    from opsbrain.bundle import diagnose_bundle
    from opsbrain.diagnosis.oneclick import diagnose_logs

    host = _host(tmp_path)
    rep = diagnose_bundle(host, engine)
    assert rep["files"] == {"read": 1, "by_kind": {"host_slog": 1}} and rep["skipped"] == [], rep["skipped"]
    for d in (rep["diagnosis"], diagnose_logs(str(host), engine)["diagnosis"]):
        assert d["fault_class"] == "hbm_uce", d["evidence"]
        assert (d["root"]["host"], d["root"]["device"]) == ("ascend-a01", 3), d["root"]


def test_the_host_slog_is_the_host_s_among_others() -> None:
    from opsbrain.bundle import layout as L

    for rel, worker in ((f"node-a/{HOST0}", "node-a"), (HOST0, ""),
                        ("collect/node-b/slog/host-0/host-0_20180921173146916.log", "collect/node-b")):
        kind = L.classify(rel)
        assert kind is not None and (kind.kind, kind.worker, kind.device) == (L.HOST_SLOG, worker, None), kind
    assert L.SOURCE_OF_KIND[L.HOST_SLOG] == "plog"
    assert L.classify("node-a/var/log/npu/slog/host-0/notes.txt") is None  # (only slog's own file names)
