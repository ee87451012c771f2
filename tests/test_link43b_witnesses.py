"""A rank that reports a collective's wait is a witness of the fault, not its subject (session 43, link43b).

When a node crashes, the ranks of its decode instance on the other nodes print their notify-wait timeouts (HCCL's
task exception, EI0002 or its error-code message, msg:comm_timeout), each line naming the node of the rank that
printed it. The case labeller and the journal's scorer counted those nodes as named by the incident, so a concurrent
fault on a reporting node could take the crash's incident (held-out run 1000087: the crash of node23 labelled as a
collective_timeout_sw of node21, one of the 16 reporting nodes) or be credited as covered by it. The remote the
waits name (``hccl:remote``) and a rank's own transport or port error (the RoCE CQE error, hccl:rdma_error) still name
their subjects."""

from __future__ import annotations

from pathlib import Path

import yaml

from opsbrain.ingest import Signal
from opsbrain.runner.scoring import match_incidents, subject_components

CRASHED = "pod0/node23"
REPORTER = "pod0/node21"
LINK = f"{CRASHED}/l1sw3~pod0/l2plane3/sw09"


def _sig(t: float, kind: str, comp: str | None, sev: int = 2) -> Signal:
    return Signal(t, kind, comp, comp.split("/npu")[0] if comp else None, sev, f"{kind} {comp}")


def _crash_incident() -> list[Signal]:
    return [_sig(100.0, "os:panic", CRASHED), _sig(100.1, "port:down", LINK),
            _sig(460.0, "hccl:notify_timeout", f"{REPORTER}/npu0"),  # the wait a rank of node21 reports ...
            _sig(460.0, "hccl:remote", CRASHED, 1),  # ... naming the node it waited for
            _sig(460.0, "msg:comm_timeout", REPORTER),  # the same wait as an error-code message (ERR00100 axis)
            _sig(460.0, "hccl:EI0002", "pod0/node24/npu3")]


def test_a_node_that_only_reports_the_wait_is_not_named_by_the_incident() -> None:
    subjects = subject_components(_crash_incident())
    assert CRASHED in subjects and LINK in subjects
    assert not any(c.startswith(REPORTER) or c.startswith("pod0/node24") for c in subjects)
    # the crash at 100 s and a concurrent software hang on the reporting node 11 s later: the incident is the crash's
    faults = [("f1", "node_crash", CRASHED, 100.0, None), ("f2", "collective_timeout_sw", REPORTER, 111.0, None)]
    assert match_incidents(faults, [("i1", 470.0, subjects)], 3600.0) == {"i1": "f1"}


def test_a_ranks_own_transport_error_still_names_its_part() -> None:
    # a RoCE port down: the device event of the port's die and HCCL's error CQE on the same NPU (both ends print one)
    npu = "pod0/node5/npu3"
    sigs = [_sig(10.0, "dev:81078603", npu), _sig(40.0, "hccl:rdma_error", npu),
            _sig(40.0, "hccl:rdma_error", "pod0/node6/npu0"), _sig(40.0, "hccl:remote", "pod0/node5", 1)]
    assert {npu, "pod0/node6/npu0"} <= subject_components(sigs)


def test_an_incident_of_waits_alone_keeps_its_reporters() -> None:
    # nothing names a subject: the reporters are all the incident says (as before), not an incident about nothing
    sigs = [_sig(5.0, "hccl:notify_timeout", f"{REPORTER}/npu0"), _sig(5.0, "msg:comm_timeout", "pod0/node22")]
    assert subject_components(sigs) == {f"{REPORTER}/npu0", "pod0/node22"}


def test_held_out_run_1000087_labels_the_crash_not_the_reporting_nodes_fault() -> None:
    """The case run itself (the held-out world of seed 1000087): node23 crashes, a collective_timeout_sw hits node21
    of the same decode instance 11.8 s later, and node21's ranks are among the 16 nodes reporting the wait for node23.
    On main the incident was labelled collective_timeout_sw (node21) though nothing in it is that fault's."""
    from opsbrain.kb import cases as case_lib
    from opsbrain.kb import heldout

    seed = 1_000_087
    w = heldout.world_for(heldout.draw_values(seed))
    cases = case_lib.run_case(seed, "node_crash", case_lib.concurrent_run(seed, heldout.EVAL_CONCURRENCY),
                              w.noise_scale, world=w)
    crash = [c for c in cases if c.view == "live" and c.injected]
    assert crash and {(c.label, c.component) for c in crash} == {("node_crash", CRASHED)}


def test_the_journal_does_not_credit_a_reporting_nodes_fault_with_the_crash(tmp_path: Path) -> None:
    """The journal's scorer (runner/run.py): a decode node crashes (manual policy: the instance waits, its ranks on
    19 other nodes report the wait), a collective_timeout_sw hits one of those nodes 11 s later. On main that fault
    was 'covered' by the crash's incident (through its ranks' reports) and scored as a wrong diagnosis; nothing in
    the incident is that fault's."""
    from opsbrain import chaos

    base = yaml.safe_load((Path(__file__).parent.parent / "scenarios" / "node-crash-inference.yaml").read_text())
    spec = base["spec"]
    spec["policy"] = "manual"
    spec["faults"].append({"at": 611, "kind": "collective_timeout_sw", "target": "pod0/node20"})
    spec.pop("expectations", None)
    path = tmp_path / "witness.yaml"
    path.write_text(yaml.safe_dump(base, sort_keys=False))
    j = chaos.run(chaos.plan(str(path)))
    by_id = {i["id"]: i for i in j["incidents"]}
    crash, hang = by_id["f0001"], by_id["f0002"]
    assert crash["correct"] and crash["incident_ids"]
    assert hang.get("covered_by") is None and not hang["incident_ids"]
