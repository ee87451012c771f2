"""Tokens of real log text for the text classifier cross-validated by :mod:`.textcv`: lower-cased words and word
bigrams per line, documented error codes kept whole, and what identifies one log rather than a fault dropped.

Kept whole: CANN error codes (``EZ9999``, ``EI0006``, ``EL0004``: two letters and four digits), ``ERR99999``-style
framework codes, six-digit runtime return codes (``507035``, ``107002``) and eight-digit fault event ids
(``0x80E01801``). Dropped: other numbers, hex addresses, hex-like identifiers (kernel hashes), timestamps (their
digits), and single letters. Words glued to digits lose the digits (``kernel0`` -> ``kernel``); a device field in
any spelling is the token ``device`` (:data:`_DEVICE_FIELD`).

CJK text gives no token. Measured (session 32, dev, benchmarks/textgen_variants.py; right of 318 in the chronological
check / of 404 in project-grouped 5-fold CV, 223 / 289 as shipped): CJK character bigrams 222 / 289 (9 of 518 dev
views hold CJK); character 3-5-grams of the words of error-bearing lines in the same vector 205 / 282 (4-grams from 3
excerpts 212 / 288), as a separate l2 block scaled 0.3 or 0.5 224 / 288 and 223 / 290 (three times the vocabulary),
of the raw lines 225 / 289 (four times). None gained 5; words stay the only tokens.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from opsbrain.lazyre import lazy_compile

_RAW = lazy_compile(r"0x[0-9a-f]+|[a-z0-9]+")
_CODE = lazy_compile(r"e[a-z]\d{4}|err\d{5}")
_RUNTIME = lazy_compile(r"[15]0\d{4}")
_HEXLIKE = lazy_compile(r"[0-9a-f]{8,}")
_DIGITS = lazy_compile(r"\d+")
MAX_LINE_CHARS = 2_000
"""Characters of one line that are tokenised (a pasted log's long table rows carry nothing past this)."""


def _device_fields() -> re.Pattern[str]:
    from opsbrain.ingest.where import DEVICE_FIELD_PATTERNS

    return re.compile("|".join(f"(?:{p})" for p in DEVICE_FIELD_PATTERNS), re.I)


_DEVICE_FIELD = _device_fields()
"""A device named in any of the spellings Ascend tools use (``device_id=3``, ``[dev3]``, ``logicDevId[0]``, ``npu3``,
``chip 3`` ...: :data:`opsbrain.ingest.where.DEVICE_FIELD_PATTERNS`) is the one token ``device``: which spelling a
collection uses says nothing about the fault, and a model that learnt it would answer a re-spelt excerpt otherwise."""


def words(line: str) -> list[str]:
    """The unigram tokens of one line, in order."""
    out: list[str] = []
    for raw in _RAW.findall(_DEVICE_FIELD.sub(" device ", line[:MAX_LINE_CHARS]).lower()):
        if raw.startswith("0x"):
            if len(raw) == 10 and raw[2] == "8":  # an eight-digit fault event id (0x8xxxxxxx)
                out.append(raw)
        elif _CODE.fullmatch(raw) or (raw.isdigit() and _RUNTIME.fullmatch(raw)):
            out.append(raw)
        elif raw.isdigit() or _HEXLIKE.fullmatch(raw):
            continue
        else:
            w = _DIGITS.sub("", raw)
            if len(w) >= 2:
                out.append(w)
    return out


def line_tokens(line: str) -> list[str]:
    """Unigrams and bigrams (``a b``) of one line."""
    ws = words(line)
    return ws + [f"{a} {b}" for a, b in zip(ws, ws[1:], strict=False)]


NOT_TOKEN_KINDS = ("level:", "vendor:")
"""Signal kinds that are no token: a line's stated level (the view already leaves out lines below WARNING) and the
knowledge matcher's vendor votes (a knowledge-base reading, not the ingestion layer's)."""


def signal_tokens(kinds: Iterable[str], repeat: int = 1) -> list[str]:
    """``sig:<kind>`` ``repeat`` times for each distinct signal kind the ingestion layer read from a text (sorted), the
    :data:`NOT_TOKEN_KINDS` left out (repeated, a token weighs 1 + ln(repeat) under sublinear tf)."""
    return [f"sig:{k}" for k in sorted(set(kinds)) if not k.startswith(NOT_TOKEN_KINDS)] * repeat


def text_tokens(text: str, kinds: Iterable[str] | None = None) -> list[str]:
    """Every line's tokens, plus :func:`signal_tokens` of ``kinds``."""
    out: list[str] = []
    for line in text.splitlines():
        out.extend(line_tokens(line))
    out.extend(signal_tokens(kinds or ()))
    return out
