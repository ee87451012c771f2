"""Kubernetes-side lines of NPU jobs (session 48, tester48k).

The NPU scheduler's filter names a configuration that does not fit: MindX DL's Volcano plugin reports a task whose
node selector (``host-arch``, ``accelerator-type`` ...) no node carries as ``no matching label on this node`` (the
plugin's ``nodeNoFitSelectorError``; the MindX DL guide's vcjob status example, where the job fails on it), and the
HAMi scheduler files a node that cannot run the vNPU mode the pod asks for under the reason ``ModeNotFit``
(Project-HAMi/HAMi pkg/device/ascend/device.go ``Fit``: hami-core requested on a node where it is not enabled;
HAMi#1945). Both are ``config_error`` evidence, secondary: a pod that stays Pending for them waits on its own spec
(the class answer then rests on the engine and the text model, refit by the lead; only the readings are tested).

Volcano's scheduler cache warns ``failed to find task <ns/pod> on host <node>`` (pkg/scheduler/api/node_info.go
``RemoveTask``; wrapped by event_handlers.go as ``Failed to delete task: errors:  1: ...``) at ordinary pod deletions:
volcano#1325 and volcano#4649 report it on every ``kubectl delete``, and later Volcano turns the error into a
warning that returns nil. It is no fault (opsbrain.ingest.benign).
"""

from __future__ import annotations

import io
from typing import Any

import pytest

from opsbrain.diagnosis.knowledge import default_table
from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.ingest.benign import BENIGN
from opsbrain.ingest.parsers import parse_line
from tests.textviews import view_of

# https://www.hiascend.com/doc_center/source/zh/mindx-dl/30rc3/dluserguide/dlug/dlug_000176.html (查看vcjob训练任务状态)
VCJOB = ("      Reason:                all nodes are unavailable: 1 node(s) resource fit failed, 1 task(mindx-dls-npu"
         "-16p-default-1p-1) in node(ubuntu-65-157):no matching label on this node key[host-arch] : task(huawei-x86) "
         "node(huawei-arm) conf(huawei-arm|huawei-x86).")
# https://github.com/Project-HAMi/HAMi/issues/1941
MODE = "Warning  FilteringFailed   96s (x13 over 98s)  hami-scheduler  1 nodes ModeNotFit(devserver-bms-71e0dc7a)"
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


@pytest.mark.parametrize(("line", "kind"), [(VCJOB, "kube:label_mismatch"), (MODE, "kube:vnpu_mode_mismatch")])
def test_scheduler_filter_lines(line: str, kind: str) -> None:
    assert kind in [s.kind for s in parse_line(line)]


def test_scheduler_filter_kinds_support_config_error() -> None:
    t = default_table()
    for kind in ("kube:label_mismatch", "kube:vnpu_mode_mismatch"):
        assert t.of(kind) == [("config_error", "secondary")]


@pytest.mark.parametrize("line", [
    "node(ubuntu-65-157): insufficient npus on the schedulable nodes in cluster",  # capacity, not a label
    "1 nodes CardInsufficientMemory(devserver-bms-71e0dc7a)",
    "ModeNotFitted is not a HAMi reason",
])
def test_other_scheduler_reasons_are_not_config(line: str) -> None:
    kinds = [s.kind for s in parse_line(line)]
    assert "kube:label_mismatch" not in kinds and "kube:vnpu_mode_mismatch" not in kinds


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
