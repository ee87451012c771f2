"""The diagnoser: features -> model -> class and confidence; topology rule -> root component; evidence in words.

Below the confidence threshold, or when most of what the incident shows is unfamiliar to the model, the answer is
``unknown`` (escalate) with the evidence, not a confident guess.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from opsbrain.diagnosis.features import DOWN, incident_features, l2_of_link, link_of, node_id
from opsbrain.diagnosis.knowledge import default_params, default_table
from opsbrain.diagnosis.localize import RULES, localize, sibling_roots
from opsbrain.diagnosis.model import DiagnosisModel
from opsbrain.diagnosis.triage import software_classes, timeout_words, undecided_timeouts
from opsbrain.diagnosis.triage import triage as software_triage
from opsbrain.diagnosis.vote import vote
from opsbrain.ingest import NO_HISTORY, LinkRecords, Signal
from opsbrain.ingest.where import node_of
from opsbrain.verdict import UNKNOWN, Diagnosis

if TYPE_CHECKING:
    from opsbrain.diagnosis.params import DiagnosisParams


def __getattr__(name: str) -> Any:
    """``DiagnosisParams``, imported on first use (it needs pydantic; a diagnosis reads the compiled defaults)."""
    if name == "DiagnosisParams":
        from opsbrain.diagnosis.params import DiagnosisParams

        return DiagnosisParams
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class HasSignals(Protocol):
    signals: list[Signal]


SDC = "silent_data_corruption"
SDC_CONFIRMING = frozenset({"sdc:silent_check"})
"""Signals that speak for a chip's silent corruption itself: the NPU's feature-value silent check (NPU_ASD_ENABLE)."""
SDC_UNCONFIRMED_CAP = 0.6
"""reason: a NaN loss or local gradient norm is the only trace silent corruption leaves (facts.md §4), but the same
line comes from the job's own data and settings far more often (MindSpeed's FAQ: ``found NaN in local grad norm``
from ``--append-eod`` with pad == eos, 'the same error occurs on GPUs'; Llama 3: silent corruption is 1.4% of
interruptions): without the silent check's own report the answer stays below the 0.8 of a confident one."""
SDC_UNCONFIRMED_WHY = ("a NaN gradient or loss does not name its cause: a chip's silent corruption or the job's data "
                       f"or settings; confidence kept at {SDC_UNCONFIRMED_CAP:.0%} (a rerun of the step on another "
                       "device, or the NPU silent check, tells them apart)")


def runbook_id(fault_class: str) -> str:
    return "rb-" + fault_class.replace("_", "-")


def _gist(template: str) -> str:
    """A message template's first sentence, without its ``{field}`` placeholders (the fields are not known here)."""
    return template.split(". ", 1)[0].rstrip(".")


def describe_kind(kind: str) -> str:
    from faultlib.telemetry import formats as fmt  # the code tables: only when evidence is worded

    fam, _, code = kind.partition(":")
    code = code.split(":")[0]
    if fam in ("dev", "plugin"):
        desc = fmt.DEVICE_CODES.get(code, ("", ""))[1] or "device fault event"  # undocumented code: no words
        return f"device event 0x{code} ({desc})"
    if fam == "rt" and code.isdigit():
        named = fmt.RUNTIME_CODES.get(int(code)) or documented_names().get(kind) or "runtime error"
        return f"runtime error {code} ({named})"
    if fam == "hccl":
        return "remote rank named by peers" if code == "remote" else \
            (f"collective error {code} ({_gist(fmt.HCCL_CODES[code])})" if code in fmt.HCCL_CODES
             else f"collective error: {code.replace('_', ' ')}")
    words = {"sw:down": "switch port link down", "port:down": "switch port down", "sw:lanes": "port lanes lost",
             "sw:up": "switch port link back up", "port:up": "switch port back up",
             "os:panic": "kernel panic", "os:lockup": "CPU soft lockup or RCU stall",
             "os:hard_lockup": "CPU hard lockup (NMI watchdog)", "os:pcie_fatal": "fatal PCIe error",
             "os:vpc_down": "Qingtian/VPC interface down", "os:storage": "storage not responding",
             "os:l1_fault": "L1 switch chip not responding", "agent:node_hb": "node heartbeat lost",
             "agent:node_hb_devup": "node heartbeat lost while devices report up",
             "agent:dev_hb": "device heartbeat lost", "hccn:down": "RoCE port link down",
             "tk:switch_port_flap": "switch port flapping",  # the toolkit's finding or the switch's own (session 42)
             "train:nan": "NaN loss in training", "train:storage": "training data read timed out"}
    if kind in words:
        return words[kind]
    meaning = kb_meanings().get(kind)
    if meaning:
        return f"{meaning} ({kind})"
    if fam == "msg" and code:  # a documented message's category (knowledge_base/codes.yaml, categories.yaml)
        return f"{code.replace('_', ' ')} message ({kind})"
    return kind


def documented_names() -> dict[str, str]:
    """Each documented code's name by its signal kind (knowledge_base/codes.yaml: ``rt:207001`` ->
    ``ACL_ERROR_RT_MEMORY_ALLOCATION``), for the codes the twin's own table does not word (the compiled
    knowledge base's, :func:`opsbrain.kb.compiled.code_names`)."""
    from opsbrain.kb.compiled import compiled_kb

    return compiled_kb().code_names


def kb_meanings() -> dict[str, str]:
    """Each signal kind's words from the knowledge base's signal signatures (``rt:sync_failed``: "stream
    synchronize failed"; :func:`opsbrain.kb.compiled.kind_words`). Evidence names a kind the table above has no
    words for by them, the kind kept beside them for grep."""
    from opsbrain.kb.compiled import compiled_kb

    return compiled_kb().kind_words


def evidence(signals: list[Signal], history: LinkRecords) -> list[str]:
    out: list[str] = []
    kinds = Counter(s.kind for s in signals if not s.kind.startswith("level:"))
    for kind, n in kinds.most_common(5):
        where = Counter(s.component for s in signals if s.kind == kind and s.component).most_common()
        more = f" and {len(where) - 1} other{'s' if len(where) > 2 else ''}" if len(where) > 1 else ""
        at = f" on {where[0][0]}{more}" if where else ""  # the count is of every component's, the name one of them
        out.append(f"{n} x {describe_kind(kind)}{at}")
    down = {ln for s in signals if s.kind in DOWN and (ln := link_of(s))}
    if len(down) > 1:
        l2 = Counter(l2_of_link(ln) for ln in sorted(down)).most_common(1)[0]  # ties: the first in order
        nd = Counter(node_id(ln) for ln in sorted(down)).most_common(1)[0]
        out.append(f"{len(down)} links down: {l2[1]} share L2 chip {l2[0]}, {nd[1]} belong to {nd[0]}")
    for ln in sorted(down)[:3]:
        n = history.flaps(ln)
        if n > 1:
            out.append(f"link {ln} went down {n} times in 24 h")
    return out


ALTERNATIVES = 4  # the answer and up to three alternatives are read off the ranking
MIN_ALTERNATIVE = 0.01  # an alternative below this probability is not listed


def ranked(probs: list[float]) -> list[int]:
    """Class indices by falling probability. The first place (the answer) is numpy's ``argsort()[::-1]`` first
    place (the order the model's answers were validated with): where the top value is shared, numpy's own
    (unstable) sort is asked, so a tie for the answer breaks as it always did. The alternatives follow by falling
    probability, equal ones by class index (their order among equal probabilities says nothing, and asking numpy for
    it would import numpy for a forest's common 1/n-tree ties)."""
    order = sorted(range(len(probs)), key=lambda i: (-probs[i], i))
    if order and probs.count(probs[order[0]]) > 1:
        import numpy as np

        first = int(np.asarray(probs, dtype=np.float64).argsort()[::-1][0])
        order.remove(first)
        order.insert(0, first)
    return order


def lone_warnings(signals: list[Signal]) -> list[Signal]:
    """The warnings on a part (their component, or its node) that shows no error, where other parts show errors:
    context, which the live detector puts in no incident of those errors (only an actionable kind or a burst opens
    one, and a warning joins its own part's incident only). A warning naming no part is on no other part, and where
    no error names a part no warning is on another one (a collective's timeout that names none, beside the warning
    that names the peer it waited for): none then."""
    errors = [s for s in signals if s.severity >= 2]
    parts = {s.component for s in errors if s.component} | {node_of(s.component) for s in errors if s.component}
    parts.discard(None)
    if not parts:
        return []
    return [s for s in signals if s.severity == 1 and s.component and not (
        s.component in parts or node_of(s.component) in parts)]


def _vote_features(feats: dict[str, float], signals: list[Signal]) -> dict[str, float]:
    """The knowledge base's features its vote counts: where the signals hold an error, not those of a warning on a
    part (its component, or its node) that shows no error; all of them otherwise. A warning on a part without an
    error beside another part's errors opens no incident of the live detector's and joins none (only an actionable
    kind or a burst opens one, a warning joins its own part's incident): it is context, and as the bundle's
    incidents leave it out, so does the vote here. Session 33: ``diagnose --logs`` of a link-down bundle's text,
    whose model was unsure among the link classes, took one HBM correctable-error warning (0x80E01805, SubHealth)
    logged eight minutes earlier on another host for hbm_ce_storm's primary signature and answered hbm_ce_storm at
    that host, where ``--bundle`` answered link_down (the link-down traps, ambiguous among five link classes, vote
    for none). The model's own input is unchanged."""
    lone = lone_warnings(signals)
    if not lone:
        return feats
    out = {k: v for k, v in feats.items() if not k.startswith("kb:")}
    gone = {id(s) for s in lone}
    return out | default_table().features([s for s in signals if id(s) not in gone])


class Engine:
    """Diagnoses incidents with a trained :class:`DiagnosisModel`."""

    def __init__(self, model: DiagnosisModel, params: DiagnosisParams | None = None,
                 runbooks: Callable[[str], str | None] | None = None) -> None:
        self.model = model
        self.p = params if params is not None else default_params()
        self._runbook = runbooks or runbook_id
        self._software: frozenset[str] | None = None

    def runbook_of(self, fault_class: str) -> str | None:
        """The runbook this engine would take for ``fault_class``."""
        return self._runbook(fault_class)

    @property
    def software(self) -> frozenset[str]:
        """The software-family classes of the shipped knowledge base (read once, for the triage)."""
        if self._software is None:
            from opsbrain.kb.compiled import compiled_kb

            self._software = software_classes(compiled_kb())
        return self._software

    def diagnose(self, incident: HasSignals, now: float, history: LinkRecords,
                 metric: Callable[[str, str], float | None] | None) -> Diagnosis:
        return self.diagnose_signals(incident.signals, now, history, metric)

    def diagnose_signals(self, signals: list[Signal], now: float, history: LinkRecords = NO_HISTORY,
                         metric: Callable[[str, str], float | None] | None = None,
                         extra: dict[str, float] | None = None, triage: bool = True) -> Diagnosis:
        feats = incident_features(signals, now, history, metric) | (extra or {})
        return self.decide(feats, signals, now, history, triage=triage)

    def decide(self, feats: dict[str, float], signals: list[Signal], now: float,
               history: LinkRecords = NO_HISTORY, triage: bool = True) -> Diagnosis:
        """The verdict on one incident's features. ``triage=False``: without the software triage, for a caller that
        reads part of the evidence (the root devices' own lines, the input before the vendor entries join): the
        triage rests on the absence of hardware evidence, which only the whole input can show."""
        probs = self.model.proba_one(feats)
        order = ranked(probs)
        best, conf = self.model.classes[order[0]], float(probs[order[0]])
        alts = [(self.model.classes[i], float(probs[i])) for i in order[1:ALTERNATIVES] if probs[i] > MIN_ALTERNATIVE]
        ev = evidence(signals, history)
        novelty = self.model.novelty(feats)
        named = any(k.startswith("kb:") and k.endswith((":primary", ":secondary")) for k in feats)
        if not signals or (novelty > self.p.max_novelty and not named):
            return Diagnosis(UNKNOWN, None, conf, ev + [f"{novelty:.0%} of the signal kinds are unfamiliar; "
                                                      "escalate to an engineer"], now, None, [(best, conf)] + alts)
        voted = _vote_features(feats, signals) if conf < self.p.min_confidence else feats
        if conf < self.p.min_confidence and (v := vote(voted, self.p.vote, self.model.classes)):
            ev = ev + [f"the model was unsure ({best} at {conf:.0%}); the knowledge base's documented signatures "
                       f"favour {v.leader} ({v.score:.2f} against {v.runner_up:.2f})"]
            prob = float(probs[list(self.model.classes).index(v.leader)])
            best, conf = v.leader, max(v.confidence, prob)
        elif triage and conf < self.p.min_confidence and (t := software_triage(
                feats, self.p.triage, self.p.vote, self.software, self.model.classes, signals=signals)):
            ev = ev + [f"the model was unsure ({best} at {conf:.0%}); software triage: {t.why}"]
            best, conf = t.cls, t.confidence
        component = localize(RULES.get(best, ""), signals) or localize("npu", signals)  # no host named: the device
        if best == SDC and conf > SDC_UNCONFIRMED_CAP and not any(s.kind in SDC_CONFIRMING for s in signals):
            conf = SDC_UNCONFIRMED_CAP
            ev = ev + [SDC_UNCONFIRMED_WHY]
        if conf < self.p.min_confidence:
            if timeouts := undecided_timeouts(feats):
                ev = ev + [timeout_words(timeouts)]
            return Diagnosis(UNKNOWN, component, conf, ev + [_guess_words(best, conf, probs, self.model.classes,
                                                                          feats, self.p.min_confidence)],
                             now, None, [(best, conf)] + alts)
        if also := sibling_roots(best, component, signals):
            more = f" and {len(also) - 3} more" if len(also) > 3 else ""
            links = f"{len(also)} other link{'s' if len(also) > 1 else ''} of {node_id(component or '')}"
            ev = ev + [f"{best} on {links} as well, each a fault of its own: {', '.join(also[:3])}{more}"]
        return Diagnosis(best, component, conf, ev, now, self._runbook(best), alts, also)


def _guess_words(best: str, conf: float, probs: Any, classes: Any, feats: dict[str, float], bar: float) -> str:
    """An abstention's best guess in words. Where the input's documented signatures name classes (``kb:<class>:
    <role>`` features) and the model's top class is none of them, the best of those is the guess named, the model's
    top beside it: its top on an input without a line for it is the forest's prior (session 51: a bare Python
    traceback, whose signature names framework_error as ambiguous, was escalated as "best guess
    silent_data_corruption at 15%"). The ranking given as the alternatives stays the model's. The words say only
    what was checked: no documented signature names the model's top (review51: "has no line of the input behind it"
    claimed more, as the forest also reads signal kinds no signature documents)."""
    named = {k.split(":")[1] for k in feats if k.startswith("kb:") and k.count(":") == 2}
    if named and best not in named:
        got = max(((float(probs[i]), c) for i, c in enumerate(classes) if c in named), default=None)
        if got is not None:
            return (f"best guess {got[1]} at {got[0]:.0%}, the class the input's documented signatures name (the "
                    f"model's top, {best} at {conf:.0%}, is named by none of them), is below the "
                    f"{bar:.0%} bar; escalate")
    return f"best guess {best} at {conf:.0%} is below the {bar:.0%} bar; escalate"
