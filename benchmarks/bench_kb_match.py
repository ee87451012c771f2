"""Benchmark: import vendor knowledge, then match 100,000 log lines against the knowledge base + all imports.

Usage: ``.venv/bin/python benchmarks/bench_kb_match.py [--lines N] [--vendor DIR] [--seed S]``

The vendor directory (default: ``../shared/reference/vendor`` next to the repository) must hold MindCluster's
``faultCode.json`` and ``kg-config.json``; without it the small hand-written fixtures of the tests are used.
Lines are rendered with :mod:`faultlib.telemetry.formats` in the layouts the simulator emits: mostly benign
(training iterations, HCCL init, transceiver readings, CE warnings) with fault lines mixed in. Goal: matching
100,000 lines in <= 5 s.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

from faultlib.telemetry import formats as fmt
from opsbrain.kb import SignatureMatcher, import_faultcode, import_kg, load_imported, load_kb

ROOT = Path(__file__).resolve().parents[1]
VENDOR = ROOT.parent / "shared" / "reference" / "vendor"
FIXTURES = ROOT / "tests" / "fixtures" / "vendor_small"


def make_lines(n: int, seed: int) -> list[str]:
    """``n`` log lines in realistic layouts, about 70% benign and 30% carrying a fault code or pattern."""
    rng = random.Random(seed)
    t0 = datetime(2025, 3, 1, 10, 0, 0)
    def printable(code: str) -> bool:  # the device-OS line of a code the driver's sensor tables name (formats)
        try:
            fmt.device_event_fields(code)
        except ValueError:
            return False
        return True

    dev_codes = [c for c in list(fmt.DEVICE_CODES) + ["80C98000", "80FA4E00", "80E20207", "80E18005"] if printable(c)]

    def benign(dt: datetime) -> str:
        k = rng.randrange(5)
        if k == 0:
            return fmt.train_step(dt, rng.randrange(1, 10**6), 10**6, rng.uniform(1.0, 2.0), rng.uniform(1.5, 3.0),
                                  rng.uniform(1e5, 2e5))
        if k == 1:
            node = f"pod0/node{rng.randrange(48)}"
            return fmt.plog_hcom_init(dt, rng.randrange(10000, 60000), rng.randrange(10000, 60000), 384,
                                      rng.randrange(384), fmt.host_ip(node), rng.randrange(8))
        if k == 2:
            return fmt.switch_transceiver(dt, f"pod0-node{rng.randrange(48)}-l1sw{rng.randrange(7)}", rng.randrange(16),
                                          rng.randrange(4), rng.uniform(-4, 0), rng.uniform(-2, 1), rng.uniform(6, 10),
                                          rng.uniform(20, 30))
        if k == 3:
            return fmt.syslog(dt, f"pod0-node{rng.randrange(48)}", "systemd[1]: Started Session 42 of user root.",
                              proc="systemd", pid=1)
        # the device plugin's health report to the kubelet (Ascend/mind-cluster ascend-device-plugin
        # pkg/server/plugin.go:217 at 22bb3d98); the device OS's log holds fault events only
        return fmt.device_plugin(dt, "INFO", f"ListAndWatch resp devices: Ascend910-{rng.randrange(8)} Healthy",
                                 where="server/plugin.go:217", goroutine=93)

    def faulty(dt: datetime) -> str:
        k = rng.randrange(8)
        dev = rng.randrange(8)
        if k == 0:
            return fmt.device_os_event(dt, dev, rng.choice(dev_codes))
        if k == 1:
            return fmt.device_plugin_fault(dt, dev, rng.choice(dev_codes), rng.choice(fmt.HANDLING_LEVELS))
        if k == 2:
            return fmt.plog_runtime_error(dt, 12345, 12346, rng.choice(list(fmt.RUNTIME_CODES)), dev)
        if k == 3:
            return fmt.plog_notify_wait(dt, 12345, 12346, fmt.host_ip(f"pod0/node{rng.randrange(48)}"))
        if k == 4:
            return fmt.switch_alarm(dt, f"pod0-node{rng.randrange(48)}-l1sw{rng.randrange(7)}", "0x08520003", "L2",
                                    rng.randrange(16))
        if k == 5:
            return fmt.switch_port_state(dt, f"pod0-l2plane{rng.randrange(7)}-sw{rng.randrange(16):02d}",
                                         rng.randrange(48), False)
        if k == 6:
            return fmt.train_runtime_error(dt, rng.randrange(384), rng.choice(list(fmt.RUNTIME_CODES)))
        return fmt.syslog(dt, f"pod0-node{rng.randrange(48)}", "watchdog: BUG: soft lockup - CPU#17 stuck for 22s!")

    out = []
    for i in range(n):
        dt = t0 + timedelta(milliseconds=37 * i)
        out.append(faulty(dt) if rng.random() < 0.3 else benign(dt))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=100_000)
    ap.add_argument("--vendor", type=Path, default=VENDOR)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    src = args.vendor if (args.vendor / "kg-config.json").is_file() else FIXTURES
    kg = src / ("kg-config.json" if src == args.vendor else "kg_good.json")
    fc = src / ("faultCode.json" if src == args.vendor else "faultcode_good.json")
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        r_kg = import_kg(kg, tmp)
        t_kg = time.perf_counter() - t
        r_fc = import_faultcode(fc, tmp)
        imported = load_imported(tmp)
    print(f"knowledge graph {kg}: {r_kg.imported} imported, {r_kg.refused} refused in {t_kg * 1e3:.0f} ms")
    for reason, ids in sorted(r_kg.refused_reasons.items()):
        print(f"  refused {len(ids):4d}: {reason}")
    print(f"fault levels {fc}: {r_fc.imported} codes imported, {r_fc.refused} refused")
    kb = load_kb()
    t = time.perf_counter()
    matcher = SignatureMatcher(kb, imported)
    t_build = time.perf_counter() - t
    lines = make_lines(args.lines, args.seed)
    t, c = time.perf_counter(), time.process_time()
    results = [matcher.match(ln) for ln in lines]
    t_match, c_match = time.perf_counter() - t, time.process_time() - c
    hit = sum(1 for r in results if r)
    n_kb = sum(1 for r in results for m in r if m.source == "kb")
    n_imp = sum(1 for r in results for m in r if m.source == "imported")
    print(f"matcher built in {t_build * 1e3:.0f} ms ({len(kb)} classes, {len(imported.entries)} entries, "
          f"{len(imported.levels)} imported codes)")
    print(f"matched {len(lines):,} lines in {t_match:.2f} s wall, {c_match:.2f} s CPU "
          f"({len(lines) / t_match:,.0f} lines/s, "
          f"{t_match / len(lines) * 1e6:.1f} us/line); lines with a match: {hit:,}; "
          f"matches: {n_kb:,} knowledge-base, {n_imp:,} imported")
    goal = 5.0 * len(lines) / 100_000
    print(f"goal <= {goal:.1f} s: {'met' if t_match <= goal else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
