"""Session 45's second read of the merged code (review45): defects found in the day's merges, each with the test that
failed before its fix."""

from __future__ import annotations

from pathlib import Path

from opsbrain.ingest.textpaths import ingest_paths

LATER = ("[ERROR] HCCL(59420,python3):2025-01-24-11:24:07.908.424 [comm_base.cc:967][107626]   "
         "_________________________LINK_ERROR_INFO___________________________")
EARLIER = ("[INFO] HCCL(59420,python):2025-01-24-11:10:27.614.147 [topoinfo_detect.cc:221][3475][HCCL_TRACE]"
           "SetupAgent ranks[2]")
"""(tests/test_time_origin45.py's two lines: ascend-fd's st_event_timeout_testcase, worker-0's plogs.)"""


def test_a_file_without_stamps_after_a_settled_origin_sits_at_the_last_stamp(tmp_path: Path) -> None:
    """``--logs a.log b.log``: :func:`ingest_path` asks for the signals after each path given, which settles the
    reader's origin (:meth:`LineReader._settle`); a later file's lines before any stamp of its own take the time of
    the last stamp read. bundle45's settle moved that time the wrong way (``_last -= delta``): b.log's traceback sat
    at -1640.6 s, twice the two stamps' distance before the origin, where main 718dbc0e put it at 0 s."""
    (tmp_path / "a.log").write_text(f"{LATER}\n{EARLIER}\n")
    (tmp_path / "b.log").write_text("Traceback (most recent call last):\n"
                                    "RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB\n")
    sigs, _stats, _base = ingest_paths([str(tmp_path / "a.log"), str(tmp_path / "b.log")])
    late = [s for s in sigs if s.file == "a.log"]
    after = [s for s in sigs if s.file == "b.log"]
    assert late and all(abs(s.t - 820.294277) < 1e-3 for s in late), [(s.kind, s.t) for s in late]
    assert after and all(abs(s.t) < 1e-6 for s in after), [(s.kind, s.t) for s in after]


def test_the_dram_location_rule_takes_linear_time_on_a_long_line() -> None:
    """:data:`opsbrain.ingest.where.DRAM_LOCATION` (tester45h) had two unbounded lazy gaps: on a line with the kernel's
    ``[Hardware Error]:`` head and many location fields but no ``device:`` it tried every field against the rest of
    the line (40,000 characters: 4 s; 100 KB: 25 s; the reader's 4,096-character cut: 32 ms a line, on each of the
    first 5,000 lines that the device scan of ``diagnose --logs`` reads). The real record's fields sit within a few
    dozen characters of each other (linux drivers/firmware/efi/cper.c ``cper_mem_err_location``)."""
    import time

    from opsbrain.ingest.where import DRAM_LOCATION, device_in

    line = "[Hardware Error]: " + "rank: 1 " * 5000
    t0 = time.perf_counter()
    assert DRAM_LOCATION.search(line) is None
    assert time.perf_counter() - t0 < 1.0
    real = ("[Hardware Error]:   node: 1 card: 4 module: 0 rank: 0 bank: 1 bank_group: 0 bank_address: 1 device: 14 "
            "row: 58165 column: 816")
    assert DRAM_LOCATION.search(real) and device_in(real) is None
    assert device_in("rank: 1 device: 3 HCCL error") == 3
