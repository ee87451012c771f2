"""The recovery policies a run can use: one list for the CLI's ``--policy``, the scenario and campaign specs, the
orchestrator and the journal's JSON Schema, so none of them accepts a policy another refuses."""

from __future__ import annotations

from typing import Literal

POLICIES = ("auto", "manual", "vendor-default")
"""opsbrain's runbooks, a person with a pager, MindCluster's out-of-the-box handling."""
Policy = Literal["auto", "manual", "vendor-default"]
