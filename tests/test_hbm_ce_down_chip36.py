"""A down chip counts no correctable error: its ``hbm_ce_total`` holds while it is down (session 36, branch twin36).

Before: the counter (npu-exporter's ``npu_chip_info_hbm_ecc_total_single_bit_error_cnt``) kept its slope, the
stack's background rate or a CE storm's, while its chip was down (its host stopped or rebooting, the chip failed or
resetting): a reader saw it grow by rate x outage, and a host back from a 600 s reboot under a storm showed the
outage's errors at once. The chip's CE log already recorded nothing while down (session 35) and background bursts
skipped a down chip; the counter's slope now follows the same state (``CeLog`` writes it: 0 while down, the errors'
rate while up). A chip back without replacement keeps its count (the DCMI total is the chip's lifetime count); a
replaced part starts at 0 (session 35)."""

from __future__ import annotations

import pytest

from faultlib.durations import at_medians
from faultlib.engine import Simulation
from faultlib.injection.spec import FaultSpec
from faultlib.params import apply_overrides
from faultlib.simparams import SimParams
from faultlib.telemetry.noise import start_background_noise
from faultlib.topology import Topology
from opsbrain.sources.twinpage import render_twin_page

NODE = "pod0/node20"
NPU = f"{NODE}/npu3"
HBM = f"{NPU}/hbm"
CE = "hbm_ce_total"
RATE = 0.5  # the storm's errors/s


def _sim(topo: Topology) -> Simulation:
    params = apply_overrides(SimParams(), {"control.reset_failure_prob": 0.0, "control.isolate_failure_prob": 0.0})
    sim = Simulation(at_medians(params), seed=3, topology=topo)
    start_background_noise(sim)
    return sim


def _ce(sim: Simulation, t: float) -> float:
    v = sim.telemetry.metrics.read(CE, HBM, t)
    assert v is not None
    return v


def _page_ce(sim: Simulation, t: float) -> float | None:
    """The stack's count on the twin's npu-exporter page at ``t`` (None: not published)."""
    idx = 2 * int(NPU.rsplit("npu", 1)[1])  # (the NPU's HBM: on its die 0's id, session 38)
    name = "npu_chip_info_hbm_ecc_total_single_bit_error_cnt"
    for line in render_twin_page(sim, t, optics=False).splitlines():
        if line.startswith(name + "{") and f'id="{idx}"' in line and "node20" in line:
            return float(line.split()[1])
    return None


def test_hbm_ce_total_holds_while_its_host_reboots_under_a_storm(topo1: Topology) -> None:
    sim = _sim(topo1)
    sim.run(50)
    base = sim.telemetry.metrics.slope(CE, HBM, 50)
    sim.inject(FaultSpec(at_s=100, kind="hbm_ce_storm", target=HBM, params={"rate_per_s": RATE}, duration_s=800))
    sim.run(600)
    assert sim.telemetry.metrics.slope(CE, HBM, 600) == pytest.approx(base + RATE)
    held = _ce(sim, 600)
    reboot = sim.control.reboot_node(NODE)  # 600 s at the median: back at 1200, the storm ended at 900 meanwhile
    sim.run(1199)
    assert _ce(sim, 1199) == held  # down: no error counted, neither the storm's nor the background's
    assert sim.telemetry.metrics.slope(CE, HBM, 1199) == 0.0
    assert sim.telemetry.scraped.read(CE, HBM, 1199) is None  # a stopped host's exporter serves nothing
    sim.run(1300)
    assert reboot.value.status == "succeeded" and reboot.value.end_s == pytest.approx(1200)
    assert sim.telemetry.metrics.slope(CE, HBM, 1300) == pytest.approx(base)  # the storm ended while it was down
    assert _ce(sim, 1300) >= held  # back without replacement: the count goes on from what it held
    assert sim.telemetry.scraped.increase_many(CE, [HBM], 600, 1200)[0] == 0.0


def test_hbm_ce_total_holds_while_its_chip_resets_and_keeps_its_count(topo1: Topology) -> None:
    sim = _sim(topo1)
    sim.inject(FaultSpec(at_s=100, kind="hbm_ce_storm", target=HBM, params={"rate_per_s": RATE}, duration_s=3000))
    sim.run(600)
    held = _ce(sim, 600)
    reset = sim.control.reset_chip(NPU)  # chip_reset_s median 60 s
    sim.run(650)
    assert _ce(sim, 650) == held
    assert _page_ce(sim, 650) == held  # the page shows the chip's last reading, stamped when it was last read
    sim.run(800)
    assert reset.value.status == "succeeded"
    back = reset.value.end_s
    assert _ce(sim, back) == held  # a reset keeps the lifetime count
    assert sim.telemetry.metrics.slope(CE, HBM, 800) > RATE  # counting again at the storm's rate
    assert _ce(sim, 800) >= held + RATE * (800 - back) - 1e-6


def test_hbm_ce_total_of_a_failed_chip_holds_until_replaced_then_starts_at_0(topo1: Topology) -> None:
    sim = _sim(topo1)
    sim.run(50)
    base = sim.telemetry.metrics.slope(CE, HBM, 50)
    sim.inject(FaultSpec(at_s=100, kind="npu_off_bus", target=NPU, params={}, duration_s=None))
    sim.run(200)
    held = _ce(sim, 200)
    sim.run(5000)
    assert _ce(sim, 5000) == held
    replace = sim.control.replace_part(NPU)
    sim.run(sim.now + 30 * 3600)
    assert replace.value.status == "succeeded"
    done = replace.value.end_s
    assert _ce(sim, done) == 0.0
    assert sim.telemetry.metrics.slope(CE, HBM, sim.now) == pytest.approx(base)
