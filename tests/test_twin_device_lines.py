"""The twin's device-side lines are the Ascend driver's own (session 32): the fault manager's event line in the
device-os log, the black box's record in history.log; the bundle's npu-smi health and the reader follow them."""

from __future__ import annotations

from datetime import datetime

from faultlib.telemetry import formats as fmt
from faultlib.telemetry.records import LogLine
from opsbrain.bundle.envcheck import _health
from opsbrain.ingest import parse_line

DT = datetime(2025, 3, 1, 10, 3, 20, 400000)


def _line(code: str, occurs: bool = True, dev: int = 3, die: int = 0) -> LogLine:
    """A device-OS line of die ``die`` of NPU ``dev`` (its A3 logical id ``dev * 2 + die``, session 37)."""
    return LogLine(0.0, f"pod0/node1/npu{dev}", "device_os", "EVENT",
                   fmt.device_os_event(DT, dev * 2 + die, code, occurs))


def test_npu_smi_health_follows_the_drivers_event_lines() -> None:
    # before the envcheck reader followed the new line, a UCE left npu-smi's health word at OK
    assert _health([_line("80E01801")]) == {(3, 0): "Critical"}
    assert _health([_line("80E01801", die=1)]) == {(3, 1): "Critical"}  # npu-smi lists a row per die (session 38)
    assert _health([_line("80E01801"), _line("80E01801", occurs=False)]) == {}
    assert _health([_line("80E00209", dev=2)]) == {(2, 0): "Alarm"}
    assert _health([_line(fmt.HBM_CE_CODE)]) == {}


def test_a_recovery_is_read_as_a_recovery() -> None:
    # the driver writes the assertion as a number and a name: before, assertion=0[Event resume] was read as occurring
    got = [(s.kind, s.severity) for s in parse_line(_line("80E01801", occurs=False).text, 0.0, "pod0/node1/npu3",
                                                     "device_os", "EVENT")]
    assert got == [("dev:80E01801:recover", 0)]


def test_the_event_string_is_not_read_again_as_a_message() -> None:
    # the TS CPU's "Heartbeat Lost." is event 0x80FA4E00's state name, not the host driver's lost device
    kinds = [s.kind for s in parse_line(_line("80FA4E00").text, 0.0, "pod0/node1/npu3", "device_os", "EVENT")]
    assert kinds == ["dev:80FA4E00"]


def test_a_ub_port_down_event_has_no_level_without_a_public_document() -> None:
    # 81B18603's handling level is in no public document besides MindCluster's fault files, which the knowledge
    # base does not cite (tests/test_kb_vendor_text.py): the [EVENT] line states no level of its own, so it reads at 0
    got = [(s.kind, s.severity) for s in parse_line(_line("81B18603").text, 0.0, "pod0/node1/npu3", "device_os",
                                                     "EVENT")]
    assert got == [("dev:81B18603", 0)]
    # a code with a documented level reads at it (81078603: NotHandle in MindCluster's documented default list)
    assert [s.severity for s in parse_line(_line("81078603").text, 0.0, "pod0/node1/npu3", "device_os", "EVENT")] == [1]


def test_a_port_lane_drop_has_the_drivers_words() -> None:
    # 0x81B18605 (UB port, safety sensor 0xC3, state 5): refused before, no driver text in the twin's table
    line = fmt.device_os_event(DT, 2, "81B18605")
    assert "node_type=0xd8[UB_PORT]" in line and "event_type=0x5[port lane drop]; severity=1[Warning]" in line
    kinds = [s.kind for s in parse_line(line, 0.0, "pod0/node1/npu2", "device_os", "EVENT")]
    assert kinds == ["dev:81B18605"]
