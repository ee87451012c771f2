"""The diagnosis' parameters (pydantic parameter groups with unit and source, as every opsbrain parameter).

Diagnosis itself reads their defaults from the compiled knowledge base (:mod:`opsbrain.kb.compiled`, computed
from these classes), so that a diagnosis does not import pydantic; a caller passes an instance to override them.
"""

from __future__ import annotations

from faultlib.params import P, ParamGroup


class VoteParams(ParamGroup):
    primary: float = P(1.0, "weight", "reason: a primary signature names the fault (the unit of the vote)", gt=0)
    secondary: float = P(0.4, "weight", "reason: a supporting signature counts less than half of a naming one, "
                         "so two distinct supporting kinds are needed to outweigh one naming kind", ge=0)
    ambiguous: float = P(0.1, "weight", "reason: a code printed for many causes (EZ9999, EI9999) barely counts",
                         ge=0)
    min_score: float = P(0.4, "score", "reason: one primary line (features are log(1 + count): 0.69) or two "
                         "supporting lines (0.4 x log 3 = 0.44), never one supporting line alone (0.28)", ge=0)
    lead: float = P(2.0, "ratio", "reason: the leader must outweigh the runner-up two to one", ge=1)
    max_confidence: float = P(0.75, "probability", "reason: a vote is never a confident answer (stays below the 0.8 "
                              "confident-wrong bar of the real-log evaluation)", ge=0, lt=0.8)


class TriageParams(ParamGroup):
    enabled: bool = P(True, "switch", "reason: the software triage of opsbrain.diagnosis.triage (issue 14); off "
                      "gives the model-and-vote decision alone")
    confidence: float = P(0.5, "probability", "reason: a triaged answer rests on the absence of hardware evidence, "
                          "not on a signature of its own: above the 0.4 answer bar, far below the 0.8 "
                          "confident-wrong bar (not fitted)", gt=0, lt=0.8)
    generic: str = P("framework_error", "class", "reason: the knowledge base's class for a program's own failure "
                     "(a Python exception inside torch_npu / MindSpore / vLLM code, an operator bug: "
                     "knowledge_base/classes/framework_error.yaml)")


class DiagnosisParams(ParamGroup):
    min_confidence: float = P(0.4, "probability", "fitted on the development split of the real-log corpus (issue 14): "
                              "with 23 classes a top class at 0.4-0.5 is still several times likelier than the next; "
                              "0.5 abstained on most real excerpts; below the bar escalate (an unknown beats a "
                              "confident wrong answer)", ge=0, le=1)
    max_novelty: float = P(0.5, "share", "reason: when most signal kinds were never seen in training the model is "
                           "out of its distribution", ge=0, le=1)
    text_fallback: bool = P(True, "switch", "reason: the real-text fallback of opsbrain.diagnosis.realtext "
                            "(session 16): where the verdict on pasted text abstains and nothing is hardware "
                            "evidence, a classifier learned from the real-log corpus' dev excerpts may answer a "
                            "software class; off gives the signal verdict alone")
    vote: VoteParams = VoteParams()
    triage: TriageParams = TriageParams()
