"""Session 41 (speed41b): Chinese bundles again.

- the matcher's block scan of non-ASCII lines holds each anchor group's longest part, as the ASCII lines' scan does
  (a Chinese line holding only a group's anchor, ``/data/模型`` for a group that also needs ``Invalid data``, was
  kept for the matcher: 17,636 of the Chinese 100,000-line bundle's lines);
- :data:`opsbrain.bundle.stamps.WIDE_DIGIT` written "neither ASCII nor a non-digit" (the same characters), and not
  looked for again in each block of a file :meth:`block_readable` already read.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from opsbrain import multiscan
from opsbrain.bundle import stamps

needs_re2 = pytest.mark.skipif(multiscan.ENGINE != "re2", reason="the block scan needs RE2")
VENDOR = Path(__file__).parent / "fixtures" / "vendor_small"


@pytest.fixture(scope="module")
def matcher(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from opsbrain.cli.kb_cmds import _matcher
    from opsbrain.kb import import_kg

    d = tmp_path_factory.mktemp("speed41b") / "kb_imports"
    import_kg(VENDOR / "kg_good.json", d)
    return _matcher(None, d)


def _wide_scan(m: Any) -> Any:
    from opsbrain.blockscan import BlockScan

    pats, wide = m.wide_block()
    return BlockScan(m.block_patterns(), wide=(pats, wide))


@needs_re2
def test_a_chinese_line_with_an_anchor_alone_is_not_kept(matcher: Any) -> None:
    groups = {g for v in matcher._groups_own.values() for g, _e in v}
    assert ("alpha-marker", "omega-marker") in groups and ("hbm multi-bit", "uncorrectable") in groups
    rows = ["设备 omega-marker 已记录", "训练 bm multi-bit 完成", "设备 alpha-marker 然后 omega-marker",
            "链路中断 端口 3", "hbm multi-bit 错误 uncorrectable"]
    assert [bool(matcher.match(t)) for t in rows] == [False, False, True, True, True]
    # the first two hold an anchor of a group ('ga-marker', 'bm multi-bit') but not its longest part: ruled out
    assert _wide_scan(matcher).candidates(rows, 4096) == [False, False, True, True, True]


@needs_re2
@settings(max_examples=80, deadline=None)
@given(st.lists(st.lists(st.sampled_from(["链路中断", "端口", "alpha-", "omega-", "marker", "hbm", " multi-bit",
                                          "uncorrectable", "训练", "\u3000", "١", " ", "x", "|"]),
                         max_size=8).map(lambda t: "错误 " + "".join(t)), max_size=10))
def test_the_wide_scan_keeps_every_line_with_a_match(matcher: Any, rows: list[str]) -> None:
    kept = _wide_scan(matcher).candidates(rows, 4096)
    assert kept is not None
    assert all(k for t, k in zip(rows, kept, strict=True) if matcher.match(t))


def test_wide_digit_is_a_decimal_digit_beyond_ascii() -> None:
    every = "".join(chr(i) for i in range(sys.maxunicode + 1) if not 0xD800 <= i < 0xE000)
    assert stamps.WIDE_DIGIT.findall(every) == re.findall(r"[^\D0-9]", every)
    assert stamps.WIDE_DIGIT.pattern != r"[^\D0-9]"  # the faster spelling (session 41)


def test_block_scan_takes_the_digits_as_known() -> None:
    lines = ["2026-03-01 10:00:00 [ERROR] 训练失败", "2026-03-01 10:00:01 信息"]
    assert stamps.block_scan(lines, "iso", digits_known=True) == stamps.block_scan(lines, "iso")


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=64), st.sampled_from([b"", "训练进度：第 1 步".encode(), b"\x1b[31m", b"\x7f", b"\t\r\n"]))
def test_the_junk_byte_test_is_the_search(data: bytes, piece: bytes) -> None:
    from opsbrain.bundle import junkbytes as J

    for d in (data, data + piece, bytearray(piece + data)):
        assert bool(d.translate(None, J.NOT_JUNK)) == bool(J.JUNK_BYTE.search(d))
        assert J.junk_free(d) == (not J.JUNK_BYTE.search(d))
    was, J.JUNK_STEP = J.JUNK_STEP, 3  # a step smaller than the data: the same answer
    try:
        assert J.junk_free(data + piece) == (not J.JUNK_BYTE.search(data + piece))
    finally:
        J.JUNK_STEP = was


def test_rare_skips_no_rare_character() -> None:
    from opsbrain import standin

    cjk = "".join(map(chr, range(0x4E00, 0xA000)))
    assert re.search(r"[\d\s" + "".join(standin.FOLDS) + "]", cjk) is None  # what the faster class leaves out
    every = "".join(chr(i) for i in range(0x80, sys.maxunicode + 1) if not 0xD800 <= i < 0xE000)
    slow = re.compile(r"[^\x00-\x7f](?<=[\d\s" + "".join(sorted(standin.FOLDS)) + "])")
    assert standin._RARE.findall(every) == slow.findall(every)
    assert r"\u4e00" in standin._RARE.pattern  # (session 41)
