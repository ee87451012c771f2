"""Review of session 38's ``ControlAPI.stop``: a restart whose workload side has ended at this very instant (its
outcome decided, the action not yet resumed) is no longer under way. Stopping it is refused (False), so a caller
that hands the job to another response on a True (the orchestrator's ``_stop_doomed``) does not mark a restart that
succeeded as handed over."""

from __future__ import annotations

from typing import Any

import simpy

from faultlib.topology import Topology
from tests.test_orchestrator import training


def _restart_ending_now(topo1: Topology, ok: bool) -> tuple[Any, Any, simpy.Event]:
    sim, job = training(topo1)
    sim.control.p = sim.control.p.model_copy(update={"restart_failure_prob": 0.0})
    ends = sim.env.event()
    job.restart = lambda *a, **k: ends  # type: ignore[method-assign]  # the workload's side: ends when we say
    act = sim.control.restart_job(job.name)
    sim.run(sim.now + 5)
    assert act.is_alive
    ends.succeed(ok)  # the workload's restart ends at this instant ...
    return sim, job, act


def test_a_restart_that_ended_this_instant_is_not_stopped(topo1: Topology) -> None:
    sim, job, act = _restart_ending_now(topo1, True)
    assert sim.control.stop(job.name, {"reason": "a node went down"}) is False  # ... before the stop comes
    sim.run(sim.now + 1)
    assert act.value.status == "succeeded"


def test_a_restart_under_way_is_still_stopped(topo1: Topology) -> None:
    sim, job = training(topo1)
    sim.control.p = sim.control.p.model_copy(update={"restart_failure_prob": 0.0})
    job.restart = lambda *a, **k: sim.env.event()  # type: ignore[method-assign]  # never ends by itself
    act = sim.control.restart_job(job.name)
    sim.run(sim.now + 5)
    assert sim.control.stop(job.name, {"reason": "a node went down"}) is True
    sim.run(sim.now + 1)
    assert act.value.status == "cancelled" and act.value.detail["reason"] == "a node went down"
