"""Session 37 (ops37): the twin's npu-exporter page for a chip off the bus and a chip that is down.

npu-exporter builds its chip list from the driver's device list (``getNPUChipList``: ``GetDeviceList``) and publishes
every chip series from it, ``machine_npu_nums`` being ``len(chips)``; a chip off the bus is not listed, so it has no
series at all. Before, the twin's page dropped the off-bus chip from the count only and published its temperature,
HBM and link series; and the background noise redrew a down chip's temperatures (nothing reads a down chip), which
a listed down chip's page rows then showed as fresh readings.
"""

from __future__ import annotations

import re

from faultlib.engine import Simulation
from faultlib.ids import logical_device
from faultlib.injection.spec import FaultSpec
from faultlib.params import apply_overrides
from faultlib.simparams import SimParams
from faultlib.telemetry import formats as fmt
from faultlib.telemetry.noise import start_background_noise
from opsbrain.sources.twinpage import render_twin_page
from tests.test_sources import small_pod

T0 = 3600.0
NPU = "pod0/node1/npu3"


def _rows(page: str, npu: str) -> list[str]:
    """The chip series of ``npu``'s dies (npu-exporter's id: each die's own, its logical id on the twin; session 38)."""
    labs = [f'id="{logical_device(fmt.npu_index(npu), d)}",instance="{fmt.hostname(npu)}"' for d in (0, 1)]
    return [ln for ln in page.splitlines() if ln.startswith("npu_chip_info_") and any("{" + b in ln for b in labs)]


def test_a_chip_off_the_bus_has_no_series_until_it_is_back() -> None:
    sim = small_pod()
    sim.inject(FaultSpec(T0 + 60.0, "npu_off_bus", NPU, duration_s=600.0))
    sim.run(T0 + 900.0)
    before, during, back = (render_twin_page(sim, t) for t in (T0, T0 + 300.0, T0 + 900.0))
    assert _rows(before, NPU) and _rows(back, NPU)
    assert _rows(during, NPU) == [], _rows(during, NPU)
    assert len(_rows(during, "pod0/node1/npu2")) == len(_rows(before, NPU))  # its neighbours keep theirs


def test_a_down_chips_temperature_is_not_redrawn() -> None:
    topo = small_pod().topology
    params = apply_overrides(SimParams(), {"noise.temp_update_interval_s": 60.0 * 32})  # ~1 redraw/chip/min
    sim = Simulation(params, seed=1, topology=topo)
    start_background_noise(sim)
    sim.inject(FaultSpec(T0, "npu_off_bus", NPU, duration_s=7200.0))
    sim.run(T0 + 3600.0)
    m = sim.telemetry.metrics
    assert m.read("npu_temp_c", NPU, T0 + 10.0) == m.read("npu_temp_c", NPU, T0 + 3600.0)
    assert m.read("hbm_temp_c", NPU + "/hbm", T0 + 10.0) == m.read("hbm_temp_c", NPU + "/hbm", T0 + 3600.0)
    page = render_twin_page(sim)
    assert _rows(page, NPU) == []  # off the bus: no series
    assert re.search(rf'^machine_npu_nums{{instance="{re.escape(fmt.hostname(NPU))}"}} 14 ', page, re.M)  # (dies)
