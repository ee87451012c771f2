"""One list of journal steps that change nothing in the plant (opsbrain.verdict.NO_ACTION) for the run report's
taken/skipped/watch split and the tenant campaign's actions on each tenant's parts (session 44's second read: the
tenant campaign kept its own copy, which missed orch44b's ``waiting_for_spare`` and counted a paged claim as an
action on the pod)."""

import inspect

from opsbrain.ops import tenant_run
from opsbrain.report.response import step_kind
from opsbrain.verdict import took_action


def test_a_paged_claim_on_a_spare_is_no_action_on_the_plant() -> None:
    claim = {"action": "waiting_for_spare", "target": "pod0", "status": "succeeded", "kind": "step"}
    assert not took_action(claim) and step_kind(claim) == "watch"


def test_taken_skipped_and_watching_steps() -> None:
    assert took_action({"action": "reboot_node", "status": "failed", "kind": "retry"})
    assert step_kind({"action": "reboot_node", "status": "failed", "kind": "retry"}) == "taken"
    assert not took_action({"action": "reboot_node", "status": "skipped", "kind": "step"})
    assert not took_action({"action": "isolate_node", "status": "failed", "kind": "guardrail"})
    assert not took_action({"action": "page", "status": "succeeded", "kind": "step"})


def test_the_tenant_campaign_uses_the_one_list() -> None:
    assert not hasattr(tenant_run, "WATCH_ACTIONS")
    assert "took_action(a)" in inspect.getsource(tenant_run.run_campaign)
