"""The lines of the bytes appended to one followed file, read by the rules ``diagnose --logs`` reads a file by
(:mod:`opsbrain.ingest.text`), for a file that arrives in pieces: its encoding told by its first bytes (UTF-16 with or
without a byte-order mark, GB18030, else UTF-8; :mod:`opsbrain.ingest.encoding`), and, in a UTF-8 file, a single line
that is not UTF-8 but GB18030 Chinese read as such (one host of a central syslog writing GBK); runs of NULs read as
line breaks; a line longer than :data:`~opsbrain.ingest.MAX_LINE` characters scanned in its first part and counted;
lines of binary content counted and skipped, and a file whose first :data:`~opsbrain.ingest.text.BINARY_HEAD` lines
are at least half binary not read further; the heads a collection put before a line taken off
(:func:`~opsbrain.ingest.surface.plain`) and its time stamp read (a line without one takes the one before)."""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from opsbrain.ingest import MAX_LINE
from opsbrain.ingest.encoding import SAMPLE, sniff
from opsbrain.ingest.exporterpage import is_exporter_page, page_line
from opsbrain.ingest.surface import fill_holes, looks_binary
from opsbrain.ingest.text import BINARY_HEAD, TextStats
from opsbrain.ingest.timestamps import parse_stamp

KEEP_REST = 16 * MAX_LINE
"""A line without its end yet is kept up to this many bytes; past it, its head only (as ``diagnose --logs``)."""
DAY_S = 86400.0
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f\ufffd]")
"""What a line of text in GB18030 holds none of (binary content decoded as GB18030 does: a control byte in ~10%)."""


@dataclass
class TailText:
    """How one followed file is being read: its codec, the partial line, the binary head count, the last stamp."""

    codec: str | None = None  # told from the file's first bytes, at its first read
    decoder: Any = None  # an incremental decoder (UTF-16: lines cannot be split on the byte 0x0A)
    rest: bytes = b""  # the partial last line (UTF-8 and GB18030 files)
    rest_text: str = ""  # the partial last line (UTF-16 files)
    cut: bool = False  # the partial line was longer than KEEP_REST: its head only is kept
    lines: int = 0  # lines read
    binary: int = 0  # lines of binary content
    binary_file: bool = False  # its first BINARY_HEAD lines were at least half binary: not read further
    page_file: bool = False  # an npu-exporter metrics page (session 41): not read as log lines
    page_lines: int = 0  # the page's lines passed over in the last read (for the log lines' numbers after it)
    gb_lines: bool = False  # some of its lines were read as GB18030 (said once)
    stamp: float | None = None  # the last time stamp read in it
    year: int | None = None  # the year of its last dated stamp (for syslog stamps, which have none)
    holes_told: bool = False  # its runs of NULs were said once


def tell_codec(text: TailText, head: bytes, rel: str, stats: TextStats) -> None:
    """Take the file's codec from its first bytes (``head``: up to :data:`SAMPLE` of them), said in the notes when
    not UTF-8."""
    codec = sniff(head[:SAMPLE])
    text.codec = codec
    if codec.startswith("utf-16"):
        text.decoder = codecs.getincrementaldecoder(codec)("replace")
    if codec != "utf-8":
        why = "its byte-order mark" if head[:2] in (b"\xff\xfe", b"\xfe\xff") else (
            "its bytes are not UTF-8" if codec == "gb18030" else "its NUL bytes on one half")
        stats.notes.append(f"{rel}: read as {codec} text ({why})")


def _decode(raw: bytes, codec: str) -> tuple[str, bool]:
    """One line's bytes as text: the file's codec; in a UTF-8 file, a line that is not UTF-8 but GB18030 Chinese
    (and whether it was read so)."""
    if codec != "utf-8":
        return raw.decode(codec, "replace"), False
    try:
        return raw.decode("utf-8"), False
    except UnicodeDecodeError:
        pass
    if sniff(raw) == "gb18030" and not _CONTROL.search(gb := raw.decode("gb18030", "replace")):
        return gb, True
    return raw.decode("utf-8", "replace"), False


def split_lines(text: TailText, data: bytes, rel: str, stats: TextStats) -> list[str | None]:
    """The complete lines that ``data`` (the bytes appended since the last read) ends, decoded, cut to MAX_LINE
    (counted in ``stats.lines_cut``), without NULs and a CR end; a line of binary content counted and None."""
    text.page_lines = 0
    if text.binary_file:
        return []
    codec = text.codec or "utf-8"
    gbs: set[int] = set()  # the lines read as GB18030 in a UTF-8 file
    was_cut = text.cut  # the partial line kept from the last read was cut: the line it ends is a cut one
    text.cut = False
    if text.decoder is not None:
        parts = (text.rest_text + text.decoder.decode(data)).split("\n")
        text.rest_text = parts.pop()
        if len(text.rest_text) > KEEP_REST:
            text.rest_text, text.cut = text.rest_text[: 4 * MAX_LINE], True
        if text.lines == 0 and parts and parts[0][:1] == "\ufeff":
            parts[0] = parts[0][1:]
        raws = parts
    else:
        if b"\x00" in data and codec == "utf-8":
            data, holes = fill_holes(data)
            if holes and not text.holes_told:
                text.holes_told = True
                stats.notes.append(f"{rel}: runs of NUL bytes (the writes a crash lost) read as line breaks")
        chunks = (text.rest + data).split(b"\n")
        text.rest = chunks.pop()
        if len(text.rest) > KEEP_REST:  # a line without end: keep its head, drop the middle
            text.rest, text.cut = text.rest[: 4 * MAX_LINE], True
        raws = []
        for c in chunks:
            line, gb = _decode(c, codec)
            if gb:
                gbs.add(len(raws))
            raws.append(line)
    if not raws:  # the cut line has not ended yet
        text.cut = text.cut or was_cut
    if text.lines == 0 and not text.page_file and len(raws) >= 2 and _page_head(raws):
        # a page saved into the tree (curl > DIR/node/metrics.prom from cron): its series are readings, rewritten
        # whole at every scrape; read as log lines they gave nothing and said nothing (session 41)
        text.page_file = True
        said = (f"{rel}: an npu-exporter metrics page, not log lines: not followed (sweep it: watch --url "
                "file:///PATH, or sweep once --source prometheus)")
        if said not in stats.not_read:  # once, however often the page is written again
            stats.not_read.append(said)
    if text.page_file:  # its page lines passed over; log lines after the page (``curl ...; dmesg``) are read
        k = next((k for k, raw in enumerate(raws) if not page_line(raw)), len(raws))
        text.page_lines, raws = k, raws[k:]
        if not raws:
            return []
        text.page_file = False  # (session 42: before, every line after a page was dropped, appended ones too)
        if (said := f"{rel}: log lines after its npu-exporter metrics page: read") not in stats.notes:
            stats.notes.append(said)
        gbs = {g - k for g in gbs if g >= k}
    out: list[str | None] = []
    for k, raw in enumerate(raws):
        text.lines += 1
        stats.lines += 1
        if (k == 0 and was_cut) or len(raw) > MAX_LINE:
            stats.lines_cut += 1
        raw = raw[:MAX_LINE].replace("\x00", "").rstrip("\r")
        if looks_binary(raw):
            text.binary += 1
            stats.binary_lines += 1
            out.append(None)
        else:
            out.append(raw)
            if k in gbs and not text.gb_lines:  # said once the line proves to be text
                text.gb_lines = True
                stats.notes.append(f"{rel}: lines read as gb18030 text (their bytes are not UTF-8)")
        if text.lines == BINARY_HEAD and text.binary >= BINARY_HEAD // 2:
            text.binary_file = True
            stats.not_read.append(f"{rel}: binary content (not text): not read after line {BINARY_HEAD}")
            return out
    return out


def _page_head(raws: list[str]) -> bool:
    """Whether a file's first lines start with an npu-exporter page (its first 64 lines up to the first that is no
    page line: a page with log lines after it is one too, session 42)."""
    head = raws[:64]
    return is_exporter_page(head[:next((k for k, raw in enumerate(head) if not page_line(raw)), len(head))])


def line_stamp(text: TailText, line: str, prefix: str, wall: float) -> float | None:
    """The time stamp of ``line`` (or of the head ``prefix`` taken off it), else the last one of its file; a stamp
    without a year (syslog) takes its file's last dated year, else the year that puts it closest to ``wall`` and not
    after tomorrow."""
    year = text.year if text.year is not None else datetime.fromtimestamp(wall).year
    ts, dated = _stamp(line, prefix, year)
    if ts is None:
        return text.stamp
    if dated:
        text.year = datetime.fromtimestamp(ts).year
    elif text.year is None and ts > wall + DAY_S:  # Dec 31 read on Jan 1: last year's
        ts = _stamp(line, prefix, year - 1)[0] or ts
    text.stamp = ts
    return ts


def _stamp(line: str, prefix: str, year: int) -> tuple[float | None, bool]:
    ts, dated = parse_stamp(line, year)
    if ts is None and prefix:
        ts, dated = parse_stamp(prefix, year)
    return ts, dated
