"""A bundle of many distinct lines (session 37): ``diagnose --bundle DIR`` and ``diagnose --logs DIR`` on the same
tree, wall time and peak memory.

Usage: ``.venv/bin/python benchmarks/bench_distinct.py [--lines 300000] [--keep DIR] [--src TREE] [--json]``

Folding (session 36, :mod:`bench_repeats`) does nothing for a log whose every line differs: a tester's real-layout
bundle of one plog of 300,000 distinct lines (an HCCL op tag, a heartbeat warning and a kernel launch, each with its
own counter and stamp, 4 ms apart) took ``--bundle`` 383 MB of RSS where ``--logs`` took 117 MB. This writes such a
plog (``--lines`` lines, then the job's HCCL set-up lines) under ``worker-1/process_log/run/plog/`` and diagnoses the
tree both ways, each run a new process (one warm-up first): wall seconds, the process's peak resident memory
(``wait4``'s ``ru_maxrss``), lines read and the verdict's class and root. Prints figures only; never fails a build.
``--src TREE`` runs another source tree for the before figures; ``--json`` also prints each run's whole answer's
SHA-256 (its ``timing_s`` left out), to compare two trees' answers.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sys
import tempfile
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_repeats import both_ways  # noqa: E402

PID = 26251
START = datetime(2025, 1, 24, 11, 0, 0)
STEP = timedelta(milliseconds=4)
SHAPES = (
    "[INFO] HCCL({pid},python3):{t} [hcom_ops_kernel_info_store.cc:214][20937]GenerateOpTag: graph[2] "
    "opType[HcomAllGather], nodeNameHash[1353908935038672150], group[hccl_world_group], generated op "
    "tag[HcomAllGather_5871863451775290338_{k}]",
    "[WARNING] HCCL({pid},python3):{t} [heartbeat.cc:100][{pid}] heartbeat check: remote not responding, retry {k}",
    "[INFO] RUNTIME({pid},python3):{t} [stream.cc:1100] {pid} launch kernel task id {k} success",
)
"""The three lines the plog cycles through, line ``k`` the ``k % 3``-th with its own counter ``k``."""
TAIL = (
    "[INFO] HCCL({pid},python):2025-01-24-11:20:27.614.147 [topoinfo_detect.cc:221][3475][HCCL_TRACE]SetupAgent "
    "rankNum[3], rank[1], rootInfo identifier[hccl_world_group], server[10.20.8.111%bond1], logicDevId[0], "
    "phydevId[0], deviceIp[124.0.0.11]",
    "[INFO] HCCL({pid},python):2025-01-24-11:20:27.626.981 [hcom_ops_kernel_info_store.cc:214][20937]GenerateOpTag: "
    "graph[2] opType[HcomAllGather], nodeNameHash[1353908935038554500], group[hccl_world_group], generated op "
    "tag[AllReduce_18179865184488554500_0]",
)


def plog_stamp(t: datetime) -> str:
    """A plog's stamp: ``2025-01-24-11:00:00.004.000`` (milliseconds and microseconds apart)."""
    return f"{t:%Y-%m-%d-%H:%M:%S}.{t.microsecond // 1000:03d}.{t.microsecond % 1000:03d}"


def make_bundle(base: Path, lines: int) -> Path:
    """The bundle: one worker, one plog of ``lines`` distinct lines and the job's two set-up lines."""
    bundle = base / "distinct"
    plog = bundle / "worker-1" / "process_log" / "run" / "plog" / f"plog-{PID}_20250124110315401.log"
    plog.parent.mkdir(parents=True, exist_ok=True)
    with plog.open("w") as out:
        for k in range(lines):
            out.write(SHAPES[k % 3].format(pid=PID, t=plog_stamp(START + k * STEP), k=k) + "\n")
        out.write("\n".join(x.format(pid=PID) for x in TAIL) + "\n")
    return bundle


def answer(rep: dict[str, Any]) -> str:
    """The verdict in a few words: class, confidence, root host."""
    d = rep.get("diagnosis") or {}
    root = d.get("root") or {}
    return f"{d.get('fault_class')} {d.get('confidence')} at {root.get('host') or d.get('component')}"


def digest(rep: dict[str, Any]) -> str:
    """SHA-256 of the answer without its timings and the paths of this run's directories."""
    rep = {k: v for k, v in rep.items() if k not in ("timing_s", "bundle")}
    return hashlib.sha256(json.dumps(rep, sort_keys=True).encode()).hexdigest()[:16]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=300_000, help="distinct lines in the plog")
    ap.add_argument("--keep", type=Path, default=None, help="write the bundle here and keep it")
    ap.add_argument("--src", type=Path, default=None, help="run the opsbrain of this source tree")
    ap.add_argument("--json", action="store_true", help="one JSON object on stdout")
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="bench-distinct-"))
    try:
        bundle = make_bundle(args.keep or tmp, args.lines)
        size = sum(p.stat().st_size for p in bundle.rglob("*") if p.is_file())
        rows = both_ways(bundle, args.src, tmp, lambda rep: {"answer": answer(rep), "digest": digest(rep)})
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        print(json.dumps({"lines": args.lines, "bytes": size, "load_average": os.getloadavg()[0],
                          "results": rows}, indent=1))
        return 0
    print(f"{args.lines:,} distinct lines in one plog of a {size / 1e6:.0f} MB bundle; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; whole process")
    print(f"{'option':9} {'wall':>8} {'max RSS':>9} {'lines read':>11}  answer (digest)")
    for r in rows:
        print(f"{r['option']:9} {r['wall_s']:>7.2f}s {r['max_rss_mb']:>6} MB {r['lines_read'] or 0:>11,}  "
              f"{r['answer']} ({r['digest']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
