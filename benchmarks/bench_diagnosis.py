"""Diagnosis speed: per incident (the live path) and in batch. Goals: <= 10 ms per incident (issue 5), >= 2,000
incidents/s in batch (issue 10). Incidents come from held-out case runs (evaluation seeds).

    .venv/bin/python benchmarks/bench_diagnosis.py [--runs-per-class N]
"""

from __future__ import annotations

import argparse
import time

from opsbrain.kb import cases as case_lib
from opsbrain.kb.training import load_engine


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs-per-class", type=int, default=2)
    args = ap.parse_args()
    engine = load_engine()
    cases = case_lib.generate(case_lib.EVAL_SEEDS, per_kind=args.runs_per_class, workers=2, keep_signals=True)
    t0 = time.perf_counter()
    for c in cases:
        engine.decide(c.features, c.signals, c.at_s)
    per = (time.perf_counter() - t0) / len(cases) * 1e3
    feats = [c.features for c in cases] * max(1, 20_000 // len(cases))
    t0 = time.perf_counter()
    engine.model.predict_proba(feats)
    rate = len(feats) / (time.perf_counter() - t0)
    print(f"incidents: {len(cases)} (held-out moments)")
    print(f"per incident (features -> class, component, evidence): {per:.3f} ms  goal <= 10 ms  "
          f"{'PASS' if per <= 10 else 'SHORT'}")
    print(f"batch: {rate:,.0f} incidents/s over {len(feats):,}  goal >= 2,000/s  {'PASS' if rate >= 2000 else 'SHORT'}")


if __name__ == "__main__":
    main()
