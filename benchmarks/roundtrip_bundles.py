"""Round trip of log bundles: run built-in scenarios, export a bundle per journal incident, diagnose each bundle
with ``opsbrain diagnose --bundle``'s code path, and compare with the in-simulation diagnosis.

Usage: ``.venv/bin/python benchmarks/roundtrip_bundles.py [SCENARIO ...] [--out DIR] [--json]``

Without names every built-in scenario runs. For each controller incident behind a journal incident (as recorded in
the bundle's manifest) the bundle must hold an incident opened within 2 s of it with the same class and root
component. Prints a table and a verdict; exits 1 when any incident differs. Also prints how many bundle lines the
imported vendor knowledge matched (run ``opsbrain kb import ...`` first, or pass ``--vendor DIR`` to import into a
temporary data directory).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
VENDOR = ROOT.parent / "shared" / "reference" / "vendor"


def matcher_for(vendor: Path | None, tmp: Path) -> Any:
    from opsbrain.kb import SignatureMatcher, import_faultcode, import_kg, load_imported, load_kb

    if vendor is not None and (vendor / "kg-config.json").exists():
        import_kg(vendor / "kg-config.json", tmp)
        import_faultcode(vendor / "faultCode.json", tmp)
        return SignatureMatcher(load_kb(), load_imported(tmp))
    return SignatureMatcher(load_kb(), load_imported(strict=False))


def roundtrip(name: str, engine: Any, out: Path, matcher: Any = None) -> list[dict[str, Any]]:
    """Rows (one per controller incident of each journal incident) for one scenario."""
    from opsbrain import chaos
    from opsbrain.bundle import check_bundle
    from opsbrain.runner.run import run_plan

    t0 = time.perf_counter()
    journal = run_plan(chaos.plan(name), engine, bundle_dir=out / name)
    t_run = time.perf_counter() - t0
    rows = []
    for b in journal["bundles"]:
        if "error" in b:
            rows.append({"scenario": name, "incident": b["incident"], "error": b["error"], "same": False})
            continue
        t1 = time.perf_counter()
        chk = check_bundle(b["path"], engine, matcher)
        t_diag = time.perf_counter() - t1
        rep = chk["report"]
        # an incident opened and held by the scheduler's job events alone is in no bundle (no program prints the
        # twin's job events): listed, not compared
        apart = "(job events only)" if chk.get("scheduler_incidents") else None
        for c in chk["comparisons"] or [{"expected": [apart, None], "got": [None, None], "same": True,
                                         "at_s": None}]:
            rows.append({"scenario": name, "incident": b["incident"], "at_s": c["at_s"], "sim": c["expected"],
                         "bundle": c["got"], "same": c["same"], "files": b["files"], "lines": rep["lines"]["read"],
                         "kb_lines": rep["knowledge_lines"],
                         "vendor_lines": rep["knowledge_lines_by_source"].get("imported", 0),
                         "vendor_codes": sorted({k["code"] or k["entry"] for k in rep["knowledge"]
                                                 if k["source"] == "imported"})[:4],
                         "run_s": round(t_run, 3),
                         "diagnose_s": round(t_diag, 3)})
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenarios", nargs="*")
    ap.add_argument("--out", type=Path, default=None, help="keep the bundles here (default: a temporary dir)")
    ap.add_argument("--vendor", type=Path, default=VENDOR if VENDOR.exists() else None)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)

    from opsbrain import chaos
    from opsbrain.kb.training import load_engine

    names = args.scenarios or [s["name"] for s in chaos.list_scenarios()]
    engine = load_engine()
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        out = args.out or Path(tmp) / "bundles"
        kb_dir = Path(tmp) / "kb"
        kb_dir.mkdir()
        matcher = matcher_for(args.vendor, kb_dir)
        t0 = time.perf_counter()
        for name in names:
            rows += roundtrip(name, engine, out, matcher)
        wall = time.perf_counter() - t0
    same = sum(1 for r in rows if r["same"])
    if args.json:
        print(json.dumps({"rows": rows, "same": same, "total": len(rows), "wall_s": round(wall, 2)}, indent=1))
    else:
        print(f"{'scenario':<30} {'inc':<6} {'at s':>9}  {'in simulation':<58} {'from the bundle':<58} "
              f"{'ok':<3} {'files':>5} {'lines':>6} {'kb':>4} {'vendor':>6}  vendor codes")
        for r in rows:
            if "error" in r:
                print(f"{r['scenario']:<30} {r['incident']:<6} ERROR {r['error']}")
                continue
            at = "-" if r["at_s"] is None else f"{r['at_s']:.1f}"
            print(f"{r['scenario']:<30} {r['incident']:<6} {at:>9}  {_d(r['sim']):<58} {_d(r['bundle']):<58} "
                  f"{'yes' if r['same'] else 'NO':<3} {r['files']:>5} {r['lines']:>6} {r['kb_lines']:>4} "
                  f"{r['vendor_lines']:>6}  {','.join(map(str, r['vendor_codes']))}")
        print(f"{same}/{len(rows)} incidents diagnosed the same from the bundle; {len(names)} scenarios, "
              f"wall {wall:.1f} s")
    return 0 if same == len(rows) else 1


def _d(pair: list[Any]) -> str:
    cls, comp = pair
    return f"{cls} @ {comp}" if cls else "-"


if __name__ == "__main__":
    sys.exit(main())
