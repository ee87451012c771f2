"""torchrun's ``ChildFailedError`` table: a SIGKILL listed under ``Failures:`` is the agent's teardown of the ranks that
outlived the first failure, not a cause (session 48, tester48g; :class:`opsbrain.ingest.parsers.sigkill.
KilledTracebackScan`).

The table (torch/distributed/elastic/multiprocessing/errors/__init__.py, ``ChildFailedError.format_msg``) lists the
first failure under ``Root Cause (first observed failure):`` and every other rank's exit under ``Failures:`` (or
``<NO_OTHER_FAILURES>``). Once one worker failed, the agent closes the others (multiprocessing/api.py, ``_close``:
SIGTERM, then SIGKILL after its 30 s timeout), so their ``exitcode  : -9`` / ``Signal 9 (SIGKILL) received by PID``
come 30 s after the root cause and say nothing of it. vllm-project/speculators#1115 (a regression of the program on
910C NPUs, the root cause an exit code 1 at 13:02:58, ranks 0 and 2 ended by SIGKILL and SIGTERM at 13:03:29) read
npu_oom 0.5 from those two lines (``os:sigkill``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from opsbrain.bundle import diagnose_bundle
from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.ingest.parsers.sigkill import killed_tracebacks_in
from opsbrain.ingest.text import ingest_text

TABLE = """\
torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
============================================================
/root/speculators/scripts/train.py FAILED
------------------------------------------------------------
Failures:
[1]:
  time      : 2026-09-07_13:02:58
  host      : localhost
  rank      : 3 (local_rank: 3)
  exitcode  : 1 (pid: 14692)
  error_file: <N/A>
  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
[2]:
  time      : 2026-09-07_13:03:29
  host      : localhost
  rank      : 0 (local_rank: 0)
  exitcode  : -9 (pid: 14689)
  error_file: <N/A>
  traceback : Signal 9 (SIGKILL) received by PID 14689
[3]:
  time      : 2026-09-07_13:03:29
  host      : localhost
  rank      : 2 (local_rank: 2)
  exitcode  : -15 (pid: 14691)
  error_file: <N/A>
  traceback : Signal 15 (SIGTERM) received by PID 14691
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2026-09-07_13:02:58
  host      : localhost
  rank      : 1 (local_rank: 1)
"""
"""speculators#1115's table as pasted (https://github.com/vllm-project/speculators/issues/1115; the paste ends at the
root entry's rank line)."""
ROOT_KILLED = """\
torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
=======================================================
train.py FAILED
-------------------------------------------------------
Failures:
  <NO_OTHER_FAILURES>
-------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2023-08-01_01:06:47
  host      : r1n2a6000bittensor
  rank      : 4 (local_rank: 4)
  exitcode  : -9 (pid: 208585)
  error_file: <N/A>
  traceback : Signal 9 (SIGKILL) received by PID 208585
=======================================================
"""
"""The control: a root cause that was itself a SIGKILL is still read (public notes of an Andromeda training run,
code-search index file id 14673465513, repository not resolved: "my issue was due to not enough CPU memory")."""


def _kinds(text: str) -> list[str]:
    return [s.kind for s in ingest_text(text)[0]]


def test_a_kill_under_failures_is_the_agents_teardown() -> None:
    assert "os:sigkill" not in _kinds(TABLE)
    assert _kinds(ROOT_KILLED).count("os:sigkill") == 2  # the root entry's exit code and its signal line
    lines = TABLE.splitlines()
    assert killed_tracebacks_in(lines) == {lines.index("  exitcode  : -9 (pid: 14689)") + 1,
                                           lines.index("  traceback : Signal 9 (SIGKILL) received by PID 14689") + 1}
    assert killed_tracebacks_in(ROOT_KILLED.splitlines()) == set()


def test_the_table_does_not_read_as_host_memory(tmp_path: Path, engine: Any) -> None:
    (tmp_path / "table.log").write_text(TABLE)
    (tmp_path / "root.log").write_text(ROOT_KILLED)
    table, root = (diagnose_logs(str(tmp_path / f), engine)["diagnosis"] for f in ("table.log", "root.log"))
    assert table["fault_class"] != "npu_oom" and "(os:sigkill)" not in " ".join(table["evidence"])
    assert "(os:sigkill)" in " ".join(root["evidence"])  # the control: its engine still leans to host memory


@pytest.mark.parametrize("packed", [False, True])
def test_a_bundle_reads_the_table_as_logs_does(tmp_path: Path, engine: Any, packed: bool) -> None:
    from opsbrain.bundle.layout import BundleParams

    log = tmp_path / "worker-0" / "train.log"
    log.parent.mkdir(parents=True)
    log.write_text(TABLE)
    params = BundleParams(hold_text_bytes=0) if packed else None
    rep = diagnose_bundle(tmp_path, engine, params=params)
    assert "os:sigkill" not in {k for inc in rep["incidents"] for k in inc["kinds"]}
    assert rep["diagnosis"]["fault_class"] == diagnose_logs(str(tmp_path), engine)["diagnosis"]["fault_class"] \
        != "npu_oom"


def test_the_fallback_text_leaves_out_the_teardown_kills() -> None:
    """The lead's second read: the kill lines left the signals but stayed in the words the text fallback reads."""
    from opsbrain.diagnosis.realtext import TextView

    view = TextView()
    for n, line in enumerate(TABLE.splitlines(), 1):
        view(line, None, n)
    kept = [t for _f, _n, t in view.first + view.errors]
    assert any("exitcode  : 1" in t for t in kept)  # the root entry and the other ranks' own lines are read
    assert not any("-9" in t or "SIGKILL" in t for t in kept)
