"""Several nodes failing in the same second (a rack losing power): each is its own incident, found, localized and
recovered; one training job losing several nodes restarts once, with every spare taken for it, when all its nodes
can take their ranks.

Before (session 26, helper D's mass-crash scenario): 14 nodes crashing at once shared every L2 chip, so their
link-downs opened one incident: one node was diagnosed and 13 faults were scored missed; two training nodes of one
rack crashing together left the second node missed and the job down for 2,700 s."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from opsbrain.detection import Detector, DetectorParams, Incident
from opsbrain.ingest import Signal
from opsbrain.runner.scoring import match_incidents
from opsbrain.verdict import Diagnosis

PLANES = 7


def _uplink(node: int, plane: int, chip: int = 3) -> str:
    return f"pod0/node{node}/l1sw{plane}~pod0/l2plane{plane}/sw{chip:02d}"


def _down(t: float, link: str) -> Signal:
    chip = link.split("~")[1]
    return Signal(t, "port:down", link, chip, 2, f"port down {link}")


def _run(signals: list[Signal], diagnose: Any) -> Detector:
    """Feed ``signals`` in order through a detector on a manual clock; fire every timer after."""
    now = [0.0]
    timers: list[tuple[float, int, Any]] = []
    order = itertools.count()  # a tie-break that never repeats (a timer's index does once timers were fired)

    def schedule(delay: float, fn: Any) -> None:
        timers.append((now[0] + delay, next(order), fn))

    det = Detector(DetectorParams(reorder_s=0.0), lambda: now[0], schedule, diagnose, {})
    for s in signals:
        now[0] = s.t
        det.feed(s)
    while timers:
        due = min(timers)
        timers.remove(due)
        now[0] = max(now[0], due[0])
        due[2]()
    return det


def _by_most_dark(cls: str) -> Any:
    """A diagnoser that names ``cls`` at the node with the most dark links (the engine's node rule)."""
    def diagnose(inc: Incident) -> None:
        counts: dict[str, int] = {}
        for s in inc.signals:
            node = "/".join((s.component or "").split("/")[:2])
            counts[node] = counts.get(node, 0) + 1
        root = max(sorted(counts), key=lambda n: counts[n])
        inc.diagnoses.append(Diagnosis(cls, root, 0.7))
    return diagnose


def test_nodes_going_dark_in_the_same_second_are_an_incident_each() -> None:
    sigs = [_down(600.0, _uplink(n, p, chip)) for n in (3, 11, 40) for p in range(PLANES) for chip in (0, 5)]
    det = _run(sigs, _by_most_dark("node_crash"))
    roots = sorted(inc.diagnosis.component for inc in det.incidents if inc.diagnosis)
    assert roots == ["pod0/node11", "pod0/node3", "pod0/node40"]
    for inc in det.incidents:
        assert inc.nodes == {inc.diagnosis.component}  # each holds only its own node's link-downs
        assert len(inc.signals) == PLANES * 2
    assert [i.opened_at for i in det.incidents] == sorted(i.opened_at for i in det.incidents)


def test_an_l2_chips_failure_is_not_split_by_node() -> None:
    """One chip's links from many nodes: one dark link per node, never two L1 chips of one node."""
    sigs = [_down(600.0, _uplink(n, 2, chip=9)) for n in range(48)]
    det = _run(sigs, _by_most_dark("node_crash"))  # even if a diagnosis named a node, no node is wholly dark
    assert len(det.incidents) == 1 and len(det.incidents[0].signals) == 48


def test_only_a_whole_node_diagnosis_splits() -> None:
    sigs = [_down(600.0, _uplink(n, p)) for n in (3, 11) for p in range(PLANES)]
    det = _run(sigs, _by_most_dark("l1_switch_failure"))
    assert len(det.incidents) == 1


def test_equally_near_faults_go_to_the_one_the_diagnosis_names() -> None:
    """Survivors' complaints name every crashed node, so an incident is about several faults of the same onset:
    the one its root names is taken, not the lowest fault id."""
    faults = [("f1", "node_crash", "pod0/node3", 600.0, None), ("f2", "node_crash", "pod0/node11", 600.0, None)]
    comps = {_uplink(11, 0), "pod0/node3/npu2"}
    assert match_incidents(faults, [("i1", 600.0, comps)], 3600.0) == {"i1": "f1"}
    assert match_incidents(faults, [("i1", 600.0, comps)], 3600.0, roots={"i1": "pod0/node11"}) == {"i1": "f2"}
    assert match_incidents(faults, [("i1", 600.0, comps)], 3600.0, roots={"i1": "pod0/node20"}) == {"i1": "f1"}


RACK = """\
apiVersion: opsbrain/v1
kind: ChaosScenario
metadata:
  name: rack-pair
  description: two training nodes of one rack lose power in the same second
spec:
  duration: 2400
  seed: 7
  topology:
    spares: 2
  workloads:
  - name: train
    kind: training
    first_node: 32
    nodes: 14
  steady_state:
    probes:
    - name: step
      metric: step_rate
      workload: train
      op: '>='
      of_baseline: 0.95
    tolerance_s: 300
  faults:
  - at: 600
    kind: node_crash
    target: pod0/node38
    params:
      cause: power loss
  - at: 600
    kind: node_crash
    target: pod0/node39
    params:
      cause: power loss
"""


@pytest.fixture(scope="module")
def rack_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path]:
    from opsbrain import chaos
    from opsbrain.scenario.loader import load_scenario
    from opsbrain.scenario.plan import build_plan

    d = tmp_path_factory.mktemp("rack")
    path = d / "rack.yaml"
    path.write_text(RACK)
    sc, p = load_scenario(str(path))
    bundles = d / "bundles"
    return chaos.run(build_plan(sc, str(p)), bundle_dir=bundles), bundles


def test_two_nodes_of_one_job_are_each_found_and_the_job_restarts_once_with_both_spares(
        rack_run: tuple[dict[str, Any], Path]) -> None:
    j, _ = rack_run
    faults = [i for i in j["incidents"] if i["injected"]]
    assert [(f["injected"]["component"], f["correct"]) for f in faults] == [("pod0/node38", True),
                                                                          ("pod0/node39", True)]
    assert all(f["ttr_s"] is not None and f["ttr_s"] < 600 for f in faults), [f["ttr_s"] for f in faults]
    restarts = [a for f in faults for a in f["actions"] if a["action"] == "restart_job" and a["status"] == "succeeded"]
    ran = [a for a in restarts if not a["detail"].get("joined")]
    assert len(ran) == 1  # one restart brought both spares in; the other incident's joined it
    assert not [a for f in faults for a in f["actions"] if a["action"] == "restart_job" and a["status"] == "failed"]
    assert j["verdict"] == "passed"


def test_the_bundles_read_back_to_one_incident_per_node(rack_run: tuple[dict[str, Any], Path]) -> None:
    from opsbrain.bundle import diagnose_bundle
    from opsbrain.kb.training import load_engine

    j, bundles = rack_run
    where = {b["incident"]: b["bundle"] for b in j["bundles"]}  # (folders are b0001, ...: they name no fault)
    for f in (i for i in j["incidents"] if i["injected"]):
        rep = diagnose_bundle(bundles / where[f["id"]], load_engine())
        roots = {(i["diagnosis"] or {}).get("component") for i in rep["incidents"]
                 if (i["diagnosis"] or {}).get("fault_class") == "node_crash"}
        assert {"pod0/node38", "pod0/node39"} <= roots, roots
