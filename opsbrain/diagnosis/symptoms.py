"""Symptoms that give no signal and name no fault class, in the answer (session 43, diag43b).

An npu-exporter page whose only finding is its node health summary (``machine_unhealthy_npu_nums`` above the NPUs
its chips' series show at fault, ``machine_unknown_npu_nums``; session 42, metrics42) gives no signal: no class may be
drawn from a count. Its answer read "diagnosis: no fault found", the count said only in a note, and ``--exit-code``
exited 0 as for a clean input. Now such an answer leads with what was found, as an answer over signals that no class
explains does (``unknown``, "escalate"): the headline says it and that no class was drawn ("diagnosis: 1 NPU
unhealthy by the node summary of node-1 (...); no fault class"), and the answer is no longer "nothing found", so
``diagnose --exit-code`` exits 1 as for any other symptom without a class (0 without the flag, as always).
"""

from __future__ import annotations

from typing import Any

from opsbrain.verdict import NOTHING_FOUND, UNKNOWN, found_nothing

LEAD = "no fault class, but found"
"""The first words of the evidence line an answer led by its symptoms starts with (:func:`led_by_symptoms`)."""


def with_symptoms(d: dict[str, Any], stats: dict[str, Any]) -> None:
    """Put the input's symptoms (``stats["symptoms"]``, :class:`opsbrain.ingest.bytelines.TextStats`) into an answer
    without a class (``d``, a diagnosis dict): in place of "no fault found" where nothing else was found, after its
    evidence where signals no class explains were; an answer with a class keeps them in its notes only."""
    said = [str(x) for x in stats.get("symptoms") or []]
    if not said or d.get("fault_class") != UNKNOWN:
        return
    d["symptoms"] = said
    if found_nothing(d):
        rest = [e for e in d.get("evidence", []) if not str(e).startswith(NOTHING_FOUND)]
        d["evidence"] = [f"{LEAD}: " + "; ".join(said) + " (no signal: a count names no device or cause; find the "
                         "NPU with npu-smi info, or sweep the page: opsbrain sweep once --source prometheus --url "
                         "file:///PATH)", *rest]
    else:
        d["evidence"] = [*d.get("evidence", []), "also found, no signal: " + "; ".join(said)]


def led_by_symptoms(d: dict[str, Any]) -> bool:
    """True for an answer whose evidence leads with its symptoms (:func:`with_symptoms`): its headline says them."""
    return bool(d.get("symptoms")) and str((d.get("evidence") or [""])[0]).startswith(LEAD)


def symptoms_headline(d: dict[str, Any]) -> str:
    """``diagnosis: <what was found>; no fault class`` for an answer led by its symptoms."""
    return "diagnosis: " + "; ".join(d.get("symptoms") or []) + "; no fault class"
