"""A pod that waited Pending and was then bound to a node is no fault (session 51, tester51g).

kube-scheduler records a Warning event ``FailedScheduling`` whose message is the FitError's ``0/N nodes are available:
...`` (``preemption: ...`` after it since 1.24) each time it cannot place a pod, and the Normal event ``Scheduled``,
``Successfully assigned NS/POD to NODE``, once it binds it (kubernetes pkg/scheduler/schedule_one.go,
``handleSchedulingFailure`` and ``bindingCycle``). HAMi's lab 20 (Kylin V10, two Ascend 310P3, DRA) keeps a pod
Pending for 133 minutes by design until a claim is released, then it is scheduled and starts; before this change that
excerpt read framework_error 0.50 from the text model:
https://github.com/Project-HAMi/website/blob/master/tutorials/labs/ascend-hami-dra.md (step 9).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from opsbrain.diagnosis.realtext import excerpt_view
from opsbrain.ingest.recovered import may_recover, recovered_in

# HAMi website, tutorials/labs/ascend-hami-dra.md, step 9 "Exhaust Capacity, Release, and Reallocate" (verbatim lines)
WAITED = """\
NAME            READY   STATUS    RESTARTS   AGE
ascend-share-c  0/1     Pending   0          133m
  Warning  FailedScheduling  3m3s (x27 over 133m)  default-scheduler
  0/1 nodes are available: 1 cannot allocate all claims. still not schedulable,
  preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.
NAME                                           STATE                AGE
dra-ascend-e2e-ascend-share-b-app-ascend310p   allocated,reserved   164m
dra-ascend-e2e-ascend-share-c-app-ascend310p   allocated,reserved   143m   # pending to allocated
  Warning  FailedScheduling  3m42s (x29 over 143m)  default-scheduler  (29 prior refusals)
  Normal   Scheduled         18s   default-scheduler
  Successfully assigned dra-ascend-e2e/ascend-share-c to aio-node74-arm
  Normal   Started           16s   kubelet  Container started
"""

# mindwm/mindwm-gitops#31 (kubectl describe pod of a pod that stayed Pending: no Scheduled event follows)
NEVER_PLACED = """\
team-a-neo4j-0 0/1 Pending 0 12m
Warning FailedScheduling 12m default-scheduler 0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.
Warning FailedScheduling 11m (x2 over 11m) default-scheduler 0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.
"""  # noqa: E501

# kubectl get events names each event's pod: gist hram/510ff00e3673d0d129368edfa7589af8 (a pod that stayed Pending,
# its columns as the gist's page shows them), then the lab's Scheduled event of another pod
OTHER_POD = """\
118m Warning FailedScheduling pod/default-062c502e-59a6-45c5-97d6-cec3f8c6d3ab-d9f8d89-2886g 0/3 nodes are available: 3 Insufficient memory.
  Successfully assigned dra-ascend-e2e/ascend-share-c to aio-node74-arm
"""  # noqa: E501


def test_a_wait_that_ended_in_a_bind_gives_no_signal() -> None:
    assert may_recover(WAITED.encode())
    assert recovered_in(WAITED.splitlines()) == {3, 4, 5, 9}
    view = excerpt_view(WAITED)
    assert "nodes are available" not in view and "FailedScheduling" not in view
    assert "Successfully assigned" in view


def test_only_a_bind_of_the_waiting_pod_ends_the_wait() -> None:
    assert recovered_in(NEVER_PLACED.splitlines()) == set()  # no bind: the events keep their reading
    assert "Insufficient cpu" in excerpt_view(NEVER_PLACED)
    assert recovered_in(OTHER_POD.splitlines()) == set()
    # (the same two lines with the bind naming the waiting pod: a variant made here, not a quoted log)
    named_same = OTHER_POD.replace(
        "dra-ascend-e2e/ascend-share-c", "default/default-062c502e-59a6-45c5-97d6-cec3f8c6d3ab-d9f8d89-2886g")
    assert recovered_in(named_same.splitlines()) == {1}


def test_the_labs_excerpt_raises_no_alarm(tmp_path: Path, engine: Any) -> None:
    from opsbrain.diagnosis.oneclick import diagnose_logs

    f = tmp_path / "waited.log"
    f.write_text(WAITED)
    assert diagnose_logs(str(f), engine)["diagnosis"]["fault_class"] in ("unknown", None)


# review51: ``kubectl describe pods`` of two pods (made here in kubectl's describe layout, "Name:" then the Events
# table, kubectl pkg/describe/describe.go; the FailedScheduling message is the one NEVER_PLACED quotes, with an NPU
# resource): the first stayed Pending, the second was bound. The FailedScheduling rows name no pod: the account's
# Name: says whose they are.
DESCRIBED_TWO = """\
Name:             ascend-train-0
Namespace:        default
Status:           Pending
Events:
  Type     Reason            Age   From               Message
  ----     ------            ----  ----               -------
  Warning  FailedScheduling  2m    default-scheduler  0/2 nodes are available: 2 Insufficient huawei.com/Ascend910. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.

Name:             ascend-infer-0
Namespace:        default
Status:           Running
Events:
  Type    Reason     Age   From               Message
  ----    ------     ----  ----               -------
  Normal  Scheduled  5m    default-scheduler  Successfully assigned default/ascend-infer-0 to node-a
"""  # noqa: E501


def test_another_described_pods_bind_ends_no_wait() -> None:
    assert recovered_in(DESCRIBED_TWO.splitlines()) == set()  # before: {7}, the other pod's bind took it
    assert "Insufficient huawei.com/Ascend910" in excerpt_view(DESCRIBED_TWO)
    # the same account's own bind still ends its wait
    own = DESCRIBED_TWO.replace("default/ascend-infer-0", "default/ascend-train-0")
    assert recovered_in(own.splitlines()) == {7}
