"""Runs of repeated lines are read once with their count (session 36: opsbrain.ingest.repeats), by ``--logs`` and by
the bundle reader alike: a folded line keeps its number in the file and the count of copies it stands for, the lines
after a run keep theirs, the bundle's lines read still count every copy, and the answer is the one the bundle gives
read without folding."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from opsbrain.bundle import diagnose_bundle, scan_bundle
from opsbrain.bundle import walk as W
from opsbrain.ingest.repeats import fold_bytes, fold_runs
from opsbrain.ingest.text import ingest_text

HBM = ("[ERROR] DRV(1187,dmp_daemon):2025-03-01-10:03:20.400.000 [dms_fault.c:688][dev3]fault event: "
       "event_id=0x80e01801, assertion=occur, severity=critical, dev_id=3, hbm multi-bit ecc error, uncorrectable")
WARN = ("[WARNING] HCCL(40101,python):2025-03-01-10:02:00.000.001 [heartbeat.cc:100][40101] heartbeat check: remote "
        "not responding, retry")


def _reference(data: bytes) -> tuple[bytes, list[int]]:
    """The fold by hand: a non-blank line equal to the one before is dropped, counted on it."""
    out: list[bytes] = []
    copies: list[int] = []
    for ln in data.split(b"\n"):
        if out and ln == out[-1] and ln.strip():
            copies[-1] += 1
        else:
            out.append(ln)
            copies.append(1)
    return b"\n".join(out), copies


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([b"a\n", b"b\n", b"\n", b" \n", b"aa\n", b"a"]), max_size=40),
       st.lists(st.integers(0, 200), max_size=6))
def test_fold_bytes_is_the_fold_by_hand_in_any_cut(parts: list[bytes], cuts: list[int]) -> None:
    data = b"".join(parts)
    at = sorted({min(c, len(data)) for c in cuts})
    chunks = [data[i:j] for i, j in zip([0, *at], [*at, len(data)], strict=True)]
    got, folds = fold_bytes(chunks)
    want, copies = _reference(data)
    assert got == want
    assert [folds.copies(k) for k in range(1, len(copies) + 1)] == copies
    assert [folds.line_no(k) for k in range(1, len(copies) + 1)] == [
        1 + sum(copies[:k]) for k in range(len(copies))]
    assert folds.folded == sum(copies) - len(copies)
    if len(copies) == len(data.split(b"\n")):
        assert not folds and got == data  # nothing folded: the bytes as they were


def test_fold_runs_never_folds_blank_lines() -> None:
    got = list(fold_runs([(1, "x"), (2, "x"), (3, ""), (4, ""), (5, "  "), (6, "  "), (7, "x")], lambda p: p[1]))
    assert got == [((1, "x"), 2), ((3, ""), 1), ((4, ""), 1), ((5, "  "), 1), ((6, "  "), 1), ((7, "x"), 1)]


def test_logs_read_a_run_once_and_keep_later_line_numbers() -> None:
    text = "\n".join([WARN] * 5000 + [HBM])
    sigs, stats = ingest_text(text, "plog.log")
    assert stats.lines == 5001  # every copy counted as read
    hbm = [s for s in sigs if "0x80e01801" in s.text]
    assert hbm and hbm[0].line_no == 5001


def _bundle(root: Path, copies: int) -> Path:
    """A real collection's layout: a plog whose retry warning is written ``copies`` times before its errors, and the
    culprit device's os log with its HBM fault event written ``copies`` times."""
    plog = root / "ascend-c01" / "process_log" / "run" / "plog" / "plog-40101_20250301100000000.log"
    plog.parent.mkdir(parents=True)
    init = ("[INFO] HCCL(40101,python):2025-03-01-10:00:00.100.000 [topoinfo_detect.cc:506] [40101][HCCL_TRACE]"
            "[Flat]SetupAgent rankNum[2], rank[1], rootInfo identifier[10.1.0.1%eth0_60000_0_1740823200], "
            "server[10.1.0.1%eth0], logicDevId[3], phydevId[3], deviceIp[10.2.0.4]")
    errors = [f"[ERROR] RUNTIME(40101,python):2025-03-01-10:03:21.{k:03d}.000 [stream.cc:1044][40102]Stream "
              "synchronize failed, device_id=3, retCode=0x7bcad, ErrCode=507000" for k in range(3)]
    plog.write_text("\n".join([init, *[WARN] * copies, *errors]) + "\n")
    dev = root / "ascend-c01" / "device_log" / "slog" / "dev-os-3" / "run" / "device-os" / "device-os_1.log"
    dev.parent.mkdir(parents=True)
    dev.write_text("\n".join(["[INFO] DRV(1187,dmp_daemon):2025-03-01-10:00:00.000.000 [dms_main.c:120][dev3]"
                              "device os running", *[HBM] * copies]) + "\n")
    return root


@pytest.fixture(scope="module")
def tools() -> tuple[Any, Any]:
    from opsbrain.kb import SignatureMatcher, load_imported, load_kb
    from opsbrain.kb.training import load_engine

    return load_engine(), SignatureMatcher(load_kb(), load_imported(strict=False))


def _unfolded(u: W.Unpacked) -> tuple[bytes, None]:
    return u.read(), None  # the reader before session 36: every copy a line of its own


def test_bundle_reader_keeps_numbers_and_counts(tmp_path: Path) -> None:
    root = _bundle(tmp_path / "b", 4000)
    r = scan_bundle(root)
    by = {(ln.file.rsplit("/", 1)[-1], ln.text): ln for ln in r.lines}
    warn = by[("plog-40101_20250301100000000.log", WARN)]
    assert (warn.line, warn.repeats) == (2, 4000)
    after = [ln for ln in r.lines if "Stream synchronize failed" in ln.text]
    assert [ln.line for ln in after] == [4002, 4003, 4004]  # the file's own numbers, past the folded run
    assert by[("device-os_1.log", HBM)].repeats == 4000
    # the device's fault event, written 4,000 times in the same microsecond, is one record read once (as before
    # session 36: the reader's duplicates); the warning's copies are lines read
    assert r.report["lines"]["read"] == 4000 + 6 and r.report["lines"]["folded"] == 2 * 3999
    assert r.report["lines"]["duplicates"] == 3999
    (proc,) = r.ranks.processes  # the rank collector cites the file's own number too
    assert proc.first_error is not None and proc.first_error.line == 4002


def test_bundle_answer_is_the_unfolded_one(tmp_path: Path, tools: tuple[Any, Any],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    engine, matcher = tools
    root = _bundle(tmp_path / "b", 3000)
    folded = diagnose_bundle(root, engine, matcher)
    with monkeypatch.context() as m:
        m.setattr(W, "_folded", _unfolded)
        plain = diagnose_bundle(root, engine, matcher)
    for k in ("read", "duplicates", "untimed", "placed", "malformed", "cut"):
        assert plain["lines"][k] == folded["lines"][k], k
    d, p = folded["diagnosis"], plain["diagnosis"]
    assert d["fault_class"] == p["fault_class"] == "hbm_uce"
    assert d["root"] == p["root"]

    def rows(x: dict[str, Any]) -> list[tuple[Any, ...]]:
        return [(e["file"], e["line"], e["t"], e["text"]) for e in x["evidence_lines"]]

    assert rows(d) == rows(p)
    hbm = next(e for e in d["evidence_lines"] if "0x80e01801" in e["text"])
    assert hbm["repeats"] == 3000 and hbm["line"] == 2
    assert any("(written 3,000 times in a row)" in ev for ev in d["evidence"])
    assert all("repeats" not in e for e in p["evidence_lines"])
