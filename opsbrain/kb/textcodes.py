"""The documented codes as weak examples for the real-text fallback (:mod:`opsbrain.kb.realtext_fit`).

Each row of knowledge_base/codes.yaml whose category speaks for exactly one class as ``primary``
(knowledge_base/categories.yaml) and that is not marked ambiguous becomes one short document: the code, its documented
name, the message text the row keys on, its meaning, and the message template the code table prints for it
(knowledge_base/code_tables/*.yaml), labelled with that class. A documented code the dev excerpts never showed then
still leans the fallback to the class its documentation names. Rows whose category is secondary or ambiguous for every
class (``parameter_or_usage``, ``internal``, ``timeout`` ...) give no example: their documentation does not decide a
class. Nothing here reads the corpus."""

from __future__ import annotations

import hashlib
import json

from opsbrain.kb.texttokens import text_tokens

FIELDS = ("code", "name", "text", "meaning")
"""The fields of a codes.yaml row that are words of the example, in this order (absent ones skipped). reason (session
21, dev, chronological check of :mod:`opsbrain.kb.realtext_fit`): adding the CANN codes' ``title`` and the device
events' ``cause`` gave 196 of 283 right against 199 without; left out."""


def _tables() -> tuple[dict, dict, dict[str, str]]:
    import knowledge_base
    from opsbrain.yamlio import read_package_yaml

    base = knowledge_base.package_dir()
    codes = read_package_yaml(base / "codes.yaml") or {}
    cats = read_package_yaml(base / "categories.yaml") or {}
    templates: dict[str, str] = {}
    for path in sorted((base / "code_tables").glob("*.yaml")):
        doc = read_package_yaml(path) or {}
        for row in (doc.get("rows") or []) if isinstance(doc, dict) else []:
            if isinstance(row, dict) and row.get("template") and row.get("code") is not None:
                templates.setdefault(str(row.get("code")), str(row["template"]))
    return codes, cats, templates


def code_texts() -> list[tuple[str, str]]:
    """(text, class) for each documented row that names one class as primary, in file order."""
    from opsbrain.diagnosis.knowledge import TORCH_NPU_MODULES

    codes, cats, templates = _tables()
    primary = {cat: [c for c, role in (roles or {}).items() if role == "primary"] for cat, roles in cats.items()}
    out: list[tuple[str, str]] = []
    for rows in codes.values() if isinstance(codes, dict) else []:
        for row in rows if isinstance(rows, list) else []:
            if not isinstance(row, dict) or row.get("ambiguous"):
                continue
            classes = primary.get(str(row.get("category")), [])
            if len(classes) != 1:
                continue
            words = [str(row[k]) for k in FIELDS if row.get(k) not in (None, "")]
            code = str(row.get("code", ""))
            if code.startswith("ERR**"):  # a torch_npu type in every submodule: the codes real logs print
                words[:0] = [f"ERR{m:02d}{code[5:]}" for m in TORCH_NPU_MODULES.values()]
            if (tpl := templates.get(code)) is not None:
                words.append(tpl)
            out.append((" ".join(words), classes[0]))
    return out


def code_examples() -> list[tuple[list[str], str]]:
    """(tokens, class) of :func:`code_texts`, tokenised as an excerpt's words are (no signal kinds)."""
    return [(text_tokens(t), c) for t, c in code_texts()]


def code_digest(examples: list[tuple[list[str], str]]) -> str:
    """A digest of the examples (tokens and classes, in order): a changed table changes it."""
    return hashlib.sha256(json.dumps(examples, ensure_ascii=False).encode()).hexdigest()[:16]
