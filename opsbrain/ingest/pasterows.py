"""A paste's rows put back into lines: a terminal's wrapped rows (:func:`wrapped_paste`, :func:`unwrap`) and rows a
paste cut at its width (:func:`goes_on`, :func:`rejoin`). Moved out of :mod:`opsbrain.ingest.surface` (session 60)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from opsbrain.ingest.surface import plain
from opsbrain.lazyre import lazy_compile

WRAP_COLUMNS = 80
"""A terminal's default width (VT100, xterm, the Linux console): a paste of its screen has long lines cut into rows
of exactly this many characters."""
WRAP_LOOK = 2000
"""Lines looked at, at the start of a file, to tell a wrapped paste: none longer than :data:`WRAP_COLUMNS` and at
least two rows exactly that long (one such line is as likely a line that happens to be 80 characters, unless the
row after it goes on its text)."""
_RULE = "-=*#"


def _row(text: str) -> bool:
    """A row a terminal cut: exactly :data:`WRAP_COLUMNS` characters and not a line drawn to that width, which is
    whole: a table row ends in its border (``|``, ``+``: an npu-smi or hccn_tool table 80 wide stays a table), a
    rule or banner starts and ends with the same character (``-``, ``=``, ``*``, ``#``); a text that only starts
    with one (``---Thread- ...: ret =``, a torch_npu queue line) is text."""
    return len(text) == WRAP_COLUMNS and text[-1] not in "|+" and not (text[0] in _RULE and text[-1] == text[0])


def _columns(text: str) -> set[int]:
    """Where a column of a table without borders starts: a character after a run of two or more spaces."""
    return {j for j in range(2, len(text)) if text[j] != " " and text[j - 1] == " " and text[j - 2] == " "}


def _aligned(a: str, b: str) -> bool:
    """Two rows of :data:`WRAP_COLUMNS` characters that are rows of one table without borders, padded to that width:
    two or more of their columns start at the same places (a Huawei switch's ``display interface brief``, ``400GE1/0/25
    up   up   0.01%  0.01%   0   0`` under its ``Interface  PHY  Protocol ...`` head; session 44: four such rows
    were read as one wrapped line, and the ``transceiver information`` head after them was lost). A terminal's cut
    rows of text share no such columns."""
    return len(a) == len(b) == WRAP_COLUMNS and len(_columns(a) & _columns(b)) >= 2


_LINE_START = lazy_compile(r"\s|\[|\(|\d{4}[-/.]|\d\d[-/:.]|[A-Z][a-z]{2} [ \d]\d |\d{1,2}月 [ \d]\d |[EWIF]\d{4} |"
                         r"(?:ERROR|WARNING|WARN|INFO|DEBUG|CRITICAL|FATAL|Traceback|File \")\b")
"""How a line of its own starts: an indent, a ``[LEVEL]`` or ``[time]``, a date or time, a syslog month (``Mar``,
zh_CN ``3月``), a klog head (``E0818``), a level word, a traceback's lines."""


def _continues(text: str) -> bool:
    """A row that goes on the text cut at the row before, not a line of its own (:data:`_LINE_START`)."""
    return bool(text) and not _LINE_START.match(text)


def wrapped_paste(head: list[str]) -> bool:
    """Whether the first lines of an input (:data:`WRAP_LOOK` of them) are a terminal's wrapped rows: none longer
    than :data:`WRAP_COLUMNS`, and at least two rows exactly that long, or one whose next row goes on its text (a
    one-line message wrapped once: ``... in configuration file acl.json i`` then ``s invalid. Reason: ...``)."""
    if not head:
        return False
    texts = [x.rstrip("\r") for x in head]
    if max(map(len, texts)) > WRAP_COLUMNS:
        return False
    rows = [i for i, t in enumerate(texts) if _row(t) and not any(
        _aligned(t, texts[k]) for k in (i - 1, i + 1) if 0 <= k < len(texts))]
    return len(rows) >= 2 or (len(rows) == 1 and rows[0] + 1 < len(texts) and _continues(texts[rows[0] + 1]))


def unwrap(texts: Iterable[str], cut: int) -> Iterator[tuple[int, str]]:
    """Numbered lines of a wrapped paste: a row of exactly :data:`WRAP_COLUMNS` characters joined with the row after
    it (the line numbered as its first row), until a longer row shows the input is no wrapped paste after all (held
    rows then stand alone, and so do the rest)."""
    held, at, wrapped, last = "", 0, True, ""
    for n, row in enumerate(texts, 1):
        full = _row(row)
        if wrapped and len(row) > WRAP_COLUMNS:
            wrapped = False
        if wrapped and full and _aligned(last, row):  # a table's rows (:func:`_aligned`): each a line of its own
            if held:
                yield at, held
            held, last = "", row
            yield n, row
            continue
        last = row
        if held and wrapped:
            row, n = (held + row)[:cut], at
        elif held:
            yield at, held
        held = ""
        if wrapped and full:
            held, at = row, n
            continue
        yield n, row
    if held:
        yield at, held


REJOIN_MIN = 60
"""The shortest row a paste may have cut at its width: editors, mail and issue forms wrap prose at 70-80 columns
(a terminal's exact 80 is :func:`unwrap`'s); a shorter line ended where its writer ended it."""
_PROSE_GOES_ON = lazy_compile(r"[a-z]+ ")
"""How a cut row's rest starts: a lower-case word and a space (``of visible devices (0).``). Not a name before a colon,
a call, a path, a host, a key or a command (``error:``, ``what():``, ``torch._C``, ``npu-smi``, ``rank=3``)."""
_OWN_LINE = lazy_compile(r"terminate called |during handling |double free |corrupted |munmap_chunk|malloc")
"""Lower-case prose that a program prints as a line of its own (libstdc++'s abort, Python's chained traceback, glibc's
heap checks): never the rest of the row before."""
_LEVELLED = lazy_compile(r"\b(?:DEBUG|INFO|WARN(?:ING)?|ERROR|CRITICAL|FATAL)\b|\[[DIWEF]\]")
_COMMAND_END = lazy_compile(r"\s--?[A-Za-z][\w-]*$")
"""A command line's last option (``/usr/local/Ascend/driver/tools/hccn_tool -i 0 -net_health -g``): the row after it
is the command's answer (``net health status: Socket failed``), never the rest of the command (session 44: a
collection's full command paths reach :data:`REJOIN_MIN`, and the answer, a readout, was read joined to it)."""


def goes_on(prev: str, row: str) -> bool:
    """Whether ``row`` is the rest of ``prev`` that a paste cut at its width (``... must be less than or equal to the
    number`` then ``of visible devices (0).``): ``prev`` is at least :data:`REJOIN_MIN` long, ends inside a word or
    number (no end punctuation, bracket or table border), and is prose, with no level, no indent and no head that
    carries a level (a logger's line whose rest lost its head would be read at that level); ``row`` starts with a
    lower-case word and a space (:data:`_PROSE_GOES_ON`), is none of :data:`_OWN_LINE`, and has no head of its own.
    A traceback's indented lines, a log line with its head, a table row, a rule and ``key: value`` lines never
    continue a row, and no row continues a command line (:data:`_COMMAND_END`)."""
    if len(prev) < REJOIN_MIN or not prev[-1].isalnum() or not row[:1].islower() or not row.isascii() or \
            _COMMAND_END.search(prev):
        return False
    if not _PROSE_GOES_ON.match(row) or _OWN_LINE.match(row) or plain(row)[1]:
        return False
    body, head = plain(prev)
    return not (_LEVELLED.search(head) or _LINE_START.match(body) or _LEVELLED.match(body))


def rejoin(rows: Iterable[str], cut: int) -> Iterator[tuple[int, str]]:
    """Numbered lines, a row that :func:`goes_on` the one before joined to it with a space (the line numbered as its
    first row; a joined line is cut at ``cut``)."""
    held: str | None = None
    last, at = "", 0
    for n, row in enumerate(rows, 1):
        if held is not None and goes_on(last, row):
            held, last = (held + " " + row)[:cut], row
            continue
        if held is not None:
            yield at, held
        held, last, at = row, row, n
    if held is not None:
        yield at, held
