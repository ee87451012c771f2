"""npu-exporter pages of different releases (session 33). ascend-npu-exporter v5 (labels id, model_name,
pcie_bus_info, vdie_id) publishes no HBM ECC series and no HBM temperature (MindCluster v6.0.0 added the ECC
counters, v7.1 ``npu_chip_info_hbm_temperature``): a sweep of its page must say those checks read nothing
(``coverage.not_fed``), not count them OK on 0 components."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from opsbrain.sources.base import PrometheusSource, sweep_source
from tests.test_sources_http import reply, serving

V5 = 'id="{i}",model_name="Ascend910B3",pcie_bus_info="0000:C{i}:00.0",vdie_id="185011D4-0000000{i}"'
V7 = ('container_name="",id="{i}",model_name="Ascend910B3",namespace="",pcie_bus_info="0000:C{i}:00.0",pod_name="",'
      'vdie_id="185011D4-0000000{i}"')
HBM = ("npu_chip_info_hbm_temperature", "npu_chip_info_hbm_ecc_total_single_bit_error_cnt",
       "npu_chip_info_hbm_ecc_total_double_bit_error_cnt", "npu_chip_info_hbm_ecc_single_bit_isolated_pages_cnt",
       "npu_chip_info_hbm_ecc_double_bit_isolated_pages_cnt")


def page(labels: str, names: tuple[str, ...], value: str = "0") -> str:
    stamp = int(time.time() * 1000)
    out = ["# HELP machine_npu_nums Amount of npu installed on the machine.", "# TYPE machine_npu_nums gauge",
           "machine_npu_nums 8"]
    for name, v in (("npu_chip_info_temperature", "44"), ("npu_chip_info_health_status", "1"),
                    ("npu_chip_info_link_status", "1"), *((n, value) for n in names)):
        out += [f"# HELP {name} {name}", f"# TYPE {name} gauge"]
        out += [f"{name}{{{labels.format(i=i)}}} {v} {stamp + 350 * i}" for i in range(8)]
    return "\n".join(out) + "\n"


def not_fed(text: str) -> dict[str, str]:
    with serving(reply(text.encode())) as url:
        src = PrometheusSource([url + "/metrics"])
        sweep_source(src)
    return src.coverage()["not_fed"]


def test_an_older_exporter_without_hbm_series_is_said_not_swept_as_ok() -> None:
    got = not_fed(page(V5, ()))
    assert {"hbm_ce", "hbm_uce", "hbm_rows", "hbm_temp"} <= got.keys()
    assert "npu_chip_info_hbm_ecc_total_double_bit_error_cnt" in got["hbm_uce"]
    assert "npu_temp" not in got and "npu_health" not in got and "heartbeat" not in got


def test_a_current_exporter_feeds_the_hbm_checks_and_nan_feeds_nothing() -> None:
    got = not_fed(page(V7, HBM))
    assert not {"hbm_ce", "hbm_uce", "hbm_rows", "hbm_temp"} & got.keys()
    assert {"hbm_ce", "hbm_uce", "hbm_rows", "hbm_temp"} <= not_fed(page(V7, HBM, "NaN")).keys()


def test_the_table_names_the_checks_that_read_nothing(tmp_path: Path) -> None:
    with serving(reply(page(V5, ()).encode())) as url:
        got = subprocess.run([sys.executable, "-m", "opsbrain", "sweep", "once", "--source", "prometheus", "--url",
                              url + "/metrics", "--data-dir", str(tmp_path)], capture_output=True, text=True,
                             timeout=120)
        js = subprocess.run([sys.executable, "-m", "opsbrain", "sweep", "once", "--source", "prometheus", "--url",
                             url + "/metrics", "--data-dir", str(tmp_path), "--name", "j", "--json"],
                            capture_output=True, text=True, timeout=120)
    assert got.returncode == 0, got.stderr
    assert "  not fed (checked nothing): hbm_uce: no reading for it in this collection: no " \
           "npu_chip_info_hbm_ecc_total_double_bit_error_cnt series with a value" in got.stdout
    assert "hbm_uce" in json.loads(js.stdout)["coverage"]["not_fed"]


def test_a_nan_reading_is_said_with_its_component_and_minus_one_is_not() -> None:
    lines = [ln if not ln.startswith('npu_chip_info_temperature{container_name="",id="7"') else
             ln.rsplit(" ", 2)[0] + " NaN " + ln.rsplit(" ", 1)[1] for ln in page(V7, ()).splitlines()]
    lines = [ln if not ln.startswith('npu_chip_info_link_status{container_name="",id="6"') else
             ln.rsplit(" ", 2)[0] + " -1 " + ln.rsplit(" ", 1)[1] for ln in lines]
    with serving(reply(("\n".join(lines) + "\n").encode())) as url:
        src = PrometheusSource([url + "/metrics"])
        sweep_source(src)
    dropped = src.coverage()["dropped"]
    assert "1 npu_chip_info_temperature series read NaN: no reading, not checked (first: 127.0.0.1/npu7)" in dropped
    assert not [x for x in dropped if "link_status" in x]


def test_a_federating_servers_instance_does_not_merge_the_nodes() -> None:
    """A Prometheus that federates another (honor_labels false, the default) keeps each node's instance as
    exported_instance and sets its own: node 10.0.0.1's hot NPU 2 was overwritten by 10.0.0.2's cool one."""
    stamp = int(time.time() * 1000)
    lines = []
    for ip, temp in (("10.0.0.1", 99), ("10.0.0.2", 44)):
        for i in range(8):
            lab = (f'exported_instance="{ip}:8082",exported_job="npu-exporter",id="{i}",instance="prom-edge:9090",'
                   f'job="federate",model_name="Ascend910B3"')
            lines.append(f"npu_chip_info_temperature{{{lab}}} {temp if i == 2 else 45} {stamp}")
    with serving(reply(("\n".join(lines) + "\n").encode())) as url:
        rep = sweep_source(PrometheusSource([url + "/federate"]))
    assert [(f.component, f.check, f.severity) for f in rep.findings] == [("10.0.0.1/npu2", "npu_temp", "Alarm")]
    assert rep.checked["npu_temp"] == 16


def test_a_chips_pages_under_its_old_and_new_pod_are_added_once() -> None:
    """npu-exporter labels a chip's series with the pod using it; after a pod starts on NPU 3 a Prometheus server
    answers with both label sets for up to 5 min: its 10 isolated pages read as 20, a Warning (16)."""
    stamp = int(time.time() * 1000)
    lines = []
    for i in range(8):
        for ns, pod, ctr in (("", "", ""), ("default", "llama-0", "trainer")) if i == 3 else (("", "", ""),):
            lab = (f'container_name="{ctr}",id="{i}",model_name="Ascend910B3",namespace="{ns}",pcie_bus_info="",'
                   f'pod_name="{pod}",vdie_id="X{i}"')
            lines += [f"npu_chip_info_temperature{{{lab}}} 44 {stamp}",
                      f"npu_chip_info_hbm_ecc_double_bit_isolated_pages_cnt{{{lab}}} 10 {stamp}"]
    with serving(reply(("\n".join(lines) + "\n").encode())) as url:
        src = PrometheusSource([url + "/metrics"])
        rep = sweep_source(src)
    assert not [f for f in rep.findings if f.check == "hbm_rows"], rep.findings
    assert any("repeated npu_chip_info_hbm_ecc_double_bit_isolated_pages_cnt series (another job's or pod's copy"
               in x for x in src.coverage()["dropped"])


def test_a_chip_without_a_reading_its_neighbours_have_is_named() -> None:
    """npu-exporter leaves out a series whose read failed: NPU 3 without a temperature passed as OK unsaid."""
    lines = [ln for ln in page(V7, ()).splitlines()
             if not ln.startswith('npu_chip_info_temperature{container_name="",id="3"')]
    with serving(reply(("\n".join(lines) + "\n").encode())) as url:
        src = PrometheusSource([url + "/metrics"])
        rep = sweep_source(src)
    assert rep.findings == []
    assert ("1 NPUs without a npu_chip_info_temperature reading that their node's other NPUs have (no series, or NaN "
            "/ -1): their npu_temp not checked (first: 127.0.0.1/npu3)") in src.coverage()["dropped"]
    assert not [x for x in src.coverage()["dropped"] if "hbm_temperature reading" in x]  # none of them has one
