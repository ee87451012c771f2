"""opsbrain on every raw-log system-test case of Huawei's ascend-fd, against what ascend-fd's own tests expect.

Usage: ``.venv/bin/python benchmarks/ascendfd_st_cases.py MIND_CLUSTER [--vendor DIR] [--json]``

``MIND_CLUSTER`` is a checkout of the public Ascend/mind-cluster repository, or its git directory (a bare mirror:
the cases are read with ``git archive``). Nothing of it is copied into the project: the cases are extracted to a
temporary directory for the run. ``--vendor`` (default ``../shared/reference/vendor``) is where MindCluster's
``kg-config.json`` is; it is imported into a temporary data directory, so that the vendor entries the tests expect
can be checked. Without it the vendor column is skipped, and the script says so.

EXPECTED holds what ascend-fd's tests assert for each case (component/ascend-faultdiag/test/st/test_st.py at
Ascend/mind-cluster 22bb3d98: ``root_cause_device``, ``remote_link``, the workers it detects, the knowledge-graph
codes it finds), written out here; opsbrain's roots and chains are compared with them. Two of the cases
(st_event_timeout_testcase, st_transport_init_testcase) are also the project's ../shared fixtures; the other four
are not. Cases whose inputs are ascend-fd's own parsed intermediates (st_module_testcase/rc_diag/*, kg_diag) are
not log bundles and are not read.
"""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TEST_DIR = "component/ascend-faultdiag/test"
EXPECTED: dict[str, dict[str, Any]] = {
    # case -> roots ("host device N"), chain ("a -> b"), workers the root cluster must name, knowledge-graph codes;
    # each as test_st.py asserts it, in ascend-fd's words turned into opsbrain's ("worker-1 device-0" ->
    # "worker-1 device 0")
    "st_event_timeout_testcase": {"roots": ["worker-1 device 0", "worker-0 device 0"],
                                  "chain": "worker-1 device 0 -> worker-0 device 0 -> worker-1 device 0"},
    "st_transport_init_testcase": {"roots": ["worker-0 device 0"],
                                   "chain": "worker-2 device 2 -> worker-1 device 1 -> worker-0 device 0"},
    "st_transport_timeout_testcase": {
        "roots": ["worker-1 device 1"],
        "chain": "worker-0 device 2 -> worker-1 device 2 -> worker-1 device 0 -> worker-1 device 1"},
    "st_aicpu_notify_testcase": {"roots": ["worker-0 device 11"], "chain": "worker-1 device 3 -> worker-0 device 11"},
    "st_cqe_testcase": {"workers": ["worker-9"]},
    "st_host_os_testcase": {"codes": ["Comp_OS_Kernel_FS_02", "Comp_OS_Kernel_Mem_06", "Comp_OS_Custom_03",
                                      "Comp_OS_Custom_04", "Comp_OS_Service_State_05"]},
}


def extract(mind_cluster: Path, case: str, dst: Path) -> Path:
    """The case's directory, from a checkout or (``git archive``) a git directory."""
    src = mind_cluster / TEST_DIR / case
    if src.is_dir():
        return src
    data = subprocess.run(["git", "--git-dir", str(mind_cluster), "archive", "HEAD", f"{TEST_DIR}/{case}"],
                          capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(dst, filter="data")
    return dst / TEST_DIR / case


def check(case: str, rep: dict[str, Any]) -> dict[str, Any]:
    want = EXPECTED[case]
    d = rep["diagnosis"]
    rc = d.get("root_cluster") or {}
    roots = [f"{r['host']} device {r['device']}" for r in rc.get("roots", [])] if rc.get("roots") else []
    codes = {k.get("code") or k.get("entry") for k in rep.get("knowledge", [])} | {
        k.get("entry") for k in rep.get("knowledge", [])}
    row: dict[str, Any] = {"case": case, "class": d["fault_class"], "confidence": d["confidence"],
                           "root": d.get("root"), "roots": roots, "chain": rc.get("chain")}
    if "roots" in want:
        row["roots_ok"] = sorted(roots) == sorted(want["roots"])
    if "chain" in want:
        row["chain_ok"] = rc.get("chain") == want["chain"]
    if "workers" in want:
        row["workers_ok"] = all(any(r.startswith(w + " ") for r in roots) or (d.get("root") or {}).get("host") == w
                                for w in want["workers"])
    if "codes" in want:
        row["codes_found"] = sorted(c for c in want["codes"] if c in codes)
        row["codes_ok"] = len(row["codes_found"]) == len(want["codes"])
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("mind_cluster", type=Path)
    ap.add_argument("--vendor", type=Path, default=ROOT.parent / "shared" / "reference" / "vendor")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    if not a.mind_cluster.exists():
        print(f"{a.mind_cluster}: no such checkout or git directory", file=sys.stderr)
        return 2
    sys.path.insert(0, str(ROOT))
    from opsbrain.bundle import diagnose_bundle
    from opsbrain.kb import SignatureMatcher, import_kg, load_imported, load_kb
    from opsbrain.kb.training import load_engine

    engine = load_engine(None, say=lambda m: None)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        imports = Path(tmp) / "imports"
        kg = a.vendor / "kg-config.json"
        if kg.exists():
            import_kg(kg, imports)
        else:
            print(f"no {kg}: vendor entries are not checked", file=sys.stderr)
        matcher = SignatureMatcher(load_kb(), load_imported(imports) if kg.exists() else [])
        for case in EXPECTED:
            try:
                path = extract(a.mind_cluster, case, Path(tmp) / "cases")
            except (subprocess.CalledProcessError, OSError, tarfile.TarError):
                print(f"{a.mind_cluster}: {TEST_DIR}/{case} not found (not a mind-cluster checkout or git directory)",
                      file=sys.stderr)
                return 2
            rows.append(check(case, diagnose_bundle(path, engine, matcher)))
    if a.json:
        print(json.dumps(rows, indent=1))
        return 0
    for r in rows:
        oks = {k: v for k, v in r.items() if k.endswith("_ok")}
        print(f"{r['case']:32s} {r['class']:22s} {r['confidence']:.2f}  roots {', '.join(r['roots']) or '-'}"
              f"  {' '.join(f'{k}={v}' for k, v in oks.items())}")
    allok = sum(all(v for k, v in r.items() if k.endswith("_ok")) for r in rows)
    print(f"{allok} of {len(rows)} cases as ascend-fd's tests expect; classes: "
          f"{sum(r['class'] != 'unknown' for r in rows)} of {len(rows)} not unknown")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
