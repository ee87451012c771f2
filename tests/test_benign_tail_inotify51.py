"""GNU tail's inotify notices are no fault (session 51, tester51i).

coreutils src/tail.c: ``tail_forever_inotify`` prints ``inotify resources exhausted`` when ``inotify_add_watch`` fails
with ENOSPC ("We revert to polling below"), and ``main`` then prints ``inotify cannot be used, reverting to polling``
(``error (0, errno, ...)``) and follows the file by polling (``tail_forever``). A launch script that follows its ranks'
logs with ``tail -f`` prints them; the training goes on. The lines below are cut from such a run that trained its 100
epochs on Ascend.
"""

from __future__ import annotations

import io
from typing import Any

import pytest

from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.ingest.benign import BENIGN
from opsbrain.ingest.parsers import parse_line
from tests.textviews import view_of

# https://github.com/mindspore-courses/competition/blob/0ad8b8713ad666be6f2a265250da5e90a82b7062/summer-ospp/MindMoMaOrb/print_batch64_parallel.log
TAIL = [
    "/usr/bin/tail: inotify resources exhausted",
    "/usr/bin/tail: inotify cannot be used, reverting to polling",
]
# the same notice with the errno's text, as later coreutils print it (unisonweb/unison docs, "tail -f <file>")
TAIL_ERRNO = "tail: inotify cannot be used, reverting to polling: Too many open files"

RUN = "\n".join([
    "nohup: ignoring input",
    "/home/panmz/panmz_mf_v2/lib/python3.11/site-packages/numpy/core/getlimits.py:549: UserWarning: The value of the "
    "smallest subnormal for <class 'numpy.float64'> type is zero.",
    "  setattr(self, word, getattr(machar, word).flat[0])",
    *TAIL, *TAIL,
    "2025-05-22 00:30:45,548 - INFO - Loading datasets: dataset/train_mptrj_ase.dbTotal train dataset size: 800 "
    "samples",
    "2025-05-22 01:10:52,476 - INFO - Training time: 2376.63176 seconds",
]) + "\n"


@pytest.mark.parametrize("line", [*TAIL, TAIL_ERRNO])
def test_tail_inotify_notice_gives_no_signal(line: str) -> None:
    assert BENIGN.search(line)
    assert [s.kind for s in parse_line(line)] == []
    assert view_of(line).failing == 0


def test_the_run_with_the_notices_reads_no_fault(engine: Any) -> None:
    d = diagnose_logs("-", engine, stdin=io.BytesIO(RUN.encode()))["diagnosis"]
    assert d["fault_class"] == "unknown", (d["fault_class"], d["confidence"], d.get("evidence_lines"))


@pytest.mark.parametrize("line", [
    # tail's real failures keep their words (coreutils tail.c: a file it cannot open or watch)
    "tail: cannot open '/var/log/npu/train.log' for reading: No such file or directory",
    "tail: cannot watch parent directory of '/data/logs/rank0.log': Permission denied",
    # the words inside another program's error are not tail's notice
    "OSError: [Errno 28] inotify watch limit reached; inotify resources exhausted",
])
def test_other_lines_are_not_the_notice(line: str) -> None:
    assert not BENIGN.search(line)
