"""The multi-rank verdict: the root cluster (:mod:`opsbrain.diagnosis.rootcluster`) of a job's processes, with a
class chosen from the root devices' own evidence, in the operator's terms (host as written, device index).

The class: the diagnosis model on the signals of the root devices' own lines (their plogs, and lines of their host
that name their device); when the model abstains there, the knowledge base's signature roles over those signals
decide by the same role weights as the engine's vote (:mod:`opsbrain.diagnosis.vote`), here without its lead
and minimum (the root cluster has already placed the failure; the class only names it), and the answer says
so. When the root waits for a remote that never came up, or whose logs are missing, the answer says that too.
"""

from __future__ import annotations

from typing import Any

from opsbrain.diagnosis.knowledge import default_params, default_table
from opsbrain.diagnosis.rootcluster import KIND_WORDS, RootCluster, analyse
from opsbrain.diagnosis.vote import scores
from opsbrain.ingest import Signal
from opsbrain.ingest.ranks import RankProcess, RankTable
from opsbrain.ingest.where import user_terms
from opsbrain.verdict import UNKNOWN

DECIDING = frozenset({"socket", "transport", "notify", "cqe", "cluster", "rootinfo"})
"""Failure kinds whose wait relation locates a root (the others only list erroring devices)."""


def _own(p: RankProcess, s: Signal) -> bool:
    if s.file is not None and s.file in p.files:
        return True
    return s.device is not None and s.device == p.device and s.host == p.worker


def root_signals(rc: RootCluster, signals: list[Signal]) -> list[Signal]:
    """The signals of the root devices' own lines."""
    return [s for s in signals if any(_own(p, s) for p in rc.roots)]


def kb_vote(signals: list[Signal]) -> tuple[str | None, dict[str, float]]:
    """The class whose signatures the signals fit best by role weight (see the module docstring)."""
    score = scores(default_table().features(signals), default_params().vote)
    top = sorted(score.items(), key=lambda kv: -kv[1])[:4]
    return (top[0][0] if top else None), {c: round(v, 2) for c, v in top}


def component_of(p: RankProcess) -> str:
    """A root process as a component id in the user's terms: ``<host>/npu<device>``."""
    dev = f"npu{p.device}" if p.device is not None else f"pid{p.pid}"
    return f"{p.worker}/{dev}" if p.worker else dev


def multirank_verdict(table: RankTable, signals: list[Signal], engine: Any, now: float) -> dict[str, Any] | None:
    """The root cluster and its class, or None when no process of a collective logged an error."""
    if not any(p.first_error is not None for p in table.processes):
        return None
    rc = analyse(table)
    out = rc.as_dict()
    out["decides"] = rc.kind in DECIDING and bool(rc.roots)
    if not rc.roots:
        return out
    own = root_signals(rc, signals)
    cls, conf, how = UNKNOWN, 0.0, ""
    probs: dict[str, float] = {}
    if own and engine is not None:
        d = engine.diagnose_signals(own, now)
        probs = dict(d.alternatives)
        if not d.abstained:
            cls, conf, how = d.fault_class, d.confidence, "the diagnosis model on the root devices' own lines"
        else:
            best = (d.alternatives or [(UNKNOWN, 0.0)])[0]
            how = f"the model abstained on the root devices' lines (best guess {best[0]} at {best[1]:.0%}); "
    if cls == UNKNOWN:
        waiters = [s for s in signals if any(_own(p, s) for p in rc.error_devices)]
        voted, score = kb_vote(own) if own else (None, {})
        if voted is None:
            voted, score = kb_vote(waiters)
        if voted is not None:
            cls = voted
            conf = probs.get(voted, 0.0)  # the model's own probability for it: no confidence is made up
            how += f"knowledge-base signature roles over their signals (weights {score}); confidence is the " \
                   f"model's probability for {voted}"
    out["fault_class"] = cls
    out["confidence"] = conf
    out["class_from"] = how or "no signal of the root devices is known"
    out["component"] = component_of(rc.roots[0])
    out["summary"] = summary(rc)
    return out


def summary(rc: RootCluster) -> str:
    """One sentence: what failed, where the root is, the chain, why."""
    what = KIND_WORDS.get(rc.kind, rc.kind)
    roots = ", ".join(p.name for p in rc.roots)
    n = sum(1 for p in rc.error_devices if any(e.kind == rc.kind for e in p.errors))
    s = f"{what} on {n} device(s) ({len(rc.error_devices)} logged errors); root {roots}"
    if rc.chain:
        s += f"; wait chain {' -> '.join(rc.chain)}"
    s += f"; {rc.rule}"
    if rc.dead_ends and rc.roots and any(d["waiter"] == rc.roots[0].name for d in rc.dead_ends):
        d = next(d for d in rc.dead_ends if d["waiter"] == rc.roots[0].name)
        s += f"; it waited for {d['remote']}: {d['why']}"
    return s


def _runbook(engine: Any, cls: str) -> str | None:
    rb = getattr(engine, "_runbook", None)
    return rb(cls) if callable(rb) else None


def apply_root_cluster(out: dict[str, Any], mr: dict[str, Any], engine: Any, max_lines: int = 12) -> None:
    """Let the root cluster decide a verdict (``Diagnosis.as_dict()`` plus ``root`` and ``evidence_lines``) where
    the verdict cannot place the failure: it abstained, blamed the collective itself, or names no host (then its
    class stands and the root cluster gives the host)."""
    own = out.get("root") or user_terms(out.get("component"))
    if not (mr.get("decides") and mr.get("fault_class", UNKNOWN) != UNKNOWN):
        return
    roots = mr["roots"]
    if out.get("fault_class") not in (UNKNOWN, "collective_timeout_sw"):
        if own.get("host") is None and own.get("device") in (None, roots[0]["device"]):
            # the verdict's class stands; the root cluster says which host its device is on
            out["root"] = {"component": mr["component"], "host": roots[0]["host"] or None, "device": roots[0]["device"],
                           "name": roots[0]["name"]}
            out["evidence"].insert(0, "placed by the multi-rank root cluster: " + mr["summary"])
        else:
            out["evidence"].insert(0, "multi-rank root cluster (not deciding; the verdict rests on other "
                                   "evidence): " + mr["summary"])
        return
    was = out.get("fault_class")
    out["fault_class"], out["confidence"] = mr["fault_class"], round(mr["confidence"], 4)
    out["component"] = mr["component"]
    out["runbook"] = _runbook(engine, mr["fault_class"])
    out["decided_by"] = "multi-rank root cluster; class from " + mr["class_from"]
    out["root"] = {"component": mr["component"], "host": roots[0]["host"] or None, "device": roots[0]["device"],
                   "name": roots[0]["name"]}
    out["roots"] = [{"host": r["host"] or None, "device": r["device"], "name": r["name"]} for r in roots]
    out["evidence"] = [mr["summary"]] + [e for e in out.get("evidence", []) if "escalate" not in e] + [
        f"the verdict on the whole input was {was}; the root cluster decides the root"]
    seen = {(e["file"], e["line"]) for e in mr["evidence_lines"]}
    rest = [e for e in out.get("evidence_lines", []) if (e["file"], e["line"]) not in seen]
    out["evidence_lines"] = (mr["evidence_lines"] + rest)[:max_lines]
