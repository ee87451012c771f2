"""Do two source trees diagnose alike? ``diagnose --json`` of bundles and of short excerpts, byte for byte.

Usage: ``.venv/bin/python benchmarks/compare_trees.py --before DIR [--after DIR] [--bundles DIR ...] [--per 3]
[--home DIR] [--jobs 2]``

Each input is diagnosed as a new process in each tree (``PYTHONPATH`` = the tree, a data directory of its own:
the caches are keyed by the code), and the two outputs are compared as bytes, but for the ``timing_s`` object of
a bundle's answer (seconds, never the same twice). Inputs: every bundle (a directory holding ``bundle.json``;
without any, each directory in it) under each ``--bundles`` DIR, as ``diagnose --bundle``; and, from each
bundle's text files, up to ``--per`` excerpts of 5 lines (a file's first lines, and the five lines from the first
that names an error, a failure or a timeout), as ``diagnose --logs -``; also the Chinese console lines of
``bench_wide_lines.py``. ``--home``: a data directory to start each tree's from (e.g. one with vendor knowledge
imported). Exit 1 on any difference. Written for session 41 (start-up work that must not change an answer);
``--before`` is e.g. ``git archive main | tar -x -C DIR``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
WORDS = re.compile(r"error|fail|timeout|timed out|异常|失败", re.I)


def excerpts(bundle: Path, per: int) -> list[str]:
    out: list[str] = []
    for f in sorted(p for p in bundle.rglob("*") if p.is_file() and p.name != "bundle.json"):
        if len(out) >= per:
            break
        try:
            lines = f.read_text(encoding="utf-8").splitlines()
        except (UnicodeDecodeError, OSError):
            continue
        if not lines:
            continue
        hit = next((k for k, ln in enumerate(lines) if WORDS.search(ln)), None)
        for start in ([hit] if hit is not None else []) + [0]:
            text = "\n".join(lines[start:start + 5]) + "\n"
            if text.strip() and text not in out:
                out.append(text)
    return out[:per]


def run(tree: Path, home: Path, args: list[str], stdin: str | None) -> bytes:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=str(tree), OPSBRAIN_HOME=str(home))
    proc = subprocess.run([sys.executable, "-m", "opsbrain", "diagnose", "--json", *args], cwd=tree, env=env,
                          input=stdin.encode() if stdin is not None else None, capture_output=True, check=False)
    out = proc.stdout
    try:
        doc = json.loads(out)
    except ValueError:
        return out + b"\nexit %d\n" % proc.returncode + proc.stderr
    if isinstance(doc, dict):
        doc.pop("timing_s", None)
    return json.dumps(doc, sort_keys=False).encode() + b"\nexit %d\n" % proc.returncode


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", type=Path, required=True)
    ap.add_argument("--after", type=Path, default=ROOT)
    ap.add_argument("--bundles", type=Path, nargs="*", default=[ROOT / "tests" / "fixtures" / "bundles"])
    ap.add_argument("--per", type=int, default=3, help="excerpts of each bundle's files")
    ap.add_argument("--home", type=Path, default=None, help="data directory each tree's starts as a copy of")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args(argv)
    from bench_wide_lines import ZH, ZH_CODES, lines

    inputs: list[tuple[str, list[str], str | None]] = []
    for top in args.bundles:
        found = sorted(m.parent for m in top.rglob("bundle.json")) or sorted(d for d in top.iterdir() if d.is_dir())
        for b in found:
            inputs.append((f"bundle {b}", ["--bundle", str(b)], None))
            inputs += [(f"excerpt {k} of {b}", ["--logs", "-"], t) for k, t in enumerate(excerpts(b, args.per))]
    zh = lines(ZH, 20, 3) + lines(ZH_CODES, 20, 3)
    inputs += [(f"chinese excerpt {k}", ["--logs", "-"], "\n".join(zh[k:k + 5]) + "\n") for k in range(0, 40, 5)]
    tmp = Path(tempfile.mkdtemp(prefix="compare-trees-"))
    try:
        homes = {}
        for name in ("before", "after"):
            homes[name] = tmp / name
            if args.home is not None:
                shutil.copytree(args.home, homes[name])
        trees = {"before": args.before.resolve(), "after": args.after.resolve()}
        run(trees["before"], homes["before"], ["--logs", "-"], "warm-up\n")  # each tree's caches, once
        run(trees["after"], homes["after"], ["--logs", "-"], "warm-up\n")

        def both(item: tuple[str, list[str], str | None]) -> tuple[str, bool]:
            label, a, stdin = item
            return label, run(trees["before"], homes["before"], a, stdin) == run(trees["after"], homes["after"], a,
                                                                                stdin)

        with ThreadPoolExecutor(args.jobs) as pool:
            results = list(pool.map(both, inputs))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    differ = [label for label, same in results if not same]
    for label in differ:
        print(f"DIFFERS: {label}")
    n_b = sum(1 for label, _a, _s in inputs if label.startswith("bundle"))
    print(f"{len(results) - len(differ)} of {len(results)} outputs byte-identical ({n_b} bundles, "
          f"{len(results) - n_b} excerpts; timing_s left out)")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
