"""Side by side with Huawei's ascend-fd: export the twin's log bundle of every built-in scenario, diagnose each with
``opsbrain diagnose --bundle``'s code path and with ascend-fd (``parse`` per worker directory and per switch chip's
``lcne_log/<chip>/``, then ``diag``), and compare the roots.

Usage: ``ASCEND_FD=/path/to/venv/bin/ascend-fd .venv/bin/python benchmarks/ascendfd_side_by_side.py
[SCENARIO ...] [--ascend-fd PATH] [--out DIR] [--from DIR] [--json]``

ascend-fd is not a dependency of the project: build it from its public source (docs/bundles.md says how) into a
virtual environment of its own and name its ``ascend-fd`` executable (or that environment's directory) with
``--ascend-fd`` or ``$ASCEND_FD``. Without it the script says so and exits 2.

Per bundle (one per journal incident) it prints: what was injected, opsbrain's bundle verdict (class @ root in the
bundle's own host names), ascend-fd's root cluster (its fault code and root devices) and the first entry of its
knowledge-graph diagnosis with the devices it names, whether the roots agree, and whether the bundle round trip
holds (every controller incident of the simulation diagnosed the same from the bundle, as
``benchmarks/roundtrip_bundles.py`` checks). Roots agree when ascend-fd's root-cluster roots (or, where its root
cluster finds none, the devices of its first knowledge-graph fault) include opsbrain's root host, on the same
device where both name one. ascend-fd names a device by the id its logs print, on the twin's Atlas A3 nodes a die's
logical id (docs/formats.md, "A3 logical device ids"): it is opsbrain's root die where the root is a die (its
``logic_id``), else a die of opsbrain's root NPU (``faultlib.ids.npu_die``). A switch chip's worker named after its
host (``pod0-node36-l1sw2``) is that host's (``opsbrain.ingest.hostnames.chip_host``, the rule the bundle reader
places a chip's lines by). The injected fault is read from the sidecar beside the bundle
(``<bundle>.sim.json``) for the table only; no diagnosis reads it.
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
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from faultlib import ids
from opsbrain.ingest.hostnames import chip_host

ROOT = Path(__file__).resolve().parents[1]
VENDOR = ROOT.parent / "shared" / "reference" / "vendor"
CALL_TIMEOUT_S = 1800  # reason: ascend-fd on one bundle (parse of up to ~50 workers, then diag) under load
AFD_DEVICE = re.compile(r"^(?P<host>\S+) device-(?P<dev>\d+|Unknown)$")


def find_ascend_fd(given: str | None) -> Path | None:
    """The ascend-fd executable: a path to it or to its virtual environment, else ``ascend-fd`` on PATH."""
    cand = given or os.environ.get("ASCEND_FD") or shutil.which("ascend-fd")
    if not cand:
        return None
    p = Path(cand)
    if p.is_dir():
        p = p / "bin" / "ascend-fd"
    return p if p.is_file() and os.access(p, os.X_OK) else None


def lcne_workers(bundle: Path) -> list[tuple[str, Path]]:
    """The bundle's switch logs as ascend-fd's workers: each ``lcne_log/<chip>/`` one worker named by its chip, as a
    superpod collection gives ascend-fd one LCNE log directory per switch (a ``lcne_log/`` of files only: one worker,
    ``lcne``)."""
    top = bundle / "lcne_log"
    if not top.is_dir():
        return []
    chips = sorted(p for p in top.iterdir() if p.is_dir())
    return [(p.name, p) for p in chips] if chips else [("lcne", top)]


def afd_commands(bundle: Path, workers: list[str], parsed: Path, out: Path) -> list[list[str]]:
    """ascend-fd's command lines for one bundle: ``parse -i`` per worker directory, ``parse --lcne_log`` per switch
    chip (:func:`lcne_workers`), then ``diag`` over the parsed workers."""
    cmds = [["parse", "-i", str(bundle / w), "-o", str(parsed / w)] for w in workers]
    cmds += [["parse", "--lcne_log", str(d), "-o", str(parsed / name)] for name, d in lcne_workers(bundle)]
    return [*cmds, ["diag", "-i", str(parsed), "-o", str(out)]]


DRIVER = """
import json, sys, warnings
warnings.filterwarnings("ignore")
from ascend_fd import cli
if not cli.init():
    sys.exit(3)
for argv in json.loads(sys.argv[1]):
    sys.argv = ["ascend-fd", *argv]
    cli.run(argv[0])
"""
"""Runs ascend-fd's own command-line entry (``ascend_fd.cli.run``) for each command of one bundle in one process of
ascend-fd's interpreter, so its imports are paid once per bundle, not once per worker (a new process per bundle:
ascend-fd keeps class-level state between commands)."""


def interpreter_of(exe: Path) -> Path:
    """ascend-fd's Python: the interpreter beside its executable in its virtual environment."""
    for name in ("python", "python3"):
        if (exe.parent / name).exists():
            return exe.parent / name
    first = exe.read_text(errors="replace").splitlines()[0]
    return Path(first.removeprefix("#!").strip().split()[0])


def run_ascend_fd(exe: Path, bundle: Path, work: Path, workers: list[str]) -> dict[str, Any]:
    """ascend-fd parse (each worker directory, and each switch chip's ``lcne_log/<chip>/`` as a worker of its own)
    and diag on one bundle; its diag_report.json."""
    parsed, out, home = work / "parsed", work / "diag", work / "home"
    cmds = afd_commands(bundle, workers, parsed, out)
    for c in cmds[:-1]:
        Path(c[-1]).mkdir(parents=True, exist_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    home.mkdir(parents=True, exist_ok=True)
    cmds.append(["diag", "-i", str(parsed), "-o", str(out)])
    env = dict(os.environ, ASCEND_FD_HOME_PATH=str(home))
    r = subprocess.run([str(interpreter_of(exe)), "-c", DRIVER, json.dumps(cmds)], capture_output=True, text=True,
                       timeout=CALL_TIMEOUT_S, env=env, check=False)
    report_file = out / "fault_diag_result" / "diag_report.json"
    if r.returncode != 0 or not report_file.exists():
        raise RuntimeError(f"ascend-fd exited {r.returncode}: {(r.stderr or r.stdout).strip()[-300:]}")
    report: dict[str, Any] = json.loads(report_file.read_text())
    return report


def afd_roots(report: dict[str, Any]) -> tuple[str, list[tuple[str, int | None]], str]:
    """(basis, [(host, device or None)], summary) of ascend-fd's answer: its root cluster's roots, or where it found
    none, the devices of its first knowledge-graph fault."""
    rc = report.get("Root_Cluster") or {}
    roots = []
    for d in rc.get("root_cause_device") or []:
        m = AFD_DEVICE.match(str(d))
        if m:
            roots.append((m["host"], None if m["dev"] == "Unknown" else int(m["dev"])))
    if roots:
        names = rc["root_cause_device"]
        shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        return "root cluster", roots, f"code {rc.get('fault_description', {}).get('code')}: {shown}"
    faults = (report.get("Knowledge_Graph") or {}).get("fault") or []
    for f in faults:
        found = []
        for where, events in (f.get("event_attr") or {}).items():
            m = AFD_DEVICE.match(str(where))  # "pod0-node7 device-4" or a bare host
            host, named = (m["host"], m["dev"]) if m else (str(where), "Unknown")
            for e in events or [{}]:
                dev = named if named.isdigit() else str(e.get("source_device", "Unknown"))
                found.append((host, int(dev) if dev.isdigit() else None))
        if found:
            where = ", ".join(f.get("fault_source") or [])
            return "knowledge graph", sorted(set(found), key=str), f"{f.get('code')} @ {where}"
    return "none", [], f"{rc.get('fault_description', {}).get('code')}: no root, no fault"


def same_device(ours: dict[str, Any], dev: int | None) -> bool:
    """Whether ascend-fd's device ``dev`` (a logical id as the twin's A3 logs print it) is opsbrain's root device:
    its die's ``logic_id`` where the root is a die, else a die of its NPU (``device``, npu-smi's NPU ID: the twin prints
    a part of the whole NPU as its die 0's id, docs/formats.md "A3 logical device ids"); either naming none: yes."""
    if dev is None:
        return True
    if ours.get("logic_id") is not None:
        return bool(dev == ours["logic_id"])
    return ours.get("device") is None or ids.npu_die(dev)[0] == ours["device"]


def same_root(ours: dict[str, Any], theirs: list[tuple[str, int | None]], hosts: Iterable[str] = ()) -> bool | None:
    """Whether ascend-fd's roots include opsbrain's root (None when either side names no host). ``hosts``: the
    bundle's worker names, by which a switch chip's worker named after its host is that host's (``chip_host``)."""
    host = ours.get("host")
    if not host or not theirs:
        return None
    known = {*hosts, host}
    return any((got[0] if (got := chip_host(h, known)) else h) == host and same_device(ours, d) for h, d in theirs)


def kg_top(report: dict[str, Any]) -> str:
    faults = (report.get("Knowledge_Graph") or {}).get("fault") or []
    if not faults:
        return "-"
    f = faults[0]
    where = f.get("fault_source") or []
    more = f" and {len(where) - 3} more" if len(where) > 3 else ""
    return f"{f.get('code')} @ {', '.join(where[:3]) or '?'}{more}"


def bundles_of(name: str, engine: Any, out: Path, reuse: Path | None) -> list[Path]:
    if reuse is not None:
        return sorted(p.parent for p in (reuse / name).glob("*/bundle.json"))
    from opsbrain import chaos
    from opsbrain.runner.run import run_plan

    journal = run_plan(chaos.plan(name), engine, bundle_dir=out / name)
    return [Path(b["path"]) for b in journal["bundles"] if "error" not in b]


def row_for(name: str, path: Path, engine: Any, matcher: Any, exe: Path, work: Path,
            seen_noise: dict[str, str]) -> dict[str, Any]:
    """One bundle's row. A noise incident (nothing injected) whose opsbrain verdict and line count equal an earlier
    noise bundle's (the same background flap recurs in most scenarios) is not run through ascend-fd again: the row
    names the bundle it repeats."""
    from opsbrain.bundle import check_bundle

    chk = check_bundle(path, engine, matcher)
    rep = chk["report"]
    d = rep["diagnosis"]
    root = d.get("root") or {}
    from opsbrain.bundle.writer import sim_sidecar

    side = sim_sidecar(path)
    manifest = json.loads(side.read_text()) if side.is_file() else rep.get("manifest") or {}
    inj = ((manifest.get("incident") or {}).get("in_simulation") or {}).get("injected") or {}
    workers = [w["dir"] for w in rep["workers"] if w["dir"] not in (".", "cluster")]
    row: dict[str, Any] = {
        "scenario": name, "incident": path.name,
        "injected": f"{inj.get('kind')} @ {inj.get('component')}" if inj else "- (noise)",
        "opsbrain": f"{d.get('fault_class')} @ {root.get('host') or '-'}"
                    + (f" device {root['device']}" if root.get("device") is not None else "")
                    + (f" die {root['die']} (logical {root['logic_id']})" if root.get("logic_id") is not None else ""),
        "roundtrip_same": chk["same"], "workers": len(workers),
    }
    if not inj:
        key = f"{row['opsbrain']} {rep['lines']['read']}"
        if key in seen_noise:
            row.update({"as": seen_noise[key], "same_root": None})
            return row
        seen_noise[key] = f"{name}/{path.name}"
    t0 = time.perf_counter()
    try:
        afd = run_ascend_fd(exe, path, work / name / path.name, workers)
    except (RuntimeError, OSError, subprocess.TimeoutExpired, ValueError) as e:
        row.update({"ascend_fd_error": str(e)[:300], "same_root": None})
        return row
    basis, roots, summary = afd_roots(afd)
    row.update({"ascend_fd_basis": basis, "ascend_fd_root": summary, "ascend_fd_kg": kg_top(afd),
                "same_root": same_root(root, roots, workers), "ascend_fd_roots": len(roots),
                "ascend_fd_s": round(time.perf_counter() - t0, 1)})
    return row


def rescored(row: dict[str, Any], out: Path) -> dict[str, Any]:
    """A row written before, compared again from ascend-fd's report saved under ``out`` (when it is there)."""
    report_file = out / "ascend-fd" / row["scenario"] / row["incident"] / "diag" / "fault_diag_result" / \
        "diag_report.json"
    if "as" in row or "ascend_fd_error" in row or not report_file.exists():
        return row
    ours = opsbrain_root(row["opsbrain"])
    bundle = out / "bundles" / row["scenario"] / row["incident"]
    hosts = [p.name for p in bundle.iterdir() if p.is_dir()] if bundle.is_dir() else []
    afd = json.loads(report_file.read_text())
    basis, roots, summary = afd_roots(afd)
    return {**row, "ascend_fd_basis": basis, "ascend_fd_root": summary, "ascend_fd_kg": kg_top(afd),
            "same_root": same_root(ours, roots, hosts), "ascend_fd_roots": len(roots)}


OURS = re.compile(r"^\S+ @ (?P<host>\S+)(?: device (?P<dev>\d+))?(?: die (?P<die>\d+) \(logical (?P<lid>\d+)\))?$")


def opsbrain_root(text: str) -> dict[str, Any]:
    """opsbrain's root as a row's ``opsbrain`` column writes it (``class @ host[ device N[ die D (logical L)]]``)."""
    m = OURS.match(text)
    num = {k: int(m[k]) if m and m[k] else None for k in ("dev", "die", "lid")}
    return {"host": None if not m or m["host"] == "-" else m["host"], "device": num["dev"], "die": num["die"],
            "logic_id": num["lid"]}


def print_table(rows: list[dict[str, Any]], n_scenarios: int, wall: float | None) -> None:
    """The markdown table and the summary line."""
    agree = sum(1 for r in rows if r["same_root"] is True)
    differ = sum(1 for r in rows if r["same_root"] is False)
    rt = sum(1 for r in rows if r["roundtrip_same"])
    print("| scenario | incident | injected | opsbrain (bundle) | ascend-fd root cluster (code: roots) | ascend-fd "
          "knowledge graph, first fault | same root | round trip |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        if "as" in r:
            theirs, kg, same = f"as {r['as']} (the same noise bundle)", "-", "-"
        elif "ascend_fd_error" in r:
            theirs, kg, same = f"error: {r['ascend_fd_error']}", "-", "-"
        else:
            theirs = r["ascend_fd_root"] if r["ascend_fd_basis"] == "root cluster" else "no root"
            kg, same = r["ascend_fd_kg"], {True: "yes", False: "NO", None: "-"}[r["same_root"]]
            if r["same_root"] and r["ascend_fd_roots"] > 1:
                same += f" (1 of {r['ascend_fd_roots']})"
        print(f"| {r['scenario']} | {r['incident']} | {r['injected']} | {r['opsbrain']} | {theirs} | {kg} | {same} | "
              f"{'yes' if r['roundtrip_same'] else 'NO'} |")
    repeats = sum(1 for r in rows if "as" in r)
    print(f"\n{len(rows)} bundles of {n_scenarios} scenarios ({repeats} repeats of a noise bundle not run again): "
          f"roots agree on {agree}, differ on {differ}, not comparable on {len(rows) - agree - differ - repeats}; "
          f"round trip holds on {rt}" + (f"; wall {wall:.0f} s" if wall is not None else ""))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenarios", nargs="*")
    ap.add_argument("--ascend-fd", dest="ascend_fd", default=None, help="ascend-fd executable or its venv directory")
    ap.add_argument("--out", type=Path, default=None, help="keep bundles and ascend-fd's output here")
    ap.add_argument("--from", dest="reuse", type=Path, default=None,
                    help="use bundles exported before (DIR/<scenario>/<incident>/) instead of running the scenarios")
    ap.add_argument("--vendor", type=Path, default=VENDOR if VENDOR.exists() else None)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--max-bundles", type=int, default=None,
                    help="compare at most this many bundles per scenario (a simulated week has hundreds)")
    ap.add_argument("--table", type=Path, nargs="+", default=None,
                    help="only print the table of rows.jsonl files written before (re-reading ascend-fd's saved "
                         "reports beside them)")
    args = ap.parse_args(argv)
    if args.table is not None:
        saved = [rescored(json.loads(ln), f.parent) for f in args.table
                 for ln in f.read_text(encoding="utf-8").splitlines() if ln.strip()]
        print_table(saved, len({r["scenario"] for r in saved}), None)
        return 0
    exe = find_ascend_fd(args.ascend_fd)
    if exe is None:
        print("ascend-fd not found: pass --ascend-fd PATH or set ASCEND_FD (build it as docs/bundles.md says)",
              file=sys.stderr)
        return 2

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from roundtrip_bundles import matcher_for

    from opsbrain import chaos
    from opsbrain.kb.training import load_engine

    names = args.scenarios or [s["name"] for s in chaos.list_scenarios()]
    engine = load_engine()
    rows: list[dict[str, Any]] = []
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        out = args.out or Path(tmp) / "out"
        kb_dir = Path(tmp) / "kb"
        kb_dir.mkdir()
        matcher = matcher_for(args.vendor, kb_dir)
        seen_noise: dict[str, str] = {}
        for name in names:
            for path in bundles_of(name, engine, out / "bundles", args.reuse)[:args.max_bundles]:
                row = row_for(name, path, engine, matcher, exe, out / "ascend-fd", seen_noise)
                rows.append(row)
                if args.out is not None:  # rows as they come, so that a long run can be read while it goes
                    with (args.out / "rows.jsonl").open("a", encoding="utf-8") as fh:
                        fh.write(json.dumps(row) + "\n")
                print(f"{name} {path.name}: {row.get('ascend_fd_root', row.get('ascend_fd_error', row.get('as')))}",
                      file=sys.stderr, flush=True)
    wall = time.perf_counter() - t0
    agree = sum(1 for r in rows if r["same_root"] is True)
    differ = sum(1 for r in rows if r["same_root"] is False)
    rt = sum(1 for r in rows if r["roundtrip_same"])
    if args.json:
        print(json.dumps({"rows": rows, "same_root": agree, "different_root": differ, "roundtrip_same": rt,
                          "noise_repeats": sum(1 for r in rows if "as" in r),
                          "bundles": len(rows), "wall_s": round(wall, 1)}, indent=1))
        return 0
    print_table(rows, len(names), wall)
    return 0


if __name__ == "__main__":
    sys.exit(main())
