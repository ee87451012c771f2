"""Session 42 (issue 14, the Chinese 100,000-line bundle): the reader's per-line work on wide lines, cut without
changing an answer (benchmarks/compare_trees.py: byte-identical ``--json``)."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from opsbrain.ingest import repeats
from opsbrain.ingest.plainscan import plain_all
from opsbrain.ingest.surface import plain
from tests.test_repeats36 import _reference as _by_hand
from tests.test_surface_gate import BODYISH, HEADISH

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))


def test_a_piece_with_a_few_repeats_is_not_read_line_by_line(monkeypatch: pytest.MonkeyPatch) -> None:
    def line_by_line(*_a: object, **_k: object) -> None:
        raise AssertionError("fold_runs called on a piece")

    monkeypatch.setattr(repeats, "fold_runs", line_by_line)
    lines = [b"line %d" % i for i in range(1000)]
    lines[500:500] = [b"again", b"again", b"again", b"", b"", b"  ", b"  "]
    data = b"\n".join(lines) + b"\n"
    got, folds = repeats.fold_bytes([data[:3000], data[3000:]])
    want, copies = _by_hand(data)
    assert got == want
    assert [folds.copies(k) for k in range(1, len(copies) + 1)] == copies


def test_fold_bytes_at_random_cuts_is_the_fold_by_hand() -> None:
    rng = random.Random(42)
    for _ in range(300):
        data = b"".join(rng.choice([b"a\n", b"a\n", b"b\n", b"\n", b" \n", b"c"]) for _ in range(rng.randrange(60)))
        cuts = sorted(rng.randrange(len(data) + 1) for _ in range(rng.randrange(5)))
        chunks = [data[i:j] for i, j in zip([0, *cuts], [*cuts, len(data)], strict=True)]
        got, folds = repeats.fold_bytes(chunks)
        want, copies = _by_hand(data)
        assert got == want
        assert [folds.copies(k) for k in range(1, len(copies) + 1)] == copies
        assert [folds.line_no(k) for k in range(1, len(copies) + 1)] == [
            1 + sum(copies[:k]) for k in range(len(copies))]


# ---- plain_all: plain() of every line of a text that is not ASCII, one scan ---------------------------------------
WIDE = st.sampled_from(["训练进度", "：", "： ", "，", "（只用前四张卡）", "\u3000", "\u3000\u3000第 3 个批次", "٣",
                        "²", "１２", "\ufeff", "8月 18 16:33:56 kylin10-6018 kubelet[176281]: ", "3月", "İ", "ſ", "é",
                        "节点-1： ", "主机1: ", "％", "100%", "\u2028", "\xa0", "错误：EI0002 任务执行超时",
                        "100%\u30004/4\u3000[00:03<00:00,\u30001.10it/s]", "5%4/4[0it/s]", "123456\t", "12345\t",
                        '2024-05-01T10\uff1a11\uff1a12Z {host="w-1"} ', "2024-05-01T10\uff1a11\uff1a12.5Z stdout F ",
                        '\uff1a\uff1a\uff1a2024-05-01T10:11:12Z {host="w-1"} x', "\uff1a\uff1a ", "\r",
                        "Train:   0%|          | 0/465 [00:00<?, ?it/s]", "1%4/4[0it/s]x", '{"log":"a\uff1a b"}',
                        '\uff1a2024-05-01T101112Z {a="b"} x', '2024-05-01T101112Z {a="b"} x'])
def _as_plain(lines: list[str]) -> list[tuple[str, str]]:
    """plain_all's answer as ``[plain(ln) for ln in lines]`` would be (None: every line as it is)."""
    got = plain_all("\n".join(lines), lines)
    return [(ln, "") for ln in lines] if got is None else list(zip(*got, strict=True))


WIDE_LINE = st.builds(lambda parts: "".join(parts), st.lists(st.one_of(HEADISH, BODYISH, WIDE), max_size=6))


@settings(max_examples=2000, deadline=None)
@given(st.lists(WIDE_LINE, min_size=1, max_size=8))
def test_plain_all_is_plain_of_each_line(lines: list[str]) -> None:
    lines = "\n".join(lines).split("\n")
    assert _as_plain(lines) == [plain(ln) for ln in lines]


def test_plain_all_on_the_wrapped_chinese_console() -> None:
    from bench_wide_lines import ZH, ZH_CODES
    from bench_wide_lines import lines as bench_lines

    from opsbrain.kb.perturb import WRAPPERS

    body = "\n".join(bench_lines(ZH, 200, 5) + bench_lines(ZH_CODES, 50, 5)) + "\n"
    texts = [body] + [w for name, fn in WRAPPERS.items() if (w := fn(body, random.Random(name))) is not None]
    for text in texts:
        lines = text.split("\n")
        assert _as_plain(lines) == [plain(ln) for ln in lines]
    assert len(texts) > 15


def test_plain_all_scans_instead_of_calling_plain_on_each_line(monkeypatch: pytest.MonkeyPatch) -> None:
    from opsbrain.ingest import surface

    calls = []
    was = surface.plain
    monkeypatch.setattr(surface, "plain", lambda ln: calls.append(ln) or was(ln))
    text = "\n".join(["[2025-03-01 10:00:00] 训练进度：第 1 步",
                      "[2025-03-01 10:00:01] 正在加载检查点 /data/模型/a.ckpt",
                      "Dec  2 10:00:00 host-1 kernel: [ERROR] 失败"])
    want = [was(ln) for ln in text.split("\n")]
    assert _as_plain(text.split("\n")) == want
    assert calls == ["Dec  2 10:00:00 host-1 kernel: [ERROR] 失败"]
    assert want[0] == ("[2025-03-01 10:00:00] 训练进度: 第 1 步", "")


# ---- standin: the first reading's copy of Chinese text without a substitution a character -------------------------
POOL = (list("训练进度数据中文") + ["\u4dc0", "\u3400", "\u5000", "\u9fff", "，", "（", "）", "。", "、", "—", "★", "é",
                                   "ß", "\u2160", "\u00bd", "_", "a", "1", " ", ":", "\x7f"])


def _first_reading(text: str) -> bytes:
    from opsbrain import standin

    return standin._NA_NONWORD.sub(standin.OTHER, text).encode("ascii", "replace").translate(standin._QUESTION[0])


def test_word_copy_is_the_substitution(monkeypatch: pytest.MonkeyPatch) -> None:
    from opsbrain import standin

    monkeypatch.setattr(standin, "_NONWORD_SEEN", {})
    rng = random.Random(42)
    for _ in range(2000):
        text = "".join(rng.choice(POOL) for _ in range(rng.randrange(1, 40)))
        if text.isascii() or standin.kinds(text) != standin.COMMON_KINDS or "?" in text:
            continue
        assert standin.standin(text, 0, standin.COMMON_KINDS) == _first_reading(text), text
    assert "，" in standin._NONWORD_SEEN and "\u4dc0" in standin._NONWORD_SEEN


def test_known_punctuation_takes_no_substitution(monkeypatch: pytest.MonkeyPatch) -> None:
    from opsbrain import standin

    class Counting:
        def __init__(self, rx: object) -> None:
            self.rx, self.subs = rx, 0

        def sub(self, *a: object) -> object:
            self.subs += 1
            return self.rx.sub(*a)  # type: ignore[attr-defined]

        def findall(self, *a: object) -> object:
            self.subs += 1
            return self.rx.findall(*a)  # type: ignore[attr-defined]

        def __getattr__(self, name: str) -> object:
            return getattr(self.rx, name)

    counting = Counting(standin._NA_NONWORD)
    monkeypatch.setattr(standin, "_NA_NONWORD", counting)
    block = "\n".join(["[2025-03-01 10:00:00] 训练进度: 第 1 个步，损失 0.5（只用前四张卡，中以为）"] * 50)
    first = standin.standin(block, 0, standin.COMMON_KINDS)
    again = standin.standin(block.replace("1 步", "2 步"), 0, standin.COMMON_KINDS)
    assert first is not None and again is not None and first.count(b"\x7f") == 200
    assert counting.subs <= 2  # the first block's punctuation found and replaced, learned: no scan for the next
