"""A warm spare that fails its self-check is inspected and repaired as a field ticket (the control API's
``replace_part``: ``control.part_replacement_s``, the repair the orchestrator already uses for a node), then goes
back into its pod's pool and its inspect ticket is closed; before, it stayed out of service for good."""

from __future__ import annotations

from pathlib import Path

import pytest

from faultlib.params import apply_overrides
from faultlib.simparams import SimParams
from faultlib.topology import Topology
from opsbrain.recovery import Orchestrator, load_runbooks
from tests.test_orchestrator import diag, training

RUNBOOK = """id: rb-swap-once
title: test - take a warm spare for the hung host
applies_to: [node_hang]
level: RestartBusiness
source: test runbook
rung: job_reschedule
steps:
  - {action: swap_spare, target: node_of(component), retries: 0, on_failure: stop}
"""


def test_a_spare_failing_its_self_check_is_repaired_and_returns(topo1: Topology, tmp_path: Path) -> None:
    (tmp_path / "rb-swap-once.yaml").write_text(RUNBOOK)
    params = apply_overrides(SimParams(), {"control.spare_failure_prob": 1.0})  # the self-check fails
    sim, job = training(topo1, spares=1, params=params)  # durations at their medians
    spare = sim.control.spares[0]
    repair_s = sim.params.control.part_replacement_s.median
    sim.run(100)
    orch = Orchestrator(sim, load_runbooks([tmp_path]))
    orch.handle("hang", diag("node_hang", job.nodes[3]))
    sim.run(110)
    swap = next(a for a in orch.actions_for("hang") if a["action"] == "swap_spare")
    assert swap["status"] == "failed" and "self-check" in swap["detail"]["reason"]
    ticket = next(f for f in orch.follow_ups("hang") if f["type"] == "ticket" and f["component"] == spare)
    assert ticket["kind"] == "inspect" and ticket["closed_at_s"] is None and spare not in sim.control.spares
    sim.run(100 + repair_s - 60)
    assert spare not in sim.control.spares  # still with the technician
    sim.run(100 + repair_s + 60)
    assert spare in sim.control.spares
    ticket = next(f for f in orch.follow_ups("hang") if f["type"] == "ticket" and f["component"] == spare)
    assert ticket["closed_at_s"] == pytest.approx(100 + repair_s)
    fix = next(a for a in orch.actions_for("hang") if a["action"] == "replace_part" and a["target"] == spare)
    assert fix["status"] == "succeeded" and fix["kind"] == "followup"
    back = next(f for f in orch.follow_ups("hang") if f["type"] == "returned_to_spares")
    assert back["component"] == spare and "self-check" in back["how"]
