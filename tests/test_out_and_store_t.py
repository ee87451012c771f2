"""Output directories and the run store when they cannot be written (tester T): one line that names the real
path and the real cause, before the run where it can be known."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from opsbrain.cli import cli
from opsbrain.store import RunStore


def test_chaos_run_out_refuses_a_missing_parent_as_report_out_does(tmp_path: Path, runner: Any) -> None:
    out = tmp_path / "missing" / "x"
    res = runner.invoke(cli, ["chaos", "run", "node-crash-training", "--out", str(out),
                              "--data-dir", str(tmp_path / "home")])
    assert res.exit_code == 2 and "--out" in res.stderr and "does not exist" in res.stderr, res.output
    assert not (tmp_path / "missing").exists()
    res = runner.invoke(cli, ["report", "no-such-run", "--format", "md", "--out", str(out / "r.md"),
                              "--data-dir", str(tmp_path / "home")])
    assert res.exit_code == 2


def test_chaos_run_out_makes_the_named_directory_itself(tmp_path: Path, runner: Any) -> None:
    res = runner.invoke(cli, ["chaos", "run", "node-crash-training", "--out", str(tmp_path / "new"),
                              "--data-dir", str(tmp_path / "home")])
    assert res.exit_code == 0, res.output
    assert len(list((tmp_path / "new").glob("*.json"))) == 1


def test_a_journal_that_cannot_be_written_names_the_file_not_a_temp_file(tmp_path: Path, runner: Any,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    import opsbrain.fsio as fsio

    def denied(path: Path, data: bytes, **_kw: Any) -> None:
        raise PermissionError(13, "Permission denied", str(path.parent / f".{path.name}.abc123.tmp"))

    monkeypatch.setattr(fsio, "write_atomic", denied)
    res = runner.invoke(cli, ["chaos", "run", "node-crash-training", "--out", str(tmp_path / "o"),
                              "--data-dir", str(tmp_path / "home")])
    assert res.exit_code == 2
    errors = [x for x in res.stderr.splitlines() if x.startswith("opsbrain: error")]  # the patch also stops the
    assert len(errors) == 1, res.stderr  # knowledge-base cache write: its warning is a log line of its own
    line = errors[0]
    assert ".tmp" not in line and "cannot write the journal: Permission denied; the run is stored as" in line, line


def test_a_store_that_cannot_be_created_is_not_called_damaged(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    store.path.unlink()
    err = store._error(sqlite3.OperationalError("unable to open database file"))
    assert "damaged" not in str(err) and "cannot be created" in str(err) and "OPSBRAIN_HOME" in str(err)
    err = RunStore(tmp_path / "b")._error(sqlite3.OperationalError("attempt to write a readonly database"))
    assert "damaged" not in str(err) and "cannot be written" in str(err)
    err = RunStore(tmp_path / "c")._error(sqlite3.DatabaseError("file is not a database"))
    assert "damaged" in str(err)
