"""benchmarks/ascendfd_side_by_side.py's comparison of opsbrain's bundle root with ascend-fd's diag report (session
45): ascend-fd names a device by the A3 logical id the twin's logs print (die d of NPU k is 2k + d), and a switch
chip's LCNE log parsed as its own worker (``pod0-node36-l1sw2``) is its host's. Made-up reports in ascend-fd's
``diag_report.json`` shape; ascend-fd itself is not needed."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import ascendfd_side_by_side as side  # noqa: E402


def root_cluster(*devices: str) -> dict:
    return {"Root_Cluster": {"root_cause_device": list(devices), "fault_description": {"code": 101}},
            "Knowledge_Graph": {"fault": []}}


def kg_fault(code: str, *where: str) -> dict:
    return {"Root_Cluster": {"root_cause_device": ["Unknown Device"]},
            "Knowledge_Graph": {"fault": [{"code": code, "fault_source": list(where),
                                           "event_attr": {w: [{"source_device": "Unknown"}] for w in where}}]}}


def compare(ours: dict, report: dict, hosts: tuple[str, ...] = ()) -> bool | None:
    return side.same_root(ours, side.afd_roots(report)[1], hosts)


NODE35_NPU3 = {"host": "pod0-node35", "device": 3}  # an NPU-level root (its HBM): printed as die 0's id, 6


def test_an_npu_root_is_its_dies_logical_ids() -> None:
    assert compare(NODE35_NPU3, root_cluster("pod0-node35 device-6")) is True
    assert compare(NODE35_NPU3, root_cluster("pod0-node35 device-7")) is True  # its die 1
    assert compare(NODE35_NPU3, root_cluster("pod0-node35 device-3")) is False  # NPU 1's die 1
    assert compare(NODE35_NPU3, root_cluster("pod0-node34 device-6")) is False


def test_a_die_root_is_its_own_logical_id_only() -> None:
    die1 = {"host": "pod0-node44", "device": 0, "die": 1, "logic_id": 1}
    assert compare(die1, root_cluster("pod0-node44 device-1")) is True
    assert compare(die1, root_cluster("pod0-node44 device-0")) is False  # the sibling die


def test_a_switch_chip_worker_is_its_hosts() -> None:
    ours = {"host": "pod0-node36", "device": None}
    hosts = ("pod0-node3", "pod0-node36", "pod0-node38")
    assert compare(ours, kg_fault("Comp_Switch_L1_18", "pod0-node36-l1sw2"), hosts) is True
    assert compare(ours, kg_fault("Comp_Switch_L1_18", "pod0-node38-l1sw0"), hosts) is False
    assert compare({"host": "pod0-node3"}, kg_fault("Comp_Switch_L1_18", "pod0-node36-l1sw2"), hosts) is False
    assert compare(ours, kg_fault("Comp_Switch_L1_18", "pod0-l2plane2-sw05"), hosts) is False  # an L2 chip: its own
    assert compare({"host": None}, kg_fault("Comp_Switch_L1_18", "pod0-node36-l1sw2"), hosts) is None


def test_a_saved_row_keeps_the_die() -> None:
    ours = side.opsbrain_root("aicore_hang @ pod0-node44 device 0 die 1 (logical 1)")
    assert ours == {"host": "pod0-node44", "device": 0, "die": 1, "logic_id": 1}
    assert side.opsbrain_root("l2_switch_failure @ -")["host"] is None


def test_each_switch_chip_is_parsed_as_its_own_worker(tmp_path: Path) -> None:
    bundle = tmp_path / "b0001"
    for d in ("pod0-node36", "lcne_log/pod0-node36-l1sw2", "lcne_log/pod0-l2plane2-sw05"):
        (bundle / d).mkdir(parents=True)
    cmds = side.afd_commands(bundle, ["pod0-node36"], tmp_path / "parsed", tmp_path / "diag")
    lcne = [(c[2], c[-1]) for c in cmds if c[1] == "--lcne_log"]
    assert lcne == [(str(bundle / "lcne_log" / c), str(tmp_path / "parsed" / c))
                    for c in ("pod0-l2plane2-sw05", "pod0-node36-l1sw2")]
    assert cmds[0][:2] == ["parse", "-i"] and cmds[-1][0] == "diag"
