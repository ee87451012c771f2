"""Session 41 review (review41b): a log must never be swallowed as an npu-exporter page.

- A node dump that holds a saved /metrics page first and log lines after it (``curl -s NODE:8082/metrics; dmesg``
  into one file: the page alone is hundreds of lines) was judged a page by its first 64 lines; the page reader then
  refused the whole text (the log lines are not the text format) and the file was listed as not read: its log lines'
  faults were lost too.
- A two-line input whose first line is a pasted ``# HELP npu_chip_info_...`` line took its second line, a real log
  line, for a page "cut inside its last line" and dropped it.

The log lines are the runtime's error report as in test_exporter_page_diagnose41 (a page's format: Ascend/mind-cluster
@22bb3d98 docs/en/scheduling/api/npu_exporter/01_prometheus_metrics_api.md)."""

from __future__ import annotations

from opsbrain.ingest.exporterpage import is_exporter_page
from opsbrain.ingest.text import ingest_text
from tests.test_exporter_page_diagnose41 import page

LOG = ["[ERROR] RUNTIME(12345,python):2026-12-05-02:50:00.000.000 [device.cc:100] report error module=HBM "
       "code=0x80E01801",
       "[ERROR] ASCENDCL(12345,python):2026-12-05-02:50:00.100.000 aclrtSynchronizeStream failed, error code 507053"]


def big_page(**kw: dict[int, int] | dict[int, list[int]]) -> str:
    """A page of 100+ lines (a real one has hundreds): more of npu-exporter's series after :func:`page`'s."""
    extra = []
    for name in ("npu_chip_info_power", "npu_chip_info_voltage", "npu_chip_info_utilization"):
        extra += [f"# HELP {name} the npu {name[14:]}", f"# TYPE {name} gauge"]
        extra += [f'{name}{{id="{i}",model_name="910B3-Ascend-V1"}} 7' for i in range(8)]
    text = page(**kw) + "\n".join(extra) + "\n"  # type: ignore[arg-type]
    assert len(text.splitlines()) > 64
    return text


def _kinds(text: str) -> set[str]:
    return {s.kind for s in ingest_text(text, file="dump.log")[0]}


def test_a_page_followed_by_log_lines_keeps_the_log_lines() -> None:
    text = big_page(health={3: 0}, codes={3: [0x80E01801]})
    sigs, st = ingest_text(text + "\n".join(LOG) + "\n", file="dump.log")
    rt = [s for s in sigs if s.kind == "rt:507053"]
    assert rt, ({s.kind for s in sigs}, st.not_read)  # the log's own fault, lost before
    assert rt[0].line_no == len(text.splitlines()) + 2  # numbered as in the file
    assert any(s.kind == "dev:80E01801" and s.component == "npu3" for s in sigs)  # the page is read as one too
    assert not st.not_read


def test_a_help_line_then_a_log_line_is_no_cut_page() -> None:
    lines = ["# HELP npu_chip_info_health_status the npu health status", LOG[1]]
    assert not is_exporter_page(lines)
    assert "rt:507053" in _kinds("\n".join(lines) + "\n")


def test_a_page_cut_inside_a_sample_is_still_a_page() -> None:
    lines = page().splitlines()[:12] + ['npu_chip_info_power{container_name="",id="']
    assert is_exporter_page(lines)
    assert is_exporter_page(page().splitlines()[:12] + ["npu_chip_info_power{id=\"1\"} 7"])
