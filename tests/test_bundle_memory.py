"""The bundle reader's memory (session 12): past ``BundleParams.hold_text_bytes`` each file's lines are kept packed
(zlib) and unpacked one file at a time, so a big bundle is not held as Python line lists; the read is the same.

The figures on a 200 MB bundle are benchmarks/bench_bundle_memory.py's; here, a few MB under tracemalloc."""

from __future__ import annotations

import os
import random
import shutil
import tracemalloc
from array import array
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from faultlib.telemetry import formats as fmt
from opsbrain.bundle import BundleParams, diagnose_bundle
from opsbrain.bundle.reader import scan_bundle

FIX = Path(__file__).parent / "fixtures" / "bundles"
T0 = datetime(2025, 3, 1, 10, 0, 0)


def padded(dest: Path, files: int, lines: int) -> Path:
    """The real-layout fixture with ``files`` training logs of ``lines`` benign lines each added to worker-0."""
    shutil.copytree(FIX / "hbm-uce-real", dest)
    rng = random.Random(7)
    for k in range(files):
        text = "".join(fmt.train_step(T0 + timedelta(seconds=i * 0.5), i, 10**6, rng.uniform(1, 2),
                                      rng.uniform(1.5, 3), rng.uniform(1e5, 2e5)) + "\n" for i in range(lines))
        (dest / "worker-0" / f"rank-{k + 4}.log").write_text(text)
    return dest


def _all_lines(texts: list[str]) -> list[bool]:
    return [False] * len(texts)  # as diagnose's block scan, which rules out benign lines: no record of them


def _peak(path: Path, params: BundleParams) -> tuple[int, Any]:
    tracemalloc.start()
    try:
        r = scan_bundle(path, params, keep=_all_lines)
        return tracemalloc.get_traced_memory()[1], r
    finally:
        tracemalloc.stop()


def test_packed_read_keeps_memory_under_the_text_size(tmp_path: Path) -> None:
    """40 files of ~0.3 MB: held whole as line lists, the read's peak is above the text's size; packed (hold 0),
    it stays under half of it (one file unpacked at a time, plus the packed rest and 8 bytes per line's time)."""
    b = padded(tmp_path / "b", 40, 1600)
    text = sum(p.stat().st_size for p in b.rglob("rank-*.log"))
    held, r_held = _peak(b, BundleParams())
    packed, r_packed = _peak(b, BundleParams(hold_text_bytes=0))
    assert held > text, (held, text)
    assert packed < text / 2, (packed, text)
    assert r_packed.report == r_held.report and r_packed.lines == r_held.lines


@pytest.mark.parametrize("where", ["hbm-uce-real", "twin"])
def test_packed_read_diagnoses_as_the_held_read(where: str, tmp_path: Path) -> None:
    """Every file packed (hold 0) or every file held: the same report, incidents and diagnosis."""
    from opsbrain.kb.training import load_engine

    engine = load_engine()
    b = FIX / "hbm-uce-real" if where == "hbm-uce-real" else padded(tmp_path / "p", 3, 2000)
    want = diagnose_bundle(b, engine)
    got = diagnose_bundle(b, engine, params=BundleParams(hold_text_bytes=0))
    for rep in (want, got):
        rep.pop("timing_s")
    assert got == want


@settings(max_examples=int(os.environ.get("OPSBRAIN_PROP_EXAMPLES", "12")) * 10, deadline=None)
@given(values=st.lists(st.integers(min_value=-(2**62), max_value=2**62), max_size=40),
       more=st.lists(st.integers(min_value=1_700_000_000_000_000, max_value=1_700_000_100_000_000), max_size=40),
       pick=st.floats(min_value=0, max_value=1, exclude_max=True))
def test_kth_is_the_sorted_lists_kth(values: list[int], more: list[int], pick: float) -> None:
    """The reader's median of line times (kept in an int64 array, not a list) is the sorted list's element."""
    from opsbrain.bundle.records import kth

    both = sorted(values + more)
    if not both:
        return
    k = int(pick * len(both))
    assert kth(values, array("q", more), k) == both[k]


def test_packed_files_of_every_shape_read_as_held(tmp_path: Path) -> None:
    """Line ends CRLF, container heads and colour codes taken off, over-long lines, undecodable and control bytes:
    each file packed (hold 0) gives the held read's lines and report, line for line."""
    from opsbrain.ingest import MAX_LINE

    b = padded(tmp_path / "b", 1, 50)
    w = b / "worker-0"
    line = fmt.train_step(T0, 1, 10, 1.0, 2.0, 1e5)
    (w / "rank-6.log").write_bytes((line + "\r\n").encode() * 20)
    (w / "rank-7.log").write_text("".join(f"2025-03-01T10:00:0{i}.000000000Z stdout F \x1b[31m{line}\x1b[0m\n"
                                          for i in range(5)))
    (w / "rank-8.log").write_bytes(line.encode() + b" " + b"x" * (MAX_LINE + 10) + b"\n" + line.encode() + b"\n")
    (w / "rank-9.log").write_bytes(line.encode() + b" \xff\xfe bad\n" + line.encode() + b" \x07 bell\n")
    held = scan_bundle(b, BundleParams())
    packed = scan_bundle(b, BundleParams(hold_text_bytes=0))
    assert packed.lines == held.lines and packed.report == held.report
    assert {ln.file for ln in held.lines} >= {f"worker-0/rank-{k}.log" for k in (6, 7, 8, 9)}


def test_block_read_in_small_blocks_is_the_whole_files_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file's stamps scanned a block of lines at a time (BLOCK_LINES) give the read of one scan of the whole file,
    with and without keep (block boundaries inside every file: 3 lines a block)."""
    from opsbrain.bundle import timed as T

    b = padded(tmp_path / "b", 2, 40)
    want = [scan_bundle(b), scan_bundle(b, keep=_all_lines)]
    monkeypatch.setattr(T, "BLOCK_LINES", 3)
    got = [scan_bundle(b), scan_bundle(b, keep=_all_lines)]
    for w, g in zip(want, got, strict=True):
        assert g.lines == w.lines and g.report == w.report and repr(g.ranks) == repr(w.ranks)
