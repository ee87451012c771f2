"""Issue 17: a trace's repair time for a device fault (HBM, AI Core, a chip off the bus, a fatal over-temperature)
holds the chip out of service as a node crash's holds its host: a chip reset waits for the repair, a replacement
ends no sooner, the part is back in service once the repair is done, and the fault lasts the trace's duration. The
replay counts these durations as used (no longer "not modelled")."""

from __future__ import annotations

from pathlib import Path

import pytest

from faultlib import ids
from faultlib.durations import at_medians
from faultlib.engine import Simulation
from faultlib.health import Health
from faultlib.injection.spec import FaultSpec
from faultlib.simparams import SimParams
from faultlib.topology import Topology
from opsbrain.scenario import replay as rp
from tests.test_replay import ev, write

REPAIR = 10 * 3600.0


def _sim(topo: Topology) -> Simulation:
    return Simulation(seed=5, topology=topo)


def test_a_chip_off_the_bus_is_back_after_its_repair_time(topo1: Topology) -> None:
    sim = _sim(topo1)
    npu = sim.topology.npus_of("pod0/node6")[2]
    f = sim.inject(FaultSpec(at_s=100.0, kind="npu_off_bus", target=npu, params={}, duration_s=REPAIR))
    sim.run(100.0 + REPAIR - 60)
    assert sim.state.health(npu) == Health.FAILED and f.ended_at_s is None  # not back before the repair
    sim.run(100.0 + REPAIR + 60)
    assert sim.state.health(npu) == Health.HEALTHY
    assert f.ended_at_s == pytest.approx(100.0 + REPAIR)


def test_a_chip_reset_waits_for_the_repair_of_a_hung_ai_core(topo1: Topology) -> None:
    sim = _sim(topo1)
    die = f"{sim.topology.npus_of('pod0/node6')[1]}/die0"
    npu = ids.npu_of(die)
    assert npu is not None
    sim.inject(FaultSpec(at_s=100.0, kind="aicore_hang", target=die, params={}, duration_s=REPAIR))
    sim.run(200.0)
    reset = sim.control.reset_chip(npu)
    sim.run(100.0 + REPAIR - 60)
    assert not reset.triggered and sim.state.health(die) == Health.FAILED
    sim.run(100.0 + REPAIR + 3600)
    assert reset.triggered and reset.value.end_s >= 100.0 + REPAIR
    assert sim.state.health(die) == Health.HEALTHY


def test_a_replacement_of_a_chip_under_repair_ends_no_sooner_than_the_repair(topo1: Topology) -> None:
    sim = Simulation(params=at_medians(SimParams()), seed=5, topology=topo1)  # a replacement takes its 4 h median
    npu = sim.topology.npus_of("pod0/node6")[4]
    long = 40 * 3600.0  # longer than a part replacement's draw (hours)
    sim.inject(FaultSpec(at_s=100.0, kind="hbm_overtemp", target=f"{npu}/hbm", params={}, duration_s=long))
    sim.run(100.0 + sim.params.faults.overtemp_ramp_s + 60)
    assert sim.state.health(npu) == Health.FAILED
    done = sim.control.replace_part(npu)
    sim.run(100.0 + long - 60)
    assert not done.triggered
    sim.run(100.0 + long + 24 * 3600)
    assert done.value.status == "succeeded" and done.value.end_s >= 100.0 + long
    # the longer of the repair and the replacement's own time (4 h), not their sum
    assert done.value.end_s == pytest.approx(100.0 + long)
    assert sim.state.health(npu) == Health.HEALTHY


def test_without_a_repair_time_a_device_fault_ends_as_its_model_says(topo1: Topology) -> None:
    sim = _sim(topo1)
    npu = sim.topology.npus_of("pod0/node6")[3]
    f = sim.inject(FaultSpec(at_s=100.0, kind="npu_off_bus", target=npu, params={}))
    sim.run(400.0)
    assert f.ended_at_s is not None and f.ended_at_s < 400.0  # the heartbeat report, then the model's end
    assert sim.state.health(npu) == Health.FAILED  # down until recovered
    assert sim.control.repair_left_s(npu) == 0.0


def test_the_replay_applies_device_repair_times(tmp_path: Path) -> None:
    p = write(tmp_path, [ev("a", 1.0, "fault_start", "Hardware Failure", "GPU", "GPU Lost"),
                         ev("a", 5.0, "fault_end", "Hardware Failure", "GPU", "GPU Lost"),
                         ev("b", 1.0, "fault_start", "Hardware Failure", "GPU", "nvidia-smi Timeout"),
                         ev("b", 2.0, "fault_end", "Hardware Failure", "GPU", "nvidia-smi Timeout"),
                         ev("c", 1.0, "fault_start", "Hardware Failure", "GPU", "GPU DBE(Double Bit ECC) > Threshold"),
                         ev("c", 3.0, "fault_end", "Hardware Failure", "GPU", "GPU DBE(Double Bit ECC) > Threshold")])
    _plan, rep = rp.replay_plan(str(p), time_unit="h")
    kinds = {s.kind: s.duration_s for s in rep.timeline}
    assert kinds == {"npu_off_bus": 4 * 3600.0, "aicore_hang": 3600.0, "hbm_row_exhaustion": 2 * 3600.0}
    assert rep.durations_used == 3 and rep.durations_not_modelled == {}
