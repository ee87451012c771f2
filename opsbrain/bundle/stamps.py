"""Time stamps of the bundle's log families: one parser per style (slog, hwlog, iso, syslog without a year, ctime,
LCNE, klog), searched near the start of a line only, and the directory stamps of dump directories."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from datetime import date, datetime, timedelta
from typing import Any, overload

from opsbrain.bundle import layout as L
from opsbrain.ingest.timestamps import LCNE_STAMP, MONTH
from opsbrain.ingest.timestamps import month_number as _mon

# ---- time stamps -----------------------------------------------------------------------------------------------
_TS_SLOG = re.compile(r"(\d{4})-(\d\d)-(\d\d)-(\d\d):(\d\d):(\d\d)\.(\d{3})\.(\d{3})")
_TS_HWLOG = re.compile(r"(\d{4})/(\d\d)/(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?")
_TS_ISO = re.compile(r"(\d{4})-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)(?:[.,](\d{1,6}))?")
_TS_SYSLOG = re.compile(r"^(" + MONTH + r")\s+(\d{1,2}) (\d\d):(\d\d):(\d\d)\b")
"""syslog's ``Mar  1 09:06:00`` (``3月 01 09:06:00`` under a zh_CN locale), no year."""
_TS_CTIME = re.compile(r"(" + MONTH + r")\s+(\d{1,2}) (\d\d):(\d\d):(\d\d) (\d{4})")
_TS_DASHED = re.compile(r"(\d{4})-(\d\d)-(\d\d)-(\d\d):(\d\d):(\d\d)\.(\d{6})\b")
_TS_PTA = re.compile(r"(\d{4})-(\d\d)-(\d\d)-(\d\d):(\d\d):(\d\d)()(?![.\d])")
"""torch_npu's error head, to the second (``[ERROR] 2025-04-29-18:46:11 (PID:1066924, Device:5, RankID:13) ERR00100
PTA call acl api failed``: Ascend/pytorch torch_npu/csrc/core/npu/NPUException.h, the ``ASCEND_LOGE`` form printed to
the console); the empty group is the fraction it lacks."""
"""The driver's and the device history's ``[2025-04-16-03:08:13.704312]``."""
_TS_LCNE = LCNE_STAMP  # the LCNE switch log's ``Jul 31 2025 18:36:19+08:00`` (opsbrain.ingest.timestamps: --logs too)
_TS_KLOG = re.compile(r"^[IWEF](\d\d)(\d\d) (\d\d):(\d\d):(\d\d)\.(\d{6})")
"""klog (volcano): ``E0111 03:29:15.700191`` - no year."""
_DIR_STAMP = re.compile(r"^(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)-")
_STAMP_SCAN = 96  # characters at the start of a line searched for its time stamp (not dates in the message)


def _frac(s: str | None) -> int:
    return int(s.ljust(6, "0")[:6]) if s else 0


def _plain(m: re.Match[str], g: tuple[Any, ...]) -> bool:
    """True when ``datetime.fromisoformat`` reads the stamp's fields exactly as ``datetime(int(...), ...)`` does:
    ASCII digits, hour below 24 and second below 60 (out-of-range values raise ValueError both ways)."""
    return g[3] < "24" and g[5] < "60" and m.group().isascii()


def _slog(m: re.Match[str]) -> datetime:
    g = m.groups()
    if _plain(m, g):  # one C call instead of eight int() and the constructor: the same datetime
        return datetime.fromisoformat(f"{g[0]}-{g[1]}-{g[2]}T{g[3]}:{g[4]}:{g[5]}.{g[6]}{g[7]}")
    return datetime(int(g[0]), int(g[1]), int(g[2]), int(g[3]), int(g[4]), int(g[5]), int(g[6]) * 1000 + int(g[7]))


def _hw_or_iso(m: re.Match[str]) -> datetime:
    g = m.groups()
    if _plain(m, g):
        frac = "." + (g[6] + "00000")[:6] if g[6] else ""
        return datetime.fromisoformat(f"{g[0]}-{g[1]}-{g[2]}T{g[3]}:{g[4]}:{g[5]}{frac}")
    return datetime(int(g[0]), int(g[1]), int(g[2]), int(g[3]), int(g[4]), int(g[5]), _frac(g[6]))


def _ctime(m: re.Match[str]) -> datetime:
    mon, d, h, mi, s, y = m.groups()
    return datetime(int(y), _mon(mon), int(d), int(h), int(mi), int(s))


def _lcne(m: re.Match[str]) -> datetime:
    mon, d, y, h, mi, s = m.groups()
    return datetime(int(y), _mon(mon), int(d), int(h), int(mi), int(s))


_PARSERS: dict[str, tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], datetime]], ...]] = {
    "slog": ((_TS_SLOG, _slog), (_TS_DASHED, _hw_or_iso), (_TS_ISO, _hw_or_iso), (_TS_HWLOG, _hw_or_iso)),
    "hwlog": ((_TS_HWLOG, _hw_or_iso), (_TS_ISO, _hw_or_iso), (_TS_SLOG, _slog)),
    "iso": ((_TS_ISO, _hw_or_iso), (_TS_SLOG, _slog), (_TS_DASHED, _hw_or_iso), (_TS_HWLOG, _hw_or_iso),
            (_TS_LCNE, _lcne), (_TS_CTIME, _ctime), (_TS_PTA, _hw_or_iso)),
    "ctime": ((_TS_CTIME, _ctime), (_TS_ISO, _hw_or_iso)),
}
_STYLE = {L.PLOG: "slog", L.DEVICE_OS: "slog", L.DEVICE_PLUGIN: "hwlog", L.NODED: "hwlog", L.CLUSTERD: "hwlog",
          L.DMESG: "ctime", L.HISTORY: "iso", L.TRAIN: "iso", L.SWITCH: "iso", L.OTHER: "iso", L.SYSMON: "iso",
          L.CANN_DEVICE: "slog", L.HOST_SLOG: "slog", L.HOST_KERNEL: "slog", L.HISI_DUMP: "iso", L.MINDCLUSTER: "hwlog"}


_LEAD = {_TS_SLOG: ("-", 4), _TS_DASHED: ("-", 4), _TS_ISO: ("-", 4), _TS_HWLOG: ("/", 4)}
"""A character every match of the stamp holds at a fixed offset from its start: no match starts more than that offset
before the first such character, so the search starts there (the same leftmost match, found without trying every
position of the line's head)."""
_SEARCH: dict[str, tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], datetime], str | None, int], ...]] = {
    style: tuple((rx, conv, *_LEAD.get(rx, (None, 0))) for rx, conv in convs) for style, convs in _PARSERS.items()}


def stamp(line: str, style: str) -> datetime | None:
    """The time stamp of a line in one of the Ascend layouts (naive, as logged), or None."""
    head = line[:_STAMP_SCAN]
    for rx, conv, lead, offset in _SEARCH[style]:
        if lead is not None:
            j = head.find(lead)
            if j < 0:
                continue  # every match holds the lead character
            m = rx.search(head, j - offset if j > offset else 0)
        else:
            m = rx.search(head)
        if m:
            try:
                return conv(m)
            except (ValueError, KeyError):
                return None
    return None


def _closest_year(ref: datetime, make: Callable[[int], datetime]) -> datetime | None:
    """The year (``ref``'s, the one before or after) that puts ``make(year)`` closest to ``ref``, among those not
    after tomorrow (:func:`_not_ahead`)."""
    found: list[datetime] = []
    for y in (ref.year - 1, ref.year, ref.year + 1):
        try:
            found.append(make(y))
        except (ValueError, KeyError):
            continue
    best: datetime | None = None
    for dt in _not_ahead(found, datetime(1, 1, 1) + timedelta(microseconds=_tomorrow_us())):
        if best is None or abs(dt - ref) < abs(best - ref):
            best = dt
    return best


def _tomorrow_us() -> int:
    """The end of tomorrow (local date), in :func:`to_us` microseconds."""
    return (date.today().toordinal() + 1) * _US_DAY


def _not_ahead(found: list[Any], cap: Any) -> list[Any]:
    """The candidate times that are not after ``cap`` (all of them when none is): a log is read after it is
    written, so a year that puts a line past tomorrow is not its year (a syslog ``Mar 1`` read in December with no
    other time stamp in the bundle is this year's March, not next year's)."""
    return [x for x in found if x <= cap] or found


_WRITTEN = ((_TS_SLOG, _slog), (_TS_PTA, _hw_or_iso), (_TS_ISO, _hw_or_iso), (_TS_HWLOG, _hw_or_iso),
            (_TS_CTIME, _ctime))
"""Full date-times a message may write in its text, not as the line's stamp: the device plugin's
``alarmRaisedTime:2025-11-21 05:36:53`` (a ``kubectl get events`` or ``describe`` line), a CANN code's
``2025-06-25-11:01:22.586.187``."""
_RFC2822 = re.compile(r"\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d{1,2}) ([A-Z][a-z]{2}) (\d{4}) (\d\d):(\d\d):(\d\d)\b")
"""``kubectl describe``'s times (``Finished: Fri, 21 Nov 2025 05:37:10 +0800``: Go's RFC1123Z, read on its own
clock)."""


def latest_written(lines: Iterable[str], limit: int = 200_000) -> datetime | None:
    """The latest full date-time written anywhere in the first ``limit`` lines (:data:`_WRITTEN`, :data:`_RFC2822`),
    none after tomorrow (a date in the future is a setting or an expiry, not an event), or None: the time of a
    collection none of whose lines has a stamp of its own."""
    cap = datetime(1, 1, 1) + timedelta(microseconds=_tomorrow_us())
    best: datetime | None = None
    for k, line in enumerate(lines):
        if k >= limit:
            break
        if "20" not in line:  # no year of this century: no date-time to look for
            continue
        found: list[datetime] = []
        for rx, conv in _WRITTEN:
            for m in rx.finditer(line):
                try:
                    found.append(conv(m))
                except (ValueError, KeyError):
                    continue
        for m in _RFC2822.finditer(line):
            d, mon, y, h, mi, sec = m.groups()
            try:
                found.append(datetime(int(y), _mon(mon), int(d), int(h), int(mi), int(sec)))
            except (ValueError, KeyError):
                continue
        for dt in found:
            if dt <= cap and (best is None or dt > best):
                best = dt
    return best


ROTATED = re.compile(r"-(\d{8})(?:\.(?:gz|bz2|xz))?$")
"""logrotate's ``dateext`` name (``messages-20250301``, ``.gz`` when compressed): the day it was rotated, after its
last line."""


def rotated_on(rel: str) -> datetime | None:
    """The day a rotated syslog file's name says it was rotated (``messages-20250301.gz``), else None."""
    if not (m := ROTATED.search(rel)):
        return None
    try:
        return datetime.strptime(m.group(1), "%Y%m%d")
    except ValueError:
        return None


def klog_stamp(line: str, ref: datetime) -> datetime | None:
    """A klog stamp (``E0111 03:29:15.700191``, no year): the year that puts it closest to ``ref``."""
    m = _TS_KLOG.match(line)
    if not m:
        return stamp(line, "iso")
    mo, d, h, mi, s, us = (int(x) for x in m.groups())
    return _closest_year(ref, lambda y: datetime(y, mo, d, h, mi, s, us))


def dir_stamp(tag: str | None) -> datetime | None:
    """The time in a black-box dump directory's name (``20230713162044-070000011``)."""
    m = _DIR_STAMP.match(tag or "")
    if not m:
        return None
    try:
        y, mo, d, h, mi, sec = (int(x) for x in m.groups())
        return datetime(y, mo, d, h, mi, sec)
    except ValueError:
        return None


def syslog_stamp(line: str, ref: datetime) -> datetime | None:
    """A syslog time stamp (no year): the year that puts it closest to ``ref``; ISO stamps (rsyslog) too."""
    m = _TS_SYSLOG.match(line)
    if not m:
        return stamp(line, "iso")
    mon, d, h, mi, s = m.groups()
    return _closest_year(ref, lambda y: datetime(y, _mon(mon), int(d), int(h), int(mi), int(s)))


def syslog_us(line: str, ref: datetime, memo: dict[tuple[str, str], list[int]]) -> int | None:
    """``to_us(syslog_stamp(line, ref))``, with the days each ``(month, day)`` may fall on (the year before ``ref``'s,
    its own and the next, those that exist) kept in ``memo`` (one per ``ref``): the closest is chosen among them in
    integer microseconds, first in year order on a tie, as :func:`_closest_year` does with datetimes."""
    m = _TS_SYSLOG.match(line)
    if not m:
        return to_us(stamp(line, "iso"))
    mon, d, hh, mm, ss = m.groups()
    h, mi, s = int(hh), int(mm), int(ss)
    if h > 23 or mi > 59 or s > 59:  # datetime() refuses it in every year
        return None
    days = memo.get((mon, d))
    if days is None:
        days = memo[(mon, d)] = _days_of(mon, int(d), ref.year)
    t = ((h * 60 + mi) * 60 + s) * 1_000_000
    at = to_us(ref)
    best: int | None = None
    for day in days:
        v = day + t
        if best is None or abs(v - at) < abs(best - at):
            best = v
    return best


def _days_of(mon: str, d: int, year: int) -> list[int]:
    """Microseconds (since :data:`EPOCH`) of day ``d`` of month ``mon`` in ``year`` - 1, ``year``, ``year`` + 1, the
    years it exists in."""
    out = []
    for y in (year - 1, year, year + 1):
        try:
            out.append((date(y, _mon(mon), d).toordinal() - 1) * _US_DAY)
        except (ValueError, KeyError):
            continue
    return _not_ahead(out, _tomorrow_us() - _US_DAY)  # (a day's start: its last second is before the cap too)


# ---- a whole file at once ------------------------------------------------------------------------------------------
EPOCH = datetime(1, 1, 1)
"""Integer times count microseconds from here (what the reader sorts and subtracts: ints, not datetimes)."""
_US_DAY = 86_400_000_000


@overload
def to_us(dt: datetime) -> int: ...
@overload
def to_us(dt: None) -> None: ...
@overload
def to_us(dt: datetime | None) -> int | None: ...
def to_us(dt: datetime | None) -> int | None:
    """A naive datetime as integer microseconds since :data:`EPOCH` (None stays None)."""
    if dt is None:
        return None
    return (dt.toordinal() - 1) * _US_DAY + ((dt.hour * 60 + dt.minute) * 60 + dt.second) * 1_000_000 + \
        dt.microsecond


def from_us(us: int) -> datetime:
    """The inverse of :func:`to_us`."""
    return EPOCH + timedelta(microseconds=us)


def _no_groups(pattern: str) -> str:
    return re.sub(r"\((?!\?)", "(?:", pattern)


_BLOCK_FIRST = {"slog": _TS_SLOG, "hwlog": _TS_HWLOG, "iso": _TS_ISO}
"""The styles :func:`block_stamps` scans in one pass: their first stamp form (fixed-width fields through the second,
then an optional fraction; no anchor, look-around or ``\\s`` that could reach past a line's end)."""
_BLOCK_RX = {style: re.compile(r"(?m)^(?=(?:\[(\w+)[^\S\n]*\])?)(?:([^\n]{0," + str(_STAMP_SCAN - 1) + r"}?)("
                               + _no_groups(rx.pattern) + r"))?[^\n]*")
             for style, rx in _BLOCK_FIRST.items()}
"""Per line of a block: its bracketed level (``_LEVEL`` of the reader, ``\\s`` kept inside the line), the text before
the leftmost match of the style's first form starting in the head, and that match."""


def block_scan(lines: list[str], style: str, digits_known: bool = False) -> list[tuple[str, str, str]] | None:
    """Per line of a block, in one regex scan: its bracketed level as written (``[ERROR ]`` -> ``ERROR``; ``""``:
    none), the text before its stamp and the stamp of the style's first form (``""``: none in the head); read them
    with :class:`BlockStamps`. None when the block cannot be scanned so (a digit beyond ASCII in it, or a style
    without a block form).

    Why a stamp found so is :func:`stamp`'s: the first form has no assertion, so a match of it in the head (the first
    :data:`_STAMP_SCAN` characters) is a match in the line, and the leftmost match in the line, when it ends inside
    the head, is the head's leftmost and takes the same path through the pattern. A line whose match does not end
    inside the head, or that has none, is read by :func:`stamp` itself (which then tries the style's other forms).
    ``digits_known``: the caller found no :data:`WIDE_DIGIT` in these lines (:meth:`opsbrain.bundle.walk._File.
    block_readable`): not looked for again (session 41: a second scan of every character of a Chinese file)."""
    rx = _BLOCK_RX.get(style)
    if rx is None:
        return None
    if not lines:
        return []
    text = "\n".join(lines)
    if not digits_known and not text.isascii() and WIDE_DIGIT.search(text):
        return None
    found = rx.findall(text)
    return found if len(found) == len(lines) else None  # one match a line, by construction


def block_ready(lines: list[str], style: str) -> bool:
    """Whether :func:`block_scan` reads ``lines`` (a style with a block form, no digit beyond ASCII), so that it may
    read them block by block (a match a line, by construction: the blocks' matches are the whole's)."""
    return style in _BLOCK_RX and not any(WIDE_DIGIT.search(x) for x in lines if not x.isascii())


WIDE_DIGIT = re.compile(r"[^\x00-\x7f\D]")
"""A decimal digit beyond ASCII (``re``'s ``\\d`` takes it, as the stamps' digits): a stamp of such digits is read by
``int`` in :func:`stamp` but compared as text in :meth:`BlockStamps.read` (``"٠٥" >= "60"``), so a block holding one is
read line by line. Other non-ASCII text (a Chinese console's messages, session 40) is scanned as ASCII is: each stamp
form is of ASCII literals and digits, ``\\w`` and ``\\s`` (in the level's brackets) are ``re``'s in both readings,
and the block's lines are split at ``\\n`` only, as ``(?m)^`` sees them. Written as "neither ASCII nor a non-digit" (an
ASCII digit is 0-9): the same characters as ``[^\\D0-9]``, found ~40% faster in Chinese text (session 41)."""


def style_ready(style: str) -> bool:
    """Whether :func:`block_scan` has a block form for ``style`` (:func:`block_ready` without its lines' test)."""
    return style in _BLOCK_RX


MAX_UNSTAMPED = 4096
"""reason: bounds :attr:`BlockStamps._unstamped` (a file of distinct lines without stamps: a few hundred kB)."""


class BlockStamps:
    """Reads the stamps :func:`block_scan` found as integer microseconds (:func:`to_us`), as :func:`stamp` would
    (None for impossible fields: the ValueError on which ``stamp`` answers None), with the days and minutes of the
    day already seen kept (a log holds few of them)."""

    def __init__(self, style: str, memo: dict[str, int | None] | None = None) -> None:
        self.style = style
        self.slog = style == "slog"
        self._minutes: dict[str, int | None] = {} if memo is None else memo
        """``YYYY?MM?DD?HH:MM`` -> its microseconds (None: no such day or minute); shareable between the files of
        a bundle (:func:`_prefix_us` does not depend on the separators, only on the digits)."""
        self._levels: dict[str, str] = {}
        self._unstamped: dict[str, int | None] = {}
        """A line without the first form's stamp -> :func:`stamp`'s reading of it (a pure function of the line): a
        console's lines repeat (the same traceback and error lines again and again)."""

    def level(self, written: str) -> str | None:
        """The level as the reader keeps it (upper case), None for none."""
        if not written:
            return None
        up = self._levels.get(written)
        if up is None:
            up = self._levels[written] = written.upper()
        return up

    def read(self, lines: list[str], found: list[tuple[str, str, str]]) -> tuple[list[int | None], list[str | None]]:
        """The stamps and levels of ``lines``, as :func:`block_scan` found them (one loop, no call a line)."""
        minutes, uppers, style, slog, level_of = self._minutes, self._levels, self.style, self.slog, self.level
        unstamped = self._unstamped
        levels = [(uppers.get(lv) or level_of(lv)) if lv else None for lv, _b, _w in found]
        us: list[int | None] = []
        add = us.append
        for line, (_lv, before, whole) in zip(lines, found, strict=True):
            if not whole or len(before) + len(whole) > _STAMP_SCAN:
                if not line or line.isspace():
                    add(None)
                elif (got := unstamped.get(line, -1)) != -1:  # (never -1: no time lies before EPOCH)
                    add(got)
                else:
                    if len(unstamped) >= MAX_UNSTAMPED:
                        unstamped.clear()
                    add(unstamped.setdefault(line, to_us(stamp(line, style))))
                continue
            minute = minutes.get(whole[:16], -1)  # (never -1: no time lies before EPOCH)
            if minute == -1:
                minute = minutes[whole[:16]] = _prefix_us(whole[:16])
            if minute is None or whole[17:19] >= "60":
                add(None)
            elif slog:  # SS.mmm.uuu
                add(minute + int(whole[17:19] + whole[20:23] + whole[24:27]))
            elif len(whole) > 20:  # SS.f (1 to 6 digits)
                add(minute + int(whole[17:19] + whole[20:].ljust(6, "0")))
            else:
                add(minute + int(whole[17:19]) * 1_000_000)
        return us, levels


def _day_us(day: str) -> int | None:
    """``YYYY?MM?DD`` (the separator either way) as microseconds since :data:`EPOCH`; None when no such day."""
    try:
        return (date(int(day[0:4]), int(day[5:7]), int(day[8:10])).toordinal() - 1) * _US_DAY
    except ValueError:
        return None


def _prefix_us(prefix: str) -> int | None:
    """``YYYY?MM?DD?HH:MM`` as microseconds since :data:`EPOCH`; None when no such day or minute."""
    day, minute = _day_us(prefix[:10]), _minute_us(prefix[11:16])
    return None if day is None or minute is None else day + minute


def _minute_us(hh_mm: str) -> int | None:
    """``HH:MM`` as microseconds into the day; None past 23:59."""
    h, m = int(hh_mm[0:2]), int(hh_mm[3:5])
    return None if h > 23 or m > 59 else (h * 60 + m) * 60_000_000
