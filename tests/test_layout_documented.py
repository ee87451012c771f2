"""Session 34: one host's files laid out as documented collections lay them out, read alike by ``--bundle`` and
``--logs``: the host and the device of the fault named the same in both modes.

The lines are tests/fixtures/bundles/hbm-uce-real's (real formats: an HBM UCE on ascend-a01's device 3); only where
they sit changes, after:

- MindCluster FaultDiag's log collection directory tree (hiascend mindx-dl faultdiag fdug "日志采集目录结构"): a host's
  ``messages``, ``dmesg``, ``rank-N.txt``, ``process_log/``, ``device_log/``, ``dl_log/``, ``environment_check/``,
  one folder per host or the collection itself given;
- msnpureport's export (CANN log reference "msnpureport工具使用"): a time-stamped folder holding ``slog/``,
  ``hisi_logs/`` and ``message/``, run in ``/var/log/npu/report``;
- FaultDiag's device-log tree of HDK 23.0.3+ (mindxdlFDUG031): ``slog/dev-os-N/debug/device-os/``;
- msrun's ``output/msrun_log/worker_N.log`` (MindSpore Transformers docs, feature/logging).

Before session 34 ``--logs`` of a host's collection given at its top (no host folder) named no host (``hbm_uce at
device 3``) where ``--bundle`` and the root cluster named ascend-a01: the root's own files were left on no host."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

FIX = Path(__file__).parent / "fixtures" / "bundles" / "hbm-uce-real" / "worker-0"
DEVOS = "device-os_20250301100000000.log"
PLOG = "plog-23456_20250301100000123.log"


def _host(pre: str, dev: str = "device_log/", devos: str = f"slog/dev-os-3/run/device-os/{DEVOS}") -> dict[str, Path]:
    return {f"{pre}messages": FIX / "messages", f"{pre}dmesg": FIX / "dmesg",
            f"{pre}process_log/run/plog/{PLOG}": FIX / "process_log/run/plog" / PLOG,
            f"{pre}{dev}{devos}": FIX / "device_log/slog/dev-os-3/run/device-os" / DEVOS,
            f"{pre}{dev}hisi_logs/device-3/history.log": FIX / "device_log/hisi_logs/device-3/history.log",
            f"{pre}dl_log/devicePlugin/devicePlugin.log": FIX / "mindx-dl/devicePlugin/devicePlugin.log",
            f"{pre}environment_check/npu_info_before.txt": FIX / "environment_check/npu_info_before.txt"}


LAYOUTS = {
    "fd-collection-given-at-its-top": _host("") | {"rank-3.txt": FIX / "rank-3.log"},
    "fd-collection-host-folders": _host("ascend-a01/") | {"ascend-a01/rank-3.txt": FIX / "rank-3.log"},
    "msnpureport-export-in-var-log-npu-report": _host("ascend-a01/", dev="var/log/npu/report/20250301100600/"),
    "hdk-23.0.3-debug-tree": _host("ascend-a01/", devos=f"slog/dev-os-3/debug/device-os/{DEVOS}"),
    "msrun-worker-log": _host("ascend-a01/") | {"ascend-a01/output/msrun_log/worker_3.log": FIX / "rank-3.log"},
}


@pytest.fixture(scope="module")
def engine() -> Any:
    from opsbrain.kb.training import load_engine

    return load_engine()


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_a_documented_layout_names_the_host_and_device_alike_in_both_modes(tmp_path: Path, engine: Any,
                                                                            layout: str) -> None:
    from opsbrain.bundle import diagnose_bundle
    from opsbrain.diagnosis.oneclick import diagnose_logs

    root = tmp_path / "collected"
    for rel, src in LAYOUTS[layout].items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(src.read_bytes())
    rep = diagnose_bundle(root, engine)
    assert not rep["skipped"] and rep["files"]["read"] == len(LAYOUTS[layout]), rep["skipped"]
    for d in (rep["diagnosis"], diagnose_logs(str(root), engine)["diagnosis"]):
        assert d["fault_class"] == "hbm_uce", d["evidence"]
        assert (d["root"]["host"], d["root"]["device"]) == ("ascend-a01", 3), d["root"]
