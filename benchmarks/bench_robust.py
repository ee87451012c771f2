"""Robustness of reading real excerpts to surface form: for each DEV-split excerpt of the real-log corpus that
opsbrain answers right today, the variants another collection would write (opsbrain.ingest.variants) and the
share of (excerpt, variant) pairs that keep the class and the root device, per variant kind.

  OPSBRAIN_HOME=... python benchmarks/bench_robust.py [--seeds 2] [--json]

The TEST split is never read here (only excerpts whose split is ``dev``)."""

from __future__ import annotations

import argparse
import io
import json
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _answer(text: str, engine: Any, matcher: Any) -> tuple[str, int | None, set[int]]:
    from opsbrain.diagnosis.oneclick import diagnose_logs

    d = diagnose_logs("-", engine, matcher, stdin=io.BytesIO(text.encode("utf-8")))["diagnosis"]
    keys = {int(e["line"]) for e in d.get("evidence_lines", []) if e.get("line")}
    return d["fault_class"], (d.get("root") or {}).get("device"), keys


def right_today(engine: Any, matcher: Any) -> list[dict[str, Any]]:
    """DEV excerpts answered right (class; root device too where the excerpt names one), with their key lines."""
    from opsbrain.kb.realeval import default_corpus_dir, load_corpus

    out = []
    for e in load_corpus(default_corpus_dir()):
        if e["split"] != "dev":
            continue
        want = "unknown" if e["label"] == "other" else e["label"]
        cls, dev, keys = _answer(str(e["text"]), engine, matcher)
        root = e["root"].get("device") if isinstance(e["root"], dict) else None
        if cls == want and (root is None or dev == root):
            out.append({"id": e["id"], "text": str(e["text"]), "class": cls, "device": root, "keys": keys})
    return out


def variants_of(e: dict[str, Any], seed: int) -> list[tuple[str, str]]:
    from opsbrain.ingest.variants import KINDS, cut

    rng = random.Random(f"{e['id']}:{seed}")
    out = [(k, v) for k, fn in KINDS.items() if (v := fn(e["text"], rng)) is not None]
    out += [(k, v) for k, head in (("cut:head", True), ("cut:tail", False))
            if (v := cut(e["text"], e["keys"], head)) is not None]
    return out


def measure(engine: Any, matcher: Any, seeds: int = 1) -> dict[str, Any]:
    base = right_today(engine, matcher)
    per: dict[str, list[int]] = {}
    broken: list[tuple[str, str, str]] = []
    for e in base:
        for seed in range(seeds):
            for kind, text in variants_of(e, seed):
                cls, dev, _ = _answer(text, engine, matcher)
                ok = cls == e["class"] and (e["device"] is None or dev == e["device"])
                per.setdefault(kind, []).append(int(ok))
                if not ok:
                    broken.append((e["id"], kind, f"{cls}/{dev}"))
    rows = {k: {"pairs": len(v), "kept": sum(v), "share": round(sum(v) / len(v), 3)} for k, v in sorted(per.items())}
    allv = [x for v in per.values() for x in v]
    return {"excerpts_right_today": len(base), "pairs": len(allv),
            "kept_share": round(sum(allv) / len(allv), 3) if allv else None, "per_kind": rows, "broken": broken}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--broken", action="store_true", help="list the pairs that changed answer")
    a = ap.parse_args()
    from opsbrain.kb import SignatureMatcher, load_kb
    from opsbrain.kb.training import load_engine

    res = measure(load_engine(), SignatureMatcher(load_kb()), a.seeds)
    if a.json:
        print(json.dumps(res, indent=1))
        return
    print(f"dev excerpts right today: {res['excerpts_right_today']}; pairs {res['pairs']}; "
          f"kept class+root {res['kept_share']}")
    print(f"{'variant':24} {'pairs':>5} {'kept':>5} {'share':>6}")
    for k, v in res["per_kind"].items():
        print(f"{k:24} {v['pairs']:>5} {v['kept']:>5} {v['share']:>6}")
    if a.broken:
        for b in res["broken"]:
            print("broken:", *b)


if __name__ == "__main__":
    main()
