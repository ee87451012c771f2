"""The parsers' screened regexes are compiled on first use: each still compiles, and answers as ``re`` does."""

from __future__ import annotations

import re

import opsbrain.ingest.parsers  # noqa: F401 - registers every parser regex
from opsbrain.ingest import screen


def test_every_registered_regex_compiles_to_what_re_compiles() -> None:
    regs = list(screen._REGISTRY)
    assert len(regs) > 50
    for r in regs:
        want = re.compile(*r.key)
        assert r.rx.pattern == want.pattern and r.flags == want.flags, r.pattern


def test_a_lazy_regex_is_compiled_once_on_first_use_and_a_bad_one_fails_there() -> None:
    n = len(screen._REGISTRY)
    try:
        r = screen.screened(r"npu(\d+) down", re.I)
        assert r._rx is None
        assert r.search("NPU3 DOWN").group(1) == "3" and r._rx is not None
        first = r._rx
        assert r.match("npu4 down") and r._rx is first
        bad = screen.screened("a(b")
        try:
            bad.search("ab")
        except re.error:
            pass
        else:
            raise AssertionError("a bad pattern must fail on first use")
    finally:
        del screen._REGISTRY[n:]
