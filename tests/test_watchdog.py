"""The progress watchdog: a training job without progress is revived whatever the diagnosis said."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from faultlib.engine import Simulation
from faultlib.topology import Topology
from faultlib.workloads.training import TrainingJob
from opsbrain.controller import Controller, NullResponder
from opsbrain.detection.watchdog import ProgressWatchdog
from opsbrain.recovery.orchestrator import Orchestrator
from opsbrain.verdict import Diagnosis


class _Clock:
    def __init__(self) -> None:
        self.t = 0.0
        self.pending: list[tuple[float, Callable[[], None]]] = []

    def schedule(self, delay: float, fn: Callable[[], None]) -> None:
        self.pending.append((self.t + delay, fn))

    def advance(self, t: float) -> None:
        self.t = t
        due = [p for p in self.pending if p[0] <= t]
        self.pending = [p for p in self.pending if p[0] > t]
        for _at, fn in sorted(due, key=lambda p: p[0]):
            fn()


class Blind:
    """A diagnoser that never names a cause: only the watchdog can act."""

    def diagnose(self, *_a: object) -> Diagnosis:
        return Diagnosis("unknown", None, 0.0)


def _dog(clock: _Clock, got: list[tuple[str, float]], revivals: int = 2) -> ProgressWatchdog:
    return ProgressWatchdog(clock.schedule, lambda: clock.t, lambda j, s: got.append((j, s)), 60.0, revivals,
                            86400.0)


def test_a_job_stuck_for_the_threshold_is_handed_over_once_per_episode() -> None:
    clock, got = _Clock(), []
    dog = _dog(clock, got)
    clock.advance(10.0)
    dog.observe("train", "stalled", 10.0)
    clock.advance(40.0)
    dog.observe("train", "timeout", 40.0)  # stalled -> down is the same episode
    clock.advance(69.9)
    assert got == []
    clock.advance(70.0)
    assert got == [("train", 10.0)]
    clock.advance(500.0)
    assert len(got) == 1


@pytest.mark.parametrize("event", ["resumed", "restart", "recovering", "started"])
def test_progress_or_a_recovery_under_way_ends_the_episode(event: str) -> None:
    clock, got = _Clock(), []
    dog = _dog(clock, got)
    dog.observe("train", "stalled", 0.0)
    clock.advance(30.0)
    dog.observe("train", event, 30.0)
    clock.advance(1000.0)
    assert got == []
    dog.observe("train", "checkpoint", 1000.0)  # not a state change
    assert dog.jobs["train"].episode == 2


def test_revivals_are_capped_then_left_to_a_person() -> None:
    clock, got = _Clock(), []
    dog = _dog(clock, got, revivals=2)
    for k in range(3):
        t = 1000.0 * k
        clock.advance(t)
        dog.observe("train", "restart", t)
        dog.observe("train", "restart_failed", t + 1)
        clock.advance(t + 100)
    assert [s for _j, s in got] == [1.0, 1001.0]
    assert dog.given_up == [("train", 2100.0)]


def test_controller_revives_a_hung_job_that_nothing_else_handles(topo1: Topology) -> None:
    sim = Simulation(seed=5, topology=topo1)
    job = TrainingJob("train", sim.topology.nodes()[32:46])
    sim.add_workload(job)
    orch = Orchestrator(sim)
    ctl = Controller(sim, Blind(), orch)
    sim.run(500)
    job.fail(job.ranks[9], "hang", "host thread blocked")  # software hang: healthy hardware
    sim.run(500 + orch.p.stuck_after_s + 4 * sim.params.delivery.job_event_s.p90)  # + the stall event's path delay
    stuck = [i for i in ctl.incidents if i.id.startswith("w")]
    assert len(stuck) == 1 and stuck[0].diagnosis.fault_class == "workload_stuck"
    rec = orch.incident(stuck[0].id)
    assert rec["runbook"] == "rb-workload-stuck"
    sim.run(800)
    assert job.state == "running" and job.accounting()["timeouts"] == 0  # well before the 30-min timeout
    assert orch.incident(stuck[0].id)["outcome"] == "completed"


def test_no_watchdog_without_a_responder_or_under_the_manual_policy(topo1: Topology) -> None:
    sim = Simulation(seed=5, topology=topo1)
    sim.add_workload(TrainingJob("train", sim.topology.nodes()[32:46]))
    assert Controller(sim, Blind(), NullResponder()).watchdog is None
    assert Controller(sim, Blind(), Orchestrator(sim, policy="manual")).watchdog is None


def test_a_job_a_runbook_is_acting_on_is_looked_at_again_later() -> None:
    clock, got = _Clock(), []
    busy = {"train": True}
    dog = ProgressWatchdog(clock.schedule, lambda: clock.t, lambda j, s: got.append((j, s)), 60.0, 3, 86400.0,
                           busy=lambda j: busy[j])
    dog.observe("train", "crash", 0.0)
    clock.advance(60.0)
    assert got == []  # e.g. a chip reset (150 s) before the runbook's own restart
    busy["train"] = False
    clock.advance(120.0)
    assert got == [("train", 0.0)]


def test_orchestrator_is_busy_with_a_workload_while_a_step_acts_on_it(topo1: Topology) -> None:
    sim = Simulation(seed=5, topology=topo1)
    job = TrainingJob("train", sim.topology.nodes()[32:46])
    sim.add_workload(job)
    orch = Orchestrator(sim)
    npu = f"{job.nodes[3]}/npu2"
    sim.run(100)
    job.fail(npu + "/die0", "hang", "aicore task stuck")
    orch.handle("a", Diagnosis("aicore_hang", npu + "/die0", 0.99))
    sim.run(101)
    assert orch.busy_with("train") and not orch.busy_with("serve")
    sim.run(2000)
    assert not orch.busy_with("train") and job.state == "running"
