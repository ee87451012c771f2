"""Review of session 50's readings (review50): lines that a new reading took for something they are not."""

from __future__ import annotations

import pytest

from opsbrain.ingest.benign import BENIGN
from opsbrain.ingest.text import ingest_text
from tests.textviews import view_of

# LLVM's raw_fd_ostream reports a write it could not finish through report_fatal_error("IO failure on output stream:
# " + the errno's message, gen_crash_diag=false) (llvm/llvm-project llvm/lib/Support/raw_ostream.cpp,
# raw_fd_ostream::~raw_fd_ostream; older releases: "IO failure on output stream."), which clang prints as its fatal
# "error in backend": a full disk, not a kernel the compiler could not lower.
DISK_FULL_BACKEND = [
    # alisw/alidist#1953 (a CI build whose volume was full) and google/fuzzbench#1091 ("out of space issue")
    "fatal error: error in backend: IO failure on output stream: No space left on device",
    # android-rpi/device_brcm_rpi3#74 ("ran out of hdd space...")
    "fatal error: error in backend: IO failure on output stream.",
]


def kinds(text: str) -> list[str]:
    return [s.kind for s in ingest_text(text)[0]]


@pytest.mark.parametrize("line", DISK_FULL_BACKEND)
def test_a_backend_io_failure_is_no_kernel_compile_failure(line: str) -> None:
    assert "op:compile" not in kinds(line)


def test_the_disk_full_words_keep_their_reading() -> None:
    assert kinds(DISK_FULL_BACKEND[0]) == kinds("error: No space left on device")


def test_a_backend_crash_still_reads_op_compile() -> None:
    assert kinds("fatal error: error in backend: Cannot select: i64 = fp_to_uint") == ["op:compile"]


# pytest's closing summary under -q: summary_stats writes the same counts without the "=" separators when the
# verbosity is below 0 (pytest src/_pytest/terminal.py, TerminalReporter.summary_stats: ``display_sep =
# self.verbosity >= 0``, else ``self.write_line(msg)``); the lines below are in that documented format.
@pytest.mark.parametrize("line", [
    "19 passed, 1 xfailed in 9.63s",
    "147 passed, 2 skipped, 1 xfailed in 633.84s (0:10:33)",
])
def test_a_quiet_pytest_summary_without_failures_is_no_failing_line(line: str) -> None:
    assert BENIGN.search(line)
    assert view_of(line).failing == 0


@pytest.mark.parametrize("line", ["1 failed, 18 passed, 1 xfailed in 9.63s", "18 passed, 1 error in 3.10s"])
def test_a_quiet_pytest_summary_with_failures_still_counts(line: str) -> None:
    assert not BENIGN.search(line)
    assert view_of(line).failing == 1
