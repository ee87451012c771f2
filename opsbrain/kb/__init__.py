"""The fault knowledge base: class schema and loader, vendor importers, and the log-line signature matcher."""

from opsbrain.kb.importers import (
    FORMATS,
    ImportedEntry,
    ImportedKnowledge,
    ImportReport,
    import_faultcode,
    import_kg,
    kb_import,
    load_imported,
)
from opsbrain.kb.loader import KnowledgeBase, kb_list, kb_show, load_kb, validate_kb
from opsbrain.kb.matcher import Match, SignatureMatcher, extract_codes
from opsbrain.kb.schema import FaultClass

__all__ = ["FORMATS", "FaultClass", "ImportReport", "ImportedEntry", "ImportedKnowledge", "KnowledgeBase", "Match",
           "SignatureMatcher", "extract_codes", "import_faultcode", "import_kg", "kb_import", "kb_list", "kb_show",
           "load_imported", "load_kb", "validate_kb"]
