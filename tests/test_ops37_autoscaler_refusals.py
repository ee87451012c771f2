"""Session 37 (ops37): the autoscaler's refused scale-ups are in the run's results and the superpod report.

Before, a refused scale-up (the NPU budget, no pod with enough free serviceable nodes) was only a scale event:
``run_elastic`` counted it in ``scale_events`` and nothing showed it. Each run of refusals (one role, one reason,
consecutive decisions) is now a record with its reason in figures, carried into the block's results (with the seed)
and a report table.
"""

from __future__ import annotations

from faultlib.engine import Simulation
from faultlib.health import Health
from faultlib.workloads.elastic import ElasticInferenceService
from faultlib.workloads.inference import paper_layout
from opsbrain.ops.autoscaler import Autoscaler
from opsbrain.ops.setup import ops_params
from opsbrain.report.superpod import _tables


def _scaler(budget: int, pool_free: int) -> tuple[Simulation, Autoscaler]:
    sim = Simulation(ops_params(), seed=0, pods=1)
    pre, dec = paper_layout(sim.topology, 0, sim.params.inference)
    svc = ElasticInferenceService("serve", pre, dec, sim.params.inference)
    sim.add_workload(svc)
    used = set(svc.nodes)
    free = [n for n in sim.topology.nodes() if n not in used][:pool_free]
    a = Autoscaler(sim, svc, budget, list(svc.nodes) + free)
    svc.demand_req_s = 4 * a.decode_cap_tok_s / svc.p.output_tokens  # wants more decode instances than it has
    return sim, a


def test_a_scale_up_over_the_budget_is_a_refusal_with_its_reason() -> None:
    sim, a = _scaler(budget=0, pool_free=0)
    a.demand_req_s = lambda: a.svc.demand_req_s  # type: ignore[method-assign]
    for _ in range(3):
        a.step()
        sim.run(sim.now + a.p.interval_s)
    runs = [r for r in a.refusals if r["role"] == "decode"]
    assert len(runs) == 1, a.refusals  # three decisions, one run
    r = runs[0]
    assert r["reason"] == "NPU budget" and r["times"] == 3 and r["last_s"] - r["first_s"] == 2 * a.p.interval_s
    assert "the budget of 0" in r["detail"], r


def test_no_serviceable_node_is_a_refusal_and_the_report_shows_it() -> None:
    sim, a = _scaler(budget=10_000, pool_free=4)
    a.demand_req_s = lambda: a.svc.demand_req_s  # type: ignore[method-assign]
    for n in a.pool:
        if n not in a.svc.nodes:
            sim.state.set_health(n, Health.CORDONED, "test")
    a.step()
    r = next(r for r in a.refusals if r["role"] == "decode")
    assert r["reason"] == "no serviceable node" and "4 of the autoscaler's" in r["detail"], r
    block = {"demand_scale": 1.0, "autoscale": {k: {"min": 1.0, "p50": 1.0, "p90": 1.0} for k in (
        "slo_attainment", "time_to_slo_after_fault_s", "tokens_per_s_per_npu", "npu_hours_allocated")}
        | {"refusals": [{"seed": 0, **r}]}}
    tables = _tables({"expectations": [], "elastic": [block], "schedule": [], "tenants": []})
    title, head, rows = next(t for t in tables if t[0].startswith("Autoscaler refusals"))
    assert rows[0][:4] == ["autoscale", "0", "decode", "no serviceable node"], rows
