r"""Session 37: the lines of a block with an error word, found by one scan of the block (multiscan.fast_lines_with),
are exactly the lines the per-line search (``_has_error_word``, the same engine) finds one at a time (the bundle
reader's lines read without a record). (RE2's ``\b`` is ASCII: ``EI0002中`` has an error word for it, not for ``re``,
whose ``\w`` holds CJK; both paths use RE2 when it is installed.)"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from opsbrain.diagnosis.realtext import _has_error_word, error_word_lines

WORDS = ["error", "Failed", "timed out", "EI0002", "ERR00100", "oom", "room", "ok", "E", "rror", "x", " ", "-",
         "\u4e2d", "can't", "no such", "TIMEOUT", "EH9999x"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.sampled_from(WORDS), max_size=6).map("".join), max_size=30))
def test_one_scan_a_block_finds_the_lines_each_search_finds(lines: list[str]) -> None:
    assert error_word_lines(lines) == {i for i, ln in enumerate(lines) if _has_error_word(ln) is not None}


def test_a_word_at_a_line_edge_is_that_lines_and_none_spans_two() -> None:
    lines = ["all good", "error", "", "oom", "bro", "om", "EI0002", "xEI0002"]
    assert error_word_lines(lines) == {1, 3, 6}
