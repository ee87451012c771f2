"""A diagnosis verdict: what the diagnosis engine produces and the detector, orchestrator and reports consume."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

UNKNOWN = "unknown"
NOTHING_FOUND = "no fault found"
"""How the evidence of an input with no known fault signal begins (:func:`nothing_found`)."""

NO_ACTION = frozenset({"none", "notify", "wait", "page", "escalate", "guardrail", "approval", "detect", "diagnose",
                       "waiting_for_spare"})
"""Journal steps that change nothing in the plant: watching and waiting, a message or a page, an approval asked
for, a guard's record, a person noticing or diagnosing (the manual baseline's ``detect`` / ``diagnose``), a paged
response's claim on a spare (``waiting_for_spare``, session 44). One list for the run report's taken/watch split
(:func:`opsbrain.report.response.step_kind`) and the tenant campaign's actions on each tenant's parts
(:mod:`opsbrain.ops.tenant_run`; it kept its own copy, which missed ``waiting_for_spare``)."""


def took_action(a: dict[str, Any]) -> bool:
    """Whether a journal step acted on the plant: carried out (not ``skipped``, a guard's refusal too), not one of
    :data:`NO_ACTION` and not a guard's own record; succeeded or failed alike."""
    return a.get("status") != "skipped" and a.get("action") not in NO_ACTION and a.get("kind") != "guardrail"



def nothing_found(lines: int, what: str = "lines") -> str:
    """The evidence line of an input with no known fault signal at all: no fault found, which is not an unknown
    fault (a healthy collection said "escalate" before); escalation stays the advice for a job that did fail."""
    return f"{NOTHING_FOUND}: no known fault signal in {lines} {what} (if the job failed, escalate with them)"


def found_nothing(d: dict[str, Any]) -> bool:
    """True for a diagnosis (``Diagnosis.as_dict()`` form) of an input in which no known fault signal was read:
    not an abstention over fault signals (that is ``unknown`` with evidence), but nothing to look at."""
    ev = d.get("evidence") or [""]
    return d.get("fault_class") == UNKNOWN and str(ev[0]).startswith(NOTHING_FOUND)


@dataclass
class Diagnosis:
    """A verdict on one incident: fault class (a knowledge-base class id, or ``unknown`` = escalate), the root
    component, a calibrated confidence, and evidence in an operator's words."""

    fault_class: str
    component: str | None
    confidence: float
    evidence: list[str] = field(default_factory=list)
    at_s: float = 0.0
    runbook: str | None = None
    alternatives: list[tuple[str, float]] = field(default_factory=list)
    also: list[str] = field(default_factory=list)
    """Further roots of the same class in the incident, each its own (session 42: the other links of a link class
    down by themselves on the component's node); ``as_dict`` leaves it out when empty."""

    @property
    def abstained(self) -> bool:
        return self.fault_class == UNKNOWN

    @classmethod
    def from_dict(cls, d: dict[str, Any], at_s: float | None = None) -> Diagnosis:
        """The diagnosis an :meth:`as_dict` (a saved incident's, a bundle row's) holds, at ``at_s`` where given
        (else its own time): every field, its further roots (``also``) among them (session 43: the bundle's second
        look rebuilt diagnoses without them)."""
        return cls(d["fault_class"], d.get("component"), float(d["confidence"]), list(d.get("evidence") or []),
                   float(d.get("at_s") or 0.0) if at_s is None else at_s, d.get("runbook"),
                   [(str(c), float(p)) for c, p in d.get("alternatives") or []], list(d.get("also") or []))

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        if not self.also:
            del d["also"]
        d["alternatives"] = [[c, round(p, 4)] for c, p in self.alternatives]
        d["confidence"] = round(self.confidence, 4)
        return d


# ---- one outcome vocabulary for the CLI, Markdown, HTML and campaign summaries ---------------------------------
# Each function returns (word, tone); tone is one of TONES and picks the colour (green / red / yellow / none).
TONES = ("ok", "bad", "warn", "neutral")

ETTR_BAR = 0.90
"""ETTR at or above which a training run reads as healthy. Source: Llama 3 405B kept > 90% effective training time
over 54 days on 16,384 H100 with 466 interruptions (Llama 3 paper, arXiv 2407.21783)."""
ETTR_WARN = 0.85
"""Below this the run reads as bad; between it and :data:`ETTR_BAR` as a warning. Source: ETTR of the largest jobs
on Meta's research clusters was 0.85-0.9 (arXiv 2410.21680)."""


def verdict_first(matches: list[dict[str, Any]], fault_class: str | None) -> list[dict[str, Any]]:
    """Knowledge matches with those of the verdict's class first (stable otherwise): a code several classes list
    (80E01801: hbm_uce, and hbm_row_exhaustion where each one isolates a row) is shown with the advice of the class
    the diagnosis chose, not another's."""
    return sorted(matches, key=lambda k: k.get("class") != fault_class) if fault_class else matches


def probe_outcome(longest_deviation_s: float | None, tolerance_s: float | None, ok_after: bool | None) -> tuple[
        str, str]:
    """A steady-state probe: ``ok`` only when it never stayed out of band longer than the tolerance AND is back in
    band at the end; else ``deviated`` (longer than the tolerance), ``not recovered`` (out of band at the end) or
    ``not checked`` (``ok_after`` None: an ``of_baseline`` probe for which no fault-free baseline existed)."""
    if longest_deviation_s is not None and tolerance_s is not None and longest_deviation_s > tolerance_s:
        return "deviated", "bad"
    if ok_after is False:
        return "not recovered", "bad"
    if ok_after is None:
        return "not checked", "warn"
    return "ok", "ok"


WORKLOAD_DOWN_CLASS = "workload_stuck"
"""The progress watchdog's class (opsbrain.recovery.schema.WORKLOAD_STUCK): a job made no progress."""
RESTARTS = ("restart_process", "restart_job", "restart_instance")


def trouble(inc: dict[str, Any]) -> str | None:
    """Why an incident is no background event whatever caused it, in words, or None: a workload down (the
    progress watchdog's ``workload_stuck``), restarts of work that failed, escalations of its runbook
    (``train down, 9 failed restarts, 3 escalations, the last to a person``)."""
    from opsbrain.report.text import count  # (opsbrain.report imports this module)

    d = inc.get("diagnosis") or {}
    acts = [a for a in inc.get("actions") or [] if isinstance(a, dict)]
    failed = sum(1 for a in acts if a.get("action") in RESTARTS and a.get("status") == "failed")
    esc = [a for a in acts if a.get("action") == "escalate"]
    parts = [f"{d.get('component') or 'a workload'} down"] if d.get("fault_class") == WORKLOAD_DOWN_CLASS else []
    if failed:
        parts.append(count(failed, "failed restart"))
    if esc:
        human = (esc[-1].get("detail") or {}).get("to_rung") == "human"
        parts.append(count(len(esc), "escalation") + (", the last to a person" if human else ""))
    return ", ".join(parts) or None


def is_noise(inc: dict[str, Any]) -> bool:
    """A journal incident with no injected fault behind it that is no fault's consequence (``consequence_of``, a
    workload's report of an injected fault's harm) and, unless acted on as a false positive, no :func:`trouble`
    (a workload down, failed restarts, escalations: never noise): what run summaries, campaign figures and the
    run store's ``opsbrain_run_noise_incidents`` gauge count as noise (false positives are noise acted on)."""
    if inc.get("injected") or inc.get("consequence_of"):
        return False
    return bool(inc.get("false_positive")) or trouble(inc) is None


def needs_attention(inc: dict[str, Any]) -> bool:
    """An incident no injected fault explains, no false positive and no noise (:func:`trouble` says why)."""
    return not inc.get("injected") and not inc.get("consequence_of") and not is_noise(inc)


def person_steps(fault: dict[str, Any]) -> int:
    """Steps a person took on the incident that handled a journal fault: its own ``human_steps``, or for a fault
    folded into another's incident that incident's (``human_steps_folded.steps``, counted with another fault's
    figures). For "handled without a human", never for sums or means (those take ``human_steps``: each step once)."""
    folded = fault.get("human_steps_folded")
    steps = folded.get("steps") if isinstance(folded, dict) else None
    return max(int(fault.get("human_steps") or 0), int(steps or 0))


def human_steps_note(fault: dict[str, Any]) -> str:
    """For a report, beside a fault's human steps: for a folded fault, the incident it was folded into and the
    fault its steps are counted with ("" for any other)."""
    folded = fault.get("human_steps_folded")
    if not isinstance(folded, dict):
        return ""
    where = ("counted here" if folded.get("counted_with") == fault.get("id")
             else f"counted with {folded.get('counted_with')}")
    from opsbrain.report.text import count

    return f"folded into {folded.get('into')}: its {count(folded.get('steps', 0), 'step')} {where}"


def censored_reason(inc: dict[str, Any]) -> str:
    """Why a censored fault was out of the run's reach: it changed nothing a detection path reads (its
    ``detection_note`` says nothing could have detected it, opsbrain.runner.censor.NOTHING) or it came too late."""
    if str(inc.get("detection_note") or "").startswith("nothing could have detected it"):
        return "nothing to detect"
    return "too late in the run to detect"


def incident_outcome(inc: dict[str, Any]) -> tuple[str, str]:
    """A journal incident. An injected fault: ``correct``, ``wrong component``, ``wrong class``, ``abstained`` or
    ``missed`` (never diagnosed; ``symptom of <cause>`` for one declared a symptom, scored with its cause;
    ``censored: ...`` for one the run ended too soon after to be detected, journal ``detection``); a fault
    folded into the incident matched to another (``covered_by``) takes that incident's diagnosis, its label followed by
    ``(folded into <incident>)``. A noise
    incident: ``ignored`` (nothing that costs capacity was done), ``acted: false positive``, ``needs attention`` (a
    workload down, failed restarts or escalations, :func:`trouble`; no injected fault explains it), or ``consequence of
    <fault>`` (a workload's report of an injected fault's harm, :func:`opsbrain.runner.scoring.consequence_of`)."""
    d = inc.get("diagnosis") or {}
    if not inc.get("injected"):
        if inc.get("consequence_of"):  # a workload's report of an injected fault's harm: scored with that fault
            return f"consequence of {inc['consequence_of']}", "neutral"
        if inc.get("false_positive"):
            return "acted: false positive", "bad"
        return ("needs attention", "bad") if needs_attention(inc) else ("ignored", "ok")
    if inc.get("correct"):
        return "correct", "ok"
    if inc.get("covered_by") and d:  # folded into the incident matched to another fault: judged by its diagnosis
        if inc.get("symptom_of"):  # a declared symptom folded into its cause's incident is no miss of its own
            return f"symptom of {', '.join(inc['symptom_of'])} (folded into {inc['covered_by']})", "neutral"
        label, tone = incident_outcome({k: v for k, v in inc.items() if k != "covered_by"})
        return f"{label} (folded into {inc['covered_by']})", tone
    if inc.get("symptom_of") and not d:  # declared a symptom of another fault: scored with its cause
        return f"symptom of {', '.join(inc['symptom_of'])}", "neutral"
    if not d and inc.get("detection") == "censored":  # the run could not see it: not a miss
        return f"censored: {censored_reason(inc)}", "neutral"
    if not d:
        return "missed", "bad"
    if d.get("fault_class") == UNKNOWN:
        return "abstained", "warn"
    if d.get("fault_class") == inc["injected"].get("kind"):
        return "wrong component", "bad"
    return "wrong class", "bad"


def ettr_outcome(ettr: float | None) -> tuple[str, str]:
    """ETTR against :data:`ETTR_BAR`: ``>= 0.90`` ok, ``0.85-0.90`` warn, below bad (``-`` when there is none)."""
    if ettr is None:
        return "-", "neutral"
    tone = "ok" if ettr >= ETTR_BAR else "warn" if ettr >= ETTR_WARN else "bad"
    return f"{ettr:.3f}", tone


def run_verdict(status: str, hypothesis: str, unchecked: list[str], expectations: list[dict[str, Any]],
                unjudged_probes: dict[str, str] | None = None) -> tuple[str, str | None]:
    """A run's verdict and, when it is ``inconclusive``, why (docs/scenarios.md, "Verdict"). ``aborted``: the run
    did not reach its end. ``failed``: the steady state deviated or an expectation is unmet. ``inconclusive``:
    nothing failed, but a probe could not be checked (no fault-free baseline), or there was nothing to check (no
    steady-state hypothesis and no expectations; chaostoolkit's "completed"), or an expectation could not be judged
    (``met`` null: its fault was censored, too late in the run to detect), or a probe's end reading was not judged
    (``unjudged_probes``: out of band at the end only since censored faults began; session 36). ``passed``: every
    probe was checked and held and every expectation was met, and there was at least one of either."""
    if status != "finished":
        return "aborted", None
    if hypothesis == "deviated" or any(e.get("met") is False for e in expectations):
        return "failed", None
    why: list[str] = []  # every reason the run is inconclusive, probes first
    if hypothesis == "unchecked":
        why += [f"probe{'s' * (len(unchecked) != 1)} {', '.join(unchecked)} could not be checked: no fault-free "
                "baseline (a fault at t=0 and no model value)"] if unchecked else []
        why += [f"probe {name} {w}" for name, w in (unjudged_probes or {}).items()]
    unjudged = [e for e in expectations if e.get("met") is None]
    if unjudged:  # a superpod bound says why (no switch ran, no fault injected; session 36); else a censored fault
        whys = dict.fromkeys(e["unjudged"][0] if str(e.get("check", "")).startswith("superpod.") and e.get("unjudged")
                             else "the fault was censored (too late in the run to detect)" for e in unjudged)
        why.append(f"expectation{'s' * (len(unjudged) != 1)} on "
                   + ", ".join(str(e.get("check") or "the run") for e in unjudged)
                   + " could not be judged: " + "; ".join(whys))
    if why:
        return "inconclusive", "; ".join(why)
    if hypothesis == "none" and not expectations:
        return "inconclusive", "no steady-state hypothesis and no expectations: nothing was checked"
    return "passed", None


def run_outcome(verdict: str | None, ettr: float | None = None) -> tuple[str, str]:
    """A run's verdict, and its ETTR when it trained: ``passed`` is only ``ok`` when the ETTR (if any) meets the
    bar; ``passed, ETTR below 0.90`` otherwise. ``inconclusive`` warns, or with an ETTR takes its tone (a campaign
    run checks nothing of its own: its ETTR is what there is). ``failed`` is bad; ``aborted`` and an unfinished run
    warn."""
    v = str(verdict or "unfinished")
    if v in ("passed", "inconclusive"):
        if ettr is not None and ettr < ETTR_BAR:
            return f"{v}, ETTR below {ETTR_BAR:.2f}", "warn" if ettr >= ETTR_WARN else "bad"
        return v, "ok" if v == "passed" or ettr is not None else "warn"
    return v, "bad" if v == "failed" else "warn"


TONE_STYLE = {"ok": "green", "bad": "red", "warn": "yellow", "neutral": None}
"""The terminal colour of each tone (opsbrain.cli.output); the HTML report uses its CSS classes ok / bad / warn."""


def cited_line(e: dict[str, Any], width: int = 160) -> str:
    """An evidence row as the verdict's evidence quotes it: ``file:line: text``, and how many times it was written in
    a row when more than once."""
    times = f" (written {e['repeats']:,} times in a row)" if e.get("repeats", 1) > 1 else ""
    return f"{e['file']}:{e['line']}: {e['text'][:width]}{times}"
