"""Documented messages (knowledge_base/codes.yaml ``messages``: texts Ascend programs print, each with its source)
found anywhere in a line, as ``msg:<category>`` signals. One compiled alternation of the escaped texts: a line costs
one scan whatever the number of messages."""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources
from pathlib import Path

from opsbrain.ingest.parsers.ctx import LineCtx
from opsbrain.ingest.screen import Screened, screened


@lru_cache(maxsize=1)
def catalog() -> tuple[Screened | None, dict[str, str]]:
    """(one regex of every documented message, lower-cased text -> category); read once (package data)."""
    from opsbrain.errors import InputError
    from opsbrain.yamlio import read_package_yaml

    path = Path(str(resources.files("knowledge_base"))) / "codes.yaml"
    try:
        doc = read_package_yaml(path) or {}
    except InputError:
        return None, {}
    cats = {}
    for row in doc.get("messages", []) or []:
        text, cat = str(row.get("text", "")).strip(), row.get("category")
        if len(text) >= 6 and cat and cat != "informational":
            cats[text.lower()] = str(cat)
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
