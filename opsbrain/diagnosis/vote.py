"""The knowledge base's own vote: which class the documented signatures of an incident speak for.

Each signal kind the knowledge base knows counts for the classes that list it, weighted by the role it plays
there (a primary signature names the fault, a secondary one supports it, an ambiguous one is printed for many
causes). The model decides; the vote answers only when the model abstains and the documents clearly favour one
class, and its answer is never confident (it stays below the confident-wrong bar), because a vote counts
signatures and does not weigh context the way the model does."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from opsbrain.diagnosis.params import VoteParams


def __getattr__(name: str) -> Any:
    """``VoteParams``, imported on first use (it needs pydantic; a diagnosis reads the compiled defaults)."""
    if name == "VoteParams":
        from opsbrain.diagnosis.params import VoteParams

        return VoteParams
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass(frozen=True)
class Vote:
    leader: str
    score: float
    runner_up: float
    confidence: float


def scores(feats: dict[str, float], p: VoteParams) -> dict[str, float]:
    """class -> weighted sum of its kb:<class>:<role> features."""
    w = {"primary": p.primary, "secondary": p.secondary, "ambiguous": p.ambiguous}
    out: dict[str, float] = {}
    for key, value in feats.items():
        if not key.startswith("kb:"):
            continue
        _, cls_id, role = key.split(":", 2)
        out[cls_id] = out.get(cls_id, 0.0) + w.get(role, 0.0) * value
    return out


def vote(feats: dict[str, float], p: VoteParams, classes: list[str] | tuple[str, ...]) -> Vote | None:
    """The clear leader of the vote among ``classes`` (the model's classes), or None."""
    s = sorted(((v, c) for c, v in scores(feats, p).items() if c in classes), reverse=True)
    if not s:
        return None
    best, cls_id = s[0]
    runner = s[1][0] if len(s) > 1 else 0.0
    if best < p.min_score or best < p.lead * runner:
        return None
    return Vote(cls_id, best, runner, min(p.max_confidence, best / (best + runner + p.min_score)))
