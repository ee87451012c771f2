"""The bundle reader's fast paths give the answers of the plain ones.

- a time stamp searched from its lead character is the stamp a search of the whole head finds;
- the stamp converters built on ``datetime.fromisoformat`` give the ``datetime(int(...), ...)`` value, or raise
  ValueError both, on any field values (out of range, hour 24, second 60, year 0, non-ASCII digits);
- the integer sort key orders read lines exactly as (time, tie rank, read order);
- one block scan of a file (:func:`opsbrain.bundle.stamps.block_scan` read by ``BlockStamps``) gives every line the
  stamp :func:`stamp` gives it and the level the reader's per-line regex gives it, and integer times convert both
  ways;
- the reader's answers (lines, report, ranks) are the same with the block scan as with the per-line path, on the
  built-in scenario bundles' kinds of line, on files of stamp-like noise, and on ascend-fd's fixtures when present.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from opsbrain.bundle import reader as R
from opsbrain.bundle import stamps as S


def _search_whole_head(line: str, style: str) -> datetime | None:
    head = line[:S._STAMP_SCAN]
    for rx, conv in S._PARSERS[style]:
        if m := rx.search(head):
            try:
                return conv(m)
            except (ValueError, KeyError):
                return None
    return None


STAMPISH = st.text(alphabet=st.sampled_from(list("0123456789-/:. T,[]ab\u0662")), max_size=110)


@settings(max_examples=500, deadline=None)
@given(STAMPISH, st.sampled_from(sorted(S._PARSERS)))
def test_stamp_from_its_lead_character_is_the_whole_heads(line: str, style: str) -> None:
    assert S.stamp(line, style) == _search_whole_head(line, style)


def _slow(m: object, slog: bool) -> datetime | str:
    g = m.groups()  # type: ignore[attr-defined]
    try:
        us = int(g[6]) * 1000 + int(g[7]) if slog else S._frac(g[6])
        return datetime(int(g[0]), int(g[1]), int(g[2]), int(g[3]), int(g[4]), int(g[5]), us)
    except ValueError:
        return "ValueError"


def _fast(conv: object, m: object) -> datetime | str:
    try:
        return conv(m)  # type: ignore[operator]
    except ValueError:
        return "ValueError"


TWO = st.integers(0, 99).map(lambda n: f"{n:02d}")
YEAR = st.sampled_from(["0000", "0001", "1970", "2025", "9999"])


@settings(max_examples=500, deadline=None)
@given(YEAR, TWO, TWO, TWO, TWO, TWO, st.integers(0, 999), st.integers(0, 999),
       st.sampled_from(["", ".1", ".12", ".123456", ",5", ".0001"]), st.sampled_from([" ", "T"]))
def test_fast_converters_equal_the_constructor(y: str, mo: str, d: str, h: str, mi: str, s: str, ms: int, us: int,
                                               frac: str, sep: str) -> None:
    m = S._TS_SLOG.search(f"{y}-{mo}-{d}-{h}:{mi}:{s}.{ms:03d}.{us:03d}")
    assert _fast(S._slog, m) == _slow(m, True)
    m = S._TS_ISO.search(f"{y}-{mo}-{d}{sep}{h}:{mi}:{s}{frac}")
    assert _fast(S._hw_or_iso, m) == _slow(m, False)
    m = S._TS_HWLOG.search(f"{y}/{mo}/{d} {h}:{mi}:{s}{frac.replace(',', '.')}")
    assert m is not None and _fast(S._hw_or_iso, m) == _slow(m, False)


def test_non_ascii_digits_take_the_constructor() -> None:
    m = S._TS_ISO.search("\u0662\u0660\u0662\u0665-03-01 00:00:00")
    assert m is not None and S._hw_or_iso(m) == datetime(2025, 3, 1)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(-10**7, 10**7), st.sampled_from(sorted(set(R._TIE.values()) | {1}))),
                max_size=60))
def test_integer_sort_key_is_time_tie_read_order(rows: list[tuple[int, int]]) -> None:
    base = S.to_us(datetime(2025, 3, 1))
    f = SimpleNamespace(kind=SimpleNamespace(kind="train"))  # a file kind that is never de-duplicated
    dated = [(base + us, seq, f, 0, "", None, "", None, tie)
             for seq, (us, tie) in enumerate(rows)] + [(base, -1, f, 0, "", None, "hccn", None, R._TIE["hccn"])]
    reader = R._Reader.__new__(R._Reader)
    reader.dated = list(dated)  # type: ignore[assignment]
    reader.optic_files = set()  # (no file printing an optical lane beyond its thresholds: ReaderState's start)
    got = reader._dedupe()
    assert got == sorted(dated, key=lambda d: (d[0], d[8], d[1]))


LEVELISH = st.sampled_from(["", "[ERROR] ", "[INFO ] ", "[warn]\t", "[ERROR", "[E R] ", "[\u00e9] ", "[_1] "])
PLOGISH = st.sampled_from(["", "HCCL(1,python):", "DRV(12,dmp):", "x ", "[", "2025-03-01 ", "12:00:00 "])


def _line_level(text: str) -> str | None:
    return m.group(1).upper() if text[:1] == "[" and (m := R._LEVEL.match(text)) else None


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(LEVELISH, PLOGISH, STAMPISH, st.sampled_from(["", " x", "\r", "  "])), max_size=12),
       st.sampled_from(sorted(S._PARSERS)))
def test_block_scan_gives_every_lines_stamp_and_level(parts: list[tuple[str, str, str, str]], style: str) -> None:
    lines = ["".join(p) for p in parts]
    found = S.block_scan(lines, style)
    if found is None:  # not ASCII, or a style without a block form: the reader reads line by line
        assert style not in S._BLOCK_RX or not "\n".join(lines).isascii()
        return
    stamps, levels = S.BlockStamps(style).read(lines, found)
    for line, us, level in zip(lines, stamps, levels, strict=True):
        assert us == (S.to_us(S.stamp(line, style)) if line and not line.isspace() else None), line
        if line[:1] == "[" or level:
            assert level == _line_level(line), line


@settings(max_examples=300, deadline=None)
@given(st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31, 23, 59, 59, 999999)))
def test_integer_times_convert_both_ways(dt: datetime) -> None:
    assert S.from_us(S.to_us(dt)) == dt
    assert S.to_us(dt) == (dt - S.EPOCH) // timedelta(microseconds=1)


SYSLOGISH = st.tuples(st.sampled_from(["Jan", "Feb", "Mar", "Dec", "Foo"]),
                      st.sampled_from([" 1", "29", "31", " 0", "30"]), TWO, TWO, TWO).map(
    lambda p: f"{p[0]} {p[1]} {p[2]}:{p[3]}:{p[4]} host kernel: x")


@settings(max_examples=400, deadline=None)
@given(st.one_of(SYSLOGISH, STAMPISH), st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31)))
def test_syslog_stamps_in_integers_are_the_datetime_ones(line: str, ref: datetime) -> None:
    memo: dict[tuple[str, str], list[int]] = {}
    for _ in range(2):  # computed, then from the memo
        assert S.syslog_us(line, ref, memo) == S.to_us(S.syslog_stamp(line, ref)), line


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(sorted(S._BLOCK_RX)), st.lists(STAMPISH, max_size=8)), max_size=6))
def test_block_stamps_sharing_their_minutes_read_as_alone(files: list[tuple[str, list[str]]]) -> None:
    shared: dict[str, int | None] = {}
    for style, lines in files:
        found = S.block_scan(lines, style)
        if found is not None:
            assert S.BlockStamps(style, shared).read(lines, found) == S.BlockStamps(style).read(lines, found)


def test_a_bundle_diagnosis_compiles_one_block_scan(tmp_path: object) -> None:
    # the union of the parsers' and the knowledge base's patterns, shared (bundle/diagnose._candidates): each RE2
    # union costs ~45-70 ms to compile, and the line gate's own scans are built only where may_signal runs
    import subprocess
    import sys
    import textwrap
    from pathlib import Path

    root = Path(str(tmp_path))
    plog = root / "w0" / "process_log" / "run" / "plog" / "plog-1_20250101000000000.log"
    plog.parent.mkdir(parents=True)
    plog.write_text("[ERROR] HCCL(1,python):2025-01-01-00:00:00.000.000 [heartbeat.cc:1] [1]heartbeat lost\n")
    code = textwrap.dedent(f"""
        import sys
        import opsbrain.blockscan as B
        from opsbrain.multiscan import _re2
        orig = B.BlockScan.__init__
        n = []
        def counted(self, pats, **kw):  # wide=: how non-ASCII lines are read (session 39)
            orig(self, pats, **kw)
            n.append(1)
        B.BlockScan.__init__ = counted
        sys.argv = ["opsbrain", "diagnose", "--bundle", {str(root)!r}, "--data-dir", {str(root / "home")!r}]
        from opsbrain.cli import main
        try:
            main()
        except SystemExit:
            pass
        print("counted", len(n) if _re2 is not None else 1)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert "counted 1" in out.stdout, out.stdout[-1500:] + out.stderr[-1500:]
