"""A port already down does not report down again (session 33, after twin33): an l1_switch_failure on a crashed
node's board printed the L2 chips' port-down lines a second time for links the crash had already taken down, and a
crash of a node whose L1 chip had died printed them again for that chip's links. A link's ports change state only
when nothing else holds it dark (faultlib.telemetry.emit.held_down: the link out of service, a chip of it failed,
its host stopped or coming back this instant)."""

from __future__ import annotations

from faultlib.engine import Simulation
from faultlib.health import Health
from faultlib.injection.spec import FaultSpec
from faultlib.topology import Topology

NODE = "pod0/node35"
L1 = f"{NODE}/l1sw1"


def _sim(topo: Topology, faults: list[tuple[float, str, str]], until: float) -> Simulation:
    sim = Simulation(seed=5, topology=topo)
    for at, kind, target in faults:
        sim.inject(FaultSpec(at_s=at, kind=kind, target=target, params={}, duration_s=None))
    sim.run(until)
    return sim


def _l2_lines(sim: Simulation, since: float, until: float = float("inf")) -> list[str]:
    """The L2 chips' switch lines between ``since`` and ``until``."""
    return [ln.text for ln in sim.telemetry.logs
            if since <= ln.t <= until and ln.source == "switch" and "/l2plane" in ln.origin]


def test_a_dead_l1_chip_on_a_crashed_board_reports_no_port_again(topo1: Topology) -> None:
    sim = _sim(topo1, [(100, "node_crash", NODE), (200, "l1_switch_failure", L1)], 300)
    assert len(_l2_lines(sim, 100, 100)) == 112 and _l2_lines(sim, 101) == []  # the crash's 112 uplinks, once
    sim.state.set_health(NODE, Health.HEALTHY, cause="reboot")  # the chip is still dead: its ports never came up
    sim.run(400)
    back = _l2_lines(sim, 101)  # session 34: the other chips' uplinks train and their L2 ports log up
    assert len(back) == 112 - 16 and all("OperStatus=UP" in t for t in back)
    assert not any("l2plane1-" in t for t in back)  # the dead chip (plane 1) uplinks: down, and silent
    assert sim.state.health(L1) == Health.FAILED
    assert [ln for ln in sim.telemetry.logs if ln.t >= 300 and ln.source == "device_plugin"]  # the host reports it


def test_a_crash_reports_only_the_ports_that_were_up(topo1: Topology) -> None:
    sim = _sim(topo1, [(100, "l1_switch_failure", L1), (200, "node_crash", NODE)], 300)
    assert len(_l2_lines(sim, 100, 100)) == 16  # the L1 chip's 16 uplinks
    assert len(_l2_lines(sim, 200, 200)) == 112 - 16  # the other chips' uplinks; the dead chip's are already down


def test_an_l1_chip_failing_on_a_running_board_reports_every_port(topo1: Topology) -> None:
    sim = _sim(topo1, [(100, "l1_switch_failure", L1)], 200)
    assert len(_l2_lines(sim, 100)) == 16
