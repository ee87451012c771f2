"""A repaired or replaced L1 switch chip has the L2 chips log its ports up (session 34, branch twin34b).

Before: an L1 chip back in service printed nothing, while the L2 chips log their ports toward a returning host up
(branch twin34). Now the same emitter (``Emitter.back_in_service``, through ``link_state``) logs each L2 chip's port
toward the chip up when it is back from a failure, as it logged it down when the chip died. The chip itself clears
nothing: it raised no alarm while dead."""

from __future__ import annotations

from faultlib.engine import Simulation
from faultlib.health import Health
from faultlib.injection.spec import FaultSpec
from faultlib.topology import Topology

CHIP = "pod0/node35/l1sw3"


def test_a_repaired_l1_chip_has_its_l2_ports_log_up(topo1: Topology) -> None:
    sim = Simulation(seed=5, topology=topo1)
    sim.inject(FaultSpec(at_s=100, kind="l1_switch_failure", target=CHIP, params={}, duration_s=500))
    sim.run(1000)
    assert sim.state.health(CHIP) == Health.HEALTHY
    down = [ln for ln in sim.telemetry.logs if ln.source == "switch" and "linkDown_active" in ln.text]
    up = [ln for ln in sim.telemetry.logs if ln.source == "switch" and "linkDown_clear" in ln.text]
    assert len(down) == len(up) == 16 and {ln.t for ln in up} == {600.0}  # each L2 chip's port toward it
    assert sorted(ln.origin for ln in up) == sorted(ln.origin for ln in down)
    assert all("ifName=UB0/0/35," in ln.text and "OperStatus=UP" in ln.text for ln in up)
    assert not [ln for ln in sim.telemetry.logs if ln.t >= 600 and ln.origin.startswith(CHIP)]  # nothing to clear


def test_a_replaced_l1_chip_has_its_l2_ports_log_up(topo1: Topology) -> None:
    sim = Simulation(seed=5, topology=topo1)
    sim.inject(FaultSpec(at_s=100, kind="l1_switch_failure", target=CHIP, params={}, duration_s=None))
    sim.run(200)
    sim.control.replace_part(CHIP)
    sim.run(4 * 86400)
    assert sim.state.health(CHIP) == Health.HEALTHY
    up = [ln for ln in sim.telemetry.logs if ln.source == "switch" and "linkDown_clear" in ln.text]
    assert len(up) == 16 and len({ln.t for ln in up}) == 1 and up[0].t > 200
