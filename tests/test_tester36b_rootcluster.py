"""Tester 36b: a collection cut short, and what the root cluster says of the chain ends it did not pick.

ascend-fd's event-timeout job (../shared/reference/ascend-fd-fixtures, its system test input), with worker-0's debug
plog cut in the middle of its LINK_ERROR_INFO table (a copy that stopped mid-line): worker-0 device 0 logged the
link error but its row naming the device it waited for is gone. Two chain ends are then reached by one erroring
device each (worker-0 device 0, from worker-1 device 0; the absent 3.0.0.0, from worker-1 device 1): a tie, broken by
the earlier first error. The note said the other end was "reached by fewer erroring devices", which was false.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.test_layout_documented35 import _both

CASE = (Path(__file__).resolve().parents[1].parent / "shared" / "reference" / "ascend-fd-fixtures"
        / "st_event_timeout_testcase")
CUT = "worker-0/process_log/debug/plog/plog-59420_20250124110314898.log"

pytestmark = pytest.mark.skipif(not CASE.is_dir(), reason="ascend-fd's fixtures (../shared) absent")


@pytest.fixture(scope="module")
def engine() -> Any:
    from opsbrain.kb.training import load_engine

    return load_engine()


def test_a_tie_between_chain_ends_is_not_said_to_be_fewer(tmp_path: Path, engine: Any) -> None:
    job = tmp_path / "job"
    shutil.copytree(CASE, job)
    f = job / CUT
    f.chmod(0o644)
    data = f.read_bytes()
    f.write_bytes(data[:data.index(b"124.0.0.11(1)")])  # cut mid-line, before the row's peer
    for rep in _both(job, engine):
        rc = rep["diagnosis"]["root_cluster"]
        assert rc["other_roots"] == [["worker-0 device 0"]], rc
        assert not any("reached by fewer" in n for n in rc["notes"]), rc["notes"]
        assert any("reached by as many erroring devices (1)" in n and "worker-0 device 0" in n
                   for n in rc["notes"]), rc["notes"]
