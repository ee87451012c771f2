"""Bundles whose logs carry no time stamp of their own (a job's console, ``kubectl logs`` dumps, a file of a name the
layout does not know): every line is read, placed at a stated time, and its host named."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from opsbrain.bundle import diagnose_bundle, read_bundle

UCE_CONSOLE = ("Traceback (most recent call last):\n"
               "RuntimeError: ACL stream synchronize failed, error code:507053\n"
               "Fault RAS occurs in the system: [event_id:0x80e01801] Uncorrectable ECC / other uncorrectable "
               "memory error.\n")
PLOG = ("[INFO] HCCL(3813,python3):2025-03-01-10:00:00.000.001 [x.cc:1] 3813 step start\n"
        "[INFO] HCCL(3813,python3):2025-03-01-10:05:00.500.000 [x.cc:1] 3813 step done\n")


@pytest.fixture(scope="module")
def engine() -> Any:
    from opsbrain.kb.training import load_engine

    return load_engine()


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return root


def test_a_console_without_stamps_is_placed_at_the_end_of_its_workers_process_logs(tmp_path: Path,
                                                                                    engine: Any) -> None:
    b = _write(tmp_path / "b", {"worker-0/rank-3.txt": UCE_CONSOLE,
                                "worker-0/process_log/run/plog/plog-3813_20250301100000000.log": PLOG,
                                "worker-1/process_log/run/plog/plog-4000_20250301100000000.log": PLOG.replace(
                                    "10:05:00.500", "10:09:00.500")})
    lines, rep = read_bundle(b)
    console = [ln for ln in lines if ln.file == "worker-0/rank-3.txt"]
    assert [ln.line for ln in console] == [1, 2, 3]  # none dropped
    assert len({ln.t for ln in console}) == 1
    plog_end = max(ln.t for ln in lines if ln.file.startswith("worker-0/process_log"))
    assert console[0].t == plog_end  # worker-0's own processes, not worker-1's later end
    assert rep["placed_files"] == [{"path": "worker-0/rank-3.txt", "at": "2025-03-01T10:05:00.500000", "lines": 3,
                                    "why": "the last time stamp of worker-0's process logs", "apart": False}]
    assert rep["lines"]["untimed"] == 3
    d = diagnose_bundle(b, engine)["diagnosis"]
    assert d["fault_class"] == "hbm_uce" and d["root"]["host"] == "worker-0"


def test_lines_before_a_files_first_stamp_take_that_stamp(tmp_path: Path) -> None:
    b = _write(tmp_path / "b", {"worker-0/process_log/run/plog/plog-1_20250301100000000.log":
                                "Traceback (most recent call last):\n  File \"train.py\", line 3\n" + PLOG})
    lines, rep = read_bundle(b)
    assert [ln.line for ln in lines] == [1, 2, 3, 4]
    assert lines[0].t == lines[1].t == lines[2].t < lines[3].t
    assert rep["lines"]["placed"] == 2 and rep["placed_files"] == []


def test_a_bundle_of_consoles_only_is_placed_at_its_typical_time_and_says_so(tmp_path: Path, engine: Any) -> None:
    b = _write(tmp_path / "b", {"worker-0/rank-3.txt": UCE_CONSOLE})
    rep = diagnose_bundle(b, engine)
    assert rep["placed_files"][0]["why"].startswith("the bundle's typical time")
    assert rep["diagnosis"]["fault_class"] == "hbm_uce" and rep["diagnosis"]["root"]["host"] == "worker-0"


def test_kubectl_dumps_at_the_root_are_one_worker_per_pod(tmp_path: Path, engine: Any) -> None:
    b = _write(tmp_path / "dump", {"llama-pretrain-worker-0.log": " iteration 100/5000 | lm loss: 2.3E+00 |\n",
                                   "llama-pretrain-worker-1.log": UCE_CONSOLE,
                                   "llama-pretrain-worker-1_previous.log": "Traceback (most recent call last):\n"})
    rep = diagnose_bundle(b, engine)
    assert sorted(w["dir"] for w in rep["workers"]) == ["llama-pretrain-worker-0", "llama-pretrain-worker-1"]
    assert rep["diagnosis"]["fault_class"] == "hbm_uce"
    assert rep["diagnosis"]["root"]["host"] == "llama-pretrain-worker-1"


def test_a_text_log_of_an_unknown_name_is_read_as_a_console_and_listed(tmp_path: Path, engine: Any) -> None:
    b = _write(tmp_path / "job", {"train_node1.log": UCE_CONSOLE, "model.bin.txt.gz.part": "x"})
    rep = diagnose_bundle(b, engine)
    assert rep["read_as_console"] == ["train_node1.log"]
    assert [x["path"] for x in rep["skipped"]] == ["model.bin.txt.gz.part"]
    assert rep["diagnosis"]["fault_class"] == "hbm_uce"


def test_a_placed_files_junk_is_counted_once(tmp_path: Path) -> None:
    b = _write(tmp_path / "b", {"worker-0/rank-0.log": "\x00\x00\x00 junk\nRuntimeError: x\n"})
    _lines, rep = read_bundle(b)
    assert rep["lines"]["malformed"] == 1 and rep["lines"]["untimed"] == 1


def test_cli_lists_placed_and_console_files(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from opsbrain.cli import cli

    b = _write(tmp_path / "job", {"train_node1.log": UCE_CONSOLE})
    res = CliRunner().invoke(cli, ["diagnose", "--bundle", str(b), "--data-dir", str(tmp_path / "home")])
    assert res.exit_code == 0, res.output
    assert "read train_node1.log as a job's console" in res.stdout
    assert "placed train_node1.log: no time stamp in it; its 3 lines at" in res.stdout
    assert "None" not in res.stdout



STAMPED = "[ERROR] 2025-03-01-10:05:00 (PID:42, Device:1, RankID:-1) ERR00100 PTA call acl api failed.\n"
UNSTAMPED = ("Traceback (most recent call last):\n"
             "triton.compiler.errors.MLIRCompilationError: bishengir-compile failed\n")


def test_an_untimed_file_is_not_glued_to_another_files_incident(tmp_path: Path, engine: Any) -> None:
    """Unrelated pastes side by side (session 32, tester BB): a file without stamps is not placed by another text
    log the layout does not know, and its lines make their own incident, not a part of the stamped file's."""
    b = _write(tmp_path / "cases", {"05-stamped.txt": STAMPED, "03-unstamped.txt": UNSTAMPED})
    rep = diagnose_bundle(b, engine)
    placed = {p["path"]: p for p in rep["placed_files"]}
    assert "process logs" not in placed["03-unstamped.txt"]["why"], placed  # was: the stamped paste's last stamp
    files_of = [{ln["file"] for ln in i["evidence_lines"]} for i in rep["incidents"]]
    assert {"05-stamped.txt"} in files_of and {"03-unstamped.txt"} in files_of, files_of  # was one incident of both
