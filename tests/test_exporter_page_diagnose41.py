"""Session 41 (metrics41): an npu-exporter /metrics page given to ``diagnose --logs`` is read as the page it is
(``opsbrain.ingest.exporterpage``), not as log lines. Before, the page of an NPU whose health was 0 with fault code
0x80E01801 was diagnosed ``framework_error`` by the text fallback, from its ``# HELP npu_chip_info_error_code`` lines.

The pages follow npu-exporter's own layout: label set ``container_name, id, model_name, namespace, pcie_bus_info,
pod_name, vdie_id`` (Ascend/mind-cluster @22bb3d98 component/npu-exporter/collector/common/metrics_collector.go
CardLabel), HELP texts and millisecond stamps as in its metrics reference's example page
(docs/en/scheduling/api/npu_exporter/01_prometheus_metrics_api.md), health 1/0 (collector_for_npu.go getHealthCode),
fault codes as decimal event ids (updateErrorCodesInfo)."""

from __future__ import annotations

import json
from pathlib import Path

from opsbrain.cli import cli
from opsbrain.ingest.exporterpage import is_exporter_page

STAMP = 1723621883587


def _labels(i: int) -> str:
    return (f'container_name="",id="{i}",model_name="910B3-Ascend-V1",namespace="",'
            f'pcie_bus_info="0000:{0xC1 + i:02X}:00.0",pod_name="",vdie_id="3A0{i}0F1C-21104518-A0C4ED94"')


def page(health: dict[int, int] | None = None, codes: dict[int, list[int]] | None = None,
         link: dict[int, int] | None = None) -> str:
    health, codes, link = health or {}, codes or {}, link or {}
    out = ["# HELP machine_npu_nums Amount of npu installed on the machine.", "# TYPE machine_npu_nums gauge",
           "machine_npu_nums 8"]
    fams = [("npu_chip_info_temperature", "the npu temperature", lambda i: 44),
            ("npu_chip_info_health_status", "the npu health status", lambda i: health.get(i, 1)),
            ("npu_chip_info_link_status", "the npu link status", lambda i: link.get(i, 1))]
    for name, help_, val in fams:
        out += [f"# HELP {name} {help_}", f"# TYPE {name} gauge"]
        out += [f"{name}{{{_labels(i)}}} {val(i)} {STAMP + 350 * i}" for i in range(8)]
    for k in range(3):
        name = "npu_chip_info_error_code" + (f"_{k}" if k else "")
        rows = [f"{name}{{{_labels(i)}}} {c[k]} {STAMP + 350 * i}" for i, c in sorted(codes.items()) if len(c) > k]
        if rows:
            out += [f"# HELP {name} the npu error code", f"# TYPE {name} gauge", *rows]
    return "\n".join(out) + "\n"


def _diagnose(runner, path: Path) -> dict:  # type: ignore[no-untyped-def]
    res = runner.invoke(cli, ["diagnose", "--logs", str(path), "--json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def test_an_unhealthy_npus_page_is_its_fault_code_not_a_framework_error(runner, tmp_path: Path) -> None:
    f = tmp_path / "node-1.prom"
    f.write_text(page(health={3: 0}, codes={3: [0x80E01801]}))
    d = _diagnose(runner, f)
    diag = d["diagnosis"]
    assert diag["fault_class"] == "hbm_uce"
    assert diag["root"]["device"] == 3
    kinds = {e["kind"]: e for e in diag["evidence_lines"]}
    assert "dev:80E01801" in kinds and "smi:alarm" in kinds
    assert kinds["dev:80E01801"]["text"].startswith('npu_chip_info_error_code{container_name="",id="3"')
    assert any("an npu-exporter metrics page" in n for n in d["input"]["notes"])


def test_a_link_down_on_the_page_is_the_ports_down(runner, tmp_path: Path) -> None:
    node = tmp_path / "gz-n05"
    node.mkdir()
    (node / "metrics.prom").write_text(page(link={5: 0}))
    diag = _diagnose(runner, tmp_path)["diagnosis"]
    assert diag["fault_class"] == "roce_port_down"
    assert diag["root"]["device"] == 5 and diag["root"]["host"] == "gz-n05"


def test_a_healthy_page_raises_nothing(runner, tmp_path: Path) -> None:
    f = tmp_path / "node-1.prom"
    f.write_text(page())
    d = _diagnose(runner, f)
    assert d["diagnosis"]["fault_class"] in (None, "unknown")  # "no fault found"
    assert d["input"]["signals"] == 0 and not d["diagnosis"]["evidence_lines"]


def test_a_page_cut_inside_its_last_line_is_read_up_to_it_and_says_so(runner, tmp_path: Path) -> None:
    text = page(health={2: 0}, codes={2: [0x80E01801]})
    f = tmp_path / "node-1.prom"
    f.write_text(text + 'npu_chip_info_power{container_name="",id="')  # a download that stopped
    d = _diagnose(runner, f)
    assert d["diagnosis"]["root"]["device"] == 2
    assert any("cut short" in n for n in d["input"]["notes"])


def test_log_lines_that_name_a_metric_stay_log_lines() -> None:
    assert not is_exporter_page(["2026-12-05 02:50:00 npu_chip_info_health_status of npu 3 is 0",
                                 "[ERROR] npu-exporter get npu link stat failed"])
    assert not is_exporter_page(["# HELP node_load1 1m load average.", "# TYPE node_load1 gauge", "node_load1 0.2"])
    assert is_exporter_page(page().splitlines()[:20])


# NodeD's node-info ConfigMap (docs/en/scheduling/api/noded.md, "mindx-dl-nodeinfo-<nodename>"; the FaultDev struct,
# Ascend/mind-cluster @22bb3d98 component/noded/pkg/common/type.go:56; 2C000031 is a SeparateFaultCodes entry of
# component/noded/build/NodeDConfiguration.json). Before session 41 an UnHealthy node's ConfigMap was "no fault found".
NODEINFO = ('{"NodeInfo":{"FaultDevList":[{"DeviceType":"CPU","DeviceId":1,"FaultCode":["2C000031"],'
            '"FaultLevel":"SeparateFault"}],"NodeStatus":"UnHealthy"},"CheckCode":"3f1b0a9c8d7e6f5a"}')


def test_nodeds_configmap_fault_list_is_read_as_its_bmc_codes(runner, tmp_path: Path) -> None:
    yaml_out = tmp_path / "nodeinfo.yaml"  # kubectl get cm -n mindx-dl mindx-dl-nodeinfo-gz-n07 -o yaml
    yaml_out.write_text(f"apiVersion: v1\ndata:\n  NodeInfo: '{NODEINFO}'\nkind: ConfigMap\nmetadata:\n"
                        "  name: mindx-dl-nodeinfo-gz-n07\n  namespace: mindx-dl\n")
    json_out = tmp_path / "nodeinfo.json"  # ... -o json: the same JSON as an escaped string
    json_out.write_text(json.dumps({"apiVersion": "v1", "data": {"NodeInfo": NODEINFO}, "kind": "ConfigMap",
                                   "metadata": {"name": "mindx-dl-nodeinfo-gz-n07"}}, indent=4))
    for f in (yaml_out, json_out):
        kinds = [e["kind"] for e in _diagnose(runner, f)["diagnosis"]["evidence_lines"]]
        assert kinds == ["bmc:2C000031"], (f.name, kinds)


def test_a_healthy_nodeds_configmap_gives_nothing(runner, tmp_path: Path) -> None:
    f = tmp_path / "nodeinfo.yaml"
    f.write_text("apiVersion: v1\ndata:\n  NodeInfo: '{\"NodeInfo\":{\"FaultDevList\":[],\"NodeStatus\":\"Healthy\"},"
                 "\"CheckCode\":\"00\"}'\nkind: ConfigMap\n")
    d = _diagnose(runner, f)
    assert d["input"]["signals"] == 0
