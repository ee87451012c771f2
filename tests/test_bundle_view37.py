"""A bundle read once (session 37): the real-text look reads every line of the read without a second read and
without a record of each line (:mod:`opsbrain.bundle.viewlines`), and a packed file's lines are unpacked a chunk at a
time; the text look sees what it saw in the full read."""

from __future__ import annotations

import random
import sys
import tracemalloc
import zlib
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from opsbrain.bundle import BundleParams, diagnose_bundle
from opsbrain.bundle import walk as W
from opsbrain.bundle.diagnose import _keep
from opsbrain.bundle.reader import scan_bundle
from opsbrain.diagnosis.realtext import TextView

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from bench_distinct import make_bundle  # noqa: E402

FIX = Path(__file__).parent / "fixtures" / "bundles"


@pytest.fixture(scope="module")
def tools() -> tuple[Any, Any]:
    from opsbrain.kb import SignatureMatcher, load_imported, load_kb
    from opsbrain.kb.training import load_engine

    return load_engine(), SignatureMatcher(load_kb(), load_imported(strict=False))


def _state(view: TextView) -> tuple[Any, ...]:
    return view.first, view.errors, view.failing, view.overflow, view.lines()


def _mixed(dest: Path, rng: random.Random, lines: int) -> Path:
    """Two workers' plogs and a console: INFO, WARNING and ERROR lines, error words, lines written twice apart, stamps
    out of order, a traceback without stamps: what a view keeps depends on the order of every line."""
    t0 = datetime(2025, 3, 1, 10, 0, 0)
    words = ["heartbeat ok", "step done", "link timeout", "device error 507899", "cannot open file", "retry",
             "Traceback (most recent call last):", "connection refused", "alloc memory"]
    for w in range(2):
        plog = dest / f"worker-{w}" / "process_log" / "run" / "plog" / f"plog-{4000 + w}_20250301100000000.log"
        plog.parent.mkdir(parents=True, exist_ok=True)
        out = []
        for k in range(lines):
            t = t0 + timedelta(milliseconds=rng.randrange(0, 600_000) if rng.random() < 0.1 else 7 * k)
            stamp = f"{t:%Y-%m-%d-%H:%M:%S}.{t.microsecond // 1000:03d}.000"
            level = rng.choice(["INFO", "INFO", "WARNING", "ERROR"])
            n = rng.randrange(0, 40) if rng.random() < 0.5 else k
            out.append(f"[{level}] HCCL({4000 + w},python):{stamp} [x.cc:1][{4000 + w}] {rng.choice(words)} {n}")
        plog.write_text("\n".join(out) + "\n")
    (dest / "worker-1" / "train.log").write_text("".join(f"{rng.choice(words)} {k}\n" for k in range(200)))
    return dest


@pytest.mark.parametrize("hold", [16 << 20, 0])
@pytest.mark.parametrize("seed", [1, 2])
def test_the_view_feeds_a_text_view_as_the_full_read(seed: int, hold: int, tmp_path: Path,
                                                     tools: tuple[Any, Any]) -> None:
    """A view fed from the block scan's read (few records, the texts it needs taken from the files) holds what it
    holds when fed every line of the full read in order: the whole bundle, and one file in a window."""
    bundle = _mixed(tmp_path / "b", random.Random(seed), 3000)
    p = BundleParams(hold_text_bytes=hold)
    cut = scan_bundle(bundle, p, _keep(tools[1]))
    full = scan_bundle(bundle, p)
    assert cut.view is not None and len(cut.lines) < len(full.lines) == len(cut.view)
    plog = "worker-1/process_log/run/plog/plog-4001_20250301100000000.log"
    for files, lo, hi in [(None, None, None), ({plog}, 5.0, 9.0), ({plog, "worker-1/train.log"}, 0.0, 1e9)]:
        want, got = TextView(), TextView()
        for ln in full.lines:
            if (files is None or ln.file in files) and (lo is None or lo <= ln.t) and (hi is None or ln.t <= hi):
                want(ln.text, ln.file, ln.line)
        cut.view.feed(got, files, lo, hi)
        assert want.first and _state(got) == _state(want)


def test_a_diagnosis_reads_the_bundle_once(tmp_path: Path, tools: tuple[Any, Any],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The text look ran (the incidents are weak) on a read of the bundle, not on a second one."""
    bundle = make_bundle(tmp_path, 3000)
    walks, looked = [], []
    real, look = W._Scan.walk, TextView.__call__
    monkeypatch.setattr(W._Scan, "walk", lambda self: (walks.append(1), real(self))[1])
    monkeypatch.setattr(TextView, "__call__", lambda self, *a: (looked.append(1), look(self, *a))[1])
    rep = diagnose_bundle(bundle, *tools)
    assert rep["lines"]["read"] == 3002 and len(looked) > 300
    assert len(walks) == 1


def test_a_packed_file_is_read_without_all_its_lines_at_once(tmp_path: Path, tools: tuple[Any, Any]) -> None:
    """One big plog of distinct lines none of which may signal, packed (hold 0), read as the diagnosis reads it
    (the block scan's keep): the read's peak stays under twice the text's size (its bytes as they are packed, then a
    block of lines at a time). Before, the file's whole text and then the list of all its lines were made: over
    twice the text."""
    plog = tmp_path / "b" / "worker-1" / "process_log" / "run" / "plog" / "plog-7_20250124110315401.log"
    plog.parent.mkdir(parents=True)
    t0 = datetime(2025, 1, 24, 11, 0, 0)
    plog.write_text("".join(f"[INFO] RUNTIME(7,python3):{t0 + timedelta(milliseconds=4 * k):%Y-%m-%d-%H:%M:%S}.000."
                            f"000 [stream.cc:1100] 7 launch kernel task {k:08d} done\n" for k in range(120_000)))
    size = plog.stat().st_size
    keep = _keep(tools[1])
    tracemalloc.start()
    try:
        r = scan_bundle(tmp_path / "b", BundleParams(hold_text_bytes=0), keep)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert r.report["lines"]["read"] == 120_000 and not r.lines
    assert peak < 2 * size, (peak, size)


@settings(max_examples=60, deadline=None)
@given(data=st.binary(max_size=400).map(lambda b: b.replace(b"\x01", b"\n")), step=st.integers(1, 64),
       picks=st.lists(st.integers(1, 50), max_size=5))
def test_packed_lines_unpack_as_one_decode(data: bytes, step: int, picks: list[int]) -> None:
    """A packed file's lines, unpacked a chunk at a time in any step, are the whole text decoded and split (bytes
    that are not UTF-8 across a chunk's edge too); :meth:`_File.pick` gives the same lines by number."""
    was, W.UNPACK_STEP = W.UNPACK_STEP, step
    want = data.decode("utf-8", "replace").split("\n")
    f = W._File("x.log", None, packed=zlib.compress(data))  # type: ignore[arg-type]
    try:
        assert f.pick([k for k in picks if k <= len(want)]) == {k: want[k - 1] for k in picks if k <= len(want)}
        assert list(f.stream()) == want and f.held is None
        assert f.lines == want
    finally:
        W.UNPACK_STEP = was
