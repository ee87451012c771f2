"""grep's file names before the lines it found (opsbrain.ingest.surface; issue 14, pasted text as operators make it)."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(("line", "body", "file"), [
    ("worker-0/process_log/run/plog/plog-903_2025.log:12:[ERROR] HCCL(903,python):x", "[ERROR] HCCL(903,python):x",
     "worker-0/process_log/run/plog/plog-903_2025.log"),
    ("plog-1_2025.log:[ERROR] RUNTIME(1,python):x", "[ERROR] RUNTIME(1,python):x", "plog-1_2025.log"),
    ("node1/messages:Mar  1 10:00:00 node1 kernel: [1.2] x", "Mar  1 10:00:00 node1 kernel: [1.2] x", "node1/messages"),
    ("var/log/messages-20250301:Mar  1 10:00:00 h kernel: x", "Mar  1 10:00:00 h kernel: x",
     "var/log/messages-20250301"),
    ("train.log:2025-03-01 10:03:20,456 ERROR x", "2025-03-01 10:03:20,456 ERROR x", "train.log"),  # a date
    ("train.log:10:00:00 ERROR x", "10:00:00 ERROR x", "train.log"),  # the line's clock time, not grep's number
    ("w/x.log:12:10:00:00.123 ERROR x", "10:00:00.123 ERROR x", "w/x.log"),  # grep -n before a clock time
    ("rank-3.txt-14-    raise RuntimeError(x)", None, None),  # a context line of -n without -A is not grep's
    ("/src/ops/add.cc:12:3: error: no member", None, None),  # a compiler's message: a source file, not a log
    ("EI0006: Getting socket times out.", None, None),
    ("a b.log: x", None, None),
])
def test_grep_file_names_are_taken_off_and_given_back(line: str, body: str | None, file: str | None) -> None:
    from opsbrain.ingest.surface import grep_file, plain

    got, prefix = plain(line)
    assert got == (body if body is not None else line)
    assert grep_file(prefix) == file


@pytest.mark.parametrize(("line", "source"), [
    ("[pod/train-worker-3/main] [ERROR] HCCL(1,python):x", "train-worker-3"),
    ("train-worker-1  | [ERROR] HCCL(1,python):x", "train-worker-1"),
    ("node-7: [ERROR] HCCL(1,python):x", "node-7"),
    ("10.0.0.5: [ERROR] HCCL(1,python):x", "10.0.0.5"),
    ("2025-03-01 10:00:00 node-7: [ERROR] HCCL(1,python):x", "node-7"),
    ("(RayWorkerWrapper pid=45464, ip=10.0.0.2) [ERROR] HCCL(1,python):x", "10.0.0.2"),
    ("(Worker_DP0_TP7 pid=2112) [ERROR] HCCL(1,python):x", None),  # a process, not a host
    ("[rank3]: [ERROR] HCCL(1,python):x", None),  # a rank, not a host
    ("> [ERROR] HCCL(1,python):x", None),
])
def test_the_source_a_paste_head_names(line: str, source: str | None) -> None:
    from opsbrain.ingest.surface import head_source, plain

    assert head_source(plain(line)[1]) == source
