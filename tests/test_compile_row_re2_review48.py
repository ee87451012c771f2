"""Session 48 (review48): the op:compile row of the framework's table, rewritten by tester48o to leave a path's
``compilation`` folder or ``compile.py`` file alone, lost RE2 (look-around): ``re`` read ``fail`` * 1024 in ~0.1 s
and a 100 KB line of it in ~45 s. The row is spelled now by the characters around the word; it gives the
look-around spelling's answer on every line (generated here) and RE2 runs it."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from opsbrain.fastre import _re2, exact_re2
from opsbrain.ingest.parsers import framework

_WORD = r"compil(?:e|ed|ing|ation)"
LOOK_AROUND = re.compile(r"(?<![/\\])\b" + _WORD + r"\b(?![/\\]|\.py\b).*fail|"
                         r"fail.*(?<![/\\])\b" + _WORD + r"\b(?![/\\]|\.py\b)", re.I)
"""tester48o's spelling of the two word branches (commit b3f9da2d): the meaning the row keeps."""
ROW = next(rx for rx, kind in framework.TEXTS if kind == "op:compile" and _WORD in rx.pattern)
WORD_BRANCHES = re.compile(ROW.pattern.split("|build graph fail|")[0], re.I)
PIECES = ["compile", "compiled", "Compilation", "compiling", "compil", "fail", "FAIL", "/", "\\", ".", "p", "y", "py",
          "PY", " ", "a", "_", "x.py", ".pyc", "\n", "f", "\u00e9", "ed", ":", "-"]


@settings(max_examples=4000, deadline=None)
@given(parts=st.lists(st.sampled_from(PIECES), max_size=10))
def test_the_word_branches_answer_as_the_look_around_did(parts: list[str]) -> None:
    line = "".join(parts)
    assert (WORD_BRANCHES.search(line) is not None) == (LOOK_AROUND.search(line) is not None), line


@pytest.mark.parametrize(("line", "read"), [
    ("FAILED tests/ut/compilation/test_acl_graph.py::TestPCPDCPGraphParams::test_x", False),
    ("FAILED tests/ut/compile.py::t", False),
    ("failed: see C:\\build\\compile\\log", False),
    ("RuntimeError: compilation failed for kernel add_kernel", True),
    ("failed to compile.", True),
    ("compile.fail", True),
    ("compile.pyc failed", True),
])
def test_paths_and_failures(line: str, read: bool) -> None:
    assert ROW.found(line) is read


@pytest.mark.skipif(_re2 is None, reason="no RE2")
def test_re2_runs_the_row() -> None:
    assert exact_re2(ROW.rx) is not None
