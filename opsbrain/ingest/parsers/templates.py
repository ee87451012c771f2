"""The runtime's message templates (knowledge_base/code_tables/*.yaml ``template``: the ErrMessage of hicann/runtime
src/dfx/error_manager/error_code.json and of hicann/metadef's) as a reading of the code they belong to.

CANN prints an error as ``EE1017: <message>``, but the message also travels alone: TraceBack lines, exceptions a
framework relays, documentation examples, a paste that cut the code off. A line that holds a template's fixed parts
in order, and prints no error code of its own, is read as that code (``err:<code>``, the kind the CANN parser gives
the printed code), so the code's row in knowledge_base/codes.yaml decides what it means.

Which templates are read (each rule has its reason):

- the code has a row in codes.yaml ``cann_error_codes`` that is not ambiguous and whose category names something
  (not ``internal`` or ``informational``): the template stands for the code, and a code that says nothing about the
  cause says nothing as a message either;
- its fixed parts (the text between placeholders, trimmed of spaces and punctuation and of a word glued to a
  placeholder, the ``th`` of ``%sth``) hold at least
  :data:`MIN_FIXED` characters, the longest at least :data:`MIN_ANCHOR`: a template that is mostly placeholders
  (``%s failed. Reason: %s.``) would match any line;
- two codes whose templates have the same fixed parts but different categories are both left out (the text cannot
  tell them apart); with the same category the first code stands for both;
- the code's row does not mark its template as ordinary wording (``template: ordinary``: other programs print the same
  fixed parts, ``Failed to open file %s. Reason: %s``; codes.yaml names them).

The templates come from every code table that lists them (cann_error_codes.yaml, ge_error_codes.yaml: hicann/metadef
error_manager/error_code.json, the graph engine's and DVPP's codes), read in file order.
"""

from __future__ import annotations

import re
from typing import Any

from opsbrain.lazyre import lazy_compile
from opsbrain.multiscan import in_order

PLACEHOLDER = lazy_compile(r"%[-+ #0]*+\d*(?:\.\d+)?(?:hh|h|ll|l|z|j|t)?[sdiuxXfpc]|\n")
MIN_FIXED = 24
"""Characters of fixed text a template needs: below it the fixed text is a phrase any program prints (``Path %s is
invalid. Reason: %s.``, 22; ``The resources are busy.``, 22); ``Failed to verify the OPP.`` (24) is kept."""
MIN_ANCHOR = 6
"""The longest fixed part is the template's anchor in the documented-message scan (whose shortest text is 6)."""
SAYS_NOTHING = frozenset({"internal", "informational"})
ORDINARY = "ordinary"
"""A codes.yaml row's ``template: ordinary``: its template is wording other programs print too; not read."""
_TRIM = " \t.,;:!?()[]{}<>\"'=|"
_GLUED_HEAD = lazy_compile(r"^[A-Za-z0-9_]+")
_GLUED_TAIL = lazy_compile(r"[A-Za-z0-9_]+$")


def fixed_parts(template: str) -> list[str]:
    """The template's fixed parts in order, lower-cased and trimmed (parts of fewer than 2 characters dropped). A
    word glued to a placeholder (``%sth input``) is the value's, not fixed text: it is dropped, so that the part is
    found as whole words (the documented-message scan looks for whole words only)."""
    pieces = re.split(f"({PLACEHOLDER.pattern})", template)
    parts = []
    for i in range(0, len(pieces), 2):
        p = pieces[i]
        if i > 0 and pieces[i - 1] != "\n":
            p = _GLUED_HEAD.sub("", p)
        if i + 1 < len(pieces) and pieces[i + 1] != "\n":
            p = _GLUED_TAIL.sub("", p)
        parts.append(p.strip(_TRIM).lower())
    return [p for p in parts if len(p) >= 2]


def templates_of(codes_doc: Any, table_doc: Any) -> list[list[Any]]:
    """``[code, [fixed parts]]`` of every template read (the module docstring's rules), in table order."""
    rows = (codes_doc.get("cann_error_codes", []) or []) if isinstance(codes_doc, dict) else []
    meaning = {str(r.get("code")): r for r in rows if isinstance(r, dict)}
    table = (table_doc.get("rows", []) or []) if isinstance(table_doc, dict) else []
    by_parts: dict[tuple[str, ...], list[tuple[str, str]]] = {}
    for t in table:
        if not isinstance(t, dict) or not isinstance(t.get("template"), str):
            continue
        code = str(t.get("code"))
        row = meaning.get(code)
        if row is None or row.get("ambiguous") or row.get("category") in SAYS_NOTHING or not row.get("category"):
            continue
        if row.get("template") == ORDINARY:
            continue
        parts = fixed_parts(t["template"])
        if sum(map(len, parts)) < MIN_FIXED or max(map(len, parts), default=0) < MIN_ANCHOR:
            continue
        by_parts.setdefault(tuple(parts), []).append((code, str(row["category"])))
    return [[codes[0][0], list(parts)] for parts, codes in by_parts.items() if len({c for _k, c in codes}) == 1]


def anchor_of(parts: list[str]) -> str:
    """The longest fixed part (the first of equal ones): what the one-scan message regex looks for."""
    return max(parts, key=len)


def holds(low: str, parts: list[str]) -> bool:
    """Whether the lower-cased line holds the fixed parts in order (leftmost search: linear, no backtracking)."""
    return in_order(low, parts)
