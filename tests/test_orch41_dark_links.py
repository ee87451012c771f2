"""Session 41 (orch41, from scen41's finding 5): two links of one node down in the same second. The diagnosis
abstained and named one link; the same-part response drained that one, let it go after its 600 s hold-down and
did nothing more: no ticket, both links dark to the end. Now every link of the node that is down by itself is
taken by the response, and a link still down at the end of a hold-down goes to ``rb-link-down`` (isolation,
replacement ticket, field replacement); a link that healed is let back as before."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from faultlib.durations import at_medians
from faultlib.engine import Simulation
from faultlib.health import Health
from faultlib.injection.spec import FaultSpec
from faultlib.simparams import SimParams
from faultlib.topology import Topology
from faultlib.workloads.training import TrainingJob
from opsbrain.recovery import Orchestrator, RecoveryParams, load_runbooks
from opsbrain.verdict import Diagnosis

LINK_AMBIGUOUS = [("dirty_connector", 0.35), ("link_down", 0.27), ("link_flap", 0.20), ("optical_degradation", 0.13)]
"""What scen41's two links gave: the diagnosis abstains, the link classes together pass the bar."""


def _world(topo: Topology, duration_s: float | None, both: bool = True,
           patch: Callable[[Simulation, list[str]], None] | None = None) -> tuple[Simulation, Orchestrator, list[str]]:
    sim = Simulation(params=at_medians(SimParams()), seed=4, topology=topo)
    nodes = sim.topology.nodes()
    job = TrainingJob("llm", nodes[:8], sim.params.training.model_copy(update=RecoveryParams().job_launch_overrides()))
    sim.add_workload(job)
    sim.control.set_spares(nodes[-2:])
    ups = sim.fabric.node_uplinks(job.nodes[3])
    links = [ups[2], ups[40]] if both else [ups[2]]
    for link in links:
        sim.inject(FaultSpec(at_s=100, kind="link_down", target=link, duration_s=duration_s))
    if patch is not None:  # a change to the plant before the response (review41b)
        patch(sim, links)
    orch = Orchestrator(sim, load_runbooks())
    sim.run(105)
    orch.handle("i1", Diagnosis("unknown", links[0], 0.35, alternatives=LINK_AMBIGUOUS))
    sim.run(3600)
    return sim, orch, links


@pytest.fixture(scope="module")
def two_dead(topo1: Topology) -> dict[str, Any]:
    sim, orch, links = _world(topo1, None)
    return {"sim": sim, "orch": orch, "links": links, "inc": orch.incident("i1")}


def test_both_links_are_drained_at_once(two_dead: dict[str, Any]) -> None:
    inc, links = two_dead["inc"], two_dead["links"]
    drains = {a["target"]: a for a in inc["actions"] if a["action"] == "drain_link"}
    assert set(drains) == set(links)
    assert all(a["status"] == "succeeded" and a["start_s"] < 110 for a in drains.values())
    assert any(a["action"] == "sibling_link" and a["target"] == links[1] for a in inc["actions"])


def test_links_still_dark_are_isolated_and_ticketed(two_dead: dict[str, Any]) -> None:
    sim, inc, links = two_dead["sim"], two_dead["inc"], two_dead["links"]
    for link in links:
        took_over = [a for a in inc["actions"] if a["kind"] == "escalation" and a["detail"].get("link") == link]
        assert took_over and took_over[0]["detail"]["to_runbook"] == "rb-link-down"
        assert any(a["action"] == "isolate_link" and a["target"] == link and a["status"] == "succeeded"
                   for a in inc["actions"])
        assert any(f["type"] == "ticket" and f["component"] == link and f["kind"] == "replace"
                   for f in inc["follow_ups"])
        assert any(a["action"] == "replace_part" and a["target"] == link for a in inc["actions"])  # under way
        assert sim.state.health(link) == Health.ISOLATED  # out of service by our hand, not just dark


def test_a_link_that_healed_is_let_back_with_no_ticket(topo1: Topology) -> None:
    sim, orch, links = _world(topo1, 30.0, both=False)
    inc = orch.incident("i1")
    assert inc["runbook"] == "rb-link-fault"
    assert [a["action"] for a in inc["actions"] if a["kind"] == "step" and a["status"] != "skipped"] == [
        "drain_link", "wait", "undrain_link"]  # the in-place recovery of a down job skipped (it runs; session 42)
    assert not any(f["type"] == "ticket" for f in inc["follow_ups"])
    assert links[0] not in sim.fabric.drained and sim.state.is_up(links[0])
