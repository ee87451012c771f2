"""ASCII stand-ins for non-ASCII characters: how the RE2 line screen (:class:`opsbrain.multiscan.Screen`) reads a
line that is not ASCII and still finds every regex Python's ``re`` would (session 39).

RE2's ``\\w``, ``\\d``, ``\\s`` and ``\\b`` are ASCII-only; Python's (``str`` patterns) are Unicode-aware. So a CJK
letter after a code (``EI0002中``) is a word boundary for RE2 and not for ``re``, an Arabic-Indic digit is ``\\d`` for
``re`` only. The screen therefore scans two texts of a non-ASCII line:

- the *mapped* line (:func:`standin`): each non-ASCII character replaced by one ASCII character of the same ``re``
  class (a decimal digit, ``str.isdecimal``, by :data:`DIGIT`; any other word character, ``str.isalnum``, by
  :data:`WORD`; whitespace, ``str.isspace``, by :data:`SPACE`; anything else by :data:`OTHER`). The mapped line is
  ASCII, where RE2 agrees with ``re``; and a regex built only from ASCII literals, classes, ``.``, ``\\b`` and anchors
  matches the mapped line wherever it matches the line, provided each of its atoms that takes a non-ASCII character
  also takes that character's stand-in (a ``[^_]`` takes ``中``, so it must take the stand-in too):
  :func:`analyse` checks this, atom by atom, also in look-around bodies (there both ways: the translation may keep
  a one-character look-around as a class).
- the line itself, for regexes with non-ASCII literals (``未找到命令``): RE2 reads a literal exactly, so a regex of
  literals, ``.`` and classes without ``\\w``/``\\d``/``\\s`` and without ``\\b`` finds on the line what ``re`` finds.

A regex that is neither (nor each alternative of its top-level alternation either) is run on every non-ASCII line.
The four characters that ``re.IGNORECASE`` folds onto ASCII letters (:data:`FOLDS`: ``İ ı ſ K``) are left in the
mapped line, which is then not ASCII: such a line is not screened at all (the caller runs every regex).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from itertools import accumulate
from typing import Any

DIGIT, WORD, SPACE, OTHER = "0", "Z", "\t", "\x7f"
"""The stand-ins, one per ``re`` class of a non-ASCII character (decimal digit; other word character; whitespace;
anything else): the characters the project's regexes leave most alone (a pattern set's negated classes exclude
``_`` and lower-case letters, ``[^ ]`` is common; DEL occurs in none of their literals). The tab is one both
engines read as ``\\s`` (RE2's ``\\s`` lacks the vertical tab ``re`` has)."""
STANDINS = (DIGIT, WORD, SPACE, OTHER)
PLAIN = (OTHER, OTHER, SPACE, OTHER)
"""The second reading: every non-ASCII word character as :data:`OTHER`. A look-around such as ``(?<![0-9A-Za-z])``
holds after ``中`` for ``re`` and refuses any ASCII word character, so a regex with one is read on this copy (where
``\\w`` and ``\\b`` are not proven: the regex must hold neither where a non-ASCII word character can be)."""
READINGS = (STANDINS, PLAIN)

FOLDS = frozenset("\u0130\u0131\u017f\u212a")
"""The non-ASCII characters ``re`` (str patterns, ``re.IGNORECASE``) matches with an ASCII letter: İ, ı, ſ and the
Kelvin sign (every code point checked in tests/test_standin39.py)."""


def _kind(c: str) -> int:
    if c.isdecimal():
        return 0
    if c.isalnum():
        return 1
    return 2 if c.isspace() else 3


class _Table(dict[int, Any]):
    """``str.translate``'s table: ASCII kept, a non-ASCII character to its stand-in, filled on first sight."""

    def __init__(self, standins: tuple[str, ...]) -> None:
        super().__init__()
        self.standins = standins

    def __missing__(self, key: int) -> Any:
        c = chr(key)
        v = c if c.isascii() or c in FOLDS else self.standins[_kind(c)]
        self[key] = v
        return v


_TABLES = tuple(_Table(r) for r in READINGS)
_NA_DIGIT = re.compile(r"[^\D0-9]")  # a non-ASCII decimal digit
_NA_SPACE = re.compile(r"[^\S\x00-\x7f]")  # non-ASCII whitespace
_FOLD = re.compile("[" + "".join(sorted(FOLDS)) + "]")
_RARE = re.compile(r"[^\x00-\x7f\u4e00-\u9fff](?<=[\d\s" + "".join(sorted(FOLDS)) + "])")
"""Any of the three (skips ASCII and the CJK Unified Ideographs fast, session 41: the look-behind on each Chinese
character was half the scan; that block holds ideographs only, none a digit, a space or in FOLDS)."""
_NA_NONWORD = re.compile(r"[^\x00-\x7f\w]")  # a non-ASCII character that is no word character
_QUESTION = {0: bytes.maketrans(b"?", WORD.encode()), 1: bytes.maketrans(b"?", OTHER.encode())}


COMMON_KINDS = 10
"""What :func:`kinds` says of a line without a non-ASCII digit, whitespace or :data:`FOLDS` character (a Chinese
line's: word characters and punctuation)."""


def kinds(text: str) -> int:
    """The kinds of non-ASCII character a non-ASCII ``text`` may hold, as bits: 1 a digit, 2 another word
    character, 4 whitespace, 8 anything else (2 and 8 always set: the plans assume them), 16 a character of
    :data:`FOLDS`. One scan in C (three when the line holds one of the rarer kinds), not a look at each character."""
    if _RARE.search(text) is None:
        return COMMON_KINDS
    return 10 | (1 if _NA_DIGIT.search(text) else 0) | (4 if _NA_SPACE.search(text) else 0) | \
        (16 if _FOLD.search(text) else 0)


def rare_lines(rows: list[str]) -> set[int]:
    """The indexes of the non-ASCII ``rows`` (no newline in any) whose :func:`kinds` may not be
    :data:`COMMON_KINDS`: one scan of them joined by newlines (session 40), in C; :func:`kinds` of any other row is
    :data:`COMMON_KINDS` (the scan looks for one character at a time, so a match lies in one row)."""
    joined = "\n".join(rows)
    found = _RARE.search(joined)
    if found is None:
        return set()
    starts = list(accumulate(len(t) + 1 for t in rows))  # where each row after the first starts
    return {bisect_right(starts, m.start()) for m in _RARE.finditer(joined, found.start())}


def standin(text: str, reading: int = 0, mask: int | None = None) -> bytes | None:
    """``text`` (ASCII-encoded) with every non-ASCII character replaced by its stand-in of :data:`READINGS`
    [reading]; None when ``text`` holds a character of :data:`FOLDS` (no ASCII text stands in for it under every
    flag). ``mask``: :func:`kinds` of ``text`` when known. A line without digits and whitespace beyond ASCII and
    without ``?`` takes the encoder's ``?`` for each non-ASCII character (in C), then the stand-in for ``?`` (the
    first reading turns the non-word characters into :data:`OTHER` first); others go character by character."""
    if mask is None:
        mask = kinds(text)
    if mask & 16:
        return None
    if not mask & 5 and "?" not in text:
        if reading == 0:
            return _word_copy(text)
        return text.encode("ascii", "replace").translate(_QUESTION[reading])
    return text.translate(_TABLES[reading]).encode("ascii")


_NONWORD_SEEN: dict[str, None] = {}
"""The non-ASCII non-word characters met so far (a Chinese log's ``，（）。``: a handful), in the order met."""
_IDEOGRAPHS: bool | None = None
"""Whether every character of U+4E00-U+9FFF (the CJK Unified Ideographs) is a word character for ``re`` (Unicode 14,
Python 3.11: yes), checked on first use."""
_NOT_IDEOGRAPH = re.compile(r"[^\x00-\x7f\u4e00-\u9fff]")
"""A character neither ASCII nor a CJK Unified Ideograph (U+4E00-U+9FFF): one scan of a block in C (session 43; was
a count of the ideographs' UTF-8 lead bytes, thirteen passes over the encoded block)."""


def _word_copy(text: str) -> bytes:
    """:func:`standin` of the first reading of a ``text`` of the common kinds without ``?``: each non-ASCII non-word
    character as :data:`OTHER` (``_NA_NONWORD.sub``), then each other non-ASCII one as :data:`WORD`. A block of
    Chinese lines holds ~100,000 such characters and a handful of distinct ones (session 42: the substitution was
    most of the first stand-in copy's cost): those met before are replaced with ``str.replace``, then, when the
    non-ASCII characters left are all ideographs of U+4E00-U+9FFF (:data:`_NOT_IDEOGRAPH` finds no other, in C),
    that is the answer; otherwise the substitution runs on what is left
    (the same answer: a character replaced is ASCII) and its characters are remembered."""
    global _IDEOGRAPHS
    if _IDEOGRAPHS is None:
        _IDEOGRAPHS = _NA_NONWORD.search("".join(map(chr, range(0x4E00, 0xA000)))) is None
    wide = text
    for c in _NONWORD_SEEN:
        if c in wide:
            wide = wide.replace(c, OTHER)
    if _IDEOGRAPHS and _NOT_IDEOGRAPH.search(wide) is None:
        # (no ``?`` in text: each one the encoder writes stands for an ideograph, a word character)
        return wide.encode("ascii", "replace").translate(_QUESTION[0])
    found = _NA_NONWORD.findall(wide)
    if found:
        if len(_NONWORD_SEEN) < 256:  # (a text of many distinct symbols: the substitution alone, as before)
            _NONWORD_SEEN.update(dict.fromkeys(found))
        wide = _NA_NONWORD.sub(OTHER, wide)
    return wide.encode("ascii", "replace").translate(_QUESTION[0])


BLOCK_LINES = 4096
"""Lines joined for one stand-in copy (:func:`block_copies`)."""


def block_copies(texts: Sequence[str], readings: Sequence[int]) -> dict[str, dict[int, bytes]]:
    """:func:`standin` of each non-ASCII line of ``texts`` of the common kinds (:data:`COMMON_KINDS`, a Chinese
    line's), by reading: a copy a block of lines (session 41; two copies a line, each a substitution, an encoding and
    a translation, cost ~10 us a line). A stand-in replaces one character by one and a newline is ASCII, kept as it
    is: the copy of the lines joined by newlines is their copies joined. Other lines are not in the answer."""
    rows = [t for t in dict.fromkeys(texts) if not t.isascii() and "\n" not in t]
    rare = rare_lines(rows)
    common = [t for k, t in enumerate(rows) if k not in rare]
    out: dict[str, dict[int, bytes]] = {}
    for lo in range(0, len(common), BLOCK_LINES):
        block = common[lo:lo + BLOCK_LINES]
        per: dict[int, list[bytes]] = {}
        for r in readings:
            copy = standin("\n".join(block), r, COMMON_KINDS)
            parts = copy.split(b"\n") if copy is not None else []
            if len(parts) != len(block):
                break
            per[r] = parts
        else:
            out.update((t, {r: per[r][k] for r in readings}) for k, t in enumerate(block))
    return out


# ---- analysis -----------------------------------------------------------------------------------------------------
_KIND_OF_CATEGORY = {  # which kinds (digit, word, space, other) of non-ASCII character a category matches
    "CATEGORY_DIGIT": {0}, "CATEGORY_NOT_DIGIT": {1, 2, 3}, "CATEGORY_WORD": {0, 1},
    "CATEGORY_NOT_WORD": {2, 3}, "CATEGORY_SPACE": {2}, "CATEGORY_NOT_SPACE": {0, 1, 3}}
_ASCII_CATEGORY = {
    "CATEGORY_DIGIT": str.isdigit, "CATEGORY_NOT_DIGIT": lambda x: not x.isdigit(),
    "CATEGORY_WORD": lambda x: x.isalnum() or x == "_", "CATEGORY_NOT_WORD": lambda x: not (x.isalnum() or x == "_"),
    "CATEGORY_SPACE": str.isspace, "CATEGORY_NOT_SPACE": lambda x: not x.isspace()}


class _State:
    __slots__ = ("mapped", "orig", "need")

    def __init__(self) -> None:
        self.mapped = [[True] * 4, [True] * 4]  # per reading and kind: its copy finds every match (so far)
        self.orig = True  # the line itself finds every match (so far)


def _cased(v: int) -> bool:
    c = chr(v)
    return c.lower() != c or c.upper() != c


def _in_class(items: list[Any], x: str, icase: bool) -> bool:
    """Whether the class ``items`` (ASCII literals, ranges, categories) takes the ASCII character ``x``."""
    neg, hit = False, False
    xs = {x, x.swapcase()} if icase else {x}
    for op, av in items:
        name = str(op)
        if name == "NEGATE":
            neg = True
        elif name == "LITERAL":
            hit = hit or chr(av) in xs
        elif name == "RANGE":
            hit = hit or any(av[0] <= ord(y) <= av[1] for y in xs)
        elif name == "CATEGORY":
            hit = hit or _ASCII_CATEGORY[str(av)](x)
    return hit != neg


def _atom(st: _State, takes: list[bool], takes_x: Any, neg: bool) -> None:
    """An atom that takes a non-ASCII character of kind k when ``takes[k]``, and the ASCII character x when
    ``takes_x(x)``; ``neg``: in a negative look-around (it must refuse the stand-in where it refuses the kind, as
    the translation may keep it as the complement class), else it must take the stand-in where it takes the kind."""
    for r, standins in enumerate(READINGS):
        for k in range(4):
            if neg and takes_x(standins[k]) and not takes[k] or not neg and takes[k] and not takes_x(standins[k]):
                st.mapped[r][k] = False


def _walk(items: list[Any], icase: bool, neg: bool, st: _State) -> None:
    for op, av in items:
        name = str(op)
        if name in ("LITERAL", "NOT_LITERAL"):
            if av >= 128:
                st.mapped = [[False] * 4, [False] * 4]
                st.orig = st.orig and not (icase and _cased(av))
                continue
            if name == "LITERAL" and not neg:
                continue  # takes no non-ASCII character (FOLDS aside): nothing to keep
            lit = chr(av).lower() if icase else chr(av)

            def same(x: str, lit: str = lit) -> bool:
                return (x.lower() if icase else x) == lit

            if name == "LITERAL":
                _atom(st, [False] * 4, same, neg)
            else:
                _atom(st, [True] * 4, lambda x, same=same: not same(x), neg)
        elif name == "ANY":
            pass  # takes every character but a newline, as it takes every stand-in
        elif name == "IN":
            cls = list(av)
            wide = any((str(o) == "LITERAL" and a >= 128) or (str(o) == "RANGE" and a[1] >= 128) for o, a in cls)
            cats = [str(a) for o, a in cls if str(o) == "CATEGORY"]
            if cats:
                st.orig = False  # RE2 reads \\w, \\d, \\s as ASCII on the line itself
            if wide:
                st.mapped = [[False] * 4, [False] * 4]
                st.orig = st.orig and not icase
                continue
            negate = bool(cls) and str(cls[0][0]) == "NEGATE"
            kinds = set().union(*(_KIND_OF_CATEGORY[c] for c in cats)) if cats else set()
            _atom(st, [(k in kinds) != negate for k in range(4)], lambda x, cls=cls: _in_class(cls, x, icase), neg)
        elif name == "AT":
            if str(av) in ("AT_BOUNDARY", "AT_NON_BOUNDARY"):
                st.orig = False  # the first reading's stand-ins keep word/non-word, so its copy keeps \\b
                st.mapped[1] = [False] * 4
        elif name == "BRANCH":
            for alt in av[1]:
                _walk(list(alt), icase, neg, st)
        elif name == "SUBPATTERN":
            _group, add, remove, sub = av
            _walk(list(sub), (icase or bool(add & re.IGNORECASE)) and not remove & re.IGNORECASE, neg, st)
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            _walk(list(av[2]), icase, neg, st)
        elif name == "ATOMIC_GROUP":
            _walk(list(av), icase, neg, st)
        elif name in ("ASSERT", "ASSERT_NOT"):
            _walk(list(av[1]), icase, neg != (name == "ASSERT_NOT"), st)
        else:  # back-references and the rest: neither reading is proven
            st.mapped = [[False] * 4, [False] * 4]
            st.orig = False


def analyse(items: list[Any], icase: bool) -> tuple[list[list[bool]], bool]:
    """(per reading of :data:`READINGS` and kind of character: its copy finds every match of the parsed regex
    ``items`` on a line whose non-ASCII characters are of that kind; whether the line itself does)."""
    st = _State()
    _walk(items, icase, False, st)
    return st.mapped, st.orig


def parse(pattern: str, flags: int) -> tuple[list[Any], int] | None:
    """Python's parse of ``pattern`` and its flags with the inline ones (``(?i)`` at its start); None when it does
    not parse (RE2 syntax Python lacks)."""
    try:
        from re import _parser  # type: ignore[attr-defined]

        parsed = _parser.parse(pattern, flags)
        return list(parsed), int(parsed.state.flags)
    except Exception:  # noqa: BLE001 - an internal parser API: no parse means no screen on non-ASCII lines
        return None


def top_alternatives(items: list[Any]) -> list[list[Any]] | None:
    """The alternatives of a regex that is one alternation (``a|b``, also inside one group), else None."""
    while len(items) == 1 and str(items[0][0]) == "SUBPATTERN" and not (items[0][1][1] | items[0][1][2]):
        items = list(items[0][1][3])
    if len(items) == 1 and str(items[0][0]) == "BRANCH":
        return [list(a) for a in items[0][1][1]]
    return None


def cover(items: list[Any] | None, icase: bool) -> list[set[int] | None]:
    """For each set of kinds of character a non-ASCII line holds (:func:`kinds`, 0-15), the texts of the line on
    which the screen finds the regex (parsed ``items``) wherever ``re`` does: 0 and 1 the copies of
    :data:`READINGS`, 2 the line itself; None when there are none. A regex that is one alternation may need
    several (each alternative its own): RE2 finds an alternative's match with the whole."""
    if items is None:
        return [None] * 16
    whole = analyse(items, icase)
    alts = [analyse(alt, icase) for alt in top_alternatives(items) or ()]

    def reads(ok: list[list[bool]], orig: bool, mask: int) -> int | None:
        return next((r for r in (0, 1) if all(ok[r][k] for k in range(4) if mask >> k & 1)), 2 if orig else None)

    out: list[set[int] | None] = []
    for mask in range(16):
        found = reads(*whole, mask)
        if found is not None:
            out.append({found})
            continue
        each = [reads(*a, mask) for a in alts]
        out.append(None if not each or None in each else {r for r in each if r is not None})
    return out


__all__ = ["COMMON_KINDS", "FOLDS", "READINGS", "analyse", "cover", "kinds", "parse", "rare_lines", "standin",
           "top_alternatives"]
