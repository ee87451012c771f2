"""RE2 translations of Python regexes (:func:`re2_superset`): an RE2 pattern matching every ASCII text the regex
matches, the line screen's reading of a regex (:mod:`opsbrain.multiscan`; moved here from there in session 39)."""

from __future__ import annotations

import re
from typing import Any

_SPACE = "\\t\\n\\x0b\\x0c\\r \\x1c-\\x1f"  # Python's \\s on ASCII text (RE2's lacks \\v and \\x1c-\\x1f)
_CATEGORY = {"CATEGORY_DIGIT": "\\d", "CATEGORY_NOT_DIGIT": "\\D", "CATEGORY_WORD": "\\w", "CATEGORY_NOT_WORD": "\\W",
             "CATEGORY_SPACE": _SPACE, "CATEGORY_NOT_SPACE": "\\S"}
_AT = {"AT_BEGINNING": "^", "AT_BEGINNING_STRING": "\\A", "AT_END": "(?:\\n|$)", "AT_END_STRING": "$",
       "AT_BOUNDARY": "\\b", "AT_NON_BOUNDARY": "\\B"}
_RE2_MAX_REPEAT = 1000
WIDEN_FROM = 32
"""A counted repetition with an upper bound from this one on is translated without its bound (``x{0,240}`` as
``x*``: a superset), when ``x`` never matches a newline (a block scan joins lines with newlines: an unbounded
``[^.]*`` would run on through the lines after). RE2 writes out one copy of ``x`` per count: the parsers' line screen
held thousands of such copies (``(?:.){0,160}`` and the like), which made its set compile in ~70 ms, ~20 ms without
them (session 41); a line screened in by the unbounded form alone runs the exact regex, which says no."""


class _Untranslatable(Exception):
    pass


def re2_superset(rx: re.Pattern[str]) -> str | None:
    """An RE2 pattern matching every ASCII text ``rx`` matches (and maybe a few more): look-arounds are dropped,
    large repetition bounds too (:data:`WIDEN_FROM`), ``\\s`` spelled out as Python reads it, ``$`` also before a
    newline; None when ``rx`` uses what RE2 lacks
    (back-references, multi-line or verbose flags)."""
    if rx.flags & (re.MULTILINE | re.VERBOSE | re.LOCALE):
        return None
    try:
        from re import _parser  # type: ignore[attr-defined]

        body = _emit(list(_parser.parse(rx.pattern, rx.flags)), True, True, bool(rx.flags & re.DOTALL))
    except (_Untranslatable, Exception):  # noqa: BLE001 - an internal parser API: no translation is always safe
        return None
    flags = ("i" if rx.flags & re.IGNORECASE else "") + ("s" if rx.flags & re.DOTALL else "")
    return f"(?{flags}){body}" if flags else body


def _char(c: int) -> str:
    ch = chr(c)
    if ch.isascii() and not ch.isalnum() and ch != "_" and ch != " ":
        return f"\\x{c:02x}"
    return ch


def _emit(items: list[Any], at_start: bool = False, at_end: bool = False, dotall: bool = False) -> str:
    """RE2 text of parsed ``items``; ``at_start``/``at_end``: they begin/end the whole match (where a one-character
    look-behind/look-ahead can be kept as the character it asks for, or the text's edge); ``dotall``: ``.`` matches
    a newline there."""
    out = []
    if at_start:
        items = _lead_lookbehind(items)
    last_i = len(items) - 1
    for i, (op, av) in enumerate(items):
        name = str(op)
        first, last = at_start and i == 0, at_end and i == last_i
        if name == "LITERAL":
            out.append(_char(av))
        elif name == "NOT_LITERAL":
            out.append(f"[^{_char(av)}]")
        elif name == "ANY":
            out.append(".")
        elif name == "IN":
            out.append(_emit_class(av))
        elif name == "BRANCH":
            out.append("(?:" + "|".join(_emit(list(a), first, last, dotall) for a in av[1]) + ")")
        elif name == "SUBPATTERN":
            _group, add, remove, sub = av
            if (add | remove) & ~(re.IGNORECASE | re.DOTALL):
                raise _Untranslatable(name)
            on = ("i" if add & re.IGNORECASE else "") + ("s" if add & re.DOTALL else "")
            off = ("i" if remove & re.IGNORECASE else "") + ("s" if remove & re.DOTALL else "")
            fl = on + ("-" + off if off else "")
            body = _emit(list(sub), first, last, bool(add & re.DOTALL) or (dotall and not remove & re.DOTALL))
            out.append(f"(?{fl}:" + body + ")" if fl else "(?:" + body + ")")
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            lo, hi, sub = av
            if lo > _RE2_MAX_REPEAT:
                raise _Untranslatable("repeat")
            wide = hi == _parser_maxrepeat() or (hi >= WIDEN_FROM and not _may_newline(list(sub), dotall))
            q = (("*" if lo == 0 else "+" if lo == 1 else f"{{{lo},}}") if wide
                 else ("?" if (lo, hi) == (0, 1) else f"{{{lo}}}" if lo == hi else f"{{{lo},{hi}}}"))
            out.append("(?:" + _emit(list(sub), dotall=dotall) + ")" + q)
        elif name == "ATOMIC_GROUP":
            out.append("(?:" + _emit(list(av), dotall=dotall) + ")")
        elif name == "AT":
            out.append(_AT[str(av)])
        elif name in ("ASSERT", "ASSERT_NOT"):
            direction, sub = av
            edge = first if direction < 0 else last
            one = _one_char(list(sub), negate=name == "ASSERT_NOT") if edge else None
            if one is not None:  # the character before the match (after it), or the line's start (end)
                out.append(one if name == "ASSERT" else ("(?:^|" if direction < 0 else "(?:$|") + one + ")")
            # else: a look-around only narrows a match: without it the pattern matches more
        else:  # GROUPREF, GROUPREF_EXISTS, ...
            raise _Untranslatable(name)
    return "".join(out)


_CATEGORY_NEWLINE = {"CATEGORY_SPACE": True, "CATEGORY_NOT_SPACE": False, "CATEGORY_DIGIT": False,
                     "CATEGORY_NOT_DIGIT": True, "CATEGORY_WORD": False, "CATEGORY_NOT_WORD": True}


def _may_newline(items: list[Any], dotall: bool) -> bool:
    """False when no text the parsed ``items`` match holds a newline (True when unsure)."""
    for op, av in items:
        name = str(op)
        if name == "LITERAL":
            hit = av == 10
        elif name == "NOT_LITERAL":
            hit = av != 10
        elif name == "ANY":
            hit = dotall
        elif name == "IN":
            neg = bool(av) and str(av[0][0]) == "NEGATE"
            inside = _class_newline(list(av[1:]) if neg else list(av))
            hit = inside is None or inside != neg
        elif name == "BRANCH":
            hit = any(_may_newline(list(a), dotall) for a in av[1])
        elif name == "SUBPATTERN":
            _group, add, remove, sub = av
            hit = _may_newline(list(sub), bool(add & re.DOTALL) or (dotall and not remove & re.DOTALL))
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            hit = av[1] > 0 and _may_newline(list(av[2]), dotall)
        elif name == "ATOMIC_GROUP":
            hit = _may_newline(list(av), dotall)
        elif name in ("AT", "ASSERT", "ASSERT_NOT"):  # zero-width (a look-around in a repetition is dropped)
            hit = False
        else:
            hit = True
        if hit:
            return True
    return False


def _class_newline(items: list[Any]) -> bool | None:
    """Whether a class's items (without NEGATE) take a newline; None when unsure."""
    for op, av in items:
        name = str(op)
        if name == "LITERAL" and av == 10 or name == "RANGE" and av[0] <= 10 <= av[1]:
            return True
        if name == "CATEGORY":
            if str(av) not in _CATEGORY_NEWLINE:
                return None
            if _CATEGORY_NEWLINE[str(av)]:
                return True
        elif name not in ("LITERAL", "RANGE"):
            return None
    return False


def _lead_lookbehind(items: list[Any]) -> list[Any]:
    """``items`` with a look-behind that re-reads the literals just matched moved before them: ``50(?<![.]50)\\d{4}``
    (a regex that starts with a literal, for speed) is ``(?<![.])50\\d{4}`` (the look-behind sees the same two
    characters it was just shown, and one before them), which :func:`_emit` keeps as ``(?:^|[^.])50``."""
    for k, (op, av) in enumerate(items):
        if str(op) != "LITERAL":
            if str(op) in ("ASSERT", "ASSERT_NOT") and k and av[0] < 0:
                body = list(av[1])
                if len(body) == k + 1 and [(str(o), a) for o, a in body[1:]] == \
                        [(str(o), a) for o, a in items[:k]]:
                    return [(op, (av[0], body[:1])), *items[:k], *items[k + 1:]]
            break
    return items


def _one_char(items: list[Any], negate: bool) -> str | None:
    """The RE2 class of a one-character look-around body (its complement when ``negate``), or None. A negative
    look-around of alternatives keeps its one-character ones (``(?![a-z]|ab)`` as ``(?![a-z])``: it holds wherever
    the whole does)."""
    if len(items) != 1:
        return None
    op, av = items[0]
    name = str(op)
    if name == "BRANCH" and negate:
        chars: list[Any] = []
        for alt in av[1]:
            if len(alt) == 1 and str(alt[0][0]) == "LITERAL":
                chars.append(alt[0])
            elif len(alt) == 1 and str(alt[0][0]) == "IN" and not any(str(o) == "NEGATE" for o, _a in alt[0][1]):
                chars.extend(alt[0][1])
        if not chars:
            return None
        op, av, name = None, chars, "IN"
    try:
        if name in ("LITERAL", "NOT_LITERAL"):
            return f"[^{_char(av)}]" if negate == (name == "LITERAL") else _char(av)
        if name == "IN":
            if not negate:
                return _emit_class(list(av))
            from re import _constants  # type: ignore[attr-defined]

            negated = bool(av) and str(av[0][0]) == "NEGATE"  # the complement, built (and checked) as a class
            return _emit_class(list(av[1:]) if negated else [(_constants.NEGATE, None), *av])
    except _Untranslatable:
        return None
    return None


def _emit_class(items: list[Any]) -> str:
    neg, parts = False, []
    for op, av in items:
        name = str(op)
        if name == "NEGATE":
            neg = True
        elif name == "LITERAL":
            parts.append(_char(av))
        elif name == "RANGE":
            parts.append(f"{_char(av[0])}-{_char(av[1])}")
        elif name == "CATEGORY":
            cat = str(av)
            if cat == "CATEGORY_NOT_SPACE" and (neg or len(items) > 1):
                raise _Untranslatable(cat)  # RE2's \\S inside a class would differ on \\v
            parts.append(_CATEGORY[cat])
        else:
            raise _Untranslatable(name)
    return "[" + ("^" if neg else "") + "".join(parts) + "]"


def _parser_maxrepeat() -> int:
    from re import _constants  # type: ignore[attr-defined]

    return int(_constants.MAXREPEAT)


__all__ = ["re2_superset"]
