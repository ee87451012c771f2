"""Volcano's scheduler-cache warning at ordinary pod deletions is no fault (session 48, tester48k; the scheduler-filter
readings of the same helper were taken out by the lead with the session's knowledge-base changes: they needed
signatures of their own, and the refit those need was reverted, docs/validation.md "Session 48: the lead's changes").

Volcano's scheduler cache warns ``failed to find task <ns/pod> on host <node>`` (pkg/scheduler/api/node_info.go
``RemoveTask``; wrapped by event_handlers.go as ``Failed to delete task: errors:  1: ...``) at ordinary pod deletions:
volcano#1325 and volcano#4649 report it on every ``kubectl delete``, and later Volcano turns the error into a
warning that returns nil. It is no fault (opsbrain.ingest.benign).
"""

from __future__ import annotations

import io
from typing import Any

import pytest

from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.ingest.benign import BENIGN
from opsbrain.ingest.parsers import parse_line
from tests.textviews import view_of

# https://github.com/volcano-sh/volcano/issues/1325
DELETE = ("W0222 08:15:02.513373       1 event_handlers.go:169] Failed to delete task: errors:  1: failed to find task "
          "<default/tfjob-0-ps-0> on host <192.168.0.112>")
# https://github.com/volcano-sh/volcano/issues/4649
DELETE_NEW = ("W0925 07:16:56.576685    1698 node_info.go:466] failed to find task <default/nginx2-67755588bf-pkfhp> "
              "on host <k3d-volcano-dev-agent-2>")
DELETES = "\n".join([
    "I0222 08:15:02.508041       1 event_handlers.go:222] Updated pod <default/tfjob-0-worker-2> in cache.",
    DELETE,
    "I0222 08:15:02.513386       1 event_handlers.go:252] Deleted pod <default/tfjob-0-ps-0> from cache.",
    "W0222 08:15:02.525893       1 event_handlers.go:169] Failed to delete task: errors:  1: failed to find task "
    "<default/tfjob-0-worker-2> on host <192.168.0.104>",
    "I0222 08:15:02.525908       1 event_handlers.go:252] Deleted pod <default/tfjob-0-worker-2> from cache.",
]) + "\n"


@pytest.mark.parametrize("line", [DELETE, DELETE_NEW])
def test_volcano_cache_warning_is_benign(line: str) -> None:
    assert BENIGN.search(line)
    assert [s.kind for s in parse_line(line)] == []
    assert view_of(line).failing == 0


def test_volcano_deletions_read_no_fault(engine: Any) -> None:
    d = diagnose_logs("-", engine, stdin=io.BytesIO(DELETES.encode()))["diagnosis"]
    assert d["fault_class"] == "unknown", (d["fault_class"], d["confidence"])


@pytest.mark.parametrize("line", [
    # volcano#1226: a task lost with its node (in job, not on host) restarted a finished task: not this warning
    "W0301 09:22:01.163217       1 event_handlers.go:169] Failed to delete task: errors:  1: failed to find task "
    "<dev-env/greg---bug-repro-2021-03-01-00-52-20-task-2> in job <dev-env/greg---bug-repro-2021-03-01-00-52-20>",
    "E0301 09:22:01.153302       1 event_handlers.go:218] Failed to update pod greg---bug-repro-2021-03-01-00-52-20-"
    "task-2 in cache: node <ip-10-70-40-48.us-west-2.compute.internal> does not exist",
])
def test_other_volcano_cache_errors_are_not_benign(line: str) -> None:
    assert not BENIGN.search(line)
