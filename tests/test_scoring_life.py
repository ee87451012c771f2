"""Scoring of issue 17: a fault is followed through its whole life (a detection days after onset is credited),
ttr is charged only to the workloads placed on the fault's part and to dips inside the fault's window, and an
undetected fault is unrecovered."""

from __future__ import annotations

from faultlib.engine import Simulation
from faultlib.topology import Topology
from faultlib.workloads.training import TrainingJob
from opsbrain.runner import scoring

H = 3600.0
LINK = "pod0/node40/l1sw4~pod0/l2plane4/sw09"


def test_a_detection_60_h_after_onset_is_credited_while_the_fault_lives() -> None:
    faults = [("f1", "optical_degradation", LINK, 100.0, 100.0 + 70 * H)]
    incidents = [("i1", 100.0 + 60 * H, {LINK}), ("i2", 100.0 + 70 * H + 25 * H, {LINK})]
    got = scoring.match_incidents(faults, incidents, horizon_s=24 * H)
    assert got == {"i1": "f1"}  # i2 opened a day after the fault was over: not its incident


def test_a_fault_that_never_ended_owns_later_incidents_about_it() -> None:
    faults = [("f1", "optical_degradation", LINK, 0.0, None)]
    assert scoring.match_incidents(faults, [("i1", 80 * H, {LINK})], horizon_s=24 * H) == {"i1": "f1"}


def test_a_dip_after_the_faults_window_is_not_its_ttr() -> None:
    series = [(0.0, 1.0), (2 * H, 0.0), (2 * H + 900, 1.0)]  # another cause takes the job down 2 h later
    assert scoring.time_to_recover(series, 100.0, 10 * H) == 2 * H + 900 - 100.0  # unbounded: charged
    assert scoring.time_to_recover(series, 100.0, 10 * H, dip_by=160.0) == 0.0


def test_an_undetected_fault_is_unrecovered() -> None:
    assert scoring.credited_ttr(0.0, detected_at=None) is None
    assert scoring.credited_ttr(12.5, detected_at=5.0) == 12.5


def test_ttr_goes_only_to_workloads_on_the_part_at_the_time(topo1: Topology) -> None:
    sim = Simulation(seed=1, topology=topo1)
    nodes = sim.topology.nodes()
    job = TrainingJob("llm", nodes[:4])
    sim.add_workload(job)
    sim.run(100.0)
    job.nodes = nodes[1:5]  # a later placement (a spare swapped in at t = 100 s)
    assert scoring.nodes_during(job, 0.0, 50.0) == set(nodes[:4])
    assert scoring.nodes_during(job, 150.0, 200.0) == set(nodes[1:5])
    assert scoring.nodes_during(job, 50.0, 150.0) == set(nodes[:5])


def test_a_scaled_in_job_is_measured_against_its_placements_nominal_rate(topo1: Topology) -> None:
    sim = Simulation(seed=1, topology=topo1)
    nodes = sim.topology.nodes()
    job = TrainingJob("llm", nodes[:8])
    sim.add_workload(job)
    full = 1.0 / job.nominal_step_time_s
    sim.run(100.0)
    job.restart("memory", drop=[nodes[7]])
    sim.run(2000.0)
    seven = scoring.nominal_at(job, 1000.0, full)
    assert seven is not None and seven < full
    assert scoring.nominal_at(job, 50.0, full) == full
    assert scoring.nominal_at(type("W", (), {})(), 50.0, 3.0) == 3.0  # no history: the run's baseline
