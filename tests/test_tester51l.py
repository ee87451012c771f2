"""MindCluster public faults (ClusterD): the nine-digit codes other detectors send, as ClusterD lists them in its
cluster-info-device ConfigMap (fault_type PublicFault) and keeps them in statistic-fault-info, read into
``pub:<CODE>`` on the NPUs they name (session 51, tester51l). Before, the eight-hex-digit reading of the fault list
passed them by and a ConfigMap of three isolated NPUs was "no fault found"."""

from __future__ import annotations

from opsbrain.ingest.parsers import parse_line

# kubectl describe cm -n mindx-dl cluster-info-device-0, the data line of MindCluster's example
# (https://github.com/Ascend/mind-cluster/blob/22bb3d987bc0208c3eb7395e222b661276133c58/docs/en/scheduling/references/
# common_operations.md
# "Querying Information About Currently Available Devices in the Cluster"), copied as printed
CLUSTER_INFO_DEVICE = (
    '{"mindx-dl-deviceinfo-localhost.localdomain":{"DeviceList":{"huawei.com/Ascend910":"Ascend910-3,'
    'Ascend910-4,Ascend910-5,Ascend910-6,Ascend910-7","huawei.com/Ascend910-Fault":"[{\\"fault_type\\":'
    '\\"PublicFault\\",\\"npu_name\\":\\"Ascend910-0\\",\\"large_model_fault_level\\":\\"SeparateNPU\\",\\"fault'
    '_level\\":\\"SeparateNPU\\",\\"fault_handling\\":\\"SeparateNPU\\",\\"fault_code\\":\\"220001001\\",\\"fault'
    '_time_and_level_map\\":{\\"220001001\\":{\\"fault_time\\":1736926605,\\"fault_level\\":\\"SeparateNPU\\"}'
    '}},{\\"fault_type\\":\\"PublicFault\\",\\"npu_name\\":\\"Ascend910-1\\",\\"large_model_fault_level\\":\\"Se'
    'parateNPU\\",\\"fault_level\\":\\"SeparateNPU\\",\\"fault_handling\\":\\"SeparateNPU\\",\\"fault_code\\":\\"'
    '220001001\\",\\"fault_time_and_level_map\\":{\\"220001001\\":{\\"fault_time\\":1736926605,\\"fault_level'
    '\\":\\"SeparateNPU\\"}}},{\\"fault_type\\":\\"PublicFault\\",\\"npu_name\\":\\"Ascend910-2\\",\\"large_model'
    '_fault_level\\":\\"SeparateNPU\\",\\"fault_level\\":\\"SeparateNPU\\",\\"fault_handling\\":\\"SeparateNPU\\'
    '",\\"fault_code\\":\\"220001001\\",\\"fault_time_and_level_map\\":{\\"220001001\\":{\\"fault_time\\":17369'
    '26605,\\"fault_level\\":\\"SeparateNPU\\"}}}]","huawei.com/Ascend910-NetworkUnhealthy":"","huawei.co'
    'm/Ascend910-Recovering":"","huawei.com/Ascend910-Unhealthy":"Ascend910-0,Ascend910-1,Ascend910-2'
    '"},"UpdateTime":1759214666,"CmName":"mindx-dl-deviceinfo-localhost.localdomain","SuperPodID":-2,'
    '"ServerIndex":-2},"mindx-dl-deviceinfo-node173":{"DeviceList":{"huawei.com/Ascend910":"Ascend910'
    '-2,Ascend910-3,Ascend910-4,Ascend910-5,Ascend910-6,Ascend910-7","huawei.com/Ascend910-Fault":"[]'
    '","huawei.com/Ascend910-NetworkUnhealthy":"","huawei.com/Ascend910-Recovering":"","huawei.com/As'
    'cend910-Unhealthy":""},"UpdateTime":1759202968,"CmName":"mindx-dl-deviceinfo-node173","SuperPodI'
    'D":-2,"ServerIndex":-2}}')

# kubectl describe cm -n cluster-system statistic-fault-info, PublicFaults (MindCluster FAQ "Recovery Message of a
# Public Fault Is Missing, Causing Faulty Chip Isolation",
# https://www.hiascend.com/document/detail/en/mindcluster/730/clustersched/schedulingug/dlug_installation_faq_051.html)
STATISTIC = ('{"node173":[{"resource":"CCAE","devIds":[0,1,2],"faultId":"14715582","type":"Storage",'
             '"faultCode":"010001002","level":"SubHealthFault","faultTime":1736928806},{"resource":"CCAE",'
             '"devIds":[2,3,4],"faultId":"14715779","type":"Network","faultCode":"010001001","level":"SubHealthFault",'
             '"faultTime":1736926605}]}')


def _pub(line: str) -> list[tuple[str, str | None, int, int | None]]:
    return [(s.kind, s.component, s.severity, s.device) for s in parse_line(line) if s.kind.startswith("pub:")]


def test_clusterds_public_fault_list_gives_each_npu_its_code_at_its_level() -> None:
    host = "localhost.localdomain"  # the node the ConfigMap lists them under (mindx-dl-deviceinfo-<node>)
    assert _pub(CLUSTER_INFO_DEVICE) == [("pub:220001001", f"{host}/npu{d}", 2, d) for d in (0, 1, 2)]


def test_statistic_fault_info_gives_each_record_on_every_npu_it_names() -> None:
    want = [("pub:010001002", 0), ("pub:010001002", 1), ("pub:010001002", 2), ("pub:010001001", 2),
            ("pub:010001001", 3), ("pub:010001001", 4)]
    assert _pub(STATISTIC) == [(k, f"node173/npu{d}", 1, d) for k, d in want]  # SubHealthFault: no action now
