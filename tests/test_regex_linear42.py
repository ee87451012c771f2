"""Session 42: the parsers' regexes that backtracked cubically on one near-miss line are rewritten linear, with the
same matches.

``ret`` (or ``faultCode``) followed by ~4,000 spaces and then a real ``ret=100000`` made ``diagnose --logs`` run
for minutes on that one 4 KB line: ``\\s*(?:[:=])?\\s*\\[?\\s*`` splits the run of spaces three ways. The rewrite
keeps each whitespace run in one repeat (``\\s*(?:[:=]\\s*)?(?:\\[\\s*)?``): the same language, so the same matches.
The checks are structural (no timing: :mod:`tests.regex_shape`) and differential (old and new patterns agree on
generated lines).
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from opsbrain.ingest.parsers import cann, fdreport
from opsbrain.ingest.parsers.cann import RE_RT
from opsbrain.ingest.parsers.ctx import _LEVEL
from opsbrain.ingest.parsers.device import RE_FAULT_CODE
from opsbrain.ingest.parsers.hccl import _OTHER_CODES, RE_LINK_ROW
from opsbrain.ingest.rankrecords import RE_LINK_ROW as RANK_LINK_ROW
from opsbrain.sources.pagetext import _RE_TITLE, page_problem
from tests.regex_shape import shape_problems

_RT_WORD = r"(?:ret(?:urn)?[ _]?code|retcode|ret|returned|result(?:[ _]?code)?|err(?:or)?[ _]?code|error|err|code|" \
           r"fail(?:ed|ure)?)"
_RT_CODE = r"[125]0[07]\d{3}|[1-5]4[58]\d{3}"
# the patterns as they were before session 42 (the reference of what the rewrites must match)
OLD = {
    "RE_RT": (rf"(?<![0-9A-Za-z]){_RT_WORD}(?![0-9A-Za-z_])\s*(?:[:=]|\bis\b\s*:?)?\s*[\[(]?\s*({_RT_CODE})"
              r"(?![0-9A-Za-z:\-/_]|\.\d)", re.I),
    "RE_FAULT_CODE": (r"fault ?code[s]?\s*[:=]?\s*\[?\s*(?:0x)?([0-9a-f]{8})(?![0-9a-z])", re.I),
    "RE_LINK_ROW": (r"\|\s*(\d{1,3}(?:\.\d{1,3}){3})\((\d+)\)\s*\|\s*(?:\d+\s*\|\s*)?"
                   r"(\d{1,3}(?:\.\d{1,3}){3})\((\d+)\)\s*\|\s*(?:\d+\s*\|\s*)?(\w+)\s*\|\s*([\w ]+?)\s*\|", 0),
    "RANK_LINK_ROW": (r"\|\s*(\d{1,3}(?:\.\d{1,3}){3})\((\d{1,10})(?!\d)\)\s*\|\s*(?:\d+\s*\|\s*)?"
                      r"(\d{1,3}(?:\.\d{1,3}){3})\((\d{1,10})(?!\d)\)\s*\|\s*(?:\d+\s*\|\s*)?(\w+)\s*\|"
                      r"\s*([\w ]+?)\s*\|", 0),
    "_LEVEL": (r"^\s*\[?\s*(TRACE|DEBUG|INFO|EVENT|NOTICE|WARN(?:ING)?|ERROR|ERR|CRITICAL|FATAL)\s*\]?", re.I),
}
NEW = {"RE_RT": RE_RT, "RE_FAULT_CODE": RE_FAULT_CODE, "_LEVEL": _LEVEL, "RE_LINK_ROW": RE_LINK_ROW,
       "RANK_LINK_ROW": RANK_LINK_ROW}
_ROW = ["|", "| ", " ", "  ", "\t", "1.2.3.4(0)", "10.0.0.1(12)", "0", "16666", "a", "time out", "connected", "server",
        ".", "x", "\u00e9", "\u3000"]
TOKENS = {
    "RE_RT": ["ret", "Ret", "error code", "ErrCode", "retcode", "fail", "is", " is ", " ", "\t", ":", "=", "[", "(",
              "507033", "145021", "207000", ".", "1", "x", "_", "-"],
    "RE_FAULT_CODE": ["faultCode", "fault code", "faultcodes", "s", " ", "\t", ":", "=", "[", "0x", "80cb8009",
                      "8", "a", "0", "]", "z"],
    "RE_LINK_ROW": _ROW, "RANK_LINK_ROW": _ROW,
    "_LEVEL": ["[", "]", " ", "\t", "ERROR", "warn", "ING", "err", "x", "INFO", "Fatal"],
}


def _answer(rx: re.Pattern[str], text: str) -> tuple[object, ...]:
    m = rx.search(text)
    return (m and (m.span(), m.groups()), rx.findall(text), rx.match(text) and rx.match(text).span())  # type: ignore[union-attr]


@pytest.mark.parametrize("name", sorted(OLD))
def test_the_old_shape_is_flagged_and_the_new_is_not(name: str) -> None:
    assert shape_problems(*OLD[name]), name  # the checker sees the cubic shape (this test fails on the old pattern)
    assert shape_problems(NEW[name].pattern, NEW[name].flags) == [], name


def test_the_embedded_rt_pattern_is_linear_too() -> None:
    assert shape_problems(_OTHER_CODES.pattern, _OTHER_CODES.flags) == []


@pytest.mark.parametrize("name", sorted(OLD))
@settings(max_examples=400, deadline=None)
@given(data=st.data())
def test_the_rewrite_matches_what_the_old_pattern_matched(name: str, data: st.DataObject) -> None:
    line = "".join(data.draw(st.lists(st.sampled_from(TOKENS[name]), min_size=1, max_size=12)))
    old = re.compile(*OLD[name])
    assert _answer(NEW[name].rx if hasattr(NEW[name], "rx") else NEW[name], line) == _answer(old, line)  # type: ignore[arg-type]


@pytest.mark.parametrize(("name", "line", "group"), [
    ("RE_RT", "ret = [ 507033", "507033"), ("RE_RT", "error code is : 500001", "500001"),
    ("RE_RT", "ret is 207000", "207000"), ("RE_RT", "ret(145021)", "145021"),
    ("RE_FAULT_CODE", "faultCodes: [0x80CB8009]", "80CB8009"), ("RE_FAULT_CODE", "fault code = 80cb8009", "80cb8009"),
    ("_LEVEL", "  [ ERROR ] x", "ERROR"),
    ("RE_LINK_ROW", "| 192.168.100.212(10) | 16666 | 192.168.100.202(2) | 2882681339 | server | time out |",
     "192.168.100.212"),
])
def test_real_shapes_still_read(name: str, line: str, group: str) -> None:
    m = NEW[name].search(line)
    assert m is not None and m.group(1) == group


def test_a_near_miss_run_then_a_real_code_is_read() -> None:
    """The hostile line of the finding (1,000 spaces here, not 4,000: a regression costs seconds, not an hour): the
    old patterns took seconds to minutes on it; the code is read in ~ms."""
    line = "ret" + " " * 1000 + "ret=100000"
    m = RE_RT.search(line)
    assert m is not None and m.group(1) == "100000"
    m = RE_FAULT_CODE.search("faultcode" + " " * 1000 + " faultcode: 80cb8009")
    assert m is not None and m.group(1) == "80cb8009"
    for rx in (RE_LINK_ROW, RANK_LINK_ROW):
        m = rx.search("|0.0.0.0(0)|0.0.0.0(0)|0|" + " " * 1000 + ". | 1.2.3.4(0) | 1.2.3.5(1) | server | time out |")
        assert m is not None and m.group(6) == "time out"


@pytest.mark.parametrize("name", ["RE_LINK_ROW", "RANK_LINK_ROW"])
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_link_rows_read_alike(name: str, data: st.DataObject) -> None:
    """Whole rows with random cells (spaces, tabs, words, blanks): the rewrite reads the same status cell."""
    cell = st.lists(st.sampled_from([" ", "\t", "a", "b", "ok", "\u00e9", "-"]), max_size=6).map("".join)
    port = data.draw(st.sampled_from(["", " 16666 |"]))
    line = (f"|{data.draw(cell)}1.2.3.4(5){data.draw(cell)}|{port}{data.draw(cell)}10.0.0.2(3) |{data.draw(cell)}"
            f"server{data.draw(cell)}|{data.draw(cell)}|{data.draw(cell)}")
    assert _answer(NEW[name], line) == _answer(re.compile(*OLD[name]), line)


_OLD_TRIPLE = re.compile(r"(?:类型|类别|Type)\s*[:：]\s*(.+?)\s+(?:组件|Component)\s*[:：]\s*(.+?)\s+"
                         r"(?:模块|Module)\s*[:：]\s*(.+?)\s*$", re.I)
_CELL = ["Type", "类型", "类别", "Component", "组件", "module", "模块", ":", "：", " ", "  ", "\t", "a",
         "Network/Switch", "x y", "\u3000", "\u00e9", "\n"]


def _old_kinds(cell: str) -> list[str]:
    m = _OLD_TRIPLE.search(cell)
    if m is None:
        return []
    cls, comp, mod = (fdreport._part(g) for g in m.groups())
    return [f"fd:{cls}/{comp}/{mod}", f"fd:{cls}"]


def test_the_category_cell_regex_is_linear() -> None:
    assert shape_problems(_OLD_TRIPLE.pattern, re.I)
    assert shape_problems(fdreport.RE_TRIPLE.pattern, re.I) == []
    assert fdreport.category_kinds("Type: a Component:" + " " * 1000 + "x Module: y") == ["fd:a/x/y", "fd:a"]
    assert fdreport.category_kinds("类型:Network 组件:Switch 模块:Chip") == ["fd:network/switch/chip", "fd:network"]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(_CELL), min_size=1, max_size=14).map("".join))
def test_category_kinds_read_as_before(cell: str) -> None:
    assert fdreport.category_kinds(cell) == _old_kinds(cell)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["<title>", "</title>", "<TITLE lang=en>", " ", "\n", "\t", "a", "b c", ">", "<"]),
                max_size=12).map("".join))
def test_page_titles_read_as_before(body: str) -> None:
    old = re.compile(r"<title[^>]*>\s*(.*?)\s*</title>", re.I | re.S)
    page = "<html>" + body
    m = old.search(page)
    title = " ".join(m.group(1).split())[:40] if m else ""
    assert page_problem(page) == f"an HTML page{f' ({title!r})' if title else ''}, not metrics: is this the " \
                                 "exporter's /metrics address?"
    assert shape_problems(_RE_TITLE.pattern, _RE_TITLE.flags) == []


_OLD_DEVICE_LOST = re.compile(r"device.{0,16}?(?:is )?(?:dead|lost)\b|\bdevice\s*\[?\d*\]?\s+(?:is\s+)?down\b|"
                              r"(?:lost|no) heart ?beat|heart ?beat lost", re.I)
_DEVICE_LOST = next(rx for rx, kind in cann.TEXTS if kind == "rt:device_lost")


def test_the_device_down_regex_is_linear() -> None:
    assert shape_problems(_OLD_DEVICE_LOST.pattern, re.I)
    assert shape_problems(_DEVICE_LOST.pattern, re.I) == []
    assert _DEVICE_LOST.search("device" + " " * 1000 + "x device [3] is down") is not None


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(["device", "Device", " ", "  ", "\t", "[", "]", "0", "12", "is", "down", "dead", "lost",
                                 "x", "heart", "beat", "no", "_"]), min_size=1, max_size=12).map("".join))
def test_device_down_reads_as_before(line: str) -> None:
    old, new = _OLD_DEVICE_LOST.search(line), _DEVICE_LOST.search(line)
    assert (old and old.span()) == (new and new.span())
