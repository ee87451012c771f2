"""Session 38 (ops38): the autoscaler's runs of refusals, kept with the set of roles refused in a decision (was: a
snapshot of every run's count before the decision, compared after). The runs are unchanged: they are rebuilt here
from the decisions' own scale events, independently of the bookkeeping."""

from __future__ import annotations

from typing import Any

from opsbrain.ops.autoscaler import Autoscaler
from tests.test_ops37_autoscaler_refusals import _scaler


def _runs_from_events(a: Autoscaler, decisions: list[float]) -> list[dict[str, Any]]:
    """Runs of consecutive decisions refused for one role and reason, from the ``refused`` scale events."""
    refused = {(e.t, e.instance): e.detail["reason"] for e in a.events if e.action == "refused"}
    runs: list[dict[str, Any]] = []
    going: dict[str, dict[str, Any]] = {}
    for t in decisions:
        for role in ("decode", "prefill"):
            reason = refused.get((t, role))
            run = going.get(role)
            if reason is None:
                going.pop(role, None)
            elif run is not None and run["reason"] == reason:
                run.update(last_s=t, times=run["times"] + 1)
            else:
                going[role] = {"role": role, "reason": reason, "first_s": t, "last_s": t, "times": 1}
                runs.append(going[role])
    return runs


def test_runs_of_refusals_end_at_a_decision_not_refused_and_at_a_new_reason() -> None:
    sim, a = _scaler(budget=0, pool_free=0)
    wants = [True, True, False, True, True, False, False, True]  # demand above, below, above the pool's capacity
    high = a.svc.demand_req_s
    decisions = []
    for want_more in wants:
        a.svc.demand_req_s = high if want_more else 0.0
        if want_more and len(decisions) == 4:
            a.budget = 10_000  # the 5th decision is refused for another reason (no free node in the pool)
        a.demand_req_s = lambda: a.svc.demand_req_s  # type: ignore[method-assign]
        decisions.append(sim.now)
        a.step()
        sim.run(sim.now + a.p.interval_s)
    expected = _runs_from_events(a, decisions)
    got = [{k: r[k] for k in ("role", "reason", "first_s", "last_s", "times")} for r in a.refusals]
    assert got == expected
    assert [(r["reason"], r["times"]) for r in got if r["role"] == "decode"] == [
        ("NPU budget", 2), ("NPU budget", 1), ("no serviceable node", 1), ("no serviceable node", 1)], got
