"""Session 43 (redos43b): the regexes redos43 left super-linear, read in linear time with the same answers.

The parsers' tables of (regex, kind) rows test a match and never read it (``Screened.found``): a regex such as
``version.*mismatch|...|unsupported \\w+ version`` took 0.26 s on ``version `` * 500 + ``unsupported 0 version`` (a
line the screen rightly lets through: ``re`` tries every ``version`` and reads to the line's end from each). RE2 runs
them now where it gives ``re``'s answer (:func:`opsbrain.fastre.exact_re2`: ASCII lines without a newline, no
look-around, widened bound, ``\\S`` or non-ASCII folded character): checked against ``re`` on generated lines.

``ctx.rt_func`` replaces session 36's ``RE_RT_FUNC`` (the plog head's pattern, then ``\\s*([A-Za-z_]\\w*):``), whose
``\\S+`` (the time field) overlaps what follows: ``re`` tried every end of the field, longest first, and read the
rest at each, 0.6 s on one crafted 4 KB line. The function tries the same ends in the same order and answers each
from the runs of word characters, digits and the next ``]``; it must choose the very function name the regex chose:
checked here against the old pattern on generated lines (hypothesis) and on every plog line the test files hold.
"""

from __future__ import annotations

import ast
import re
import time
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from opsbrain.fastre import exact_re2
from opsbrain.ingest.parsers import cann, ctx, framework, hccl, kernel, twin
from opsbrain.ingest.screen import _REGISTRY

OLD_HEAD = r"^\[\w+\s*\]\s*\w+\(\d+,[^)]*\):\S+(?:\s*\[[^\]]*\])*(?:\s*\d+(?=\s*[A-Za-z_]))?"
OLD_RT_FUNC = re.compile(OLD_HEAD + r"\s*([A-Za-z_]\w*):")
HEADS = ["[ERROR] RUNTIME(4702,python):", "[ERROR] RUNTIME(4702,python):2024-06-13-11:12:13.123.456",
         "[W ] TBE(1, a b):", "[INFO] HCCL(3496,aicpu_scheduler):", "[E]x(1,):", "[ERROR] RUNTIME(4702,python)", ""]
FIELD = ["2024-06-13-11:12:13.123.456", "[device_error_core_proc.cc:399]", "4702", "CheckSmmuFault:", "Func", "A",
         "_", "a1", "9", "0", "12", ":", "[", "]", "[]", " ", "  ", "\t", "\u3000", "\u00e9", "\u0663", "\u00b2", "-",
         ".", "(", ")", "[tid 7]", " [106335]", "cur idx[0]", "RuntimeError:", "x", "\n"]


def _answer(m: re.Match[str] | None) -> tuple[str, tuple[int, int]] | None:
    return None if m is None else (m.group(1), m.span(1))


def test_the_head_is_the_one_the_old_pattern_was_made_of() -> None:
    assert ctx.RE_PLOG_HEAD.pattern == OLD_HEAD


@settings(max_examples=3000, deadline=None)
@given(head=st.sampled_from(HEADS), parts=st.lists(st.sampled_from(FIELD), max_size=16))
def test_the_function_read_is_the_one_the_old_pattern_read(head: str, parts: list[str]) -> None:
    line = head + "".join(parts)
    assert _answer(ctx.rt_func(line)) == _answer(OLD_RT_FUNC.match(line)), line


@settings(max_examples=2000, deadline=None)
@given(head=st.sampled_from(HEADS[:5]), rest=st.text(alphabet="aZ_09:[] \t.\u3000\u0663\u00e9", max_size=40))
def test_the_same_on_any_text_after_a_head(head: str, rest: str) -> None:
    line = head + rest
    assert _answer(ctx.rt_func(line)) == _answer(OLD_RT_FUNC.match(line)), line


def _test_file_lines() -> list[str]:
    """Every line of a string constant in the test files (not the real-log corpus's files) that opens as a plog
    line does."""
    out = set()
    for path in Path(__file__).parent.rglob("*.py"):
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                out.update(ln for ln in node.value.splitlines() if re.match(r"\[\w+\s*\]\s*\w+\(\d+,", ln))
    return sorted(out)


@settings(max_examples=3000, deadline=None)
@given(rest=st.text(alphabet="[]a9: ", max_size=14))
@example(rest="xb:9[a] ]a:")  # a bracket closed in the field: the rest after it failed (not the one after the field)
def test_the_same_on_few_characters(rest: str) -> None:
    line = "[E] RUNTIME(1,p):" + rest
    assert _answer(ctx.rt_func(line)) == _answer(OLD_RT_FUNC.match(line)), line


def test_every_plog_line_of_the_tests_reads_the_same() -> None:
    lines = _test_file_lines()
    assert len(lines) > 100  # the tests hold many plog lines
    named = [ln for ln in lines if OLD_RT_FUNC.match(ln)]
    assert len(named) > 10
    for ln in lines:
        assert _answer(ctx.rt_func(ln)) == _answer(OLD_RT_FUNC.match(ln)), ln


@pytest.mark.parametrize(("line", "name"), [
    ("[ERROR] RUNTIME(4702,python):2024-06-13-11:12:13.123.456 [device_error_core_proc.cc:399]4702 "
     "CheckSmmuFault:Get isSmmuFault is 1.", "CheckSmmuFault"),
    ("[ERROR] TBE(505389,python):2025-01-01-00:00:00.000.000 [ascendc_runtime.cpp:228]  505389 "
     "AscendCheckSoCVersion:SoC version mismatch", "AscendCheckSoCVersion"),
    ("[ERROR] RUNTIME(227839,python):2025-01-01-00:00:00.000.000 [capture_model.cc:1078]227839 AllocSqCqProc:x",
     "AllocSqCqProc"),
])
def test_real_shapes_still_read(line: str, name: str) -> None:
    m = ctx.rt_func(line)
    assert m is not None and m.group(1) == name


def test_the_crafted_field_reads_at_once() -> None:
    """The old pattern took ~0.6 s on this 4 KB line (a field of digits after a name it reads at last); the
    function reads it in a few ms (no timing here: a regression shows as a slow test)."""
    line = "[p]0(0,):0A:" + "9" * 4084
    m = ctx.rt_func(line)
    assert m is not None and m.group(1) == "A"
    assert ctx.rt_func("[p]0(0,):" + "[9" * 2040 + " ") is None


TABLES = [*framework.TEXTS, *cann.TEXTS, *hccl.TEXTS, *kernel.KINDS, *kernel.DRV_KINDS]
EXACT = [s for s in _REGISTRY if exact_re2(s.rx) is not None]
SEPARATORS = [" ", "  ", "\n", "\t", "\x0b", "\x1c", "\x1f", "\r", "_", ":", ".", "-", "/", "=", "(", ")", "[", "]",
              "0", "12", "-8005", "x", "Z", "\u00e9", "\u0131", "\u3000"]


def _tokens(pattern: str) -> list[str]:
    words = sorted(set(re.findall(r"[A-Za-z][A-Za-z_]+", pattern)))
    return words + [w.upper() for w in words[:8]] + [w.capitalize() for w in words[:8]] + SEPARATORS


def test_the_tables_rows_that_were_slow_run_by_re2() -> None:
    slow = [rx for rx, *_ in TABLES if "version.*" in rx.pattern or "DMA.*timeout" in rx.pattern
            or "AER:.*" in rx.pattern or "compil(?:e|ed|ing|ation)" in rx.pattern]  # (the last: review48)
    assert len(slow) == 5 and all(exact_re2(rx.rx) is not None for rx in slow)
    assert len(EXACT) > 100


@pytest.mark.parametrize("idx", range(len(EXACT)), ids=[f"{s.id}" for s in EXACT])
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_re2_answers_as_re_does(idx: int, data: st.DataObject) -> None:
    s = EXACT[idx]
    line = "".join(data.draw(st.lists(st.sampled_from(_tokens(s.pattern)), max_size=12)))
    assert s.found(line) == (s.rx.search(line) is not None), (s.pattern, line)


@pytest.mark.parametrize(("pattern", "flags"), [(r"a\Sb", 0), (r"(?<!x)ab", 0), (r"a.{0,40}b", 0), (r"\u0131x", re.I),
                                                (r"(?>a*)ab", 0), (r"a*+ab", 0), (r"(a)\1", 0)])
def test_what_re2_reads_otherwise_stays_with_re(pattern: str, flags: int) -> None:
    assert exact_re2(re.compile(pattern, flags)) is None


def test_the_hostile_matching_lines_read_at_once() -> None:
    """A line the tables' regexes match only at its end, after 4 KB of the word before their ``.*`` (0.1-0.26 s each
    by ``re``); no timing here: a regression shows as a slow test."""
    for x, tail in [("version ", "unsupported 0 version"), ("fail ", "op_compile"), ("AER:", "pciehp Link Down"),
                    ("memcpy", "DMA timeout")]:
        line = x * (4000 // len(x)) + tail
        assert any(rx.found(line) for rx, *_ in TABLES), tail


def test_a_text_with_a_newline_stays_with_re() -> None:
    """The screen's ``$`` is also any newline (a superset, ``(?:\\n|$)``); Python's only the text's end or its last
    newline."""
    text = "x ValueError\nmore"
    assert exact_re2(framework.RE_EXC.rx).search(text) is not None
    assert framework.RE_EXC.search(text) is None and not framework.RE_EXC.found(text)


OLD_HOST = r"([A-Za-z][\w.-]*\w)"
SWITCH = {  # the old pattern, the new one, and pieces of lines
    "port": (OLD_HOST + r" %%01IFNET/\d/linkDown_(active|clear)\(l\): .*?ifName=(UB\d+/\d+/\d+), "
             r"AdminStatus=\w+, OperStatus=(UP|DOWN)", 0, twin.RE_REAL_PORT_STATE,
             [" %%01IFNET/0/linkDown_active(l): ", "ifName=UB0/0/36, ", "AdminStatus=UP, OperStatus=DOWN", "x "]),
    "alarm": (OLD_HOST + r" UBSW/\d/ALARM: \w+ \[(0x[0-9a-f]{8}),(\w+),(\w+),(?:na)?\] "
              r"(Assertion|Recovery) alarmID=\S+ port=(UB\d+/\d+/\d+)", re.I, twin.RE_REAL_SW_ALARM,
              [" UBSW/1/ALARM: lanes [0x00f103b0,L2,na,] ", "Assertion alarmID=7 port=UB0/0/3", "ubsw", "x "]),
}
HOST_PIECES = ["gz-l2p2-sw05", "lcne-a07", "sw1", "A", "a", "0", "9", "_", ".", "-", " ", "\u00e9", "\u212a", "\u017f",
               ":", "/"]


def _groups(m: re.Match[str] | None) -> object:
    return m and (m.groups(), [m.span(i) for i in range(1, len(m.groups()) + 1)])


@pytest.mark.parametrize("name", sorted(SWITCH))
@settings(max_examples=1500, deadline=None)
@given(data=st.data())
def test_the_switch_host_read_is_the_old_one(name: str, data: st.DataObject) -> None:
    old, flags, new, pieces = SWITCH[name]
    line = "".join(data.draw(st.lists(st.sampled_from(HOST_PIECES + pieces), max_size=14)))
    assert _groups(new.search(line)) == _groups(re.compile(old, flags).search(line)), line


def test_a_switch_line_after_a_long_run_reads_at_once() -> None:
    """The old pattern tried every letter of the run and read to the run's end from each: 0.17 s on 4 KB, ~2.7 s on
    this 16 KB text (``search`` does not cut lines); the new one reads it in ~1 ms (the bound leaves a loaded
    machine room)."""
    tail = " sw1 %%01IFNET/0/linkDown_active(l): ifName=UB0/0/1, AdminStatus=UP, OperStatus=DOWN"
    t = time.perf_counter()
    m = twin.RE_REAL_PORT_STATE.search("A" * 16000 + tail)
    assert time.perf_counter() - t < 0.5
    assert m is not None and m.group(1) == "sw1"
    m = twin.RE_REAL_PORT_STATE.search("-_9sw05" + tail[4:])  # the host starts at the run's first letter
    assert m is not None and m.group(1) == "sw05"
