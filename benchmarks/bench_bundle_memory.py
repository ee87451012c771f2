"""Peak memory of ``opsbrain diagnose --bundle`` on a big bundle (the reader's memory, not its speed).

Usage: ``.venv/bin/python benchmarks/bench_bundle_memory.py [--mb 200] [--keep DIR] [--src TREE] [--tar]``

Builds the node-crash-training bundle padded with benign lines in the real layouts (``bench_bundle_match.pad``)
to about ``--mb`` MB of text (``--keep DIR``: written there and reused by the next run with the same ``--keep``),
then runs ``opsbrain diagnose --bundle --json`` once as a new process and prints its peak RSS (``ru_maxrss`` of
that one child, from ``wait4``), its wall and CPU time, the bundle's size, lines and the verdict. ``--src TREE``
runs the opsbrain of another source tree (``PYTHONPATH``; the before figure), ``--tar`` the bundle as a
``.tar.gz``. Prints figures only; no goal, never fails a build.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
LINE_BYTES = 150
"""About the bytes of one padding line (the layouts of ``pad``): turns ``--mb`` into a line count."""


def build(where: Path, mb: int) -> Path:
    """The padded bundle under ``where`` (reused when a previous run left it there)."""
    done = where / "bundle.path"
    if done.exists():
        return Path(done.read_text().strip())
    from bench_bundle_match import pad

    from opsbrain import chaos
    from opsbrain.kb.training import load_engine
    from opsbrain.runner.run import run_plan

    journal = run_plan(chaos.plan("node-crash-training"), load_engine(), bundle_dir=where / "bundles")
    entry = next((b for b in journal["bundles"] if b["incident"].startswith("f")), journal["bundles"][0])
    bundle = Path(entry["path"])
    pad(bundle, mb * 1_000_000 // LINE_BYTES, 1)
    done.write_text(str(bundle))
    return bundle


def run(args: list[str], src: Path | None, home: Path) -> dict[str, Any]:
    """One ``opsbrain ARGS`` process: its own peak RSS (wait4), wall, CPU, exit code and stdout."""
    env = {**os.environ, "OPSBRAIN_HOME": str(home)}
    if src is not None:
        env["PYTHONPATH"] = str(src.resolve())
    with tempfile.TemporaryFile() as out:
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "opsbrain", *args], stdout=out, stderr=subprocess.DEVNULL,
                                cwd=src or ROOT, env=env)
        _pid, status, ru = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        out.seek(0)
        text = out.read()
    return {"rc": os.waitstatus_to_exitcode(status), "peak_rss_mib": round(ru.ru_maxrss / 1024, 1),
            "wall_s": round(wall, 2), "cpu_s": round(ru.ru_utime + ru.ru_stime, 2), "stdout": text}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=int, default=200, help="MB of text in the bundle (about)")
    ap.add_argument("--keep", type=Path, default=None, help="build the bundle here, or reuse the one built there")
    ap.add_argument("--src", type=Path, default=None, help="run the opsbrain of this source tree (PYTHONPATH)")
    ap.add_argument("--tar", action="store_true", help="diagnose the bundle as a .tar.gz")
    args = ap.parse_args(argv)
    where = args.keep or Path(tempfile.mkdtemp(prefix="bench-bundle-mem-"))
    where.mkdir(parents=True, exist_ok=True)
    bundle = build(where, args.mb)
    size = sum(p.stat().st_size for p in bundle.rglob("*") if p.is_file())
    target = bundle
    if args.tar:
        target = where / f"{bundle.name}.tar.gz"
        if not target.exists():
            with tarfile.open(target, "w:gz") as tf:
                tf.add(bundle, arcname=bundle.name)
    r = run(["diagnose", "--bundle", str(target), "--json"], args.src, where / "home")
    d = json.loads(r.pop("stdout") or b"{}") if r["rc"] in (0, 1) else {}
    print(json.dumps({"bundle_bytes": size, "input": str(target), "lines_read": (d.get("lines") or {}).get("read"),
                      "bytes_read": (d.get("read_from") or {}).get("bytes"), "signals": d.get("signals"),
                      "incidents": len(d.get("incidents") or []),
                      "fault_class": (d.get("diagnosis") or {}).get("fault_class"), **r}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
