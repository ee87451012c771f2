"""Session 35: an archive given whole is named as the directory it packs, in both modes.

``--bundle`` names an archive by its one top folder (``tar czf x.tgz ascend-a01``) and names no host after a date and
time (msnpureport's export, ``20250301100600/``: tests/test_msnpureport_alone.py). ``--logs`` named the archive
itself the host (``npu-report`` of ``npu-report.tgz``): the archive's name is what the operator called the packing,
not the host's, unless the layout says so (an archive of no top folder, ``tar czf node-3.tgz -C node-3 .``, or of a
wrapper, ``var/``, stands for the folder it was made of). Also: msnpureport's export below ``var/log/npu/report/``
was the bundle's worker ``var/log/npu/report`` (a host named ``log/npu/report``), where ``--logs`` names the folder
above the node's log tree. Session 36: a directory given whose own name only says it holds logs (``var/``, ``log/``,
``npu/``, ``slog/``) names no host in either mode (both named host ``var``), unless its host syslog names one.

The export's files are test_msnpureport_alone's (hbm-uce-real's real lines: an HBM UCE on device 3)."""

from __future__ import annotations

import json
import shutil
import tarfile
from pathlib import Path
from typing import Any

import pytest

from tests.test_msnpureport_alone import FIX, _both, _export


@pytest.fixture(scope="module")
def engine() -> Any:
    from opsbrain.kb.training import load_engine

    return load_engine()


def _tar(archive: Path, src: Path, arcname: str) -> Path:
    with tarfile.open(archive, "w:gz") as t:
        t.add(src, arcname=arcname)
    return archive


def _roots(rep: dict[str, Any], logs: dict[str, Any]) -> list[tuple[Any, Any]]:
    return [(d["diagnosis"]["root"]["host"], d["diagnosis"]["root"]["device"]) for d in (rep, logs)]


def test_an_archive_of_the_export_names_no_host_in_either_mode(tmp_path: Path, engine: Any) -> None:
    arc = _tar(tmp_path / "npu-report.tgz", _export(tmp_path / "src"), "20250301100600")
    rep, logs = _both(arc, engine)
    for out in (rep, logs):  # (the evidence cites the archive's members, 20250301100600/slog/...: no host)
        d = out["diagnosis"]
        root = {k: v for k, v in d["root"].items() if k != "device_ids"}
        assert (d["fault_class"], d["component"], root) == (
            "hbm_uce", "npu3/hbm", {"component": "npu3/hbm", "host": None, "device": 3}), d
        # (no npu-smi output tells A2 from A3: the id is read as written, and the root may say so; session 38)
        assert d["root"].get("device_ids", "as written").startswith("as written"), d["root"]
        assert all(inc["nodes"] == [] for inc in out.get("incidents", [])), out["incidents"]
    assert "npu-report" not in json.dumps(rep["diagnosis"]), rep["diagnosis"]


def test_an_archive_named_as_a_host_holding_the_export_names_none_either(tmp_path: Path, engine: Any) -> None:
    """The archive's one top folder is what it packs: a run's folder, named by the tool (both modes alike)."""
    arc = _tar(tmp_path / "ascend-b07.tgz", _export(tmp_path / "src"), "20250301100600")
    assert _roots(*_both(arc, engine)) == [(None, 3), (None, 3)]


def test_a_host_syslog_in_the_archived_export_names_its_host(tmp_path: Path, engine: Any) -> None:
    arc = _tar(tmp_path / "npu-report.tgz", _export(tmp_path / "src", with_host_syslog=True), "20250301100600")
    assert _roots(*_both(arc, engine)) == [("ascend-a01", 3), ("ascend-a01", 3)]


def test_an_archive_without_a_top_folder_or_of_a_wrapper_is_named_by_the_archive(tmp_path: Path,
                                                                                  engine: Any) -> None:
    exp = _export(tmp_path / "src")
    flat = _tar(tmp_path / "ascend-b07.tgz", exp, ".")  # tar czf ascend-b07.tgz -C 20250301100600 .
    assert _roots(*_both(flat, engine)) == [("ascend-b07", 3), ("ascend-b07", 3)]
    var = tmp_path / "v" / "var" / "log"
    shutil.copytree(FIX / "device_log", var / "device_log")
    wrapped = _tar(tmp_path / "ascend-b08.tgz", var.parent, "var")  # tar czf ascend-b08.tgz var (not host "var")
    assert _roots(*_both(wrapped, engine)) == [("ascend-b08", 3), ("ascend-b08", 3)]


def test_an_export_below_var_log_npu_report_is_the_host_s(tmp_path: Path, engine: Any) -> None:
    """msnpureport run in /var/log/npu/report: the folders of the node's log tree name no host (both modes)."""
    host = tmp_path / "ascend-c01"
    _export(host / "var" / "log" / "npu" / "report")
    assert _roots(*_both(host, engine)) == [("ascend-c01", 3), ("ascend-c01", 3)]
    arc = _tar(tmp_path / "ascend-c02.tgz", host / "var", "var")
    assert _roots(*_both(arc, engine)) == [("ascend-c02", 3), ("ascend-c02", 3)]


@pytest.mark.parametrize("given, below", [("var", "log/device_log"), ("log", "device_log"), ("logs", "device_log"),
                                          ("npu", "device_log"), ("slog", None)])
def test_a_directory_given_named_as_a_wrapper_names_no_host_in_either_mode(tmp_path: Path, engine: Any, given: str,
                                                                           below: str | None) -> None:
    """``diagnose --logs var/``: before session 36 host ``var`` in both modes (``npu/``, ``slog/``: the bundle's only),
    now no host, as for the export given alone; with the host's syslog copied in, the host it names in both."""
    root = tmp_path / given
    if below is None:  # the device's slog tree given at its top
        shutil.copytree(FIX / "device_log" / "slog", root)
    else:
        shutil.copytree(FIX / "device_log", root / below)
    rep, logs = _both(root, engine)
    assert _roots(rep, logs) == [(None, 3), (None, 3)]
    assert [w["name"] for w in rep["workers"]] == [""], rep["workers"]
    shutil.copy(FIX / "messages", root / "messages")
    assert _roots(*_both(root, engine)) == [("ascend-a01", 3), ("ascend-a01", 3)]
