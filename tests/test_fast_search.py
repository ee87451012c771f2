"""fastre.fast_search (in multiscan.py before session 42): RE2 runs a regex whose match is only tested, and finds a
match exactly where ``re`` does (ASCII text; RE2's word boundary is ASCII's)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from opsbrain.diagnosis.realtext import ERROR_WORDS
from opsbrain.fastre import fast_search

FAST = fast_search(ERROR_WORDS)
WORDS = ["error", "Failed", "TIMED OUT", "timeout", "oom", "room", "EZ9999", "ERR00100", "err", "errno", "denied",
         "can't", "not found", "panic", "exceed", "Segmentation fault", "iteration", "loss scale", "E1234", "EZ99999"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(WORDS), st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126),
                                                              max_size=12)), max_size=8))
def test_the_fast_error_word_search_agrees_with_re(parts: list[str]) -> None:
    line = " ".join(parts)
    assert (FAST(line) is None) == (ERROR_WORDS.search(line) is None), line


def test_a_regex_re2_cannot_read_stays_with_re() -> None:
    rx = re.compile(r"(a)\1")  # a back-reference: RE2 has none
    assert fast_search(rx) == rx.search
