"""Long inputs of runs that went well, with and without a failure at their end: what the diagnosis (and its real-text
fallback) answers on whole logs, not excerpts (session 43, textgate43).

The real-text fallback is a model of failure excerpts (2-60 lines); a whole log of a healthy run is not what it was
fitted on. This builds inputs of 100-500 lines from the blind check's healthy excerpts
(tests/data/blind/blind43_healthy.yaml: each one alone, then several concatenated in seeded orders) and appends each
of the blind check's failure excerpts (tests/data/blind/blind43.yaml) to such a prefix: the healthy inputs must stay
abstentions (false alarms are counted), the failure must still be found (its class alone and at the end of a long
input are compared with its label). Never the real-log corpus: its healthy and failure files are not read here.

Usage: ``PYTHONPATH=. .venv/bin/python benchmarks/bench_long_healthy.py [--seeds 4] [--json] [--src TREE]``
(``--src``: the tree to import opsbrain from, for a before figure). Figures only; no verdict."""

from __future__ import annotations

import argparse
import io
import json
import random
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parents[1]
BLIND = HERE / "tests" / "data" / "blind"
TARGETS = (100, 200, 300, 500)
"""Input lengths in lines; a prefix is cut at the first excerpt boundary at or past the target (the excerpts cycle
in a seeded order, so past 237 lines they repeat, as a console's lines do)."""


def prefixes(healthy: list[dict[str, Any]], seeds: int) -> list[tuple[str, list[str]]]:
    """(name, lines) of long healthy inputs: per seed and target, excerpts in a shuffled order until the target."""
    out = []
    for seed in range(seeds):
        order = list(healthy)
        random.Random(seed).shuffle(order)
        for target in TARGETS:
            lines: list[str] = []
            i = 0
            while len(lines) < target:
                lines += str(order[i % len(order)]["text"]).splitlines()
                i += 1
            out.append((f"s{seed}-{target}", lines))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=4)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--src", type=Path, default=None)
    ap.add_argument("--data-dir", type=Path, default=None)
    args = ap.parse_args(argv)
    if args.src is not None:
        sys.path.insert(0, str(args.src.resolve()))
    import yaml

    from opsbrain.cli.kb_cmds import _matcher
    from opsbrain.diagnosis.oneclick import diagnose_logs
    from opsbrain.kb.training import load_engine

    engine = load_engine(args.data_dir, say=lambda m: None)
    matcher = _matcher(args.data_dir)

    def run(lines: list[str]) -> dict[str, Any]:
        text = "\n".join(lines) + "\n"
        d = diagnose_logs("-", engine, matcher, stdin=io.BytesIO(text.encode("utf-8")))["diagnosis"]
        return {"class": d["fault_class"], "confidence": round(d["confidence"], 2), "by": d["decided_by"]}

    healthy = yaml.safe_load((BLIND / "blind43_healthy.yaml").read_text(encoding="utf-8"))
    faults = yaml.safe_load((BLIND / "blind43.yaml").read_text(encoding="utf-8"))
    longs = [(f"one-{e['id']}", str(e["text"]).splitlines()) for e in healthy
             if len(str(e["text"]).splitlines()) >= 100] + prefixes(healthy, args.seeds)
    rows: list[dict[str, Any]] = []
    for name, lines in longs:
        rows.append({"input": name, "lines": len(lines), "label": None, **run(lines)})
    for e in faults:
        own = str(e["text"]).splitlines()
        alone = run(own)
        rows.append({"input": f"{e['id']}-alone", "lines": len(own), "label": e["label"], **alone})
        for name, lines in longs:
            rows.append({"input": f"{name}+{e['id']}", "lines": len(lines) + len(own), "label": e["label"],
                         "alone": alone["class"], **run(lines + own)})
    healthy_rows = [r for r in rows if r["label"] is None]
    alarms = [r for r in healthy_rows if r["class"] != "unknown"]
    alone = {r["input"][:-6]: r for r in rows if r["input"].endswith("-alone")}
    ends = [r for r in rows if r["label"] is not None and not r["input"].endswith("-alone")]
    summary = {
        "healthy_inputs": len(healthy_rows), "healthy_false_alarms": len(alarms),
        "healthy_alarms_by_text": sum(r["by"] == "text" for r in alarms),
        "faults": len(alone), "faults_right_alone": sum(r["class"] == r["label"] for r in alone.values()),
        "long_with_fault": len(ends), "long_right": sum(r["class"] == r["label"] for r in ends),
        "long_same_as_alone": sum(r["class"] == r["alone"] for r in ends),
        "long_abstained": sum(r["class"] == "unknown" for r in ends),
        "long_right_where_alone_right": sum(r["class"] == r["label"] for r in ends
                                            if alone[r["input"].split("+")[1]]["class"] == r["label"]),
        "long_where_alone_right": sum(alone[r["input"].split("+")[1]]["class"] == r["label"] for r in ends),
    }
    if args.json:
        print(json.dumps({"summary": summary, "rows": rows}, indent=1))
        return 0
    for k, v in summary.items():
        print(f"{k:32s} {v}")
    print("\nhealthy alarms:")
    for r in alarms:
        print(f"  {r['input']:20s} {r['lines']:4d} lines  {r['class']} {r['confidence']} ({r['by']})")
    print("\nper fault: label, alone, right at the end of long inputs (of n), classes given there")
    for fid, a in alone.items():
        mine = [r for r in ends if r["input"].endswith("+" + fid)]
        got: dict[str, int] = {}
        for r in mine:
            got[r["class"]] = got.get(r["class"], 0) + 1
        print(f"  {fid:8s} {a['label']:22s} alone {a['class']:22s} ({a['by']:7s}) long right "
              f"{sum(r['class'] == a['label'] for r in mine)}/{len(mine)}  {got}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
