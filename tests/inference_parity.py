"""Parity check for refactors of the inference twin: the same seeds give the same journals.

``python tests/inference_parity.py --save FILE`` runs every built-in scenario with an inference service under each
policy and stores the journals (wall-clock fields removed); ``--check FILE`` runs them again on the current code and
prints every path where a journal differs (exit 1 when any does). Not a pytest module: it runs ~40 chaos runs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

SCENARIOS = ["link-down-inference", "hbm-uce-inference", "node-crash-inference", "npu-off-bus-inference",
             "roce-port-down-inference", "hbm-overtemp-inference", "l1-switch-failure-inference",
             "elastic-decode-autoscale", "day-night-switch"]
RUNS = [("auto", 1), ("auto", 2), ("vendor-default", 1), ("manual", 1)]
WALL_KEYS = {"started_at", "finished_at", "run_id", "wall_s", "diagnosis_ms_mean", "duration_ms_median",
             "duration_ms_max"}


def _strip(x: Any) -> Any:
    """The journal without wall-clock measurements (they differ between two runs of the same code)."""
    if isinstance(x, dict):
        return {k: _strip(v) for k, v in x.items() if k not in WALL_KEYS and not k.endswith("_wall_s")}
    if isinstance(x, list):
        return [_strip(v) for v in x]
    return x


def _diff(a: Any, b: Any, path: str, out: list[str]) -> None:
    if type(a) is not type(b):
        out.append(f"{path}: {type(a).__name__} != {type(b).__name__}")
    elif isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                out.append(f"{path}/{k}: only in {'new' if k in b else 'saved'}")
            else:
                _diff(a[k], b[k], f"{path}/{k}", out)
    elif isinstance(a, list):
        if len(a) != len(b):
            out.append(f"{path}: {len(a)} items != {len(b)}")
        for i, (u, v) in enumerate(zip(a, b, strict=False)):
            _diff(u, v, f"{path}[{i}]", out)
    elif a != b:
        out.append(f"{path}: {str(a)[:80]} != {str(b)[:80]}")


def run_all(opsbrain: str, names: list[str]) -> dict[str, Any]:
    journals = {}
    for name in names:
        for policy, seed in RUNS:
            res = subprocess.run([opsbrain, "chaos", "run", name, "--seed", str(seed), "--policy", policy, "--json"],
                                 capture_output=True, text=True, env=os.environ)
            key = f"{name}/{policy}/{seed}"
            journals[key] = _strip(json.loads(res.stdout)) if res.stdout.strip() else {"rc": res.returncode}
            print(key, "rc", res.returncode, file=sys.stderr)
    return journals


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--save", type=Path)
    g.add_argument("--check", type=Path)
    ap.add_argument("--opsbrain", default=str(Path(sys.executable).with_name("opsbrain")))
    ap.add_argument("--only", default=",".join(SCENARIOS), help="comma-separated scenarios (default: all)")
    args = ap.parse_args()
    journals = run_all(args.opsbrain, [n for n in args.only.split(",") if n])
    if args.save:
        args.save.write_text(json.dumps(journals, sort_keys=True))
        print(f"saved {len(journals)} journals to {args.save}")
        return 0
    saved = {k: v for k, v in json.loads(args.check.read_text()).items() if k in journals}
    out: list[str] = []
    _diff(saved, json.loads(json.dumps(journals)), "", out)
    for line in out[:200]:
        print(line)
    print(f"{len(journals)} journals compared, {len(out)} differences")
    return 1 if out else 0


if __name__ == "__main__":
    raise SystemExit(main())
