"""Excerpts as operators paste them: every DEV-split excerpt of the real-log corpus under every paste wrapper of
opsbrain.kb.perturb (Markdown quote and fence, indent, CRLF, colours, rank / vLLM / kubectl / compose / syslog /
journalctl prefixes, 80-column wrapping, trailing white space, tabs, BOM, full-width colons, duplicated lines,
surrounding INFO lines), against the excerpt's own answer: per wrapper, the pairs whose class, abstention or root
device changed.

  OPSBRAIN_HOME=... python benchmarks/bench_wrappers.py [--json] [--changed] [--wrapper NAME ...]

The TEST split is never read here (only excerpts whose split is ``dev``)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    from opsbrain.kb.perturb import WRAPPERS, disagreements

    ap = argparse.ArgumentParser()
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--changed", action="store_true", help="list the pairs whose answer changed")
    ap.add_argument("--wrapper", action="append", choices=sorted(WRAPPERS), help="only this wrapper (repeatable)")
    a = ap.parse_args()
    from opsbrain.kb import SignatureMatcher, load_kb
    from opsbrain.kb.realeval import default_corpus_dir, load_corpus
    from opsbrain.kb.training import load_engine

    corpus = default_corpus_dir()
    if corpus is None:
        sys.exit("bench_wrappers: no tests/data/real_logs beside this checkout")
    dev = [e for e in load_corpus(corpus) if e["split"] == "dev"]
    t0 = time.perf_counter()
    res = disagreements(dev, load_engine(), SignatureMatcher(load_kb()), tuple(a.wrapper) if a.wrapper else None)
    res["seconds"] = round(time.perf_counter() - t0, 1)
    if a.json:
        print(json.dumps(res, indent=1))
        return
    per = res["per_wrapper"]
    print(f"dev excerpts {res['excerpts']}; {sum(r['pairs'] for r in per.values())} wrapped pairs; "
          f"{res['seconds']} s")
    print(f"{'wrapper':14} {'pairs':>5} {'class':>6} {'abstain':>7} {'device':>6}")
    for name, r in per.items():
        print(f"{name:14} {r['pairs']:>5} {r['class']:>6} {r['abstention']:>7} {r['device']:>6}")
    tot = {k: sum(r[k] for r in per.values()) for k in ("pairs", "class", "abstention", "device")}
    print(f"{'all':14} {tot['pairs']:>5} {tot['class']:>6} {tot['abstention']:>7} {tot['device']:>6}")
    if a.changed:
        for c in res["changed"]:
            print("changed:", c["id"], c["wrapper"], "/".join(map(str, c["was"])), "->", "/".join(map(str, c["now"])))


if __name__ == "__main__":
    main()
