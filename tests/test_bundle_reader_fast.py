"""The bundle reader's fast paths give the answers of the plain ones.

- a time stamp searched from its lead character is the stamp a search of the whole head finds;
- the stamp converters built on ``datetime.fromisoformat`` give the ``datetime(int(...), ...)`` value, or raise
  ValueError both, on any field values (out of range, hour 24, second 60, year 0, non-ASCII digits);
- the integer sort key orders read lines exactly as (time, tie rank, read order).
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
    base = datetime(2025, 3, 1)
    f = SimpleNamespace(kind=SimpleNamespace(kind="train"))  # a file kind that is never de-duplicated
    dated = [(base + timedelta(microseconds=us), seq, f, 0, "", None, "", None, tie)
             for seq, (us, tie) in enumerate(rows)] + [(base, -1, f, 0, "", None, "hccn", None, R._TIE["hccn"])]
    reader = R._Reader.__new__(R._Reader)
    reader.dated = list(dated)  # type: ignore[assignment]
    got = reader._dedupe()
    assert got == sorted(dated, key=lambda d: (d[0], d[8], d[1]))
