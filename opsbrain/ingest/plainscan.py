""":func:`opsbrain.ingest.surface.plain` of every line of a text that is not ASCII, without a call a line (session 42).

:func:`~opsbrain.ingest.surface.may_carry` tells of an ASCII file in one scan that no line carries anything
:func:`plain` takes off; a file that is not ASCII (a Chinese console log) had :func:`plain` called on each line
(~2 us a line: a fifth of the read of a 100,000-line bundle of Chinese console lines, issue 14). Here one RE2 scan
of the text (UTF-8, where RE2 counts characters as Python does) finds the lines where :func:`plain` may do more
than read full-width colons as ``: ``. :data:`TRIGGER` is a superset of every test :func:`plain` and its ``_head``
make, read off their code (a line's start, a character, a suffix; no ``\\d``, ``\\s`` or ``\\w``, whose meaning
differs between the engines), scanned on the text with its colons read (``：`` and a space after it, if any, as
``: ``: a substitution that never spans a line, done with two ``str.replace``):

- a JSON record's ``{"``, an escape (colour codes), a ``T`` at column 10 (a labelled line, logcli; tested before
  the colons are read: each colon read makes a line at most one character longer before it, so columns 10 to 20);
- Ray's `` across cluster]`` at a line's end; a ``%`` in the first 96 characters with a rate unit (``it/s``,
  ``s/it``, ``B/s``) after it (a tqdm bar, ``_PROGRESS``);
- every head ``_head`` can find: a tab at column 6 or 7 (``cat -n``), a colon after a first run without space, tab
  or quote (``grep``'s file), ``[pod/``, ``[rank``, a space, tab, ``>``, ``(`` or byte-order mark first, a level's
  or a month's first three letters, ``月`` at column 1 or 2, a ``T`` at column 10 (CRI, RFC 3339), and a space
  before ``[``, ``|``, a space or a tab in the first 112 characters (a collector's head, a compose column:
  ``_may_have_head``).

Any other line is its text with the colons read and an empty prefix; the lines found go through :func:`plain` as
before. The answer is the one ``[plain(ln) for ln in lines]`` gives, in every case (tests/test_speed42.py)."""

from __future__ import annotations

from typing import Any

from opsbrain.ingest import surface

TRIGGER = ("(?m)" + r'^\{"|\x1b| across cluster\]$|^[^\n]{10,20}T|^[^\n]{0,95}%[^\n]*(?:it/s|s/it|B/s)'
           r'|^[^\n]{6,7}\t|^[^:\n \t"' + "'" + r"]+:|^\[(?:pod/|rank)|^[ \t>(\x{feff}]|^(?:"
           + "|".join(sorted(surface._LEVEL_STARTS | surface._MONTHS))
           + r")|^[^\n]{1,2}\x{6708}|^[^\n]{0,110}(?: \[| \||  | \t)")
"""The lines :func:`plain` may take a head or more off (RE2 syntax, read in UTF-8: ``[^\\n]`` is a character)."""

_rx: Any = None


def _compiled() -> Any:
    global _rx
    if _rx is None:
        from opsbrain.multiscan import _re2

        if _re2 is None:
            _rx = False
        else:
            opts = _re2.Options()
            opts.never_capture = True
            opts.log_errors = False
            _rx = _re2.compile(TRIGGER, opts)
    return _rx


def _found(rx: Any, text: str) -> list[int]:
    """The index of each line of ``text`` a match of ``rx`` lies in (a match never spans a line), in order."""
    into: list[int] = []
    data = text.encode("utf-8")
    raw = rx._regexp.Match
    anchor = rx._regexp.Anchor.UNANCHORED
    pos, line, end = 0, 0, len(data)
    while pos <= end:
        s = raw(anchor, data, pos, end)[0][0]
        if s < 0:
            break
        line += data.count(b"\n", pos, s)
        into.append(line)
        nl = data.find(b"\n", s)
        if nl < 0:
            break
        pos, line = nl + 1, line + 1
    return into


def plain_all(text: str, lines: list[str]) -> tuple[list[str], list[str]] | None:
    """What :func:`plain` makes of ``lines`` (``text.split("\\n")``): each line's text and prefix, or None when it
    changes no line."""
    rx = _compiled()
    read = text
    found: list[int] | None = None
    if rx and "\r" not in text and hasattr(getattr(rx, "_regexp", None), "Match"):
        if "\uff1a" in text:  # _FULL_COLON's substitution ("\uff1a ?" -> ": "), as two replacements
            read = text.replace("\uff1a ", ": ").replace("\uff1a", ": ")
        try:
            found = _found(rx, read)
        except UnicodeEncodeError:  # (a lone surrogate: not from a decoded file) line by line
            read, found = text, None
    if found is None:
        read, found = text, list(range(len(lines)))
    out = read.split("\n") if read is not text else lines
    prefixes: list[str] | None = [""] * len(lines) if read is not text else None
    for i in found:
        s, p = surface.plain(lines[i])
        if prefixes is None:
            if not p and s == lines[i]:
                continue
            out, prefixes = list(lines), [""] * len(lines)
        out[i], prefixes[i] = s, p
    return None if prefixes is None else (out, prefixes)


__all__ = ["TRIGGER", "plain_all"]
