"""Tester 36c (session 36): a flap's "up" does not bring back a link another fault holds down.

A link flapping (``link_flap``, 3 flaps from 1,200 s) and then failing for good (``link_down`` at 1,260 s, no
duration: down until repaired) came back up at the flap's next up: the flap model set the link HEALTHY whatever else
held it down, the L2 chip logged the port up, and the hard failure was scored recovered at its onset (ttr 0,
"before detection"). A link's down is now held per cause (``State.hold_down``): a flap, a background flap or a
healed fault releases its own hold, and the link comes back only when no other holds it (or a repair restores it).
"""

from __future__ import annotations

from faultlib.engine import Simulation
from faultlib.health import Health
from faultlib.injection.spec import FaultSpec
from faultlib.topology import Topology

LINK = "pod0/node41/l1sw5~pod0/l2plane5/sw02"


def _ups(sim: Simulation, since: float) -> list[str]:
    return [ln.text for ln in sim.telemetry.logs if ln.t >= since and ln.source == "switch"
            and "OperStatus=UP" in ln.text and "UB0/0/41" in ln.text]


def test_a_link_down_during_a_flap_burst_stays_down(topo1: Topology) -> None:
    sim = Simulation(seed=5, topology=topo1)
    sim.inject(FaultSpec(at_s=100, kind="link_flap", target=LINK, params={"flaps": 3}, duration_s=None))
    sim.run(100.001)
    assert sim.state.health(LINK) == Health.FAILED  # the flap's first down
    sim.inject(FaultSpec(at_s=100.002, kind="link_down", target=LINK, params={}, duration_s=None))
    sim.run(2000)
    assert sim.state.health(LINK) == Health.FAILED, [
        (e.t, e.detail) for e in sim.trace.events if e.kind == "health" and e.subject == LINK]
    assert _ups(sim, 100.002) == []


def test_a_timed_link_down_during_a_flap_comes_back_when_both_are_over(topo1: Topology) -> None:
    sim = Simulation(seed=5, topology=topo1)
    sim.inject(FaultSpec(at_s=100, kind="link_flap", target=LINK, params={"flaps": 2}, duration_s=None))
    sim.run(100.001)
    sim.inject(FaultSpec(at_s=100.002, kind="link_down", target=LINK, params={}, duration_s=300))
    sim.run(2000)
    ups = [e.t for e in sim.trace.events if e.kind == "health" and e.subject == LINK and e.detail["new"] == "healthy"]
    assert sim.state.health(LINK) == Health.HEALTHY and ups and min(ups) >= 400.002 - 1e-6, ups


def test_a_repair_restores_a_held_link(topo1: Topology) -> None:
    sim = Simulation(seed=5, topology=topo1)
    sim.inject(FaultSpec(at_s=100, kind="link_down", target=LINK, params={}, duration_s=None))
    sim.run(200)
    sim.state.set_health(LINK, Health.HEALTHY, cause="replace_part")
    assert sim.state.health(LINK) == Health.HEALTHY and sim.state.release_down(LINK, "nobody")
