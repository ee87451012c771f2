"""The fault knowledge base: class schema and loader, vendor importers, and the log-line signature matcher.

Names are imported on first use (PEP 562): diagnosis takes the matcher and the compiled knowledge base
(:mod:`opsbrain.kb.compiled`) without importing the pydantic schema and loader.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_WHERE = {
    "FORMATS": "importers", "ImportReport": "importers", "ImportedEntry": "importers",
    "ImportedKnowledge": "importers", "import_faultcode": "importers", "import_kg": "importers",
    "kb_import": "importers", "load_imported": "importers",
    "KnowledgeBase": "loader", "kb_list": "loader", "kb_show": "loader", "load_kb": "loader", "validate_kb": "loader",
    "Match": "matcher", "SignatureMatcher": "matcher", "extract_codes": "matcher",
    "FaultClass": "schema",
}

__all__ = ["FORMATS", "FaultClass", "ImportReport", "ImportedEntry", "ImportedKnowledge", "KnowledgeBase", "Match",
           "SignatureMatcher", "extract_codes", "import_faultcode", "import_kg", "kb_import", "kb_list", "kb_show",
           "load_imported", "load_kb", "validate_kb"]


def __getattr__(name: str) -> Any:
    mod = _WHERE.get(name)
    if mod is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{mod}"), name)
    globals()[name] = value
    return value
