"""The multi-pattern line screen (opsbrain/multiscan.py) changes time, never answers.

- every RE2 translation matches wherever its Python regex does (ASCII text: real-log lines, twin lines, generated);
- signals from the ingestion layer and knowledge matches are the same with the screen as on the exact path
  (``re`` only), on the real-log corpus, twin log formats, vendor-fixture texts and non-ASCII lines;
- a pattern RE2 cannot read turns the screen off quietly (nothing on stderr); without RE2 nothing is screened.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from opsbrain import multiscan
from opsbrain.ingest import parsers, screen
from opsbrain.kb import SignatureMatcher, import_faultcode, import_kg, load_imported, load_kb
from opsbrain.multiscan import PatternSet, Screen, literal_pattern, re2_superset, required_literals

pytestmark = pytest.mark.skipif(multiscan.ENGINE != "re2", reason="google-re2 is not installed: nothing is screened")

ROOT = Path(__file__).resolve().parents[1]
FIX = ROOT / "tests" / "fixtures" / "vendor_small"


def corpus_lines() -> list[str]:
    out = []
    for f in sorted((ROOT / "tests" / "data" / "real_logs").glob("*.yaml")):
        for e in yaml.safe_load(f.read_text(encoding="utf-8")):
            out.extend(e["text"].splitlines())
    return out


def twin_lines() -> list[str]:
    from datetime import datetime

    from faultlib.telemetry import formats as fmt

    dt = datetime(2025, 3, 1, 10, 0, 0)
    lines = [fmt.train_step(dt, 5, 100, 1.5, 2.0, 1e5),
             fmt.device_os_event(dt, 3, "80E01805", assertion=False, uptime_s=812.5),  # a resume line
             fmt.syslog(dt, "pod0-node3", "watchdog: BUG: soft lockup - CPU#17 stuck for 22s!"),
             fmt.switch_alarm(dt, "pod0-node4-l1sw2", "0x08520003", "L2", 5),
             fmt.switch_port_state(dt, "pod0-l2plane3-sw07", 12, False),
             fmt.plog_hcom_init(dt, 100, 101, 384, 7, fmt.host_ip("pod0/node7"), 3)]
    for code in list(fmt.DEVICE_CODES)[:12]:
        lines.append(fmt.device_os_event(dt, 2, code))
        lines.append(fmt.device_plugin_fault(dt, 2, code, fmt.HANDLING_LEVELS[0]))
    for code in list(fmt.RUNTIME_CODES)[:8]:
        lines.append(fmt.plog_runtime_error(dt, 1, 2, code, 4))
        lines.append(fmt.train_runtime_error(dt, 9, code))
    for code in list(fmt.HCCL_CODES)[:8]:
        lines.append(fmt.hccl_message(code, reason="remote rank [3]"))
    lines.append(fmt.plog_notify_wait(dt, 1, 2, fmt.host_ip("pod0/node9")))
    lines.append(fmt.plog_cqe_error(dt, 1, 2, fmt.host_ip("pod0/node9")))
    return lines


HAND = ["event_id=0x80E01801 device 3", "EVENT_ID:\v=0x80e01801", "fault code [80E01801] Ascend910-3",
        "[0x08520003,na,L2,na] alarm", "ret=507053 failed", "EI0002 hccl timeout", "ErrCode=207018 fail",
        "NPU out of memory. Tried to allocate 2 GiB", "KERNEL PANIC - not syncing", "\x1cheart beat lost\x1f",
        "内存不足 device 0 out of memory", "Kernel panic ſ", "日志 EE9999 错误", "\u212aernel panic", ""]


def sample_lines() -> list[str]:
    return corpus_lines() + twin_lines() + HAND


@pytest.fixture(scope="module")
def lines() -> list[str]:
    return sample_lines()


def test_every_parser_regex_translation_is_a_superset(lines: list[str]) -> None:
    parsers.gate()
    regs = [r.rx for r in screen._REGISTRY]
    assert len(regs) > 50
    for rx in regs:
        t = re2_superset(rx)
        assert t is not None, rx.pattern
        import re2

        r2 = re2.compile(t)
        for ln in lines:
            if ln.isascii() and rx.search(ln):
                assert r2.search(ln), (rx.pattern, ln)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("aeEIZLcdnpuvi0125789 \t\x0b\x1c:=[](),|-_./xXkKrRoO")), max_size=60))
def test_translations_hold_on_generated_ascii(text: str) -> None:
    import re2

    for rx in [r.rx for r in screen._REGISTRY]:
        if rx.search(text):
            assert re2.compile(re2_superset(rx)).search(text), (rx.pattern, text)


def _signals(lines: list[str]) -> list[list[str]]:
    return [[repr(s) for s in parsers.parse_line(ln, 1.0)] for ln in lines]


def test_parse_line_same_with_and_without_the_screen(lines: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    fast = _signals(lines)
    _scr, covered = parsers._screen()
    assert _scr.set.screening  # the screen is on (the gate's look-behinds once left it off for every line)
    monkeypatch.setattr(parsers, "_screen", lambda: (Screen([], engine="re"), covered))
    exact = _signals(lines)
    assert fast == exact
    assert sum(map(len, exact)) > 100  # the corpus does give signals: the comparison is not between empties


def _matches(m: SignatureMatcher, lines: list[str]) -> list[list[dict[str, Any]]]:
    return [[x.as_dict() for x in m.match(ln)] for ln in lines]


def test_matcher_same_with_and_without_the_screen(tmp_path: Path) -> None:
    import_kg(FIX / "kg_good.json", tmp_path)
    import_faultcode(FIX / "faultcode_good.json", tmp_path)
    imported = load_imported(tmp_path)
    m = SignatureMatcher(load_kb(), imported)
    lines = sample_lines()
    for e in imported.entries.values():  # texts that do match the imported entries, as written and shouted
        for g in e.groups:
            lines += [" ... ".join(g), " ".join(g).upper(), "x" + "".join(g)]
    fast = _matches(m, lines)
    m._screen = Screen([], engine="re")  # the exact path: every regex, the trie regexes
    exact = _matches(m, lines)
    assert fast == exact
    assert sum(1 for r in exact if any(x["source"] == "imported" for x in r)) > 5
    assert sum(1 for r in exact if any(x["source"] == "kb" for x in r)) > 20


def test_a_pattern_re2_cannot_read_leaves_the_set_off_quietly(capfd: pytest.CaptureFixture[str]) -> None:
    assert not PatternSet(["(?<!a)b"]).screening
    assert not PatternSet(["a", "b("]).screening
    assert PatternSet(["a"]).screening
    assert capfd.readouterr().err == ""


def test_which_names_the_patterns_and_defers_on_non_ascii() -> None:
    s = PatternSet([literal_pattern("a.b"), "(?i)hccl", "E[IZ][0-9]{4}"])
    assert s.which("x a.b HCCL EI0002") == [0, 1, 2]
    assert s.which("axb") == []
    assert s.which("a.b é") is None  # RE2 and re may fold case differently beyond ASCII: the caller decides
    assert PatternSet(["a"], engine="re").which("a") is None


def test_literals_and_translations() -> None:
    assert required_literals(r"Kernel panic|Oops:") == ("kernel panic", "oops:")
    assert required_literals(r"\d+") == ()
    for lit in ("a.b", "x\ty", "[0x", "(a|b)*", "ä€"):
        assert re.fullmatch(literal_pattern(lit), lit)
    assert re2_superset(re.compile(r"(a)\1")) is None  # a back-reference: RE2 has none
    assert re2_superset(re.compile(r"(?<!x)ab\s$", re.I)) == r"(?i)(?:^|[^x])ab[\t\n\x0b\x0c\r \x1c-\x1f](?:\n|$)"
    # a one-character look-around at the match's edge is kept as that character (or the text's edge)
    assert re2_superset(re.compile(r"(?<![0-9A-Za-z])EI\d{4}(?![0-9A-Za-z])")) == \
        r"(?:^|[^0-9A-Za-z])EI(?:[\d]){4}(?:$|[^0-9A-Za-z])"
    assert re2_superset(re.compile(r"a(?!\S)")) == "a"  # RE2's \S differs from re's on \v: dropped, not kept
    assert re2_superset(re.compile(r"(?<=a)b(?=c)x")) == "abx"
    assert re2_superset(re.compile(r"5(?![0-9a]|\.\d)")) == r"5(?:$|[^0-9a])"  # the one-character alternatives
    # a look-behind that re-reads the literals just matched (a regex led by a literal, for speed) is one character
    # before them: the knowledge matcher's runtime code no longer matches the digits of a fraction of a second
    from opsbrain.kb.matcher import _HCCL_RE, _RUNTIME_RE

    assert re2_superset(_RUNTIME_RE) == r"(?:^|[^0-9A-Za-z\x2e])50(?:[\d]){4}(?:$|[^0-9A-Za-z])"
    assert re2_superset(_HCCL_RE) == r"(?:^|[^0-9A-Za-z])E[IZEL](?:[\d]){4}(?:$|[^0-9A-Za-z])"
    assert re2_superset(re.compile(r"ab(?<![xy]b)c")) == "abc"  # it re-reads one literal of two: dropped


EDGE_LOOKAROUNDS = [r"(?<![0-9A-Za-z])EI\d{2}(?![0-9A-Za-z])", r"(?<!x)ab\s$", r"(?<=a)b(?=c)", r"a(?!\S)",
                    r"a(?![^\s])", r"(?:(?<!\d)x|y)z(?!\w)", r"(?<![^a])q", r"(?<!\.)50\d(?!\d)",
                    r"(?i)(?<![a-z])err(?![a-z])", r"(?<![0-9.])50\d(?![0-9a-z:]|\.\d)", r"q(?!\d|ab|[^x])",
                    r"50(?<![0-9A-Za-z.]50)\d(?!\d)", r"E(?<![0-9A-Za-z]E)[IZ]\d", r"ab(?<=[xy]ab)c", r"ab(?<!xab)c",
                    r"(?i)ab(?<!xab)c", r"ab(?<![xy]b)c", r"a(?:b)(?<![xy]ab)c", r"(?:x|y)ab(?<!qab)c"]


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("aAbcxyzqEIeirR05.\t\n\x0b\x1c _-")), max_size=30))
def test_edge_look_arounds_kept_as_characters_stay_supersets(text: str) -> None:
    import re2

    for p in EDGE_LOOKAROUNDS:
        rx = re.compile(p)
        if rx.search(text):
            assert re2.compile(re2_superset(rx)).search(text), (p, text)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_literal_pattern_matches_exactly_its_literal(literal: str) -> None:
    from opsbrain.multiscan import _literal_char

    pattern = literal_pattern(literal)
    assert pattern == "".join(_literal_char(c) for c in literal)
    assert re.fullmatch(pattern, literal, re.DOTALL)


@pytest.mark.skipif(multiscan.ENGINE != "re2", reason="the set is RE2's")
def test_a_pattern_held_twice_is_compiled_once_and_found_at_both_places() -> None:
    """The parsers' screen holds the documented-message catalog twice (a regex's translation and the gate's extra):
    the set compiles it once, and a hit on it is a hit for the regex and for the extra."""
    rx = re.compile(r"uce error|link down")
    t = re2_superset(rx)
    assert t is not None
    scr = Screen([rx, re.compile(r"heartbeat")], extra=[t, literal_pattern("fault")], checked_extra=True)
    assert len(scr.set.patterns) == len(set(scr._patterns)) < len(scr._patterns)
    assert scr.possible("a uce error here") == (frozenset({0}), frozenset({0}))
    assert scr.possible("link down, fault") == (frozenset({0}), frozenset({0, 1}))
    assert scr.possible("heartbeat lost") == (frozenset({1}), frozenset())
    assert scr.possible("nothing") == (frozenset(), frozenset())
