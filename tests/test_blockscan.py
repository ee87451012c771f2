"""The block scan (opsbrain/blockscan.py) in front of the line screens changes time, never answers.

- a line any pattern matches on its own is always a candidate (anchors, word boundaries, classes that could run
  across a newline, blocks of any size), on generated lines built from the patterns' own literals;
- :func:`opsbrain.ingest.parsers.may_signal` never rules out a line :func:`parse_line` finds a signal in, and the
  bundle reader's signals are the same with the block scan as without it;
- :meth:`SignatureMatcher.match_lines` equals :meth:`match` line by line (real-log corpus, twin lines, vendor-fixture
  texts, generated lines from the knowledge base's and the imported entries' literals);
- lines the scan cannot tell about (not ASCII, too long, holding a newline) are candidates; without RE2 it says
  nothing and every line takes the per-line path.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from opsbrain import blockscan, multiscan
from opsbrain.blockscan import BlockScan
from opsbrain.ingest import parsers
from opsbrain.kb import SignatureMatcher
from tests.test_multiscan import sample_lines

pytestmark = pytest.mark.skipif(multiscan.ENGINE != "re2", reason="google-re2 is not installed: nothing is scanned")

PATTERNS = [r"^\[ERROR\]", r"lost$", r"\bEI\d{4}\b", r"(?i)heart ?beat", r"fail[^\]]*\]", r"a\s+b", r"(?s)x.*y",
            r"rank\[\d+\]", "(?i)" + multiscan.literal_pattern("[ascend]")]
PIECES = ["[ERROR]", "lost", "EI0002", "EI00021", "HeartBeat", "heart beat", "fail", "]", "a", " ", "\t", "b", "x",
          "y", "rank[", "3", "]", "[ASCEND]", "zz", "_", "E", "I", "0"]


def _alone(patterns: list[str], text: str) -> bool:
    import re2

    return any(re2.search(p, text) for p in patterns)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.sampled_from(PIECES), max_size=8).map("".join), max_size=40),
       st.sampled_from([1, 2, 3, 128]))
def test_every_line_a_pattern_matches_alone_is_a_candidate(lines: list[str], chunk: int) -> None:
    old = blockscan.CHUNK_LINES
    blockscan.CHUNK_LINES = chunk
    try:
        got = BlockScan(PATTERNS).candidates(lines, 4096)
    finally:
        blockscan.CHUNK_LINES = old
    assert got is not None and len(got) == len(lines)
    for line, cand in zip(lines, got, strict=True):
        if _alone(PATTERNS, line):
            assert cand, line


def test_lines_without_any_pattern_are_ruled_out_and_the_unknowable_kept() -> None:
    lines = ["plain info line", "x [ERROR] not at the start", "[ERROR] first", "heart lost", "é heartbeat", "y" * 50,
             "two\nlines", "nothing here"]
    got = BlockScan(PATTERNS).candidates(lines, 40)
    assert got == [False, False, True, True, True, True, True, False]  # not ASCII, too long, a newline: kept
    assert BlockScan(PATTERNS).candidates([], 40) == []
    assert not BlockScan([r"\Aabc"]).usable  # text-only anchors mean something else in a block: no block scan
    assert not BlockScan(["(?m)^a"]).usable
    assert not BlockScan(["(?<!a)b"]).usable  # RE2 cannot read it: no block scan, quietly


def test_without_re2_nothing_is_ruled_out(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(blockscan, "_re2", None)
    scan = BlockScan(PATTERNS)
    assert not scan.usable and scan.candidates(["[ERROR] x"], 4096) is None


# ---- the parsers ------------------------------------------------------------------------------------------------
def _parser_literals() -> list[str]:
    scr, _covered = parsers._screen()
    return [*scr._lits, "[ERROR]", "[ascend]", "Traceback (most recent call last)", "event_id=0x80E01801",
            "EI0002", "507053", "device 3", "pod0-node7", "remote[10.0.0.27]", "NPU out of memory",
            # what the qualifying regexes (screened(..., context=True)) key on, beside what they qualify
            "count[506754]", "retCode=", "error code is 507015", " -i 3", "dev_id: 2", "remote_ip: 10.1.2.3",
            "errorStr: 2-bit ecc", "aclnnAdd failed", "link status : DOWN", "TLS SWITCH (1)", "net health status: x"]


def test_may_signal_keeps_every_line_with_a_signal() -> None:
    lines = sample_lines()
    may = parsers.may_signal(lines)
    assert may is not None
    with_signal = [ln for ln in lines if parsers.parse_line(ln, 1.0)]
    assert len(with_signal) > 100
    for ln, m in zip(lines, may, strict=True):
        if not m:
            assert parsers.parse_line(ln, 1.0) == [], ln
    assert sum(1 for m in may if not m) > 100  # it does rule lines out: the test is not between all-True lists


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_may_signal_on_lines_built_from_the_parsers_literals(data: st.DataObject) -> None:
    lits = _parser_literals()
    words = st.sampled_from(lits + [" ", ": ", "[", "]", "x", "INFO", "1"])
    lines = data.draw(st.lists(st.lists(words, max_size=6).map("".join), min_size=1, max_size=20))
    may = parsers.may_signal(lines)
    assert may is not None
    for ln, m in zip(lines, may, strict=True):
        if not m:
            assert parsers.parse_line(ln, 1.0) == [], ln


# lines whose numbers or words only look like what a parser keys on (the padded bundle's benign lines)
LOOK_ALIKES = [
    "[INFO] HCCL(13582,python):2025-03-01-00:03:51.844.858 [hccl_communicator.cc:412][13583]Entry-HcclAllReduce: "
    "tag[AllReduce_795318], count[506754], dataType[bfloat16], op[sum], streamId[3], deviceLogicId[2]",
    "[2025-03-01 00:41:02,517] [INFO] iteration   504406/ 1000000 | elapsed time per iteration (ms): 1747.0 | "
    "lm loss: 2.913438E+00 | throughput (tokens/s): 110114.3",
    "/usr/local/Ascend/driver/tools/hccn_tool -i 0 -link -g",
    "/usr/local/bin/npu-smi info -t ecc -i 0 -c 0",
    "[INFO]     2025/03/01 00:38:52.500649 93      server/plugin.go:217    ListAndWatch resp devices: "
    "Ascend910-1 Healthy",
]
REAL_CODE_LINES = [  # docs/formats.md and corpus lines: a runtime code with the words that make it one
    "[ERROR] aclrtSynchronizeStream(stream) failed: 507015",
    "RuntimeError: SetPrecisionMode:... AclSetCompileopt(aclCompileOpt::ACL_PRECISION_MODE, precision_mode), "
    "error code is 500001",
    "[ERROR] RUNTIME(78,python):2024-03-11-02:22:34.958.814 [device.cc:227]78 Init:Failed to open device, "
    "retCode=0x7020014, deviceId=0.",
    "ret=507053 failed",
    "link status: DOWN",
]


def test_numbers_and_words_that_only_look_like_signals_are_ruled_out(vendor_matcher: SignatureMatcher) -> None:
    from opsbrain.bundle.diagnose import _candidates

    for ln in LOOK_ALIKES:
        assert parsers.parse_line(ln, 1.0) == [] and vendor_matcher.match(ln) == [], ln
    assert parsers.may_signal(LOOK_ALIKES) == [False] * len(LOOK_ALIKES)
    assert _candidates(LOOK_ALIKES, vendor_matcher) == [False] * len(LOOK_ALIKES)
    for ln in REAL_CODE_LINES:
        assert parsers.parse_line(ln, 1.0), ln
    assert parsers.may_signal(REAL_CODE_LINES) == [True] * len(REAL_CODE_LINES)
    assert _candidates(REAL_CODE_LINES, vendor_matcher) == [True] * len(REAL_CODE_LINES)


def test_bundle_signals_same_with_and_without_the_block_scan(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from opsbrain.bundle import reader

    rng = random.Random(7)
    pool = sample_lines()
    lines = [reader.BundleLine(float(i), "pod0/node1", "plog", None, rng.choice(pool), "f.log", i + 1)
             for i in range(600)]
    fast, where_fast = reader.signals_of(lines, {})
    monkeypatch.setattr(reader, "may_signal", lambda texts: None)
    exact, where_exact = reader.signals_of(lines, {})
    assert [repr(s) for s in fast] == [repr(s) for s in exact]
    assert sorted(where_fast.values()) == sorted(where_exact.values())
    assert len(exact) > 20


# ---- the knowledge matcher --------------------------------------------------------------------------------------
def _dicts(rows: list[list[object]]) -> list[list[dict[str, object]]]:
    return [[m.as_dict() for m in r] for r in rows]  # type: ignore[attr-defined]


def _matcher_literals(m: SignatureMatcher) -> list[str]:
    subs = [s for e in m.imported.entries.values() for g in e.groups for s in g]
    return [*m._gate_words, *m._screen_anchors, *subs, "event_id=0x80E01801", "[0x08520003,na,L2,na]", "EI0002",
            "ret=507053", "fault code [80E01801]"]


def test_match_lines_equals_match_line_by_line(vendor_matcher: SignatureMatcher) -> None:
    lines = sample_lines()
    for e in vendor_matcher.imported.entries.values():
        for g in e.groups:
            lines += [" ... ".join(g), " ".join(g).upper(), "x" + "".join(g), " ".join(reversed(g))]
    assert vendor_matcher._block is not None
    got = vendor_matcher.match_lines(lines)
    want = [vendor_matcher.match(ln) for ln in lines]
    assert _dicts(got) == _dicts(want)
    assert sum(1 for r in want if r) > 30
    may = vendor_matcher._block.candidates(lines, 8192)
    assert may is not None and sum(1 for x in may if not x) > 50  # most corpus lines are ruled out in the block


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(st.data())
def test_match_lines_on_lines_built_from_the_matchers_literals(vendor_matcher: SignatureMatcher,
                                                               data: st.DataObject) -> None:
    words = st.sampled_from(_matcher_literals(vendor_matcher) + [" ", "x", ",", "0x", "["])
    lines = data.draw(st.lists(st.lists(words, max_size=6).map("".join), min_size=1, max_size=20))
    assert _dicts(vendor_matcher.match_lines(lines)) == _dicts([vendor_matcher.match(ln) for ln in lines])


def test_match_lines_without_re2_is_the_per_line_path(vendor_matcher: SignatureMatcher,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    lines = sample_lines()[:200]
    want = _dicts([vendor_matcher.match(ln) for ln in lines])
    monkeypatch.setattr(vendor_matcher, "_block", None)
    assert _dicts(vendor_matcher.match_lines(lines)) == want


def test_one_shared_scan_keeps_every_line_with_a_signal_or_a_match(vendor_matcher: SignatureMatcher) -> None:
    from opsbrain.bundle.diagnose import _candidates

    lines = sample_lines()
    for e in vendor_matcher.imported.entries.values():
        for g in e.groups:
            lines += [" ... ".join(g), "x" + "".join(g)]
    may = _candidates(lines, vendor_matcher)
    assert may is not None and len(may) == len(lines)
    for ln, m in zip(lines, may, strict=True):
        if not m:
            assert parsers.parse_line(ln, 1.0) == [] and vendor_matcher.match(ln) == [], ln
    assert sum(1 for m in may if not m) > 50
    assert _dicts(vendor_matcher.match_lines(lines, may)) == _dicts([vendor_matcher.match(ln) for ln in lines])
    assert _candidates(lines, None) is None  # no matcher: the parsers' own scan (signals_of) decides
