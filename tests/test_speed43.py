"""Session 43 (speed43): reading large inputs with less per-line work, the same answers.

- the rank collector's plog loop with the file's constants hoisted and its block gate for other files
  (:mod:`opsbrain.ingest.rankfeed`) leave the collector exactly as its per-line loop does;
- the first stand-in copy's ideographs-only test (:data:`opsbrain.standin._NOT_IDEOGRAPH`) finds exactly the
  characters that are neither ASCII nor CJK Unified Ideographs.
"""

from __future__ import annotations

from typing import Any
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from opsbrain.ingest import rankfeed
from opsbrain.ingest.ranks import RankCollector

PLOG = "node-1/process_log/debug/plog/plog-4242_20250301000000000.log"
CONSOLE = "node-1/rank-0.log"
STAMPS = ["2025-03-01-10:00:01.000.001", "2025-03-01-09:59:59.999.999", "2025-03-01-10:00:01.000.000",
          "2025-13-01-10:00:00.000.000", "2025-03-01-10:00:01.500.250"]
BODIES = ["[hccl_communicator.cc:412][4243]Entry-HcclBroadcast: tag[x], count[4]",
          "[a.cc:1][4243]rankNum[8], rank[1], serverId[10.0.0.1]",
          "[a.cc:2][4243]HcclGetRootInfo success identifier[id_1]",
          "[a.cc:3][4243]TLS SWITCH (1)", "[a.cc:4][4243]Entry-HcclCommInitRootInfo: identifier[id_1], rank[1]",
          "[a.cc:5][4243]totalRanks[8] serverId[s1]", "[t.cc:9][4243]socket timeout, remote rank[3]",
          "[a.cc:6][4243]HCCL_CONNECT_TIMEOUT set by environment variable to 120"]


def _plog_line(level: str, module: str, stamp: str, body: str) -> str:
    return f"[{level}] {module}(4242,python):{stamp} {body}"


PLOG_LINES = st.one_of(
    st.builds(_plog_line, st.sampled_from(["INFO", "ERROR", "error", "Error", "WARNING"]),
              st.sampled_from(["HCCL", "RUNTIME"]), st.sampled_from(STAMPS), st.sampled_from(BODIES)),
    st.sampled_from(["", "  ", "[INFO] no stamp here (x)", "plain text", "[ERROR] HCCL(1,x) not a stamp",
                     "[INFO] " + "x" * 40 + "HCCL(4242,python):2025-03-01-10:00:00.000.000 late paren",
                     "训练进度：第 1 步，损失 0.5\r"]))
CONSOLE_LINES = st.sampled_from([
    "[2026-03-01 10:00:00] 训练进度：第 1 步，损失 0.5", "step 10 loss 0.5", "",
    "[ERROR] 2025-06-25-11:01:22 (PID:13075, Device:0, RankID:0) ERR00100 PTA call acl api failed",
    "EI0002: [PID: 13075] 2025-06-25-11:01:22.586.187 The wait execution of the Notify register times out. "
    "Reason: x from remote rank: [2]",
    "EZ9999: [PID: 920] 2025-06-25-11:01:22.586.187 The error from device(chipId:7, dieId:0), serial number is 3",
    "        TraceBack (most recent call last):", "        The error from device(chipId:5, dieId:0)",
    "Out of memory: Killed process 13075 (python) total-vm:1kB", "the process will fill the queue",
    "[ERROR] 2025-06-25-11:01:22 no head", "EI0002: no pid here", "Out of memory: Killed process 13075",
    "[PID: 920] 2025-06-25-11:01:22 rtStreamSynchronize failed",
    _plog_line("ERROR", "HCCL", STAMPS[0], BODIES[6]), _plog_line("INFO", "HCCL", STAMPS[1], BODIES[1])])


def _state(c: RankCollector) -> Any:
    return (repr(c.table()), {k: repr(v) for k, v in c.procs.items()}, sorted(c._seen), dict(c._chips),
            repr(c.killed), dict(c._block_pid), dict(c._seconds))


def _per_line() -> Any:
    """The collector's per-line loop for every file (what :mod:`opsbrain.ingest.rankfeed` stands in for)."""
    def plog(self: RankCollector, lines: Any, file: Any, name: str, w: str, _pid: str, strip: bool, line_no: int,
             numbers: Any) -> None:
        self._feed_each(lines, file, name, w, self._files[name][2], strip, None, line_no, numbers)

    def gated(self: RankCollector, lines: Any, file: Any, name: str, w: str, strip: bool, line_no: int,
              numbers: Any) -> None:
        self._feed_each(lines, file, name, w, None, strip, None, line_no, numbers)

    return mock.patch.multiple(RankCollector, _feed_plog=plog, _feed_gated=gated)


def _feed_all(c: RankCollector, feeds: list[tuple[str, list[str], bool]]) -> None:
    for name, lines, folded in feeds:
        numbers = [3 * k + 1 for k in range(len(lines))] if folded else None
        c.feed_lines(iter(lines), name, numbers=iter(numbers) if numbers is not None else None)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([PLOG, CONSOLE, "node-2/train.log"]), st.lists(PLOG_LINES | CONSOLE_LINES,
                                                                                          max_size=12),
                          st.booleans()), min_size=1, max_size=4),
       st.sampled_from([1, 2, 3, 4096]))
def test_rankfeed_leaves_the_collector_as_the_per_line_loop(feeds: list[tuple[str, list[str], bool]],
                                                            block: int) -> None:
    with mock.patch.object(rankfeed, "GATE_LINES", block):
        fast = RankCollector("root")
        _feed_all(fast, feeds)
        with _per_line():
            slow = RankCollector("root")
            _feed_all(slow, feeds)
    assert _state(fast) == _state(slow)


def test_gate_skips_blocks_without_its_words() -> None:
    quiet = ["[2026-03-01 10:00:00] 训练进度：第 1 步，损失 0.5"] * 10
    pid = "[PID: 77] 2026-03-01 x"
    calls: list[int] = []
    each = RankCollector._feed_each

    def counting(self: RankCollector, lines: Any, *a: Any) -> None:
        lines = list(lines)
        calls.append(len(lines))
        each(self, lines, *a)

    with mock.patch.object(rankfeed, "GATE_LINES", 4), mock.patch.object(RankCollector, "_feed_each", counting):
        c = RankCollector("root")
        c.feed_lines(quiet, CONSOLE)
        assert calls == []
        c.feed_lines(quiet[:5] + [pid] + quiet[:2], "node-1/rank-1.log")  # the pid line in the second block only
        assert calls == [4]
        calls.clear()
        c.feed_lines(quiet[:3] + [pid] + quiet[:4], "node-1/rank-2.log")  # the pid's block is open as the next starts
        assert calls == [4, 4]


def test_plog_loop_reads_each_time_once() -> None:
    """The plog loop keeps the first and last times as the per-line loop does, with times out of order."""
    lines = [_plog_line("INFO", "HCCL", s, BODIES[0]) for s in STAMPS]
    c = RankCollector("root")
    c.feed_lines(lines, PLOG)
    p = c.procs[("node-1", "4242")]
    with _per_line():
        ref = RankCollector("root")
        ref.feed_lines(lines, PLOG)
    r = ref.procs[("node-1", "4242")]
    assert (p.first_t, p.last_t) == (r.first_t, r.last_t) and p.first_t is not None and p.first_t < p.last_t


def test_not_ideograph_is_neither_ascii_nor_a_cjk_ideograph() -> None:
    from opsbrain import standin

    every = "".join(map(chr, range(0x110000)))
    found = standin._NOT_IDEOGRAPH.findall(every)
    assert len(found) == 0x110000 - 128 - (0x9FFF - 0x4E00 + 1)
    assert "\u4e00" not in found and "\u9fff" not in found and "\u4dff" in found and "\ua000" in found
    assert "\x7f" not in found and "\x80" in found
