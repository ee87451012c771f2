"""Session 35: msnpureport's export given alone names no host after its folder.

msnpureport writes the device side's logs "to a sub-directory named by the time stamp" of its run (CANN log
reference, msnpureport): ``20250301100600/`` holding ``slog/``, ``message/`` and ``hisi_logs/``. Given alone to
``diagnose --bundle`` (before session 35) the bundle named its one host ``20250301100600`` (and, since session 34,
``--logs`` did too): a host invented from a date. Now both modes say the host is not named, unless the files name it
(a host syslog copied in beside the export). A folder named otherwise still names its files' host.

The lines are tests/fixtures/bundles/hbm-uce-real's (real formats: an HBM UCE on device 3); the device side's
syslog line in ``message/`` is made up for the test (a host field that is the device OS's, not the host's)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

FIX = Path(__file__).parent / "fixtures" / "bundles" / "hbm-uce-real" / "worker-0"
DEVOS = "device-os_20250301100000000.log"
DEVICE_SYSLOG = "Mar  1 10:03:21 ascend-dev3 kernel: [  812.100000] devmm: device 3 page fault handled\n"


def _export(root: Path, with_host_syslog: bool = False) -> Path:
    """msnpureport's export folder below ``root``: the device's slog, its syslog (``message/``), its black box."""
    exp = root / "20250301100600"
    files = {f"slog/dev-os-3/run/device-os/{DEVOS}": (FIX / "device_log/slog/dev-os-3/run/device-os" / DEVOS),
             "hisi_logs/device-3/history.log": FIX / "device_log/hisi_logs/device-3/history.log"}
    if with_host_syslog:
        files["messages"] = FIX / "messages"  # (an operator copied the host's syslog in beside it)
    for rel, src in files.items():
        (exp / rel).parent.mkdir(parents=True, exist_ok=True)
        (exp / rel).write_bytes(src.read_bytes())
    (exp / "message" / "dev-os-3").mkdir(parents=True)
    (exp / "message" / "dev-os-3" / "syslog").write_text(DEVICE_SYSLOG, encoding="utf-8")
    return exp


@pytest.fixture(scope="module")
def engine() -> Any:
    from opsbrain.kb.training import load_engine

    return load_engine()


def _both(path: Path, engine: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    from opsbrain.bundle import diagnose_bundle
    from opsbrain.diagnosis.oneclick import diagnose_logs

    return diagnose_bundle(path, engine), diagnose_logs(str(path), engine)


def check_no_host(rep: dict[str, Any], d: dict[str, Any]) -> None:
    assert d["fault_class"] == "hbm_uce", d["evidence"]
    assert (d["root"]["host"], d["root"]["device"]) == (None, 3), d["root"]
    assert "20250301100600" not in json.dumps(d), d  # no host (nor component) named after the date
    for inc in rep.get("incidents", []):
        assert inc["nodes"] == [] and "20250301100600" not in json.dumps(inc["diagnosis"]), inc


def test_the_export_alone_names_no_host_in_either_mode(tmp_path: Path, engine: Any) -> None:
    exp = _export(tmp_path)
    rep, logs = _both(exp, engine)
    assert rep["files"]["read"] == 3, rep["skipped"]
    check_no_host(rep, rep["diagnosis"])
    assert rep["diagnosis"]["component"] == "npu3/hbm", rep["diagnosis"]  # as --logs names a part of no host
    check_no_host(logs, logs["diagnosis"])
    assert [w["name"] for w in rep["workers"]] == [""], rep["workers"]


def test_the_text_answer_says_the_host_is_not_named(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from opsbrain.cli import cli

    exp = _export(tmp_path)
    out = CliRunner().invoke(cli, ["diagnose", "--bundle", str(exp)]).output
    assert "worker . (host not named: 20250301100600 is a date and time, no host's name)" in out, out
    assert "on a host not named: hbm_uce at npu3/hbm" in out, out
    assert "diagnosis: hbm_uce at device 3 " in out, out


def test_a_host_syslog_in_the_export_names_its_host_in_both_modes(tmp_path: Path, engine: Any) -> None:
    rep, logs = _both(_export(tmp_path, with_host_syslog=True), engine)
    for d in (rep["diagnosis"], logs["diagnosis"]):
        assert d["fault_class"] == "hbm_uce", d["evidence"]
        assert (d["root"]["host"], d["root"]["device"]) == ("ascend-a01", 3), d["root"]


def test_the_device_syslog_names_no_host(tmp_path: Path, engine: Any) -> None:
    """``message/``'s host field is the device OS's: not the host's name (hostnames.host_syslog)."""
    rep, logs = _both(_export(tmp_path), engine)
    assert "ascend-dev3" not in json.dumps(rep["diagnosis"]) + json.dumps(logs["diagnosis"])


def test_a_folder_named_otherwise_still_names_its_host(tmp_path: Path, engine: Any) -> None:
    exp = _export(tmp_path)
    named = exp.rename(tmp_path / "ascend-b07")
    rep, logs = _both(named, engine)
    for d in (rep["diagnosis"], logs["diagnosis"]):
        assert (d["root"]["host"], d["root"]["device"]) == ("ascend-b07", 3), d["root"]


def test_the_unnamed_host_leaves_a_part_id_and_is_said_alone() -> None:
    from opsbrain.bundle.hosts import NO_NAME, in_user_terms

    names = {"pod0/node0": "", "pod0/node1": "node-b"}
    assert in_user_terms("pod0/node0/npu3/hbm", names) == "npu3/hbm"
    assert in_user_terms("pod0/node0", names) == NO_NAME
    assert in_user_terms("from pod0/node1/npu2 to pod0/node0/npu3", names) == "from node-b/npu2 to npu3"
    assert in_user_terms("pod0/node10/npu1", names) == "pod0/node10/npu1"  # (no name known: as it is)
