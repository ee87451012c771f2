"""The device plugin's switch-chip fault names its chip, and a repaired L1 chip's ports log up (session 34, branch
twin34b).

Before: the plugin's fatal chip tuple ``[0x00f103b0,155907,na,na]`` was placed on the node, so an L1 chip that died
while its host was down (its ports never came back up, so no port went down) could not be localized; and an L1 chip
back in service printed nothing, while the L2 chips log their ports toward a returning host up. Now the parser reads
the chip from ``SwitchChipId`` (ascend_switch.go convertFaultEvent: the driver's ``switchChipid``) for a chip-level
tuple, and the L2 chips log the repaired chip's ports up through the same emitter as for a host's return."""

from __future__ import annotations

from datetime import datetime

from faultlib.engine import Simulation
from faultlib.health import Health
from faultlib.injection.spec import FaultSpec
from faultlib.telemetry import formats as fmt
from faultlib.topology import Topology
from opsbrain.diagnosis.localize import localize
from opsbrain.ingest.parsers import parse_line
from tests.test_mindcluster_lines import SWITCH_FIXTURE

DT = datetime(2025, 3, 1, 10, 3, 20)
NODE = "pod0/node35"
CHIP = f"{NODE}/l1sw3"


def test_a_chip_level_switch_fault_is_placed_on_the_chip_the_line_names() -> None:
    chip = fmt.device_plugin_switch_fault(DT, "0x00f103b0", "na", 0, "SeparateNPU", fault_id="155907", chip=3)
    port = fmt.device_plugin_switch_fault(DT, "0x08520003", "L2", 7, "NotHandle", chip=3)
    older = SWITCH_FIXTURE.replace("{a}", "0x1").replace("SwitchChipId:0x0", "SwitchChipId:0xb").replace(
        "155912,npu,na]", "155912,na,na]")  # the %#v form: hex fields
    got = {ln: [(s.kind, s.component) for s in parse_line(ln, 0.0, origin=NODE)] for ln in (chip, port, older)}
    assert got[chip] == [("swfault:00F103B0", CHIP)]
    assert got[port] == [("swfault:08520003", NODE)]  # a port's alarm relayed: its link is the chips' lines' to name
    assert got[older] == [("swfault:00F1FF09", f"{NODE}/l1sw11")]
    no_host = parse_line(chip, 0.0)
    assert [s.component for s in no_host] == ["l1sw3"]  # below whatever host the file is then placed in


def test_a_chip_dead_through_its_hosts_stop_is_localized_by_the_plugins_tuple(topo1: Topology) -> None:
    """The chip fails while its host is down: once the host is back, its ports never come up (no port goes down)
    and the plugin's tuple is the only line naming it."""
    sim = Simulation(seed=5, topology=topo1)
    sim.inject(FaultSpec(at_s=100, kind="node_crash", target=NODE, params={}, duration_s=None))
    sim.inject(FaultSpec(at_s=200, kind="l1_switch_failure", target=CHIP, params={}, duration_s=None))
    sim.run(300)
    sim.state.set_health(NODE, Health.HEALTHY, cause="reboot")
    sim.run(400)
    sigs = [s for ln in sim.telemetry.logs if ln.t >= 300 for s in parse_line(ln.text, ln.t, origin=ln.origin)]
    assert not [s for s in sigs if s.kind == "port:down" and "/l1sw3~" in (s.component or "")]
    assert localize("l1_switch", sigs) == CHIP
