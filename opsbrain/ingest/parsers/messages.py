"""Documented messages (knowledge_base/codes.yaml ``messages``: texts Ascend programs print, each with its source)
found anywhere in a line, as ``msg:<category>`` signals. One compiled alternation of the escaped texts: a line costs
one scan whatever the number of messages."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from opsbrain.ingest.parsers.ctx import LineCtx
from opsbrain.ingest.screen import Screened, screened


def messages_of(doc: Any) -> dict[str, str]:
    """Lower-cased text -> category of the documented messages of a codes.yaml document (``messages``, and
    ``cann_message_parts``: the fixed parts of the runtime's message templates; informational ones and texts under 6
    characters left out)."""
    cats = {}
    rows = [*(doc.get("messages", []) or []), *(doc.get("cann_message_parts", []) or [])] if isinstance(doc, dict) else []
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
    words = sorted(cats, key=len, reverse=True)
    # whole words only: "all reduce error" does not hold the documented "UCE error"
    return screened(r"(?<![A-Za-z0-9])(?:" + "|".join(re.escape(w) for w in words) + r")(?![A-Za-z0-9])", re.I), cats


def parse(ctx: LineCtx) -> bool:
    rx, cats = catalog()
    if rx is None:
        return False
    found = False
    for m in rx.finditer(ctx.text):
        cat = cats.get(m.group(0).lower())
        if cat:
            dev = ctx.device()
            ctx.add(f"msg:{cat}", ctx.npu(dev) or ctx.node, max(ctx.sev, 1), device=dev)
            found = True
    del found
    return False  # documented messages add to what the other parsers find; they never end the line
