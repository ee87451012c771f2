"""Session 53, second read of the "the run went on" reading (review53, opsbrain.diagnosis.wenton).

- PROGRESS split a run of blanks between ``\\s*[:=]?\\s*`` (and ``\\s*[:#]?\\s*``) in O(n^2) ways under ``re``, the
  path that runs where RE2 is not installed: ``step`` + 32,000 blanks took ~10 s.
- The scan kept one tail per file given, so a paste of several files' lines (``tail -n +1 a b``, ``grep -r``) was one
  file: a failure in one file read as gone on from by another file's loop (under ``--logs DIR`` of the same files it
  was not). Each line is now read under the file it was written to (the reader's ``origin``).
- The scan held the last 48 lines of every file until the end: ~340 MB for a directory of MAX_FILES (20,000) short
  plogs. A file's tail is now read when the next file starts, and only its reading is kept.
- ``--bundle``'s reading of the signals' verdict asked only the files whose failure was among their last lines or had
  a signal; ``--logs`` also asks every file the text view saw fail. A console that failed early without a signal
  kept ``--logs``'s answer and lost ``--bundle``'s.
- A status readout's field (``net health status: Success``) read as a tool's finish: a health check pasted after a
  failure read as the program going on.

Real lines: those of tests/test_wenton53.py (its traceback, the Non_Local_Net loop, MindSpore's LossMonitor, the
lead's ``step 3 completed failed``); vllm-ascend#486's HCCL timeout (rank1's RuntimeError / ERR01100 / EI0006 lines);
hccn_tool's answers as opsbrain.ingest.readouts cites them (``link status: UP``, ``net health status: Success``).
"""

from __future__ import annotations

import io
import time
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.diagnosis.wenton import PROGRESS, TAIL, progress_scan, went_on
from tests.regex_shape import shape_problems
from tests.test_wenton53 import FAILED, LOOP, MS_LOSS

TIMEOUT = [  # vllm-ascend#486 (rank1's lines)
    "[rank1]: RuntimeError: InnerRunOpApi:torch_npu/csrc/framework/OpParamMaker.cpp:281 OPS function error: "
    "HcclAllreduce, error code is 6",
    "[rank1]: [ERROR] 2025-04-08-18:07:20 (PID:1292363, Device:1, RankID:1) ERR01100 OPS call acl api failed.",
    "[rank1]: EI0006: [PID: 1292363] 2025-04-08-18:07:20.444.436 Getting socket times out. Reason: Remote Rank did "
    "not send the data in time. Please check the reason for the rank being stuck",
]


def _stdin(engine: Any, lines: list[str]) -> dict[str, Any]:
    return diagnose_logs("-", engine, stdin=io.BytesIO(("\n".join(lines) + "\n").encode()))["diagnosis"]


def _tree(root: Path, files: dict[str, list[str]]) -> Path:
    for rel, lines in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("\n".join(lines) + "\n")
    return root


# ---- the regex: linear under re --------------------------------------------------------------------------------------
def test_progress_has_no_super_linear_shape() -> None:
    assert shape_problems(PROGRESS.pattern, PROGRESS.flags) == []


@pytest.mark.parametrize("line", ["step" + " " * 32_000 + "x", "acc" + " " * 32_000 + "x",
                                  "top-1" + " " * 32_000 + ":x", "epoch" + " " * 16_000 + ":" + " " * 16_000])
def test_progress_reads_a_run_of_blanks_at_once(line: str) -> None:
    t0 = time.perf_counter()
    PROGRESS.search(line)  # (re's own path: RE2 is linear anyway) 5-10 s before the fix, as measured
    assert time.perf_counter() - t0 < 1.0


def test_progress_forms_unchanged() -> None:
    for line in [*LOOP, MS_LOSS, "step: 3", "step 3", "iter #12", "acc: 0.9", "top-1 acc = 71.2", "loss = 2.5"]:
        assert PROGRESS.search(line), line
    for line in ["step x", "acc: x", "stepping down as leader", "loss: nan"]:
        assert not PROGRESS.search(line), line


# ---- several files' lines in one input -------------------------------------------------------------------------------
def test_a_paste_of_several_files_reads_each_file_apart(engine: Any, tmp_path: Path) -> None:
    # rank1 stopped at its import error; rank0's loop went on: as a directory, rank1's failure is the answer
    d = _tree(tmp_path / "dir", {"rank1.log": FAILED, "rank0.log": LOOP})
    assert diagnose_logs(str(d), engine)["diagnosis"]["fault_class"] == "config_error"
    tail = ["==> rank1.log <==", *FAILED, "", "==> rank0.log <==", *LOOP]  # tail -n +1 rank1.log rank0.log
    assert _stdin(engine, tail)["fault_class"] == "config_error"
    grep = [f"rank1.log:{ln}" for ln in FAILED] + [f"rank0.log:{ln}" for ln in LOOP]  # grep -r '' .
    assert _stdin(engine, grep)["fault_class"] == "config_error"


def test_a_paste_of_one_file_that_went_on_still_abstains(engine: Any) -> None:
    tail = ["==> rank1.log <==", *FAILED, *LOOP]
    d = _stdin(engine, tail)
    assert d["fault_class"] == "unknown" and d["alternatives"][0][0] == "config_error"
    grep = [f"rank1.log:{ln}" for ln in FAILED + LOOP]
    assert _stdin(engine, grep)["fault_class"] == "unknown"


def test_the_scan_reads_origins_apart() -> None:
    scan = progress_scan()
    for n, line in enumerate(FAILED, 1):
        scan(line, None, n, "", "rank1.log")
    for n, line in enumerate(LOOP, len(FAILED) + 1):
        scan(line, None, n, "", "rank0.log")
    assert went_on(scan, []) is None  # rank1's failure has no progress after it
    assert went_on(scan, [], failed=[(None, 4)]) is None
    scan = progress_scan()
    for n, line in enumerate(FAILED + LOOP, 1):
        scan(line, None, n, "", "rank1.log")
    w = went_on(scan, [], failed=[(None, 4)])
    assert w is not None and w.lines == (5, 6)


# ---- the scan's state ------------------------------------------------------------------------------------------------
def test_the_scan_holds_one_files_tail_not_every_files() -> None:
    scan = progress_scan()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        for f in range(2000):
            name = f"worker-{f // 16}/device_log/plog/plog-{f}.log"
            for n in range(1, 61):
                scan(f"epoch: 1 step: {n}, loss is 7.187697", name, n)  # (LossMonitor's form, a step each)
        held = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    # ~24 MB before (every file's 48 lines); the readings of 2000 files and one open tail after
    assert held < 6_000_000, held
    assert scan.read("worker-0/device_log/plog/plog-0.log") == (0, list(range(61 - TAIL, 61)))


def test_a_file_read_again_continues_its_reading() -> None:
    scan = progress_scan()
    scan(FAILED[-1], "a.log", 4)
    scan(LOOP[0], "b.log", 1)
    scan(LOOP[0], "a.log", 5)
    scan(LOOP[1], "a.log", 6)
    assert scan.read("a.log") == (4, [5, 6])
    assert went_on(scan, []) is not None


# ---- --bundle asks the same files as --logs --------------------------------------------------------------------------
def test_a_file_that_failed_early_keeps_the_answer_under_both(engine: Any, tmp_path: Path) -> None:
    from opsbrain.bundle.diagnose import diagnose_bundle
    from opsbrain.kb import SignatureMatcher, load_kb

    checks = [ln for _ in range(4) for i in range(8) for ln in (f"hccn_tool -i {i} -link -g", "link status: UP")]
    assert len(checks) > TAIL
    b = _tree(tmp_path / "b", {"worker-0/train.log": FAILED + LOOP,
                               "worker-1/train.log": ["step 3 completed failed", *checks]})
    logs = diagnose_logs(str(b), engine)["diagnosis"]
    bundle = diagnose_bundle(b, engine, SignatureMatcher(load_kb()))["diagnosis"]
    assert logs["fault_class"] == "config_error"  # worker-1 failed and did not go on
    assert bundle["fault_class"] == logs["fault_class"]
    # without worker-1's failure both abstain
    b2 = _tree(tmp_path / "b2", {"worker-0/train.log": FAILED + LOOP, "worker-1/train.log": checks})
    assert diagnose_logs(str(b2), engine)["diagnosis"]["fault_class"] == "unknown"
    assert diagnose_bundle(b2, engine, SignatureMatcher(load_kb()))["diagnosis"]["fault_class"] == "unknown"


# ---- a readout is no progress ----------------------------------------------------------------------------------------
def test_a_health_check_after_the_failure_is_no_progress(engine: Any) -> None:
    checks = [ln for i in range(2) for ln in (f"hccn_tool -i {i} -net_health -g", "net health status: Success")]
    assert _stdin(engine, TIMEOUT)["fault_class"] == "collective_timeout_sw"
    assert _stdin(engine, TIMEOUT + checks)["fault_class"] == "collective_timeout_sw"
    assert _stdin(engine, FAILED + checks)["fault_class"] == "config_error"
    assert _stdin(engine, TIMEOUT + LOOP)["fault_class"] == "unknown"  # (a loop is progress still)
