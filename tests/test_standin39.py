"""The RE2 line screen on non-ASCII lines (opsbrain/standin.py, session 39) stays a superset of Python's ``re``.

- the character classes the stand-ins rest on are ``re``'s, checked on every code point (``\\w`` is
  ``str.isalnum`` or ``_``, ``\\d`` ``str.isdecimal``, ``\\s`` ``str.isspace``, also inside classes and under
  ``re.I``); the only non-ASCII characters ``re.I`` matches with ASCII letters are :data:`opsbrain.standin.FOLDS`;
- on random text of ASCII, CJK, Unicode digits and spaces, the Kelvin sign and accented letters, every regex of the
  parsers' and the knowledge matcher's screens that ``re`` finds is in :meth:`Screen.possible`'s answer, and every
  extra pattern (the parsers' gate, the matcher's anchors) that occurs is named;
- table cases where RE2 run on the line itself misses what ``re`` finds (the naive screen).
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from opsbrain import multiscan, standin
from opsbrain.ingest import parsers
from opsbrain.kb import SignatureMatcher
from opsbrain.multiscan import Screen, re2_superset

pytestmark = pytest.mark.skipif(multiscan.ENGINE != "re2", reason="google-re2 is not installed: nothing is screened")

ALL = "".join(chr(i) for i in range(0x80, 0x110000))


def test_classes_are_python_re_classes_on_every_code_point() -> None:
    assert set(re.findall("[a-zA-Z]", ALL, re.I)) == standin.FOLDS
    assert set(re.findall(r"\w", ALL)) == {c for c in ALL if c.isalnum() or c == "_"}
    assert set(re.findall(r"\d", ALL)) == {c for c in ALL if c.isdecimal()}
    assert set(re.findall(r"\s", ALL)) == {c for c in ALL if c.isspace()}
    for p in (r"[\w]", r"[\d]", r"[\s]", r"[^\w]", r"[^\d]", r"[^\s]", r"\W", r"\D", r"\S"):
        assert set(re.findall(p, ALL, re.I)) == set(re.findall(p, ALL)), p


def test_stand_ins_keep_the_class_and_the_length() -> None:
    for text in ("中文 ٣\u3000é，\U0001f600x\udc80", "中文 é，\U0001f600x\udc80"):  # the translate and run paths
        for r in (0, 1):
            a = standin.standin(text, r)
            assert a is not None and a.isascii() and len(a) == len(text)
            assert a == text.translate({ord(c): standin.READINGS[r][standin._kind(c)] for c in text
                                        if not c.isascii()}).encode()
            for c, x in zip(text, a.decode(), strict=True):
                for p in (r"\w", r"\d", r"\s"):
                    assert r == 1 and p != r"\s" or bool(re.match(p, c)) == bool(re.match(p, x)), (c, x, p)
    assert standin.standin("中\u212a") is None  # the Kelvin sign: no stand-in under every flag
    assert standin.kinds("中٣\u3000，") == 15 and standin.kinds("中") == 10 and standin.kinds("ſ") >= 16


WIDE = list("中文错误日志设备节点故障超时") + ["未找到命令", "故障分类", "，", "：", "（", "）"] + \
    list("٠٣٩０１９") + ["\u00a0", "\u3000", "\u2028", "\u212a", "ſ", "İ", "ı"] + list("éÉüñçøß")
ASCII_BITS = ["EI0002", "EE9999", "ERR02001", "507053", "0x80E01801", "error", "ERROR", "fail", "failed", "timeout",
              "hccl", "HCCL", "link down", "ret=", "code ", "device 3", "Traceback", "npu", "event_id=", "[ERROR]",
              "out of memory", "ACL_ERROR_RT", "aclnnAdd", "errno:", "-8005", ":", "|", " ", "_", "0", "Z", "k"]


def _text() -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(WIDE + ASCII_BITS), max_size=14).map("".join)


def _check(scr: Screen, regexes: list[re.Pattern[str]], text: str) -> tuple[frozenset[int], frozenset[int]] | None:
    got = scr.possible(text)
    if got is None:  # allowed only where no stand-in can be had (a character re.I folds onto ASCII)
        assert standin.kinds(text) >= 16, text
        return None
    for i, rx in enumerate(regexes):
        if rx.search(text):
            assert i in got[0], (rx.pattern, text)
    return got


@settings(max_examples=400, deadline=None)
@given(text=_text())
def test_parser_screen_is_a_superset_on_mixed_text(text: str) -> None:
    scr, covered = parsers._screen()
    got = _check(scr, [r.rx for r in scr.regexes], text)  # type: ignore[attr-defined]
    if got is not None and parsers.gate().search(text):
        assert got[1] & {0, 1}, text  # the gate (words, documented messages) is named where it occurs


@settings(max_examples=400, deadline=None)
@given(text=_text())
def test_matcher_screen_is_a_superset_on_mixed_text(text: str, vendor_matcher: SignatureMatcher) -> None:
    got = _check(vendor_matcher._screen, vendor_matcher._screen.regexes, text)
    if got is not None:
        for k, a in enumerate(vendor_matcher._screen_anchors):
            if a in text:
                assert k in got[1], (a, text)


def _exact(m: SignatureMatcher, text: str) -> list[object]:
    return [x.as_dict() for x in m.match(text)]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=_text())
def test_answers_same_as_the_exact_path(text: str, vendor_matcher: SignatureMatcher,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    fast_sig = [repr(s) for s in parsers.parse_line(text, 1.0)]
    fast = _exact(vendor_matcher, text)
    scr = vendor_matcher._screen
    _s, covered = parsers._screen()
    with monkeypatch.context() as mp:
        mp.setattr(vendor_matcher, "_screen", Screen([], engine="re"))
        mp.setattr(parsers, "_screen", lambda: (Screen([], engine="re"), covered))
        assert _exact(vendor_matcher, text) == fast
        assert [repr(s) for s in parsers.parse_line(text, 1.0)] == fast_sig
    assert vendor_matcher._screen is scr


CASES = [  # (regex, flags, a line re finds it in, RE2 on the line itself does not)
    (r"\w+ failed", 0, "中文 failed"),  # \w is ASCII for RE2
    (r"code\s+\d+", 0, "code\u3000１２"),  # a Unicode space and fullwidth digits
    (r"caf\w\b", 0, "café ok"),
    (r"fail", re.I, "FAİL"),  # not screened: re.I folds İ onto i, RE2 does not
    (r"\bE[A-Z]\d{4}\b", 0, "错误 EI٠٠٠٢ 了"),
    (r"(?<![0-9A-Za-z])x\d+", 0, "中x٣"),
    (r"[^_]\d+ms", 0, "中٣ms"),
]


@pytest.mark.parametrize(("pattern", "flags", "text"), CASES)
def test_lines_the_naive_screen_misses(pattern: str, flags: int, text: str) -> None:
    import re2

    rx = re.compile(pattern, flags)
    assert rx.search(text)
    opts = re2.Options()
    opts.case_sensitive = not flags & re.I
    assert not re2.compile(re2_superset(rx) or pattern, opts).search(text)  # what the naive screen would say
    got = Screen([rx, re.compile("unrelated")]).possible(text)
    assert got is None or 0 in got[0]
    if "İ" not in text:
        assert got is not None  # screened, not deferred (before session 39: None on every non-ASCII line)


def test_chinese_lines_are_screened_and_ruled_out(vendor_matcher: SignatureMatcher) -> None:
    scr, _n = parsers._screen()
    line = "2026-01-01 10:00:00 信息：训练进度 第 12 步，损失 1.25，用时 300 毫秒"
    got = scr.possible(line)
    assert got is not None and not got[1]  # no gate word: nothing to confirm
    mg = vendor_matcher._screen.possible(line)
    assert mg is not None and not mg[0] and not mg[1]


@settings(max_examples=60, deadline=None)
@given(texts=st.lists(_text(), min_size=1, max_size=40))
def test_block_scans_keep_every_line_with_an_answer(texts: list[str], vendor_matcher: SignatureMatcher) -> None:
    from opsbrain.bundle.diagnose import _candidates
    from opsbrain.kb.matcher import MAX_SCAN_CHARS

    signals = [bool(parsers.parse_line(t, 1.0)) for t in texts]
    matches = [bool(vendor_matcher.match(t)) for t in texts]
    may = parsers.may_signal(texts)
    block = vendor_matcher._block
    assert may is not None and block is not None
    kept = block.candidates(texts, MAX_SCAN_CHARS)
    both = _candidates(texts, vendor_matcher)
    assert kept is not None and both is not None
    for i, t in enumerate(texts):
        assert may[i] or not signals[i], t
        assert kept[i] or not matches[i], t
        assert both[i] or not (signals[i] or matches[i]), t


def test_block_scans_rule_out_chinese_console_lines(vendor_matcher: SignatureMatcher) -> None:
    from opsbrain.bundle.diagnose import _candidates

    texts = ["2026-01-01 10:00:00 信息：训练进度 第 12 步，损失 1.25，用时 300 毫秒",
             "保存模型到 /home/用户/输出/第3轮/model.pt", "错误：EI0002 任务执行超时"]
    assert _candidates(texts, vendor_matcher) == [False, False, True]  # before session 39: every non-ASCII line kept
    assert parsers.may_signal(texts) == [False, False, True]
