"""A collector's head on every line of a file: taken off every line that carries it (session 60, probe59a).

:func:`opsbrain.ingest.surface.plain` takes a head off a line when the line alone shows it is one. Some heads a
tool puts before each line it collects can be told only from the whole: ``srun --label``'s ``3: `` (a numbered
line of any text would do), a syslog or journal head before a traceback's lines (``plain`` takes it off only before
a layout it reads: a bracketed level, a table row), a fan-out tool's ``worker-1: `` likewise. probe59a wrapped 38
excerpts as collectors do: behind such heads a wait read config_error at its waiter and healthy runs read
framework_error. Where most lines of a file's first ones start with one such head (:data:`SHARE` of the lines that
are not blank, at least :data:`MIN_LINES`), it is the collection's: taken off each line that has it, then the line's
own heads as ``plain`` finds them. The heads (:data:`FORMS`):

- a syslog or journal head with its program, stamped as rsyslog's default (``Jan  1 10:00:00 host-7 python[1234]: ``;
  ``8月 18 16:33:56 ...`` under a Chinese locale), journalctl's ``-o short`` (``Jan 01 ...``), ``-o short-iso``
  (``2025-01-01T10:00:00+0800 host-7 python[1234]: ``, systemd ``journalctl(1)``) and rsyslog's RFC 3339 file format
  (``2025-01-01T10:00:00.123456+08:00 ...``): not the kernel's, whose lines the kernel parsers read with their head
  (``kernel: [ 12.3] EDAC ...``) as before;
- Jenkins' Timestamper on a Pipeline's console (``[2025-01-01T10:00:00.123Z] ``);
- ``srun --label``'s task number (``3: ``, right-aligned to the widest number: `` 3: `` among 16 tasks;
  Slurm's ``srun(1)``);
- a fan-out tool's host (pdsh, clush, ``ansible -m shell``: ``worker-1: ``, a digit and a dot or dash in it, as
  ``plain`` takes it before a layout), not a device's name (``npu-3: ``, ``device-3: ``: a loop over a host's devices
  that prints each one's answer; review60).

The head taken off stays in the line's prefix, where the host (:func:`opsbrain.ingest.where.head_host`,
:func:`opsbrain.ingest.surface.head_source`) and the time (``parse_stamp``) are read as before."""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import islice

from opsbrain.ingest import surface
from opsbrain.lazyre import lazy_compile

_MONTH_STAMP = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec|(?:1[0-2]|0?[1-9])\u6708) [ \d]\d \d\d:\d\d:\d\d"
_PROGRAM = r" [A-Za-z0-9][\w.-]{0,62} (?!kernel:)[\w.\-/@]{1,64}(?:\[\d{1,10}\])?: "
FORMS: dict[str, re.Pattern[str]] = {
    # (an ISO stamp: a journal's short-iso head names the pid, as where.head_host reads it; a level word is no host)
    "journal": lazy_compile("(?:" + surface.ISO_STAMP + " " + surface.NOT_A_LEVEL + _PROGRAM[1:].replace(
        r"(?:\[\d{1,10}\])?", r"\[\d{1,10}\]") + "|" + _MONTH_STAMP + _PROGRAM + ")"),
    "jenkins": lazy_compile(r"\[\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:?\d\d)?\] "),
    "label": lazy_compile(r" {0,6}\d{1,7}: "),
    "fan-out": lazy_compile(r"(?!(?i:npu|device|dev|chip|davinci|card)[-_]?\d{1,4}: )" + surface._FAN_OUT),
}
"""The heads a collector puts before each line, read at a line's start (the module's docstring)."""
SHARE = 0.6
"""Of a file's first lines that are not blank, the share that starts with one head for it to be the collection's.
reason: a journal keeps a multi-line message's later lines without the head, a traceback's are a third to a half of a
paste; a file whose own lines start so (a numbered list, ``rank-0: ``) by chance does not reach it."""
MIN_LINES = 3
"""Lines with the head, at least: two lines that start with ``3: `` are no collection."""
SAMPLE = 200
"""Lines that are not blank looked at, at a file's start."""
LOOK = 8
"""Lines that are not blank looked at before the first with a head: a collector's head is on a file's first lines (a
journal's ``-- Logs begin at ... --`` line before them)."""


def _form_of(text: str) -> str | None:
    for name, form in FORMS.items():
        if form.match(text):
            return name
    return None


NUMBERED = lazy_compile(r" {0,8}(\d{1,7})(?: ?[|\u2502] ?|: ?| |\t)")
"""A line number an editor, a pager or a viewer put before each line: ``  12 | `` (a code viewer's gutter), ``12:``,
``less -N``'s `` 12 ``. Told only where the numbers go up one a line (:data:`IN_ORDER`): a clock's ``10:`` or
``srun --label``'s task numbers do not (session 60, probe60a: behind such numbers every layout read at a line's start
was hidden, and healthy runs read framework_error). ``cat -n``'s tab is one of them (``plain`` takes it off a line
alone too). The gutter is taken off every later line that starts so: a paste that goes on without numbers loses a
number and a space at the start of a line (review60: ``3 packets transmitted`` after numbered lines)."""
IN_ORDER = 0.8
"""Of the numbered lines, the share whose number is the one before's plus one."""


_GUTTER = lazy_compile(r" {0,8}(\d{1,7})([ |\u2502:\t]+)")


def _numbered(rows: list[str]) -> re.Pattern[str] | None:
    """The numbers' gutter where ``rows`` (lines that are not blank) are numbered in order (:data:`NUMBERED`): the
    number and what every numbered line has after it (``  12 | ``: `` | ``; ``12:`` before an indented line keeps its
    indent), else None."""
    found = [m for r in rows if (m := _GUTTER.match(r))]
    if len(found) < max(MIN_LINES, SHARE * len(rows)):
        return None
    numbers = [int(m.group(1)) for m in found]
    steps = sum(1 for a, b in zip(numbers, numbers[1:], strict=False) if b == a + 1)
    gutter = os.path.commonprefix([m.group(2) for m in found])  # ("" where the lines' separators differ)
    if steps < IN_ORDER * (len(numbers) - 1) or not gutter:
        return None
    return re.compile(r" {0,8}\d{1,7}" + re.escape(gutter))


_ANY: re.Pattern[str] | None = None


def _any_head() -> re.Pattern[str]:
    """One pattern of every head of :data:`FORMS` and :data:`NUMBERED` (one match a line)."""
    global _ANY
    if _ANY is None:
        _ANY = re.compile("|".join(f"(?:{p.pattern})" for p in (*FORMS.values(), NUMBERED)))
    return _ANY


def may_have_head(lines: Iterable[str]) -> bool:
    """Whether one of the first :data:`LOOK` lines that are not blank starts with a head :func:`shared_head` tells
    (a cheap test before it: without one, it says None)."""
    seen = 0
    for raw in lines:
        if not raw.strip():
            continue
        text = raw.lstrip("\ufeff")
        if _any_head().match(text) or ((got := surface.plain(text))[1] and _any_head().match(got[0])):
            return True
        seen += 1
        if seen >= LOOK:
            return False
    return False


def shared_head(lines: Iterable[str]) -> re.Pattern[str] | None:
    """The head of :data:`FORMS` that most of ``lines`` (a file's first ones) start with, or line numbers in order
    (:data:`NUMBERED`), or None; none looked for where the first :data:`LOOK` lines show none (:func:`may_have_head`:
    most files)."""
    rows = list(islice((raw.lstrip("\ufeff") for raw in lines if raw.strip()), SAMPLE))
    if not may_have_head(rows):
        return None
    if NUMBERED.match(rows[0]) and (gutter := _numbered(rows)) is not None:
        return gutter
    counts = Counter(name for r in rows if (name := _form_of(r) or _form_of(surface.plain(r)[0])) is not None)
    if not counts:
        return None
    name, most = counts.most_common(1)[0]
    return FORMS[name] if most >= MIN_LINES and most >= SHARE * len(rows) else None


FENCE = lazy_compile(r" {0,3}(`{3,}|~{3,})[\w+.#-]*\s*$")
"""A Markdown code fence (CommonMark 0.31 4.5 "Fenced code blocks": up to three spaces, three or more backticks or
tildes, an info string): the text view's test too (``realtext.MARKDOWN_FENCE``)."""
PROSE_BEFORE = 10
"""Lines that are not blank before a paste's first Markdown fence, at most, for the lines outside its fences to be the
writer's words (a question, "Here is the log:"), not the log's: a program's log whose printed text holds a fence
(a served model's Markdown answer) has its own lines before it."""
PROSE_SHARE = 0.25
"""Of the lines that are not blank, the share outside the fences, at most."""


def fence_prose(head: Sequence[str]) -> set[int]:
    """The indexes of ``head``'s lines (a paste's first ones) that are the writer's words around its log: the lines
    that are not blank outside its Markdown fences, where ``head`` is such a paste (a fence opened after at most
    :data:`PROSE_BEFORE` other lines and closed, the lines outside at most :data:`PROSE_SHARE`; a fence left open
    runs to the end); else none (session 60, probe60a: ``... fails after a few steps. Here is the log:`` before a
    fenced healthy run read framework_error, the sentence its evidence). The fence lines themselves are read as
    before (the text view leaves them out). The lines found are no log's words: the text view leaves them out, their
signals are read (a reply's prose may quote the error)."""
    inside, opened, fences, before = False, "", 0, 0
    outside: list[int] = []
    solid = 0
    for i, raw in enumerate(head):
        if not raw.strip():
            continue
        solid += 1
        m = FENCE.match(raw)
        if m is not None and (not inside or (m.group(1)[0] == opened[0] and len(m.group(1)) >= len(opened)
                                             and raw.strip() == m.group(1))):
            inside, opened, fences = not inside, m.group(1), fences + 1
            continue
        if not inside:
            outside.append(i)
            if not fences:
                before += 1
                if before > PROSE_BEFORE:
                    return set()
    if fences < 2 and not (fences == 1 and inside):
        return set()
    return set(outside) if len(outside) <= PROSE_SHARE * solid else set()


def plain_under(raw: str, head: re.Pattern[str] | None) -> tuple[str, str]:
    """:func:`opsbrain.ingest.surface.plain` of a line of a file whose lines carry ``head`` (:func:`shared_head`):
    ``head`` taken off where the line has it, before or after the heads ``plain`` takes off."""
    if head is None:
        return surface.plain(raw)
    if m := head.match(raw):
        line, prefix = surface.plain(raw[m.end():])
        return line, raw[:m.end()] + prefix
    line, prefix = surface.plain(raw)
    if prefix and (m := head.match(line)):
        rest, more = surface.plain(line[m.end():])
        return rest, prefix + line[:m.end()] + more
    return line, prefix


def plain_lines(lines: Sequence[str], head: re.Pattern[str]) -> tuple[list[str], list[str]]:
    """Each line's text and prefix under ``head``, as :func:`plain_under` gives them: ``head`` taken off the lines that
    start with it, then the rest read by one scan (:func:`opsbrain.ingest.plainscan.plain_all`); a line without it by
    :func:`plain_under` (a bundle's file: a call a line cost a 100,000-line bundle ~50 ms)."""
    from opsbrain.ingest.plainscan import plain_all

    rest: list[str] = []
    heads: list[str | None] = []
    for raw in lines:
        m = head.match(raw)
        rest.append(raw[m.end():] if m else raw)
        heads.append(raw[:m.end()] if m else None)
    got = plain_all("\n".join(rest), rest)
    texts, prefixes = (list(got[0]), list(got[1])) if got is not None else (list(rest), [""] * len(rest))
    for i, taken in enumerate(heads):
        if taken is None:
            texts[i], prefixes[i] = plain_under(lines[i], head)
        else:
            prefixes[i] = taken + prefixes[i]
    return texts, prefixes


__all__ = ["FENCE", "FORMS", "IN_ORDER", "LOOK", "MIN_LINES", "NUMBERED", "PROSE_BEFORE", "PROSE_SHARE", "SAMPLE",
           "SHARE", "fence_prose", "may_have_head", "plain_lines", "plain_under", "shared_head"]
