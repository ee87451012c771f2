"""Start-up benchmark (issue 19): short CLI commands timed as whole new processes, the way an operator runs them.

Usage: ``.venv/bin/python benchmarks/bench_startup.py [--repeat 7] [--bundle] [--json] [--against DIR]``

Each command runs once to warm up (byte-code compiled, the data directory's caches built: that first run is printed
as "first"), then ``--repeat`` more times; the p50 (median) of the wall time and of the CPU time (user + sys of the
process) is reported against the goal, which applies to the wall p50. The wall time also counts other programs'
use of the cores (the load average is printed); the CPU time does not.

Commands and goals (wall, 2-core machine):

- ``opsbrain --help`` <= 0.3 s; ``opsbrain chaos list`` <= 0.5 s;
- ``opsbrain diagnose --logs -`` with a 5-line real excerpt on stdin <= 0.5 s;
- ``opsbrain chaos run node-crash-training`` (a one-hour built-in scenario) <= 3 s;
- with ``--bundle``: ``opsbrain diagnose --bundle`` on a 100,000-line bundle (the padded bundle of
  ``bench_bundle_match.py``, vendor knowledge imported) <= 2 s (issue 14), and the same bundle as a ``.tar.gz``
  (read in place, decompressed as it is read) against the same goal.

The process runs in a fresh data directory ($OPSBRAIN_HOME) with byte-code writing on (PYTHONDONTWRITEBYTECODE
unset), as an installed tool has its byte-code. The warm-up run of ``diagnose`` also compiles the knowledge base and
the line screens' plans into ``$OPSBRAIN_HOME/cache`` (:mod:`opsbrain.kb.compiled`), as an operator's first
diagnosis does; the timed runs read them.

On a machine loaded by other work the wall time is mostly other programs' share of the cores: the "cpu" verdict
says whether the process's own CPU time (p50) is within the goal, the figure to compare across loads.

``--against DIR`` also times the opsbrain of another source tree (e.g. ``git archive main | tar -x -C DIR``), one run
of each in turn under the same load, and prints its p50s and the ratio of this tree's CPU p50 to it: on a loaded
machine the ratio is the figure that carries over (both trees' CPU times are inflated alike).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))


SRC: Path | None = None  # --src: time another source tree (e.g. an export of the previous commit) with this venv


def opsbrain_cmd(src: Path | None = None) -> list[str]:
    """The console script beside this interpreter (what an operator runs), else ``python -m opsbrain``."""
    script = Path(sys.executable).with_name("opsbrain")
    return [str(script)] if script.exists() and src is None else [sys.executable, "-m", "opsbrain"]


def run_once(args: list[str], env: dict[str, str], stdin: bytes | None, src: Path | None = None
             ) -> tuple[float, float, int]:
    if src is not None:  # another tree: its own data directory (the compiled caches are keyed by the code)
        env = {**env, "PYTHONPATH": str(src.resolve()), "OPSBRAIN_HOME": env["OPSBRAIN_HOME"] + "-against"}
    elif SRC is not None:
        env = {**env, "PYTHONPATH": str(SRC.resolve())}
    src = src or SRC
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(opsbrain_cmd(src) + args, input=stdin, capture_output=True, cwd=src or ROOT, env=env,
                          check=False)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.returncode


def measure(name: str, args: list[str], goal_s: float, env: dict[str, str], repeat: int,
            stdin: bytes | None = None, want_rc: int = 0, against: Path | None = None) -> dict[str, Any]:
    first_wall, first_cpu, rc = run_once(args, env, stdin)
    if rc != want_rc:
        raise SystemExit(f"opsbrain {' '.join(args)} exited {rc}, expected {want_rc}")
    if against is not None:
        run_once(args, env, stdin, against)  # its warm-up (byte-code, caches)
    walls, cpus, other_walls, other_cpus = [], [], [], []
    for _ in range(repeat):
        w, c, rc = run_once(args, env, stdin)
        if rc != want_rc:
            raise SystemExit(f"opsbrain {' '.join(args)} exited {rc}, expected {want_rc}")
        walls.append(w)
        cpus.append(c)
        if against is not None:
            w, c, _rc = run_once(args, env, stdin, against)
            other_walls.append(w)
            other_cpus.append(c)
    p50 = statistics.median(walls)
    other = {"against": str(against), "against_wall_p50_s": round(statistics.median(other_walls), 3),
             "against_cpu_p50_s": round(statistics.median(other_cpus), 3),
             "cpu_ratio": round(statistics.median(cpus) / max(statistics.median(other_cpus), 1e-9), 3)} \
        if against is not None else {}
    other["load_average"] = round(os.getloadavg()[0], 2)  # the 1-minute load when this command's runs ended
    return {**other, "command": name, "args": args, "goal_s": goal_s, "repeat": repeat,
            "first_wall_s": round(first_wall, 3),
            "first_cpu_s": round(first_cpu, 3), "wall_p50_s": round(p50, 3),
            "cpu_p50_s": round(statistics.median(cpus), 3),
            "wall_min_s": round(min(walls), 3), "verdict": "PASS" if p50 <= goal_s else "SHORT",
            "cpu_verdict": "PASS" if statistics.median(cpus) <= goal_s else "SHORT"}


def padded_bundle(tmp: Path) -> Path:
    """The 100,000-line bundle of bench_bundle_match.py, with the vendor knowledge imported into ``tmp/home``."""
    from bench_bundle_match import VENDOR, import_vendor, pad

    from opsbrain import chaos
    from opsbrain.kb.training import load_engine
    from opsbrain.runner.run import run_plan

    import_vendor(VENDOR, tmp / "home" / "kb_imports")
    journal = run_plan(chaos.plan("node-crash-training"), load_engine(), bundle_dir=tmp / "bundles")
    entry = next((b for b in journal["bundles"] if b["incident"].startswith("f")), journal["bundles"][0])
    bundle = Path(entry["path"])
    pad(bundle, 100_000, 1)
    return bundle


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7, help="timed runs per command after the warm-up (p50 reported)")
    ap.add_argument("--bundle", action="store_true", help="also the 100,000-line bundle (issue 14)")
    ap.add_argument("--only", default=None, help="run only the commands whose name contains this")
    ap.add_argument("--json", action="store_true", help="one JSON object on stdout")
    ap.add_argument("--src", type=Path, default=None, help="time the opsbrain of this source tree (PYTHONPATH)")
    ap.add_argument("--against", type=Path, default=None,
                    help="also time the opsbrain of this source tree, in turns, and print the CPU ratio")
    args = ap.parse_args(argv)
    global SRC
    SRC = args.src
    from bench_diagnosis import excerpt

    tmp = Path(tempfile.mkdtemp(prefix="bench-startup-"))
    try:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["OPSBRAIN_HOME"] = str(tmp / "home")
        env["COLUMNS"] = "120"
        cases: list[tuple[str, list[str], float, bytes | None]] = [
            ("opsbrain --help", ["--help"], 0.3, None),
            ("opsbrain chaos list", ["chaos", "list"], 0.5, None),
            ("opsbrain diagnose --logs - (5 lines)", ["diagnose", "--logs", "-"], 0.5, excerpt().encode()),
            ("opsbrain chaos run node-crash-training (1 h)", ["chaos", "run", "node-crash-training"], 3.0, None),
        ]
        if args.bundle:
            bundle = padded_bundle(tmp)
            cases.append(("opsbrain diagnose --bundle (100,000 lines)", ["diagnose", "--bundle", str(bundle)], 2.0,
                          None))
            archive = tmp / f"{bundle.name}.tar.gz"  # the same bundle as an operator attaches it to a ticket
            with tarfile.open(archive, "w:gz") as tf:
                tf.add(bundle, arcname=bundle.name)
            cases.append(("opsbrain diagnose --bundle .tar.gz (100,000 lines)",
                          ["diagnose", "--bundle", str(archive)], 2.0, None))
        if args.against is not None and (tmp / "home").is_dir():  # the same imported vendor knowledge
            shutil.copytree(tmp / "home", tmp / "home-against", dirs_exist_ok=True)
        rows = [measure(name, a, goal, env, args.repeat, stdin, against=args.against) for name, a, goal, stdin in cases
                if args.only is None or args.only in name]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    load = os.getloadavg()[0]
    if args.json:
        print(json.dumps({"load_average": load, "cores": os.cpu_count(), "results": rows}, indent=1))
        return 0
    print(f"whole process, warm-up + {args.repeat} runs each; load average {load:.1f} on {os.cpu_count()} cores")
    print(f"{'command':52} {'first':>7} {'wall p50':>9} {'cpu p50':>8} {'goal':>6}  verdict (wall)  cpu   load")
    for r in rows:
        print(f"{r['command']:52} {r['first_wall_s']:>6.2f}s {r['wall_p50_s']:>8.2f}s {r['cpu_p50_s']:>7.2f}s "
              f"{r['goal_s']:>5.1f}s  {r['verdict']:14}  {r['cpu_verdict']:5} {r['load_average']:.1f}")
        if "against" in r:
            print(f"{'  against ' + r['against']:52} {'':>7} {r['against_wall_p50_s']:>8.2f}s "
                  f"{r['against_cpu_p50_s']:>7.2f}s  cpu ratio {r['cpu_ratio']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
