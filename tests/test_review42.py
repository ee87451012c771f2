"""Session 42 review (review42): bugs found in the session's merged work, each test failing before its fix."""

from __future__ import annotations

import pytest

from opsbrain.ingest.exporterpage import page_signals

PAGE = ["# HELP machine_npu_nums x", "# TYPE machine_npu_nums gauge", "machine_npu_nums 8",
        "machine_unhealthy_npu_nums {}", 'npu_chip_info_health_status{{id="0"}} 0']


@pytest.mark.parametrize("value", ["NaN", "+Inf", "-Inf"])
def test_a_page_of_no_node_with_a_summary_that_is_no_count_is_read(value: str) -> None:
    # a NaN summary made the whole page "not the Prometheus text format" (int(nan): ValueError) and +Inf crashed
    # diagnose (int(inf): OverflowError); the text format allows both values (Prometheus docs, "Exposition formats")
    lines = [x.format(value) for x in PAGE]
    out, note = page_signals(lines, None, "m.prom", 0.0)
    assert [s.kind for s in out] == ["smi:alarm"]
    assert "machine_unhealthy_npu_nums" not in note
