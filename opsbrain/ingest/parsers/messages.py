"""Documented messages (knowledge_base/codes.yaml ``messages``: texts Ascend programs print, each with its source)
found anywhere in a line, as ``msg:<category>`` signals. One compiled alternation of the escaped texts: a line costs
one scan whatever the number of messages."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from opsbrain.ingest.parsers.ctx import LineCtx
from opsbrain.ingest.screen import Screened, screened

PART_SECTIONS = ("cann_message_parts", "runtime_reason_texts")
"""codes.yaml sections of texts that stand for a CANN code: the fixed parts of the runtime's message templates and the
reasons the runtime fills into them (``... failed. Reason: <text>``)."""


def _part_rows(doc: Any) -> list[Any]:
    return [r for sec in PART_SECTIONS for r in (doc.get(sec, []) or [])] if isinstance(doc, dict) else []


def message_parts_of(doc: Any) -> list[str]:
    """Lower-cased texts of :data:`PART_SECTIONS`, sorted. A part stands in for its code: it is read only on a line
    that prints no error code of its own (there the code decides)."""
    rows = _part_rows(doc)
    return sorted({str(r.get("text", "")).strip().lower() for r in rows if str(r.get("text", "")).strip()})


def messages_of(doc: Any) -> dict[str, str]:
    """Lower-cased text -> category of the documented messages of a codes.yaml document (``messages``, and
    :data:`PART_SECTIONS`: the runtime's template parts and reasons; informational ones and texts under 6 characters
    left out)."""
    cats = {}
    rows = [*((doc.get("messages", []) or []) if isinstance(doc, dict) else []), *_part_rows(doc)]
    for row in rows:
        text, cat = str(row.get("text", "")).strip(), row.get("category")
        if len(text) >= 6 and cat and cat != "informational":
            cats[text.lower()] = str(cat)
    return cats


@lru_cache(maxsize=1)
def catalog() -> tuple[Screened | None, dict[str, str]]:
    """(one regex of every documented message, lower-cased text -> category); read once (package data), from the
    compiled knowledge base (:mod:`opsbrain.kb.compiled`; an unreadable codes.yaml gives no messages)."""
    from opsbrain.errors import InputError
    from opsbrain.kb.compiled import compiled_kb

    try:
        cats = compiled_kb().messages
    except InputError:
        return None, {}
    if not cats:
        return None, {}
    words = sorted(cats, key=lambda w: (-len(w), w))  # longest first; one order whether cats came from the YAML or
    # the compiled cache (its JSON keys are sorted), so that the screen plan keyed by this regex is found again
    # whole words only: "all reduce error" does not hold the documented "UCE error"
    return screened(r"(?<![A-Za-z0-9])(?:" + "|".join(re.escape(w) for w in words) + r")(?![A-Za-z0-9])", re.I), cats


@lru_cache(maxsize=1)
def parts() -> frozenset[str]:
    """The template parts of the compiled knowledge base (empty when it cannot be read)."""
    from opsbrain.errors import InputError
    from opsbrain.kb.compiled import compiled_kb

    try:
        return frozenset(compiled_kb().message_parts)
    except InputError:
        return frozenset()


# an error code printed on the line: CANN's E?xxxx, ACL/runtime return codes, torch_npu's ERRxxyyy
_OWN_CODE = re.compile(r"\bE[A-Z0-9]\d{4}\b|\b[125]0\d{4}\b|\bERR\d{5}\b")


def parse(ctx: LineCtx) -> bool:
    rx, cats = catalog()
    if rx is None:
        return False
    found = False
    coded: bool | None = None
    for m in rx.finditer(ctx.text):
        text = m.group(0).lower()
        cat = cats.get(text)
        if cat and text in parts():
            if coded is None:
                coded = _OWN_CODE.search(ctx.text) is not None
            if coded:
                continue
        if cat:
            dev = ctx.device()
            ctx.add(f"msg:{cat}", ctx.npu(dev) or ctx.node, max(ctx.sev, 1), device=dev)
            found = True
    del found
    return False  # documented messages add to what the other parsers find; they never end the line
