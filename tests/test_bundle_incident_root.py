"""The bundle's verdict names its primary incident's root, not a device of another incident that a root cluster
without a wait relation lists first (session 32, tester BB: the verdict named incident i0009, whose device is 1,
and printed device 3, from another paste's incident)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

EARLY = "[ERROR] 2025-03-01-10:00:00 (PID:7, Device:3, RankID:-1) ERR00100 PTA call acl api failed.\n"
LATE = ("[ERROR] 2025-03-01-11:00:00 (PID:8, Device:1, RankID:-1) ERR00100 PTA call acl api failed.\n"
        "[ERROR] 2025-03-01-11:00:01 (PID:8, Device:1, RankID:-1) ERR00100 PTA call acl api failed again.\n"
        "[ERROR] 2025-03-01-11:00:02 (PID:8, Device:1, RankID:-1) ERR00100 PTA call acl api failed once more.\n")


@pytest.fixture(scope="module")
def engine() -> Any:
    from opsbrain.kb.training import load_engine

    return load_engine()


def test_the_verdicts_root_is_its_incidents(tmp_path: Path, engine: Any) -> None:
    from opsbrain.bundle import diagnose_bundle

    b = tmp_path / "b"
    b.mkdir()
    (b / "a-early.txt").write_text(EARLY)
    (b / "b-late.txt").write_text(LATE)
    rep = diagnose_bundle(b, engine)
    primary = next(i for i in rep["incidents"] if i["id"] == rep["primary"])
    assert {ln["file"] for ln in primary["evidence_lines"]} == {"b-late.txt"}
    assert [r["device"] for r in rep["diagnosis"]["root_cluster"]["roots"]][:2] == [3, 1]
    assert rep["diagnosis"]["root"]["device"] == 1, rep["diagnosis"]["root"]  # was 3: the other paste's device
