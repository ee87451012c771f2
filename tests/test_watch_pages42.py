"""Session 42 (metrics42): a followed file once read as an npu-exporter metrics page is read again when it changes.

Before, the watch marked such a file a page at its first read and never looked at it again: log lines appended
after the page (``curl -s NODE:8082/metrics > f; dmesg >> f``), or a page longer than the classifier's first 64
lines followed by log lines, were dropped without a word. Now a page file that changed is re-read from its start
(a page is written whole at every scrape) and the log lines after its page part are read, as ``diagnose --logs``
reads such a file (:func:`opsbrain.ingest.exporterpage.split_page`). The page lines are npu-exporter's series
(Ascend/mind-cluster @22bb3d98 component/npu-exporter/collector/metrics/collector_for_npu.go); the log line is
CANN runtime's device heartbeat loss, as tests/test_real_pages41.py's neighbours use it."""

from __future__ import annotations

import os
import time
from pathlib import Path

from opsbrain.sources.follow import LogFollower
from tests.test_real_pages41 import good_page

LOG = ("[ERROR] RUNTIME(1234,python):2025-03-01-09:00:00.000.000 [device.cc:100] 1234 Device 0 heartbeat lost\n")


def big_page() -> str:
    """A 16-NPU page: more lines than the 64 the classifier looks at."""
    lab = 'container_name="",id="{i}",model_name="910B3-Ascend-V1",namespace="",pcie_bus_info="",pod_name=""'
    ms = int(time.time() * 1000)
    out = ""
    for name in ("npu_chip_info_temperature", "npu_chip_info_health_status", "npu_chip_info_error_code",
                 "npu_chip_info_network_status", "npu_chip_info_link_status"):
        out += f"# HELP {name} x\n# TYPE {name} gauge\n"
        out += "".join(f"{name}{{{lab.format(i=i)}}} 1 {ms}\n" for i in range(16))
    return out


def follower(tmp_path: Path, text: str) -> tuple[LogFollower, Path]:
    (tmp_path / "gz-n03").mkdir()
    f = tmp_path / "gz-n03" / "metrics.prom"
    f.write_text(text)
    fo = LogFollower(tmp_path, from_start=True)
    assert fo.poll(1.0) == [] and fo.lines == 0  # a page: not read as lines
    return fo, f


def bump(f: Path) -> None:
    """Move the file's mtime on (a coarse clock would give the rewrite the same one)."""
    st = f.stat()
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns + 10_000_000))


def test_log_lines_appended_after_a_page_are_read(tmp_path: Path) -> None:
    fo, f = follower(tmp_path, good_page())
    with f.open("a") as fh:
        fh.write(LOG)
    bump(f)
    got = fo.poll(2.0)
    assert got and {s.line_no for s in got} == {7} and {s.file for s in got} == {"gz-n03/metrics.prom"}, got
    assert "gz-n03/metrics.prom: log lines after its npu-exporter metrics page: read" in fo.stats.notes


def test_a_page_rewritten_with_log_lines_after_it_is_read_again(tmp_path: Path) -> None:
    """The page is longer than 64 lines and keeps its first bytes: before, the rewrite read as bytes appended to
    a page, and dropped."""
    page = big_page()
    fo, f = follower(tmp_path, page)
    f.write_text(page + LOG * 2)
    bump(f)
    got = fo.poll(2.0)
    n = page.count("\n")
    assert {s.line_no for s in got} == {n + 1, n + 2}, [(s.kind, s.line_no) for s in got]
    f.write_text(page)  # a page again: nothing read, nothing said twice
    bump(f)
    assert fo.poll(3.0) == []
    assert sum("metrics page, not log lines" in x for x in fo.skipped()) == 1


def test_a_page_replaced_by_a_log_is_read_as_one(tmp_path: Path) -> None:
    fo, f = follower(tmp_path, big_page())
    tmp = f.with_name("new")
    tmp.write_text(LOG * 3)
    os.replace(tmp, f)
    got = fo.poll(2.0)
    assert {s.line_no for s in got} == {1, 2, 3}
