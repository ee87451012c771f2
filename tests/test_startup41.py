"""Session 41: start-up and Chinese-bundle work that must not change an answer.

Module-level regexes compiled on first use (:mod:`opsbrain.lazyre`), RE2 translations without large repetition
bounds (:data:`opsbrain.re2translate.WIDEN_FROM`), the gate's documented messages compiled only where the screen
finds them (:func:`opsbrain.ingest.parsers._gate_found`), stand-in copies made a block at a time
(:meth:`opsbrain.multiscan.Screen.prefill`).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from opsbrain import multiscan
from opsbrain import standin as standin_module
from opsbrain.lazyre import LazyPattern, lazy_compile
from opsbrain.re2translate import WIDEN_FROM, re2_superset

ROOT = Path(__file__).resolve().parents[1]
needs_re2 = pytest.mark.skipif(multiscan.ENGINE != "re2", reason="google-re2 is not installed: nothing is screened")


def test_importing_the_diagnosis_compiles_few_regexes() -> None:
    """Before session 41 importing the diagnosis compiled ~235 regexes (~50 ms of a 5-line diagnosis); the
    module-level ones now compile on first use."""
    code = ("import re; import opsbrain.cli.diagnose_cmd, opsbrain.diagnosis.oneclick; print(len(re._cache))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert int(out.stdout) < 100


def test_lazy_pattern_is_the_regex_on_first_use() -> None:
    lazy = lazy_compile(r"(?i)link (\w+)", re.M)
    assert isinstance(lazy, LazyPattern) and lazy.pattern == r"(?i)link (\w+)"
    with pytest.raises(AttributeError):
        object.__getattribute__(lazy, "_rx")  # not compiled yet
    rx = re.compile(r"(?i)link (\w+)", re.M)
    text = "a LINK down\nlink up"
    assert lazy.search(text).group(1) == rx.search(text).group(1)  # type: ignore[union-attr]
    assert lazy.findall(text) == rx.findall(text) and lazy.sub("x", text) == rx.sub("x", text)
    assert lazy.flags == rx.flags and lazy.groups == rx.groups
    assert lazy.search is not None and lazy.key == (r"(?i)link (\w+)", re.M)
    assert lazy_compile(b"a+").fullmatch(b"aa") is not None


def test_translation_drops_large_bounds_on_one_line_only() -> None:
    assert re2_superset(re.compile(r"Task failed.{0,240}sqe_type=")) == r"Task failed(?:.)*sqe_type\x3d"
    assert re2_superset(re.compile(r"x\w{1,64}y")) == r"x(?:[\w])+y"
    assert re2_superset(re.compile(r"a[^.]{0,120}b")) == r"a(?:[^\x2e]){0,120}b"  # [^.] takes a newline: kept
    assert re2_superset(re.compile(r"a.{0,120}b", re.S)) == r"(?s)a(?:.){0,120}b"
    assert re2_superset(re.compile(r"a\d{2,8}b")) == r"a(?:[\d]){2,8}b"  # below WIDEN_FROM: as written
    assert WIDEN_FROM > 8


@needs_re2
@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="ab\n .x", max_size=60), st.integers(0, 3), st.integers(WIDEN_FROM, 300))
def test_widened_translation_is_a_superset(text: str, lo: int, hi: int) -> None:
    import re2

    for body in (".", "[^\\n]", "\\w", "[ab ]", "(?:a|b)"):
        rx = re.compile(f"x{body}{{{lo},{hi}}}b")
        if rx.search(text):
            assert re2.compile(re2_superset(rx)).search(text), (rx.pattern, text)


@needs_re2
def test_a_chinese_line_does_not_compile_the_documented_messages() -> None:
    from opsbrain.ingest import parsers

    parsers.gate.cache_clear()
    for line in ["训练进度：第 3 步，损失 0.1234，用时 12 毫秒", "正在加载检查点 /data/模型/检查点_7.ckpt",
                 "错误：EI0002 任务执行超时，设备 3"]:
        parsers.parse_line(line)
    assert parsers.gate.cache_info().currsize == 0


GATE_LINES = ["训练进度：第 3 步，损失 0.1234", "错误：EI0002 任务执行超时，设备 3", "设备 3 上的算子执行失败 fault",
              "正在加载检查点 /data/模型/检查点_7.ckpt", "HCCL 通信失败，错误码 EI9999，rank 2",
              "故障：设备 HBM 多比特错误",
              "the event wait task is not supported during model capture", "plain words only here",
              "the profiles configured in --dynamic_batch_size have inconsistent dimension counts 配置"]


@needs_re2
@settings(max_examples=150, deadline=None)
@given(st.sampled_from(GATE_LINES), st.text(alphabet="ab 0:/-_.错误超时设备失败hbmECC", max_size=30))
def test_gate_found_is_the_whole_gate(line: str, noise: str) -> None:
    from opsbrain.ingest import parsers

    scr, _n = parsers._screen()
    for text in (line, noise, line + " " + noise):
        seen = scr.possible(text)
        if seen is not None and seen[1]:
            assert parsers._gate_found(text, seen[1]) == bool(parsers.gate().search(text)), text


def test_gate_found_is_reached() -> None:
    from opsbrain.ingest import parsers

    scr, _n = parsers._screen()
    reached = [t for t in GATE_LINES if (seen := scr.possible(t)) is not None and seen[1]
               and (0 not in seen[1] or not t.isascii())]
    assert len(reached) >= 3
    assert all(parsers._gate_found(t, scr.possible(t)[1]) == bool(parsers.gate().search(t))  # type: ignore[index]
               for t in reached)


@needs_re2
@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(alphabet="ab x0:/_.?训练错误设备，。\u3000١K", max_size=30), max_size=12))
def test_prefilled_copies_screen_as_each_line_alone(rows: list[str]) -> None:
    from opsbrain.cli.kb_cmds import _matcher

    scr = _matcher(None)._screen
    alone = [scr.possible(t) for t in rows]
    scr.prefill(rows)
    try:
        assert [scr.possible(t) for t in rows] == alone
    finally:
        scr.prefill(())


@needs_re2
def test_prefill_makes_a_copy_a_block(monkeypatch: pytest.MonkeyPatch) -> None:
    from opsbrain.cli.kb_cmds import _matcher

    m = _matcher(None)
    rows = [f"正在加载检查点 /data/模型/检查点_{k}.ckpt" for k in range(50)]
    calls = []
    real = multiscan.standin
    counted = lambda *a: calls.append(1) or real(*a)  # noqa: E731
    monkeypatch.setattr(multiscan, "standin", counted)
    monkeypatch.setattr(standin_module, "standin", counted)
    assert m.match_lines(rows, [True] * len(rows)) == [m.match(t) for t in rows]
    assert 0 < len(calls) <= 2 + 2 * len(rows)  # the block copies, then each line's own in the match calls after
    calls.clear()
    m.match_lines(rows, [True] * len(rows))
    assert len(calls) <= 2
