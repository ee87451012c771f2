"""Session 42 (metrics42): npu-exporter's node health summary and its pages' time stamps.

- ``machine_unhealthy_npu_nums`` / ``machine_unknown_npu_nums`` (Ascend/mind-cluster @22bb3d98
  component/npu-exporter/collector/metrics/collector_for_npu.go, ``machineUnhealthyDesc``, ``machineUnknownDesc``,
  ``countHealthStatus``) were not read: a node whose exporter counts an unhealthy NPU that no chip series shows was
  silent. Now the sweep's ``npu_count`` check says it (Alarm; unknown health: Warning) and ``diagnose --logs`` of the
  page says it in its note (no class drawn from it). The example summary (8 listed, 6 healthy, 1 unhealthy,
  1 unknown) is the metrics reference's example page:
  https://github.com/Ascend/mind-cluster/blob/master/docs/zh/scheduling/06_api/00_npu_exporter/01_prometheus_metrics_api.md
- a page stamped in seconds (npu-exporter's own test page, component/npu-exporter/collector/testdata/prometheus_metrics,
  ``... 0 1606402000``) was read in milliseconds, as January 1970, without a word; the text format's unit is
  milliseconds (Prometheus docs, "Exposition formats"), as real pages show (the reference's ``1723621883587``).
"""

from __future__ import annotations

import time

from click.testing import CliRunner

from opsbrain.cli import cli
from opsbrain.sources.exporter import parse_page
from opsbrain.sources.readings import CollectionHistory, snapshot_from
from opsbrain.sweeps import SweepParams
from opsbrain.sweeps.sweep import sweep_snapshot

P = SweepParams()
LAB = ('container_name="",id="{i}",model_name="910A-Ascend-V1",namespace="",pcie_bus_info="0000:61:00.0",'
       'pod_name="",vdie_id=""')


def page(ms: int, unhealthy: int = 1, unknown: int = 1, health: dict[int, int] | None = None,
         codes: dict[int, int] | None = None) -> str:
    """A node's page with the reference's summary lines (no labels, no stamp) and 8 chips' health and codes."""
    out = ["# HELP machine_npu_nums Amount of npu installed on the machine.", "# TYPE machine_npu_nums gauge",
           "machine_npu_nums 8", "# TYPE machine_healthy_npu_nums gauge",
           f"machine_healthy_npu_nums {8 - unhealthy - unknown}",
           "# TYPE machine_unhealthy_npu_nums gauge", f"machine_unhealthy_npu_nums {unhealthy}",
           "# TYPE machine_unknown_npu_nums gauge", f"machine_unknown_npu_nums {unknown}",
           "# HELP npu_chip_info_health_status the npu health status", "# TYPE npu_chip_info_health_status gauge"]
    out += [f"npu_chip_info_health_status{{{LAB.format(i=i)}}} {(health or {}).get(i, 1)} {ms}" for i in range(8)]
    out += ["# HELP npu_chip_info_error_code the npu error code", "# TYPE npu_chip_info_error_code gauge"]
    out += [f"npu_chip_info_error_code{{{LAB.format(i=i)}}} {(codes or {}).get(i, 0)} {ms}" for i in range(8)]
    out += ["# HELP npu_chip_info_temperature the npu temperature", "# TYPE npu_chip_info_temperature gauge"]
    out += [f"npu_chip_info_temperature{{{LAB.format(i=i)}}} 45 {ms}" for i in range(8)]
    return "\n".join(out) + "\n"


def npu_count_findings(text: str, t: float) -> list[tuple[str, str, str]]:
    rep = sweep_snapshot(snapshot_from(parse_page(text, "node-1", t), CollectionHistory(), P), P)
    return [(f.component, f.severity, f.evidence) for f in rep.findings if f.check == "npu_count"]


def test_the_node_health_summary_is_read() -> None:
    now = time.time()
    r = parse_page(page(int(now * 1000)), "node-1", now)
    assert r.node_npu_count == {"node-1": 8.0}
    assert r.node_npu_unhealthy == {"node-1": 1.0} and r.node_npu_unknown == {"node-1": 1.0}


def test_an_unhealthy_npu_no_chip_series_explains_is_an_alarm_on_its_node() -> None:
    now = time.time()
    got = npu_count_findings(page(int(now * 1000), unknown=0), now)
    assert [(c, s) for c, s, _ in got] == [("node-1", "Alarm")], got
    assert "1 unhealthy NPU(s) no per-device reading explains" in got[0][2]
    # explained: its own health series reads 0 (or it reports a fault code): nothing more on the node
    assert npu_count_findings(page(int(now * 1000), unknown=0, health={3: 0}), now) == []
    assert npu_count_findings(page(int(now * 1000), unknown=0, codes={5: 2162169857}), now) == []
    # NPUs whose health could not be read: a Warning (the reference's page: 1 unhealthy, 1 unknown -> Alarm, both said)
    got = npu_count_findings(page(int(now * 1000), unhealthy=0), now)
    assert [(c, s) for c, s, _ in got] == [("node-1", "Warning")] and "machine_unknown_npu_nums" in got[0][2], got
    got = npu_count_findings(page(int(now * 1000)), now)
    assert [(c, s) for c, s, _ in got] == [("node-1", "Alarm")] and "machine_unknown_npu_nums" in got[0][2], got
    assert npu_count_findings(page(int(now * 1000), unhealthy=0, unknown=0), now) == []


def test_diagnose_of_a_page_says_the_unexplained_unhealthy_npu(tmp_path) -> None:  # type: ignore[no-untyped-def]
    f = tmp_path / "node.prom"
    f.write_text(page(1723621883587))
    res = CliRunner().invoke(cli, ["diagnose", "--logs", str(f)])
    assert "1 unhealthy NPU(s) no per-device series explains" in res.output, res.output
    assert "could not read the health of 1 NPUs (machine_unknown_npu_nums)" in res.output
    f.write_text(page(1723621883587, health={2: 0}, unknown=0))  # explained by npu2's health: not said
    res = CliRunner().invoke(cli, ["diagnose", "--logs", str(f)])
    assert "no per-device series explains" not in res.output and "smi:alarm on npu2" in res.output, res.output


def test_stamps_in_seconds_are_read_as_seconds_and_said() -> None:
    """npu-exporter's test page's stamp 1606402000: as milliseconds 1970-01-19, as seconds 2020-11-26."""
    now = time.time()
    r = parse_page(page(1606402000), "node-1", now)
    assert r.npu_sample_t["node-1/npu0"] == 1606402000.0
    said = [n for n in r.notes if "time stamps" in n]
    assert said == ["24 sample time stamps in seconds, not the text format's milliseconds (as milliseconds before "
                    "2001): read as seconds (first: npu_chip_info_health_status 1606402000 = 2020-11-26T14:46:40Z)"]
    r = parse_page(page(1723621883587), "node-1", now)  # milliseconds, as the reference's page: no word
    assert r.npu_sample_t["node-1/npu0"] == 1723621883.587 and not [n for n in r.notes if "time stamps" in n]


def test_stamps_that_are_no_time_are_not_read_times_and_said() -> None:
    now = time.time()
    for stamp in (1000, int(now * 1e6)):  # 1 s after the epoch; microseconds
        r = parse_page(page(stamp), "node-1", now)
        assert r.npu_sample_t == {} and r.t == now, stamp
        said = [n for n in r.notes if "time stamps" in n]
        assert len(said) == 1 and said[0].startswith("24 sample time stamps that are no time in milliseconds or "
                                                     "seconds (before 2001 or after 2100): not used"), said


def test_a_chip_with_hbm_ecc_detection_off_has_its_ecc_counters_not_read() -> None:
    """``npu_chip_info_hbm_ecc_enable_flag`` (collector_for_hbm.go, descEccEnableFlag; 1 on, ascend-common's mock):
    with detection off the ECC counters count nothing; before, their zeros passed hbm_ce / hbm_uce as OK."""
    now = time.time()
    ms = int(now * 1000)
    text = page(ms, unhealthy=0, unknown=0)
    for name, vals in (("npu_chip_info_hbm_ecc_enable_flag", (0, 1)),
                       ("npu_chip_info_hbm_ecc_total_single_bit_error_cnt", (0, 0)),
                       ("npu_chip_info_hbm_ecc_total_double_bit_error_cnt", (0, 0))):
        text += f"# TYPE {name} gauge\n" + "".join(f"{name}{{{LAB.format(i=i)}}} {v} {ms}\n"
                                                   for i, v in enumerate(vals))
    r = parse_page(text, "node-1", now)
    assert r.hbm_ue_total == {"node-1/npu1/hbm": 0.0} and r.hbm_ce_total == {"node-1/npu1/hbm": 0.0}
    assert [n for n in r.notes if "ECC" in n] == [
        "1 NPUs with HBM ECC detection off (npu_chip_info_hbm_ecc_enable_flag 0): their ECC error counters count "
        "nothing, not read (hbm_ce, hbm_uce not checked on them) (first: node-1/npu0)"], r.notes
