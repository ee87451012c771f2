"""Trace and mapping inputs tester T found read wrongly: each is refused with one line naming file, place and what
is wrong (exit 2), or, for a directory, says it is one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from opsbrain.cli import cli

TRACE = "host,timestamp,type,description\nn1,10,start,Kernel Panic\nn1,500,end,Kernel Panic\n"


def _replay(runner: Any, tmp_path: Path, *args: str) -> Any:
    return runner.invoke(cli, ["chaos", "replay", *args, "--data-dir", str(tmp_path / "home")])


@pytest.mark.parametrize(("name", "text", "want"), [
    ("wrongtype.json", '[{"node_id": "a", "event_time": 5, "event_type": "fault_start", "description": {"x": 1}}]',
     "[0].description: expected text or a number, got an object"),
    ("booltime.json", '[{"node_id": "a", "event_time": true, "event_type": "fault_start", "description": "x"}]',
     "[0].event_time: bad time true (a number is needed, not a boolean)"),
    ("dupcol.csv", "host,host,timestamp,type,description\nn1,n2,10,start,Kernel Panic\n",
     "header: column 'host' appears twice (columns 1 and 2)"),
])
def test_a_bad_trace_field_is_named(tmp_path: Path, runner: Any, name: str, text: str, want: str) -> None:
    f = tmp_path / name
    f.write_text(text)
    res = _replay(runner, tmp_path, str(f))
    assert res.exit_code == 2, res.output
    assert want in res.stderr and len(res.stderr.splitlines()) == 1, res.stderr


def test_a_directory_is_said_to_be_one(tmp_path: Path, runner: Any) -> None:
    d = tmp_path / "adir.json"
    d.mkdir()
    res = _replay(runner, tmp_path, str(d))
    assert res.exit_code == 2 and "a directory, not a trace file" in res.stderr, res.stderr


def test_a_mapping_basis_must_be_one_of_the_documented_three(tmp_path: Path, runner: Any) -> None:
    trace = tmp_path / "t.csv"
    trace.write_text(TRACE)
    m = tmp_path / "m.yaml"
    m.write_text('rows:\n  - {desc: "Kernel Panic", kind: node_crash, basis: vibes}\n')
    res = _replay(runner, tmp_path, str(trace), "--mapping", str(m))
    assert res.exit_code == 2 and "basis: must be one of documented, reasoned, assumed, got 'vibes'" in res.stderr
    m.write_text('rows:\n  - {desc: "Kernel Panic", kind: node_crash, basis: reasoned}\n')
    assert _replay(runner, tmp_path, str(trace), "--mapping", str(m)).exit_code == 0


def test_the_pods_hint_stays_within_the_allowed_pods(tmp_path: Path, runner: Any) -> None:
    rows = "".join(f"s{k},{k},start,Kernel Panic\n" for k in range(3200))
    trace = tmp_path / "big.csv"
    trace.write_text("host,timestamp,type,description\n" + rows)
    res = _replay(runner, tmp_path, str(trace), "--pods", "2")
    assert res.exit_code == 2 and "--pods 70" not in res.stderr and "past the 64 allowed" in res.stderr, res.stderr
