"""Atlas A3 logical device ids (session 37): each die of a 910C is its own device, ``npu * 2 + die``; the twin
prints them and the reader maps them back to the die on the twin's (A3) nodes only."""

from __future__ import annotations

from faultlib import ids
from faultlib.telemetry import formats as fmt
from opsbrain.ingest.parsers import parse_line
from opsbrain.ingest.where import device_component, reporting_npu, user_terms


def test_one_mapping_both_ways() -> None:
    assert [ids.logical_device(k, d) for k in range(2) for d in range(2)] == [0, 1, 2, 3]
    assert all(ids.npu_die(ids.logical_device(k, d)) == (k, d) for k in range(16) for d in range(2))
    assert fmt.device_index("pod0/node1/npu7/die1") == 15 == fmt.roce_devid("pod0/node1/npu7/roce1")


def test_a_twin_nodes_device_id_is_its_die_and_a_real_hosts_stays_as_written() -> None:
    assert device_component("pod0/node44", 1, twin=True) == "pod0/node44/npu0/die1"
    assert device_component("worker-3", 1, twin=False) == "worker-3/npu1"
    line = ("[EVENT] DRV(1187,dms_poll_task):2025-03-01-00:10:00.000.000 [dms_event.c:1410][fault_manager]"
            "[ 610.000000] event_id=0x80fa4e00; device_id=1; node_type=0x0[x]; node_id=0; sub_node_id=0;")
    got = {s.component for s in parse_line(f"pod0-node44 {line}", 0.0, "pod0/node44/npu0") if s.kind.startswith("dev:")}
    assert got == {"pod0/node44/npu0/die1"}
    got = {s.component for s in parse_line(line, 0.0, "gz-a3-n1", twin=False) if s.kind.startswith("dev:")}
    assert got == {"gz-a3-n1/npu1"}


def test_npu_smi_rows_name_the_npu_and_a_die_speaks_for_its_npu() -> None:
    row = "| 2     910C                | Critical      | NA          50                0    / 0               |"
    assert [s.component for s in parse_line(row, 0.0, "pod0/node4")] == ["pod0/node4/npu2"]
    assert reporting_npu("pod0/node4/npu2/die0") == "pod0/node4/npu2" == reporting_npu("pod0/node4/npu2")
    assert user_terms("pod0/node44/npu0/die1") == {"component": "pod0/node44/npu0/die1", "host": "pod0-node44",
                                                    "device": 0, "die": 1, "logic_id": 1}
