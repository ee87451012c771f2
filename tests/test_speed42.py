"""Session 42 (issue 14, the Chinese 100,000-line bundle): the reader's per-line work on wide lines, cut without
changing an answer (benchmarks/compare_trees.py: byte-identical ``--json``)."""

from __future__ import annotations

import random

import pytest

from opsbrain.ingest import repeats


def _by_hand(data: bytes) -> tuple[bytes, list[int]]:
    out: list[bytes] = []
    copies: list[int] = []
    for ln in data.split(b"\n"):
        if out and ln == out[-1] and ln.strip():
            copies[-1] += 1
        else:
            out.append(ln)
            copies.append(1)
    return b"\n".join(out), copies


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
