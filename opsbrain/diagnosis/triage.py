"""Software triage: the first question an on-call engineer asks of an unexplained failure -- is there any hardware
evidence at all? -- asked of what the knowledge base says about the incident's signals.

It answers only where the model abstains and the vote (:mod:`opsbrain.diagnosis.vote`) found no clear leader, and
only when nothing in the input names or supports a class of a hardware family (device, HBM, link, switch, node,
RDMA: every ``kb:<class>:primary|secondary`` feature belongs to a class of the ``software`` family) while some
signal counts for a software class. Then:

- the software classes the signals name or support (primary / secondary roles) decide by the vote's weights when
  one leads the others by the vote's lead (a tie -- one category speaking for two classes, ``parameter_or_usage``
  for framework and configuration errors -- stays an abstention: the documents do not say which);
- when no software class is named or supported and the signals are only ambiguous ones (a bare ``RuntimeError``, a
  segfault, the runtime's "internal error"), the program's own failure is the generic software class
  (:attr:`TriageParams.generic`), if the signals count for it at least as much as for any other class.

Its answer carries a fixed, modest confidence (:attr:`TriageParams.confidence`): above the answer bar, far below the
0.8 confident-wrong bar; the evidence says it was triaged. A signal that counts for no class at all (an unknown
device event, an undocumented code) never triggers it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from opsbrain.diagnosis.vote import scores

if TYPE_CHECKING:
    from opsbrain.diagnosis.params import TriageParams, VoteParams

NAMING = ("primary", "secondary")


@dataclass(frozen=True)
class Triage:
    cls: str
    confidence: float
    why: str


def _roles(feats: dict[str, float]) -> list[tuple[str, str]]:
    return [(k.split(":")[1], k.split(":")[2]) for k in feats if k.startswith("kb:") and k.count(":") == 2]


def triage(feats: dict[str, float], p: TriageParams, vote_p: VoteParams, software: frozenset[str],
           classes: list[str] | tuple[str, ...]) -> Triage | None:
    """The software class the incident's knowledge-base features point to when they hold no hardware evidence, or
    None. ``software``: the classes of the software family; ``classes``: the model's classes."""
    if not p.enabled:
        return None
    roles = _roles(feats)
    if not roles or any(c not in software and r in NAMING for c, r in roles):
        return None
    named = {c for c, r in roles if r in NAMING}
    s = scores(feats, vote_p)
    if named:
        ranked = sorted(((s[c], c) for c in named if c in classes), reverse=True)
        if not ranked:
            return None
        runner = ranked[1][0] if len(ranked) > 1 else 0.0
        if ranked[0][0] < vote_p.lead * runner:
            return None
        return Triage(ranked[0][1], p.confidence, f"no hardware evidence; the software signatures present name "
                                                  f"{ranked[0][1]} ({ranked[0][0]:.2f} against {runner:.2f})")
    generic = p.generic
    if generic not in classes or s.get(generic, 0.0) <= 0 or s[generic] < max(s.values()):
        return None
    among = ", ".join(sorted(s))
    return Triage(generic, p.confidence, "no hardware evidence, and no documented signature names a cause (the "
                                         f"signals are printed for several: {among}); a program's own failure is "
                                         f"triaged to {generic}")


def software_classes(classes: Any) -> frozenset[str]:
    """The ids of the software-family classes of a knowledge base (plain or validated classes)."""
    return frozenset(c.id for c in classes if getattr(c, "family", None) == "software")
