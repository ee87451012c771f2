"""Session 46, second read of the merged changes (review46).

Two regexes the session added backtrack super-linearly on one long line, and one reading took a whole line as
explained where it holds more than the kill:

- BENIGN's ras-mc-ctl command line (fa46): ``^\\s*(?:prompt)?\\s*`` splits a run of leading blanks in O(n^2) ways,
  and the ``user@host:\\S*[#$]`` prompt's ``\\S*`` overlaps the path's ``(?:\\S*/)?``. parse_line runs BENIGN on
  every line past the gate: one line of 4,000 blanks before ``Kernel panic`` took ~1 s (9 ms before the session);
  the fallback's view (realtext.TextView) strips the blanks but not the prompt's run (up to 64 K a line).
  The triton notice's ``(?:\\.\\w+)*`` is a long repeat in a long repeat to the shape check (linear in fact).
- ranks' RE_OOM_KILL (killed46): the bare victim's ``(?= \\d+ \\(.*\\btotal-vm:)`` reads to the line's end from each
  ``Killed process`` (RankScan feeds it lines of up to 64 K: 6.7 s on one).
- sigkill's "the exception raised for a kill is the kill alone" (the lead): the line was taken as fully explained
  wherever the exception's text occurs, so what a line holds after it (an error code, a second message) went unread.
"""

from __future__ import annotations

import time

import pytest

from opsbrain.diagnosis.realtext import excerpt_view
from opsbrain.ingest.benign import BENIGN
from opsbrain.ingest.parsers import parse_line
from opsbrain.ingest.rankrecords import RE_OOM_KILL
from opsbrain.ingest.recovered import RECOVERED_SPAN
from opsbrain.ingest.text import ingest_text
from tests.regex_shape import shape_problems
from tests.test_false_alarms46 import GPUSTACK, V2_LINE


def kinds(line: str) -> list[str]:
    return sorted({s.kind for s in parse_line(line, t=0.0)})


def test_the_benign_regex_has_no_super_linear_shape() -> None:
    assert shape_problems(BENIGN.pattern, BENIGN.flags) == []


def _seconds(fn: object, *args: object) -> float:
    t0 = time.perf_counter()
    fn(*args)  # type: ignore[operator]
    return time.perf_counter() - t0


@pytest.mark.parametrize("line", [
    " " * 16_000 + "x",  # leading blanks (18.8-30.7 s before the fix, as measured)
    "\t" * 16_000 + "ras-mc-ctl --x",
    "a@b:" + "#/" * 32_000,  # a prompt's run that the path's repeat re-reads, a 64 K line as the fallback's view
    # gets it (34 s before the fix)
])
def test_hostile_lines_pass_the_benign_regex_at_once(line: str) -> None:
    # the rewrite reads each in ~0.05-0.15 s (the whole regex's 37 alternatives), under load; the old shape took 18-34 s
    assert _seconds(BENIGN.search, line) < 1.0


def test_the_ras_mc_ctl_command_line_still_reads_as_the_query() -> None:
    for line in ("[root@haumea:~]# ras-mc-ctl --errors", "root@node1:~# sudo /usr/sbin/ras-mc-ctl --summary",
                 "$ ras-mc-ctl --error-count", "   ras-mc-ctl --since=2024-12-01 --errors  ",
                 "user@host:/var/log$ ras-mc-ctl --vendor-platforms"):
        assert BENIGN.search(line), line
    for line in ("ras-mc-ctl --errors --status", "ras-mc-ctl: error: database locked", "[root@haumea:~]# ras-mc-ctl"):
        assert not BENIGN.search(line), line


def test_the_rank_oom_regex_reads_a_long_line_at_once() -> None:
    line = "Killed process 1 (" * (65_536 // 18)  # a line the rank scan is handed (6.7 s before the fix, as measured)
    assert _seconds(RE_OOM_KILL.search, line) < 0.5  # ~4-16 ms after the fix
    # the real forms still name the victim (Linux 4.x, the RHEL form with UID, the 5.x prefixed form)
    for line, pid in (("Killed process 7748 (python) total-vm:12907828kB, anon-rss:11500204kB, file-rss:0kB", "7748"),
                      ("Killed process 42452 (memcg_test_1), UID 0, total-vm:7296kB, anon-rss:96kB", "42452"),
                      ("Out of memory: Killed process 3 (python3) total-vm:1kB, anon-rss:1kB", "3")):
        m = RE_OOM_KILL.search(line)
        assert m is not None and m.group(1) == pid, line
    assert RE_OOM_KILL.search("Killed process 7 (python) exited") is None


# The DataLoader's message (torch/csrc/DataLoader.cpp: "DataLoader worker (pid N) is killed by signal: Killed. ") and
# a message of CANN's own (EL0004, knowledge_base/codes.yaml) on one line, as two writers sharing a stream without a
# newline leave them (constructed from the two real texts).
JOINED = ("RuntimeError: DataLoader worker (pid 2605) is killed by signal: Killed. EL0004: Failed to allocate memory.")


def test_a_kill_exception_line_that_holds_more_is_read_further() -> None:
    assert {"os:sigkill", "err:EL0004"} <= set(kinds(JOINED))
    # the exception alone is still the kill alone (session 46, the lead)
    assert kinds("RuntimeError: DataLoader worker (pid 2605) is killed by signal: Killed. ") == ["os:sigkill"]
    assert kinds("torch.multiprocessing.spawn.ProcessExitedException: process 1 terminated with signal SIGKILL") \
        == ["os:sigkill"]


def test_a_v2_success_past_the_window_recovers_nothing() -> None:
    """fa46's RecoveredScan takes a DCMI V1 failure as recovered only when the V2 success comes within
    RECOVERED_SPAN lines of it; no test held the bound (a window of 100,000 lines passed them all)."""
    filler = "2026-08-27 15:14:41,000 - 1401 - gpustack_runtime.detector.mthreads - DEBUG - No MThreads devices found"
    assert RECOVERED_SPAN == 40  # the bound the docs give (docs/formats.md, benign.py)
    late = GPUSTACK.replace(V2_LINE + "\n", (filler + "\n") * 40 + V2_LINE + "\n")  # 49 lines after the failure
    assert "drv:api_error" in {s.kind for s in ingest_text(late)[0]}
    assert "Failed to initialize DCMI" in excerpt_view(late)
    near = GPUSTACK.replace(V2_LINE + "\n", (filler + "\n") * 5 + V2_LINE + "\n")
    assert "drv:api_error" not in {s.kind for s in ingest_text(near)[0]}


def test_an_llm_datadist_status_adds_to_the_exceptions_reading() -> None:
    """tester46g's parser returns False so that the framework parser still reads the exception; no test held it."""
    # vllm-ascend#2900 (as tests/test_ingest_llmdatadist_status.py cites it)
    line = ("(Worker_DP0_TP4_EP4 pid=852061) llm_datadist.status.LLMException: [link] failed, error code is "
            "LLMStatusCode.LLM_LINK_FAILED, {5: 0, 21: 1}.")
    assert {"msg:comm", "py:LLMException"} <= set(kinds(line))
