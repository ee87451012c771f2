"""Every rung of every runbook is reachable (issue 17): for each rung, the rungs before it are made to fail and the
test checks that the ladder climbed to it and that its steps ran on the plant.

A rung is made to fail by failing its steps' control-API attempts (the executor reports them failed, as a refused
or timed-out command would be); everything else is the real orchestrator acting on a simulated pod with the fault
injected.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest

from faultlib.durations import at_medians
from faultlib.engine import Simulation
from faultlib.faults.catalog import CATALOG
from faultlib.injection.spec import FaultSpec
from faultlib.simparams import SimParams
from faultlib.topology import Topology
from faultlib.workloads.inference import InferenceService, paper_layout
from faultlib.workloads.training import TrainingJob
from opsbrain.recovery import Orchestrator, RecoveryParams, load_runbooks
from opsbrain.recovery.schema import LINK_FAULT, UNKNOWN_CLASS, WORKLOAD_STUCK
from opsbrain.verdict import Diagnosis

RBS = load_runbooks()
CASES = [(rb.id, k, rung) for rb in sorted(RBS.runbooks.values(), key=lambda r: r.id)
         for k, (rung, _steps, _rb) in enumerate(rb.ladder())]


def _world(topo: Topology, kind: str) -> tuple[Simulation, str, str]:
    """A pod with one workload (training job or inference service), two warm spares; returns (sim, node, name)."""
    sim = Simulation(params=at_medians(SimParams()), seed=4, topology=topo)
    nodes = sim.topology.nodes()
    if kind == "training":
        sim.add_workload(TrainingJob("llm", nodes[:8], sim.params.training.model_copy(
            update=RecoveryParams().job_launch_overrides())))
        node, name = nodes[3], "llm"
    else:
        pre, dec = paper_layout(sim.topology)
        sim.add_workload(InferenceService("svc", pre, dec))
        node, name = dec[5], "svc"
    sim.control.set_spares(nodes[-2:])
    return sim, node, name


def _component(sim: Simulation, cls: str, node: str) -> str:
    if cls == LINK_FAULT:  # a link whose fault kind is not settled yet
        return sim.fabric.node_uplinks(node)[9]
    if cls not in CATALOG:
        return node
    where = {"hbm": f"{node}/npu3/hbm", "npu": f"{node}/npu3", "die": f"{node}/npu3/die1", "node": node,
             "qingtian": f"{node}/qingtian", "roce": f"{node}/npu3/roce0", "l1": f"{node}/l1sw2",
             "l2": "pod0/l2plane2/sw05", "ub_optical": sim.fabric.node_uplinks(node)[9]}
    return where[CATALOG[cls].targets[0]]


def _fail_rungs(orch: Orchestrator, rungs: set[str]) -> None:
    """Every attempt of a step on one of ``rungs`` fails (logged as the executor logs a failed command)."""
    real = orch.exec.attempts

    def attempts(rec: Any, action: str, calls: list[Any], **kw: Any) -> Generator[Any, Any, tuple[bool, str]]:
        if kw.get("rung") not in rungs or kw.get("kind") != "step":
            return (yield from real(rec, action, calls, **kw))
        now = orch.sim.now
        for label, _factory in calls:
            rec.end(rec.begin(action, label, now, kind="step", rung=kw["rung"], step=kw["path"], attempt=1),
                    "failed", now, reason="failed on purpose (test)")
        yield orch.sim.env.timeout(0)
        return False, "failed on purpose (test)"

    orch.exec.attempts = attempts  # type: ignore[method-assign]


@pytest.mark.parametrize(("rb_id", "k", "rung"), CASES, ids=[f"{r}-{n}" for r, _k, n in CASES])
def test_every_rung_is_reached_and_runs(topo1: Topology, rb_id: str, k: int, rung: str) -> None:
    rb = RBS.get(rb_id)
    assert rb is not None
    ladder = rb.ladder()
    cls = rb.applies_to[0]
    sim, node, name = _world(topo1, "inference" if rung == "scale_in" else "training")
    component = name if cls == WORKLOAD_STUCK else _component(sim, cls, node)
    kind = "link_down" if cls == LINK_FAULT else cls  # an unsettled link fault: the link is dark
    if kind in CATALOG:
        sim.inject(FaultSpec(at_s=100, kind=kind, target=component,
                             params={"detect_delay_s": 1.0} if kind == "silent_data_corruption" else {}))
    sim.run(103 if kind in ("link_down", "l1_switch_failure", "l2_switch_failure") else 200)
    orch = Orchestrator(sim, RBS)
    _fail_rungs(orch, {r for r, _s, _rb in ladder[:k]})
    orch.handle("i", Diagnosis(cls, component, 0.95, runbook=rb_id))
    sim.run(sim.now + 6 * 3600)
    inc = orch.incident("i")
    log = inc["actions"]
    assert inc["runbook"] == rb_id, inc
    # a link still dark at the end of a hold-down is handed to rb-link-down (session 41): not a rung of this ladder
    climbed = [a["detail"]["to_rung"] for a in log if a["kind"] == "escalation" and "to_runbook" not in a["detail"]]
    if cls != UNKNOWN_CLASS:
        assert climbed == [r for r, _s, _rb in ladder[1:k + 1]], log
        assert inc["rung"] == rung
    mine = [a for a in log if a["kind"] in ("step", "retry") and a["rung"] in (rung, "human" if
            cls == UNKNOWN_CLASS else rung)]
    ran = [a for a in mine if a["status"] == "succeeded"]
    assert ran, f"no step of rung {rung} ran: {log}"
    assert not [a for a in mine if a["status"] == "failed" and a["kind"] == "step"], log
    assert inc["outcome"] in ("completed", "no_action", "escalated_to_human"), inc
    if cls != UNKNOWN_CLASS:
        assert inc["outcome"] != "escalated_to_human", inc


# ---- flap damping as rb-link-flap states it: 5 link-downs in 24 h => isolate ----------------------------------
class _Records:
    """An operator's link records that say the link went down ``n`` times in 24 h."""

    def __init__(self, n: int) -> None:
        self.n = n

    def flaps(self, link: str) -> int:
        return self.n

    def lanes_lost(self, link: str) -> bool:
        return False


@pytest.mark.parametrize(("downs", "isolated"), [(2, False), (4, False), (5, True), (7, True)])
def test_a_flapping_link_is_isolated_only_after_5_downs_in_24h(topo1: Topology, downs: int, isolated: bool) -> None:
    sim, node, _name = _world(topo1, "training")
    link = sim.fabric.node_uplinks(node)[9]
    orch = Orchestrator(sim, RBS)
    orch.link_records = lambda: _Records(downs)
    orch.handle("f", Diagnosis("link_flap", link, 0.95))
    sim.run(sim.now + 3 * 86400)
    done = {a["action"] for a in orch.actions_for("f") if a["status"] == "succeeded"}
    assert ("isolate_link" in done) is isolated and ("ticket" in done) is isolated
    tried = {a["action"] for a in orch.actions_for("f") if a["status"] != "skipped" or a["detail"].get("in_flight")}
    assert ("replace_part" in tried) is isolated  # field work only then
    if not isolated:
        assert {"drain_link", "undrain_link"} <= done and not sim.fabric.drained  # held down, then back


def test_two_noise_flaps_33_minutes_apart_isolate_nothing() -> None:
    """Issue 17: two self-healing flaps 33 min apart isolated and ticketed a link; the runbook says 5 in 24 h."""
    from tests.test_scenario_language import LINK, run_journal, with_faults

    j = run_journal(with_faults({"at": 600, "kind": "dirty_connector", "target": LINK},
                                {"at": 600 + 33 * 60, "kind": "dirty_connector", "target": LINK},
                                duration=6000, noise=False))
    acts = [a for i in j["incidents"] for a in i["actions"] if a["status"] == "succeeded"]
    assert not [a for a in acts if a["action"] in ("isolate_link", "ticket", "replace_part")], acts
