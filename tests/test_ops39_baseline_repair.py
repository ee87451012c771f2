"""Session 39 (ops39): a host the reboots did not bring back goes to a field repair under every policy.

Session 38 sent such a host to a field repair (an inspect ticket, ``control.part_replacement_s``) under the opsbrain
policy only; under manual and vendor-default it stayed dead, and the job the reboot was for stayed down, for the rest
of the run. People repair hardware whatever automation runs the cluster (docs/recovery.md, the baselines), so the
baselines now take the same repair, then restart the job in place as after an inline replacement.
"""

from __future__ import annotations

import pytest

from faultlib.health import Health
from faultlib.injection.spec import FaultSpec
from faultlib.params import apply_overrides
from faultlib.simparams import SimParams
from faultlib.topology import Topology
from opsbrain.recovery.manual import ManualPolicy
from opsbrain.recovery.vendor import VendorDefaultPolicy
from tests.test_orchestrator import training


@pytest.mark.parametrize("policy_name", ["manual", "vendor-default"])
def test_a_baseline_sends_a_host_its_reboots_did_not_bring_back_to_repair(topo1: Topology,
                                                                          policy_name: str) -> None:
    params = apply_overrides(SimParams(), {"control.reset_failure_prob": 1.0})  # every reboot fails
    sim, job = training(topo1, spares=0, params=params)  # no spare: the response reboots the host inline
    node = job.nodes[4]
    sim.inject(FaultSpec(at_s=100, kind="node_crash", target=node))
    sim.run(110)
    policy = VendorDefaultPolicy(sim) if policy_name == "vendor-default" else ManualPolicy(sim)
    proc = policy.handle("crash", {"fault_class": "node_crash", "component": node})
    c = sim.params.control
    sim.run(110 + 4 * 3600.0 + c.part_replacement_s.median + 3 * 3600.0)
    inc = proc.value if proc.triggered else policy.records["crash"].as_dict(sim.now)
    reboots = [a for a in inc["actions"] if a["action"] == "reboot_node"]
    assert reboots and all(a["status"] == "failed" for a in reboots), reboots
    assert reboots[-1]["detail"]["reason"] == "the host did not come back"
    repair = [a for a in inc["actions"] if a["action"] == "replace_part" and a["step"] == "host_not_back"]
    assert len(repair) == 1 and repair[0]["status"] == "succeeded", inc["actions"]  # was: none, the host dead
    assert repair[0]["start_s"] == pytest.approx(reboots[-1]["end_s"])
    assert repair[0]["end_s"] - repair[0]["start_s"] == pytest.approx(c.part_replacement_s.median, rel=0.8)
    tickets = [f for f in inc["follow_ups"] if f["type"] == "ticket" and f["component"] == node]
    assert any(t["kind"] == "inspect" for t in tickets) and all(t["closed_at_s"] is not None for t in tickets)
    assert sim.state.health(node) == Health.HEALTHY and not sim.state.host_down(node)
    assert job.state == "running" and node in job.nodes  # restarted in place once the host was back
    assert inc["outcome"] == "completed"
