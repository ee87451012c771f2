"""The knowledge base's switch fault tuples reach the features under the kind the ingestion layer gives them
(issue 15: the L1 chip's forwarding-engine failure tuple, l1_switch_failure's primary signature, was dropped from
the kind table, so a plugin line naming the chip counted for no class)."""

from __future__ import annotations

from opsbrain.diagnosis.knowledge import KindTable, code_kinds, default_table
from opsbrain.ingest import parse_line
from opsbrain.kb.loader import load_kb

PLUGIN_LINE = ('[WARN]     2026/12/01 10:00:00.000000 1 deviceswitch/ascend_switch.go:190  switch subscribe got '
               'fault:deviceswitch.SwitchFaultEvent{EventType:0x4, FaultID:0x260fb, AssembledFaultCode:'
               '"[0x00f103b0,155907,na,na]", PeerPortDevice:0x0, PeerPortId:0x0, SwitchChipId:0x3, SwitchPortId:0x0, '
               'Severity:0x0, Assertion:0x1}, faultCode:[0x00f103b0,155907,na,na]')


def test_a_switch_tuple_maps_to_the_kind_its_line_parses_to() -> None:
    kinds = {s.kind for s in parse_line(PLUGIN_LINE, 0.0, "pod0/node3", "device_plugin", "WARN")}
    assert code_kinds("switch", "[0x00f103b0,155907,na,na]") == ["swfault:00F103B0"]
    assert "swfault:00F103B0" in kinds


def test_the_l1_chip_failure_tuple_names_its_class_and_the_shared_link_alarm_names_none() -> None:
    table = KindTable.from_kb(load_kb())
    assert table.of("swfault:00F103B0") == [("l1_switch_failure", "primary")]
    listing = [fc.id for fc in load_kb() if any(f == "switch" and "0x08520003" in c.code.lower()
                                                 for f, c in fc.signatures.codes())]
    assert len(listing) >= 3 and table.of("swfault:08520003") == []  # every link event prints it
    assert default_table().of("swfault:00F103B0") == table.of("swfault:00F103B0")  # the compiled form agrees
