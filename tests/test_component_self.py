"""A monitoring component's own failure is not the job's fault.

npu-exporter runs ``/usr/local/Ascend/driver/tools/hccn_tool`` to read the NPUs' links and logs its own failure to do
so (Ascend/ascend-npu-exporter ``devmanager/hccn/hccn_tool.go``: ``hccnToolGetInfo`` checks the tool's path, then
``GetNPULinkUpNum`` logs ``hwlog.RunLog.Errorf("get npu link stat failed, %s", err)``; the same for ``link status``,
``link speed``, ``stat inf``, ``interface traffic``). With the tool missing the error is ``no such file or
directory``; ascend-fd lists the line only as its knowledge-graph entry AISW_MindX_Npu_Exporter_03 ("Unable to obtain
network information": hccn_tool abnormal or a soft link), an exporter problem. Before, the words "no such file or
directory" made it ``cfg:env`` and the bundle's verdict config_error at 0.70 (tester U's b9_healthy_noisy)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

# npu-exporter's run log (hwlog layout: level, date time, goroutine, file:line, message), as tester U's b9 bundle
# holds it; the message is hccn_tool.go's GetNPULinkUpNum error with CheckPath's error
EXPORTER = ("[ERROR]    2025/03/01 09:0{m}:39.034681 60      collector/npu_collector.go:1924    get npu link stat "
            "failed, no such file or directory")


@pytest.fixture(scope="module")
def engine() -> Any:
    from opsbrain.kb.training import load_engine

    return load_engine()


def test_the_exporters_read_failure_is_its_own_kind_not_the_jobs_environment() -> None:
    from opsbrain.ingest import parse_line

    got = parse_line(EXPORTER.format(m=0), 0.0, "pod0/node0")
    assert [(s.kind, s.severity) for s in got] == [("mon:exporter_read", 1)], got
    # the same words in a job's own line are still the job's environment
    job = parse_line("[ERROR] 2025-03-01 09:00:00 open /data/ckpt/model.bin failed: No such file or directory")
    assert [s.kind for s in job] == ["cfg:env"]


def _bundle(root: Path, device_fault: bool = False) -> Path:
    b = root / "collect"
    for wk in ("worker-0", "worker-1"):
        log = b / wk / "dl_log" / "npu-exporter" / "npu-exporter.log"
        log.parent.mkdir(parents=True)
        log.write_text("".join(EXPORTER.format(m=m) + "\n" for m in range(3)))
    if device_fault:  # an HBM UCE on worker-1's device 3 (device-os event as the twin and real slogs print it)
        dev = b / "worker-1" / "device_log" / "slog" / "dev-os-3" / "run" / "device-os" / \
            "device-os_20250301090000000.log"
        dev.parent.mkdir(parents=True)
        dev.write_text("[ERROR] DRV(1234,dmp):2025-03-01-09:01:10.000.000 [ras_mem.c:100][dev3] hbm uce fault, "
                       "event_id=0x80e01801, assertion=occur\n")
    return b


def test_a_bundle_whose_only_finding_is_the_exporters_failure_says_so(tmp_path: Path, engine: Any) -> None:
    from opsbrain.bundle.diagnose import diagnose_bundle

    res = diagnose_bundle(_bundle(tmp_path), engine)
    d = res["diagnosis"]
    assert d["fault_class"] == "unknown", d
    assert [(c["component"], c["hosts"]) for c in d["component_self"]] == [("npu-exporter", ["worker-0", "worker-1"])]
    assert "not the job's fault" in d["evidence"][0] and "npu-exporter" in d["evidence"][0], d["evidence"]
    assert not any("escalate" in e for e in d["evidence"])
    from click.testing import CliRunner

    from opsbrain.cli import cli

    out = CliRunner().invoke(cli, ["diagnose", "--bundle", str(_bundle(tmp_path / "t"))]).output
    assert "config_error" not in out and "monitoring component's own failure" in out, out


def test_a_real_device_fault_in_the_same_bundle_still_wins(tmp_path: Path, engine: Any) -> None:
    from opsbrain.bundle.diagnose import diagnose_bundle

    d = diagnose_bundle(_bundle(tmp_path, device_fault=True), engine)["diagnosis"]
    assert d["fault_class"] == "hbm_uce" and (d["root"]["host"], d["root"]["device"]) == ("worker-1", 3), d
    assert not d.get("component_self")


def test_logs_read_the_exporters_failure_alike(tmp_path: Path, engine: Any) -> None:
    from opsbrain.diagnosis.oneclick import diagnose_logs

    d = diagnose_logs(str(_bundle(tmp_path)), engine)["diagnosis"]
    assert d["fault_class"] == "unknown" and d["component_self"][0]["component"] == "npu-exporter", d
    assert any("not the job's fault" in e for e in d["evidence"]), d["evidence"]
    d = diagnose_logs(str(_bundle(tmp_path / "f", device_fault=True)), engine)["diagnosis"]
    assert d["fault_class"] == "hbm_uce" and d["root"]["device"] == 3, d
