"""A node's own log tree given as it lies on the host (``/var/log/npu/slog/dev-os-3/...``) names no host; a zh_CN
rsyslog head names its host as the English one does; a code several classes list is shown with the verdict's class
first (session 31, tester AC)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from opsbrain.ingest.hostnames import unnamed_root
from opsbrain.ingest.parsers import parse_line
from opsbrain.ingest.workers import host_root
from opsbrain.verdict import verdict_first

LINE = ("[ERROR] DRV(1187,dmp_daemon):2026-12-05-02:45:10.100.001 [fault_manager.c:512][fault_manager] "
        "event_id: [0x80E01801], node type: HBM, sensor type: Memory, assertion: occur")


@pytest.fixture(scope="module")
def engine() -> Any:
    from opsbrain.kb.training import load_engine

    return load_engine()


@pytest.mark.parametrize("given", ["var/log/npu", "var/log/npu/slog", "var/log/npu/slog/dev-os-3"])
def test_a_node_log_tree_names_no_host(tmp_path: Path, engine: Any, given: str) -> None:
    from opsbrain.diagnosis.oneclick import diagnose_logs

    f = tmp_path / "var/log/npu/slog/dev-os-3/run/device-os/device-os_20261205024000123.log"
    f.parent.mkdir(parents=True)
    f.write_text(LINE + "\n")
    d = diagnose_logs(str(tmp_path / given), engine)["diagnosis"]
    assert d["fault_class"] == "hbm_uce"
    assert d["root"].get("host") in (None, ""), d["root"]  # was "slog", "dev-os-3", "run"
    assert d["root"].get("device") == 3


def test_the_tree_below_a_host_folder_still_names_the_host() -> None:
    assert host_root("node-a12/slog/dev-os-3/run/device-os/x.log")[0] == "node-a12"
    assert host_root("slog/dev-os-3/run/device-os/x.log")[0] == ""
    assert unnamed_root(Path("/var/log/npu").name) and not unnamed_root(Path("/data/node-a12").name)


def test_a_zh_locale_syslog_head_names_its_host() -> None:
    en = parse_line("Dec  5 03:10:00 gz-trn-c12 kernel: Out of memory: Killed process 2111666 (python3)")
    zh = parse_line("12月 05 03:10:00 gz-trn-c12 kernel: Out of memory: Killed process 2111666 (python3)")
    assert {s.host for s in en} == {s.host for s in zh} == {"gz-trn-c12"}


def test_the_verdicts_class_is_shown_first() -> None:
    rows = [{"class": "hbm_row_exhaustion", "code": "80E01801"}, {"class": "hbm_uce", "code": "80E01801"},
            {"class": "hbm_uce", "code": "507053"}]
    assert [r["class"] for r in verdict_first(rows, "hbm_uce")] == ["hbm_uce", "hbm_uce", "hbm_row_exhaustion"]
    assert verdict_first(rows, None) == rows
