"""What the knowledge base says of a device fault event code an NPU reports (npu-exporter's
``npu_chip_info_error_code``): its cause, class and MindCluster handling level, for the sweep's ``npu_health`` finding.

The rows are knowledge_base/codes.yaml ``device_event_codes`` as :func:`opsbrain.diagnosis.knowledge.documented_rows`
reads them (the parsed document shared by every reader, :func:`opsbrain.yamlio.read_package_yaml`); the classes are
the compiled knowledge base's roles of the code's signal kind ``dev:<CODE>`` (what a log line with the code would
support); the level's action is :data:`opsbrain.diagnosis.vendorlevel.LEVEL_ACTIONS`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

_URL = re.compile(r"\s*\(https?://[^)]*\)")


@dataclass(frozen=True)
class CodeMeaning:
    code: str
    """Upper-case hex without ``0x`` (``80E01801``)."""
    cause: str | None
    """The knowledge base's words for it; None: not documented."""
    classes: tuple[str, ...]
    """The fault classes it names (primary role; else every class it supports)."""
    level: str | None
    """MindCluster's handling level, short (``RestartBusiness``); None: not documented."""
    escalation: str | None

    @property
    def severity(self) -> str:
        """Warning for an undocumented code or a level that asks for no action now, else Alarm (the severities the
        ingestion layer gives device events: :func:`opsbrain.ingest.parsers.device.level_severity`)."""
        from opsbrain.diagnosis.vendorlevel import NO_ACTION

        return "Warning" if self.level is None or self.level in NO_ACTION else "Alarm"

    @property
    def action(self) -> str | None:
        from opsbrain.diagnosis.vendorlevel import LEVEL_ACTIONS

        return LEVEL_ACTIONS.get(self.level) if self.level else None

    def text(self) -> str:
        head = f"fault code 0x{self.code}"
        if self.cause is None:
            return head + " (not in the knowledge base: `opsbrain kb import` a vendor fault-level file to rate it)"
        parts = [", ".join(self.classes)] if self.classes else []
        if self.level:
            parts.append(f"MindCluster level {self.level}" + (f": {self.action}" if self.action else ""))
        if self.escalation:
            parts.append(self.escalation)
        return f"{head}: {self.cause}" + (f" ({'; '.join(parts)})" if parts else "")

    def as_dict(self) -> dict[str, Any]:
        return {"code": f"0x{self.code}", "cause": self.cause, "classes": list(self.classes), "level": self.level,
                "escalation": self.escalation}


@lru_cache(maxsize=1)
def _rows() -> dict[str, dict[str, Any]]:
    from opsbrain.diagnosis.knowledge import documented_rows

    return {k[4:]: row for kinds, row in documented_rows() for k in kinds if k.startswith("dev:")}


def _classes(code: str) -> tuple[str, ...]:
    from opsbrain.errors import InputError
    from opsbrain.kb.compiled import compiled_kb

    try:
        roles = compiled_kb().kind_roles.get(f"dev:{code}", [])
    except InputError:  # an unreadable knowledge-base cache: the cause and level still stand
        return ()
    primary = tuple(sorted(c for c, role in roles if role == "primary"))
    return primary or tuple(sorted(f"{c} ({role})" for c, role in roles))


@lru_cache(maxsize=256)
def meaning(code: str) -> CodeMeaning:
    """The knowledge base's meaning of device event ``code`` (``80E01801``)."""
    from opsbrain.diagnosis.vendorlevel import short_level

    code = code.upper().removeprefix("0X")
    row = _rows().get(code)
    if row is None:
        return CodeMeaning(code, None, (), None, None)
    level = short_level(str(row["level"])) if row.get("level") else None
    esc = _URL.sub("", str(row["escalation"])).strip() if row.get("escalation") else None
    cause = str(row.get("cause") or row.get("category") or "documented").strip()
    return CodeMeaning(code, cause, _classes(code), level, esc)
