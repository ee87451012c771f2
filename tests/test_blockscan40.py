"""Session 40: non-ASCII lines through the block scans a block at a time, and the parsers skipped on the lines the
shared scan keeps for the knowledge matcher alone. Time changes, never an answer.

- :func:`opsbrain.standin.rare_lines` finds exactly the lines whose :func:`opsbrain.standin.kinds` is not the
  common one, on random text of ASCII, CJK, Unicode digits and spaces and the characters ``re.I`` folds;
- :meth:`BlockScan._wide_lines` (copies of joined lines, grouped by kinds) keeps every line the per-line way of
  session 39 keeps (:meth:`BlockScan._wide_each`) and every line with an answer, across chunks; it makes one copy
  a block and reading, not one a line;
- :func:`opsbrain.ingest.parsers.narrow_to_gate` keeps every line :func:`parse_line` finds a signal in, and rules
  out the Chinese console lines the matcher's anchors keep.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from opsbrain import blockscan, multiscan, standin
from opsbrain.ingest import parsers
from opsbrain.kb import SignatureMatcher
from tests.test_standin39 import _text

pytestmark = pytest.mark.skipif(multiscan.ENGINE != "re2", reason="google-re2 is not installed: nothing is scanned")

CONSOLE = ["2026-03-01 10:00:00 信息：日志写入 /var/log/训练/rank_{n}.log", "正在加载检查点 /data/模型/检查点_{n}.ckpt",
           "\u3000\u3000第 {n} 个批次已下发", "评估结果：准确率 {n}%", "错误：EI0002 任务执行超时，设备 {n}",
           "数据 ٣{n} 条", "训练进度：第 {n} 步", "HCCL 通信失败，错误码 EI9999，rank {n}"]


def _console(n: int, seed: int = 3) -> list[str]:
    rng = random.Random(seed)
    return [rng.choice(CONSOLE).format(n=rng.randrange(1000)) for _ in range(n)]


@settings(max_examples=300, deadline=None)
@given(rows=st.lists(_text().filter(lambda t: not t.isascii()), max_size=30))
def test_rare_lines_are_the_lines_of_other_kinds(rows: list[str]) -> None:
    assert standin.rare_lines(rows) == {k for k, t in enumerate(rows) if standin.kinds(t) != standin.COMMON_KINDS}


@pytest.fixture(scope="module")
def matcher(vendor_matcher: SignatureMatcher) -> SignatureMatcher:
    """The shared small-vendor matcher (tests/conftest.py)."""
    return vendor_matcher


def _shared(matcher: SignatureMatcher) -> blockscan.BlockScan:
    from opsbrain.bundle.diagnose import _SHARED_SCANS, _candidates

    _candidates([], matcher)
    scan = _SHARED_SCANS[id(matcher)][1]
    assert scan is not None
    return scan


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(texts=st.lists(_text(), min_size=1, max_size=300), chunk=st.sampled_from([1, 3, 128]))
def test_block_way_keeps_what_the_line_way_keeps(texts: list[str], chunk: int, matcher: SignatureMatcher,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(blockscan, "CHUNK_LINES", chunk)
    scan = _shared(matcher)
    got = scan.candidates(texts, 4096)
    assert got is not None
    wide = [i for i, t in enumerate(texts) if not t.isascii()]
    each = [True] * len(texts)
    if wide:
        assert scan._wide is not None and scan._wide_block() is not None
        scan._wide_each(texts, wide, each)
    for i in wide:
        assert got[i] or not each[i], texts[i]
    for i, t in enumerate(texts):  # and every line with an answer
        assert got[i] or not (parsers.parse_line(t, 1.0) or matcher.match(t)), t


def test_one_copy_a_block_and_reading(matcher: SignatureMatcher, monkeypatch: pytest.MonkeyPatch) -> None:
    scan = _shared(matcher)
    texts = _console(1000)
    want = [bool(parsers.parse_line(t, 1.0) or matcher.match(t)) for t in texts]
    calls = []
    real = blockscan.standin

    def counted(*a: object, **k: object) -> bytes | None:
        calls.append(1)
        return real(*a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(blockscan, "standin", counted)
    got = scan.candidates(texts, 4096)
    assert got is not None and all(g or not w for g, w in zip(got, want, strict=True))
    assert sum(got) < len(texts) // 2  # the console's lines are ruled out in the block
    assert 0 < len(calls) <= 2 * (len(texts) // blockscan.CHUNK_LINES + 2) * 2  # before: two a line


def test_parsers_skip_the_lines_kept_for_the_matcher_alone(matcher: SignatureMatcher,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    from opsbrain.bundle import diagnose

    # a group's longest part keeps a line for the matcher (session 41, speed41b: its anchor alone no longer does)
    anchors = [a for a in matcher._longest_parts() if a.isascii() and not parsers.gate().search(a)][:20]
    assert anchors
    texts = _console(3000) + [f"正在加载 /data/{a}/模型" for a in anchors] + \
        ["[ERROR] 2026-03-01 10:00:01 HCCL 通信失败 EI0002 rank 3 link down"]
    may = diagnose._candidates(texts, matcher)
    assert may is not None
    monkeypatch.setattr(parsers, "NARROW_MIN", 0)
    narrowed = parsers.narrow_to_gate(texts, may)
    assert narrowed is not None
    for t, m, n in zip(texts, may, narrowed, strict=True):
        assert m or not n
        assert n or not parsers.parse_line(t, 1.0), t
    paths = [k for k, t in enumerate(texts) if "/data/" in t and may[k]]  # kept for an anchor of the matcher
    assert len(paths) >= len(anchors) // 2 and not any(narrowed[k] for k in paths)  # before: all parsed
    assert narrowed[-1]
    monkeypatch.setattr(parsers, "NARROW_MIN", len(texts) + 1)
    assert parsers.narrow_to_gate(texts, may) == may  # few kept lines: not worth a scan


# ---- the reader's stamps a block at a time on non-ASCII text ----------------------------------------------------
WIDE_PIECES = ["2026-03-01 10:00:00", "2026/03/01 10:00:00.5", "2026-03-01-10:00:00.123.456", "[ERROR] ", "[信息] ",
               "[错误\u3000] ", "训练进度：", "第 ", "\u3000", " ", "12", "٣", "０", "-", ":", ".", "é", "T", "[", "]"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.lists(st.sampled_from(WIDE_PIECES), max_size=8).map("".join), max_size=12),
       st.sampled_from(["slog", "hwlog", "iso"]))
def test_block_stamps_of_non_ascii_lines_are_the_line_by_line_ones(lines: list[str], style: str) -> None:
    from opsbrain.bundle import stamps as S
    from opsbrain.bundle import timed as T

    found = S.block_scan(lines, style)
    wide_digit = any(S.WIDE_DIGIT.search(x) for x in lines)
    assert (found is None) == (wide_digit and bool(lines))  # before session 40: None for any non-ASCII line
    assert S.block_ready(lines, style) == (not wide_digit)
    if found is None:
        return
    stamps, levels = S.BlockStamps(style).read(lines, found)
    for line, us, level in zip(lines, stamps, levels, strict=True):
        assert us == (S.to_us(S.stamp(line, style)) if line and not line.isspace() else None), line
        want = m.group(1).upper() if line[:1] == "[" and (m := T._LEVEL.match(line)) else None
        if line[:1] == "[" or level:
            assert level == want, line


def test_a_match_opening_on_the_separator_is_the_next_lines(matcher: SignatureMatcher) -> None:
    """Session 46: ``(?:^|[^0-9A-Za-z])EI\\d{4}`` took the newline between two lines' copies for its boundary and
    marked the line before too; a line of a non-breaking space then read as a candidate one way and not the other
    (hypothesis found ``['\\xa0', 'EI0002[ERROR]中']``)."""
    scan = _shared(matcher)
    texts = ["\xa0", "EI0002[ERROR]中"]
    each = [True] * len(texts)
    assert scan._wide is not None and scan._wide_block() is not None
    scan._wide_each(texts, [0, 1], each)
    assert each == [False, True]
    assert scan.candidates(texts, 4096) == [False, True]
