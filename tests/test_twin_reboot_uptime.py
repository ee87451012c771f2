"""A rebooted host's kernel and device uptime stamps restart at its boot (session 34, branch twin34b).

Before: the twin stamped every kernel line (``[  1300.000000] Kernel panic ...``) and every device fault event
(``[fault_manager][ 1550.000000]``) with ``sim.now + 1200`` whatever had happened to the host, so a host that had
crashed and rebooted went on counting from the run's start, as no real kernel does. Now the uptime counts from
the host's last boot: ``telemetry.boot_uptime_s`` when it was back in service, plus the time since."""

from __future__ import annotations

import re

from faultlib.engine import Simulation
from faultlib.health import Health
from faultlib.injection.spec import FaultSpec
from faultlib.telemetry.emit import Emitter
from faultlib.topology import Topology

NODE = "pod0/node35"
NPU = f"{NODE}/npu2"


def _stamps(sim: Simulation, since: float, source: str) -> list[float]:
    """The uptime stamps of the lines ``source`` printed from ``since`` on (kernel ``[ 12.345678]``, the device
    fault manager's ``[fault_manager][ 12.345678]``)."""
    pat = re.compile(r"\[fault_manager\]\[\s*(\d+\.\d{6})\]" if source == "device_os" else r"\]?\s\[\s*(\d+\.\d{6})\]")
    return [float(m.group(1)) for ln in sim.telemetry.logs
            if ln.t >= since and ln.source == source and (m := pat.search(ln.text))]


def test_a_rebooted_hosts_kernel_and_devices_count_their_uptime_from_the_boot(topo1: Topology) -> None:
    sim = Simulation(seed=5, topology=topo1)
    lead, boot = sim.params.telemetry.boot_lead_s, sim.params.telemetry.boot_uptime_s
    sim.inject(FaultSpec(at_s=100, kind="node_crash", target=NODE, params={}, duration_s=None))
    sim.run(300)
    assert _stamps(sim, 100, "syslog") == [100 + lead]  # the first panic: up since before the run
    sim.state.set_health(NODE, Health.HEALTHY, cause="reboot")  # back in service at 300
    sim.run(350)
    Emitter(sim).kernel(NODE, "soft lockup text")
    Emitter(sim).device_event(NPU, "80E01801")
    assert _stamps(sim, 350, "syslog") == [boot + 50]  # 50 s after it was back: ~0 plus the boot
    assert _stamps(sim, 350, "device_os") == [boot + 50]
    sim.inject(FaultSpec(at_s=500, kind="node_crash", target=NODE, params={}, duration_s=None))
    sim.run(600)
    assert _stamps(sim, 500, "syslog") == [boot + 200]  # the second panic counts from the reboot, not the run
    other = "pod0/node3"  # a host that never stopped keeps counting from before the run
    Emitter(sim).kernel(other, "text")
    assert _stamps(sim, 600, "syslog")[-1] == 600 + lead
