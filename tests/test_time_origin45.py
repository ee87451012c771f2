"""``--logs DIR`` times every line from one origin, the earliest stamp of the input, as ``--bundle`` does (session 45,
bundle45).

Before, the reader's origin was the first stamp read, moved back by each earlier stamp, but the lines read before kept
their times from the later origin: in ascend-fd's st_event_timeout_testcase worker-0's debug plog (read first, its
errors at 11:24:07.908) sat at 0 s, worker-1's errors of the same second at 819.9 s (from worker-0's run plog at
11:10:27.614), so the root cluster's span feature read 6.7 against ``--bundle``'s 0.36 and the confidence 0.2661
against 0.2525.

Lines: the first HCCL error line of worker-0's debug plog and the first line of its run plog in that fixture
(Ascend/mind-cluster @22bb3d98, component/ascend-faultdiag/test/st_event_timeout_testcase; read-only copy under
/work/shared/reference/ascend-fd-fixtures)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from opsbrain.ingest import LineReader

ERROR = ("[ERROR] HCCL(59420,python3):2025-01-24-11:24:07.908.424 [comm_base.cc:967][107626]   "
         "_________________________LINK_ERROR_INFO___________________________")
EARLIER = ("[INFO] HCCL(59420,python):2025-01-24-11:10:27.614.147 [topoinfo_detect.cc:221][3475][HCCL_TRACE]"
           "SetupAgent ranks[2]")
FIXTURE = Path("/work/shared/reference/ascend-fd-fixtures/st_event_timeout_testcase")


def test_a_file_read_before_an_earlier_one_keeps_its_place_in_time() -> None:
    r = LineReader()
    r.feed([ERROR], "worker-0/process_log/debug/plog/a.log")
    r.feed([EARLIER], "worker-0/process_log/run/plog/b.log")
    errs = [s for s in r.signals if s.severity >= 2]
    assert errs and all(abs(s.t - 820.294277) < 1e-3 for s in errs), [(s.kind, s.t) for s in errs]


@pytest.mark.skipif(not FIXTURE.is_dir(), reason="ascend-fd fixtures not present")
def test_the_fixture_reads_the_same_confidence_both_ways(engine: Any) -> None:
    from opsbrain.bundle import diagnose_bundle
    from opsbrain.diagnosis.oneclick import diagnose_logs

    logs = diagnose_logs(str(FIXTURE), engine)["diagnosis"]
    bundle = diagnose_bundle(FIXTURE, engine)["diagnosis"]
    assert (logs["fault_class"], logs["confidence"]) == (bundle["fault_class"], bundle["confidence"]), (logs, bundle)


VENDOR = Path(__file__).resolve().parents[2] / "shared" / "reference" / "vendor"
KBOX = ["Mar 15 03:40:50 node-a kernel: [16794.226248] [kbox] Vmallocinfo Start >>>>>>>>>>>>>",
        "Mar 15 03:40:50 node-a kernel: [16794.236105] [kbox] vmalloc info num over SHOW_MAX_LINE=3000!"]
"""(tests/test_bundle.py's kbox dump, which only the imported knowledge-graph entry Comp_OS_Kernel_Mem_06 matches,
mapped to npu_oom by knowledge_base/vendor_map.yaml.)"""


@pytest.mark.skipif(not (VENDOR / "kg-config.json").exists(), reason="vendor reference files not present")
def test_vendor_signals_move_with_the_origin(tmp_path: Path) -> None:
    """The knowledge matcher's vendor signals, made while reading, move with the origin too, and their entries stay
    counted on the same lines (:class:`opsbrain.diagnosis.vendorfiles.VendorFiles`)."""
    from opsbrain.diagnosis.oneclick import _Hooks, _Knowledge
    from opsbrain.ingest.ranks import RankCollector
    from opsbrain.kb import SignatureMatcher, import_kg, load_imported, load_kb

    import_kg(VENDOR / "kg-config.json", tmp_path)
    k = _Knowledge(SignatureMatcher(load_kb(), load_imported(tmp_path)))
    r = LineReader(hook=_Hooks(k, RankCollector()))
    r.feed(KBOX, "node-a/messages")
    r.feed(["Mar 15 03:30:50 node-a kernel: [16194.000000] usb 1-1: new high-speed USB device number 2"],
           "node-a/messages.1")
    assert r.signals is not None  # (times settle when the signals are asked for, as diagnose_logs does first)
    assert k.vendor_signals and all(abs(s.t - 600.0) < 1e-6 for s, _d in k.vendor_signals), k.vendor_signals
    firsts = [s for s, _d in k.vendor_signals]
    assert k.vendor_files.admitted(firsts) == firsts


def test_a_log_printed_newest_first_is_timed_from_its_earliest_line() -> None:
    """A log printed newest first (``journalctl -r``, ``tac``): every line a stamp before all read so far. Its
    signals keep their spacing, and the times move once, when the signals are asked for (session 45, the lead:
    bundle45's reader moved every time at each earlier stamp, minutes for 60,000 such lines)."""
    lines = [ERROR.replace("11:24:07.908", f"11:{m:02d}:07.908") for m in range(59, 9, -1)]
    r = LineReader()
    moves = 0
    earlier = r._earlier  # noqa: SLF001 - counting the reader's own moves

    def counted(delta: float) -> None:
        nonlocal moves
        moves += 1
        earlier(delta)

    r._earlier = counted  # type: ignore[method-assign]  # noqa: SLF001
    r.feed(lines, "plog/a.log")
    times = sorted(s.t for s in r.signals if s.severity >= 2)
    assert moves == 1 and times[0] == 0.0 and abs(times[-1] - 49 * 60) < 1e-3, (moves, times[:3], times[-3:])
