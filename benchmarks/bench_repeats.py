"""A bundle of millions of repeated lines (session 36): ``diagnose --bundle DIR`` and ``diagnose --logs DIR`` on the
same tree, wall time and peak memory.

Usage: ``.venv/bin/python benchmarks/bench_repeats.py [--repeats 1500000] [--lines 16000] [--keep DIR] [--src TREE]
[--json]``

A job that retries prints the same line, stamp and all, over and over: a tester's real-layout bundle held a plog of
1.5 million identical ``[WARNING] HCCL(...) heartbeat check`` lines before the job's real errors, and ``--bundle``
took 249 s and 1.9 GB where ``--logs`` on the same tree took 9 s. This writes :mod:`bench_dense`'s bundle (16 ranks
on 2 hosts, ``--lines`` plog lines, 80% of them error lines naming the culprit rank, and its device's HBM fault
event) with ``--repeats`` copies of one warning line put in one rank's plog after its HCCL init line, and diagnoses
the tree both ways, each run a new process (one warm-up first): wall seconds, the process's peak resident memory
(``wait4``'s ``ru_maxrss``), lines read and the verdict's class and root, which must be the same both ways. Prints
figures only; never fails a build. ``--src TREE`` runs another source tree for the before figures.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_dense import DEVICES, HOSTS, answer, make_inputs  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
REPEATED = ("[WARNING] HCCL({pid},python):2025-03-01-10:20:00.000.001 [heartbeat.cc:100][{pid}] heartbeat check: "
            "remote not responding, retry\n")
RANK = 5  # the rank whose plog holds the repeats (not the culprit)


def make_bundle(base: Path, repeats: int, lines: int) -> Path:
    """bench_dense's bundle with ``repeats`` copies of one warning line after rank RANK's HCCL init line."""
    bundle = make_inputs(base, lines, 0.8)["bundle"][0]
    pid = 40100 + RANK
    plog = bundle / HOSTS[RANK // DEVICES] / "process_log" / "run" / "plog" / f"plog-{pid}_20250301100000000.log"
    head, _, rest = plog.read_text().partition("\n")
    line = REPEATED.format(pid=pid).encode()
    with plog.open("wb") as out:
        out.write(head.encode() + b"\n")
        left = repeats
        while left > 0:  # a block at a time: the file, not the benchmark, is to be big
            n = min(left, 100_000)
            out.write(line * n)
            left -= n
        out.write(rest.encode())
    shutil.rmtree(base / "untimed", ignore_errors=True)
    (base / "dense.log").unlink(missing_ok=True)
    return bundle


def run(args: list[str], env: dict[str, str], src: Path | None, tmp: Path) -> tuple[float, int, dict[str, Any]]:
    """One ``opsbrain`` process: wall seconds, its own peak resident memory (KiB, ``wait4``) and its JSON answer."""
    out, err = tmp / "out.json", tmp / "err.txt"
    t0 = time.perf_counter()
    with out.open("w") as o, err.open("w") as e:
        proc = subprocess.Popen([sys.executable, "-m", "opsbrain", *args], stdout=o, stderr=e, cwd=src or ROOT,
                                env={**env, "PYTHONPATH": str((src or ROOT).resolve())})
        _pid, status, usage = os.wait4(proc.pid, 0)  # (reaped here: Popen.wait would lose the child's rusage)
    wall = time.perf_counter() - t0
    proc.returncode = code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        raise SystemExit(f"opsbrain {' '.join(args)} exited {code}: {err.read_text().strip()[-400:]}")
    return wall, usage.ru_maxrss, json.loads(out.read_text())


def both_ways(bundle: Path, src: Path | None, tmp: Path, describe: Callable[[dict[str, Any]], dict[str, Any]]
              ) -> list[dict[str, Any]]:
    """``diagnose --bundle`` and ``--logs`` of ``bundle``, each a new process after a warm-up one: per option its
    wall seconds, peak RSS (MB), lines read and what ``describe`` says of its JSON answer."""
    rows = []
    env = {**os.environ, "OPSBRAIN_HOME": str(tmp / "home"), "COLUMNS": "120"}
    for opt in ("--bundle", "--logs"):
        cmd = ["diagnose", opt, str(bundle), "--data-dir", str(tmp / "data"), "--json"]
        run(cmd, env, src, tmp)  # warm-up: byte-code, compiled caches
        wall, rss, rep = run(cmd, env, src, tmp)
        read = rep.get("lines", {}).get("read") if opt == "--bundle" else rep.get("input", {}).get("lines")
        rows.append({"option": opt, "wall_s": round(wall, 2), "max_rss_mb": round(rss / 1024),
                     "lines_read": read, **describe(rep)})
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=1_500_000, help="copies of the repeated line")
    ap.add_argument("--lines", type=int, default=16_000, help="bench_dense's plog lines over the 16 ranks")
    ap.add_argument("--keep", type=Path, default=None, help="write the bundle here and keep it")
    ap.add_argument("--src", type=Path, default=None, help="run the opsbrain of this source tree")
    ap.add_argument("--json", action="store_true", help="one JSON object on stdout")
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="bench-repeats-"))
    try:
        bundle = make_bundle(args.keep or tmp, args.repeats, args.lines)
        size = sum(p.stat().st_size for p in bundle.rglob("*") if p.is_file())
        rows = both_ways(bundle, args.src, tmp, lambda rep: {"answer": answer(rep)})
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        print(json.dumps({"repeats": args.repeats, "bytes": size, "load_average": os.getloadavg()[0],
                          "results": rows}, indent=1))
        return 0
    print(f"{args.repeats:,} repeated lines in one plog of a {size / 1e6:.0f} MB bundle (16 ranks on 2 hosts); "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; whole process")
    print(f"{'option':9} {'wall':>8} {'max RSS':>9} {'lines read':>11}  answer")
    for r in rows:
        print(f"{r['option']:9} {r['wall_s']:>7.2f}s {r['max_rss_mb']:>6} MB {r['lines_read'] or 0:>11,}  "
              f"{r['answer']}")
    same = len({r["answer"] for r in rows}) == 1
    print("same answer both ways" if same else "the answers differ")
    return 0


if __name__ == "__main__":
    sys.exit(main())
