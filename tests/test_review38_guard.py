"""Review of session 38's blast radius (guardrails.already_out): a part resetting comes back by itself and still
counts against the cap, also a host our reboot has taken down for its reboot (RESETTING, its host down meanwhile);
a crashed host's chips do not."""

from __future__ import annotations

from faultlib.health import Health
from faultlib.topology import Topology
from opsbrain.recovery import Guardrails, RecoveryParams
from opsbrain.recovery.guardrails import already_out
from tests.test_ops38b_guard_repair import _pod_at_cap
from tests.test_orchestrator import training


def test_a_host_rebooting_still_counts_against_the_cap(topo1: Topology) -> None:
    sim, _job = training(topo1, spares=2)
    nodes = sim.topology.nodes()
    _pod_at_cap(sim, nodes[20:26])
    node = nodes[33]
    sim.control.reboot_node(node)
    sim.run(sim.now + 1)  # the reboot under way: the host down, the node RESETTING
    assert sim.state.host_down(node) and sim.state.health(node) == Health.RESETTING
    assert not already_out(sim, f"{node}/npu0") and not already_out(sim, node)
    g = Guardrails(RecoveryParams())
    held = g.check_isolation(sim, "isolate", f"{node}/npu0", sim.now)
    assert not held.allowed and held.rule == "blast_radius"


def test_a_crashed_host_that_is_being_rebooted_is_still_out(topo1: Topology) -> None:
    sim, _job = training(topo1, spares=2)
    node = sim.topology.nodes()[34]
    sim.state.halt_host(node)
    sim.state.set_health(node, Health.FAILED)
    sim.control.reboot_node(node)
    sim.run(sim.now + 1)
    assert already_out(sim, f"{node}/npu0")
