"""``diagnose --exit-code``: 1 when something was found (a class, or fault signals no class explains), 0 only when
no known fault signal was read, 2 for bad input as always; without the flag a finding still exits 0."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from opsbrain.cli import cli
from opsbrain.verdict import found_nothing, nothing_found

OOM = "RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB (NPU 0; 60.97 GiB total capacity)\n"
PLOG = "[ERROR] 2024-03-01-10:00:00 (PID:42, Device:0, RankID:-1) ERR00100 PTA call acl api failed\n"
HEALTHY = "INFO 05-01 10:11:12 [api_server.py:1024] Starting vLLM API server on http://0.0.0.0:8000\n"


def _run(home: Path, args: list[str], text: str | None = None) -> tuple[int, str]:
    res = CliRunner().invoke(cli, ["diagnose", *args, "--data-dir", str(home)], input=text)
    return res.exit_code, res.output


@pytest.mark.parametrize("as_json", [False, True])
def test_a_finding_exits_1_with_the_flag_and_0_without(tmp_path: Path, as_json: bool) -> None:
    more = ["--json"] if as_json else []
    code, out = _run(tmp_path, ["--logs", "-", *more], OOM)
    assert code == 0 and "npu_oom" in out, out
    code, out = _run(tmp_path, ["--logs", "-", "--exit-code", *more], OOM)
    assert code == 1 and "npu_oom" in out, out


def test_no_fault_found_exits_0_with_the_flag(tmp_path: Path) -> None:
    code, out = _run(tmp_path, ["--logs", "-", "--exit-code"], HEALTHY)
    assert code == 0 and "no fault found" in out, out


def test_a_bundle_with_a_finding_exits_1_and_a_clean_one_0(tmp_path: Path) -> None:
    bad = tmp_path / "bad" / "process_log" / "run" / "plog" / "plog-42_20240301100000.log"
    bad.parent.mkdir(parents=True)
    bad.write_text(PLOG)
    code, out = _run(tmp_path / "h", ["--bundle", str(tmp_path / "bad"), "--exit-code"])
    assert code == 1 and "no fault found" not in out.splitlines()[-1], out
    clean = tmp_path / "clean" / "process_log" / "run" / "plog" / "plog-42_20240301100000.log"
    clean.parent.mkdir(parents=True)
    clean.write_text(PLOG.replace("[ERROR]", "[INFO]").replace(" ERR00100 PTA call acl api failed", " start"))
    code, out = _run(tmp_path / "h", ["--bundle", str(tmp_path / "clean"), "--exit-code"])
    assert code == 0 and "no fault found" in out, out


def test_bad_input_stays_exit_2_with_the_flag(tmp_path: Path) -> None:
    code, _ = _run(tmp_path, ["--logs", str(tmp_path / "missing.log"), "--exit-code"])
    assert code == 2


def test_found_nothing_reads_the_verdicts_own_evidence_line() -> None:
    assert found_nothing({"fault_class": "unknown", "evidence": [nothing_found(5)]})
    assert not found_nothing({"fault_class": "unknown", "evidence": ["weak: EI9999 only"]})
    assert not found_nothing({"fault_class": "npu_oom", "evidence": [nothing_found(5)]})
    assert not found_nothing({"fault_class": "unknown", "evidence": []})
