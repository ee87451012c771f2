"""The handling level an imported vendor fault-level file (``opsbrain kb import mindcluster-faultcode faultCode.json``)
gives a device event the knowledge base does not document, as part of the answer.

MindCluster's device plugin rates each device fault code with a handling level (the fault-level file's lists, facts.md
§3). A code the shipped knowledge base maps to no class (717 of the file's 802 codes) still says how bad the vendor
thinks it is: the level sets the signal's severity on an ``EVENT`` / ``INFO`` line (the device's event log writes
every event at its own ``EVENT`` level, as :func:`opsbrain.ingest.parsers.device.level_severity` reads the documented
levels), and the level with the vendor's action is stated in the evidence. The level names no class: a code without
a class mapping stays unknown, and the abstention says so. Nothing of the vendor file is shipped; the levels are read
from the user's import at run time.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from opsbrain.ingest import Signal

LEVEL_ACTIONS: dict[str, str] = {
    "NotHandle": "no action, informational",
    "SubHealth": "no immediate action, the chip is sub-healthy",
    "RestartRequest": "retry the step or request, reschedule if not recovered within 60 s",
    "RestartBusiness": "re-run the job",
    "FreeRestartNPU": "reset the chip when it is idle",
    "RestartNPU": "reset the chip now",
    "PreSeparateNPU": "no new jobs on the chip",
    "SeparateNPU": "isolate the chip and reschedule its jobs",
    "ManuallySeparateNPU": "isolate the chip until an operator releases it",
}
"""What MindCluster does at each handling level (facts.md §3, from MindCluster's fault-level documentation:
https://github.com/Ascend/mind-cluster/blob/22bb3d987bc0208c3eb7395e222b661276133c58/docs/en/scheduling/usage/resumable_training/03_configuring_fault_detection_levels.md)."""
NO_ACTION = frozenset({"NotHandle", "SubHealth"})
"""Levels that ask for no action now: a warning; every other level asks for one: an error."""
DEVICE_FAMILIES = ("dev:", "plugin:")


def code_of(kind: str) -> str | None:
    """The device code of a device-event kind (``dev:80E3A201`` -> ``80E3A201``); None for others and recoveries."""
    if not kind.startswith(DEVICE_FAMILIES) or kind.endswith(":recover"):
        return None
    return kind.split(":", 2)[1].upper()


def short_level(level: str) -> str:
    """``SeparateNPUCodes`` / ``NotHandleFaultCodes`` (codes.yaml's spelling) -> ``SeparateNPU`` / ``NotHandle``."""
    return level.removesuffix("FaultCodes").removesuffix("Codes")


def imported_levels(matcher: object) -> dict[str, str]:
    """The device code levels of the imported vendor fault-level files a knowledge matcher holds (none without
    imports or without a matcher)."""
    return dict(getattr(getattr(matcher, "imported", None), "levels", None) or {})


def levelled(signals: list[Signal], levels: Mapping[str, str], documented: Mapping[str, str]) -> list[Signal]:
    """``signals`` with the severity an imported level gives a device event at its log's own ``EVENT`` / ``INFO``
    level (severity 0) whose level the knowledge base does not document (``documented``: codes.yaml's levels, which
    the parser has applied already): 1 for a no-action level, else 2. Other signals are returned as they are."""
    out = []
    for s in signals:
        code = code_of(s.kind)
        level = levels.get(code) if code else None
        if level is not None and s.severity == 0 and code not in documented:
            s = replace(s, severity=1 if short_level(level) in NO_ACTION else 2)
        out.append(s)
    return out


def level_notes(signals: list[Signal], levels: Mapping[str, str], mapped: Mapping[str, object],
                abstained: bool, limit: int = 3) -> list[str]:
    """Evidence lines for the device events of ``signals`` that ``levels`` (imported) rates: the level and the
    vendor's action; in an abstention, for a code whose kind ``mapped`` (the knowledge base's kind roles) does not
    list, that the vendor file knows it but no class is mapped to it."""
    out: list[str] = []
    seen: set[str] = set()
    for s in signals:
        code = code_of(s.kind)
        if code is None or code in seen or code not in levels:
            continue
        seen.add(code)
        level = short_level(levels[code])
        action = LEVEL_ACTIONS.get(level, "no action documented for this level")
        if abstained and f"dev:{code}" not in mapped and f"plugin:{code}" not in mapped:
            out.append(f"device event 0x{code} is known to the imported vendor fault-level file with level {level} "
                       f"(the vendor's action: {action}) but the knowledge base maps it to no class; escalate")
        else:
            out.append(f"device event 0x{code}: the imported vendor fault-level file rates it {level} "
                       f"(the vendor's action: {action})")
        if len(out) >= limit:
            break
    return out


__all__ = ["LEVEL_ACTIONS", "NO_ACTION", "code_of", "imported_levels", "level_notes", "levelled", "short_level"]
