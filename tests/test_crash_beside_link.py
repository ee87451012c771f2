"""A link failing on one node in the same second as another node crashes is found and recovered on its own.

Before (tester K, ``link-down-missed-beside-crash``): the link's down shared an L2 chip with one of the crashed
node's links, so it joined the crash's incident; that incident was diagnosed as the crash (a duplicate of the
crash's own incident) and only a node dark on two or more L1 chips was split off, so the link was scored missed,
never rerouted or isolated, and the run passed."""

from __future__ import annotations

from typing import Any

from tests.test_mass_crash import PLANES, _by_most_dark, _down, _run, _uplink

LINK = "pod0/node36/l1sw2~pod0/l2plane2/sw05"
CRASH = [_uplink(38, p, chip) for p in range(PLANES) for chip in (0, 5)]  # node38's links, one on LINK's L2 chip


def test_a_link_of_another_node_beside_a_crash_is_an_incident_of_its_own() -> None:
    for order in ([LINK, *CRASH], [*CRASH, LINK]):  # whichever report arrives first
        det = _run([_down(600.0, ln) for ln in order], _by_most_dark("node_crash"))
        scopes = sorted((sorted(i.nodes), len(i.signals)) for i in det.incidents)
        assert scopes == [(["pod0/node36"], 1), (["pod0/node38"], len(CRASH))], scopes


def test_what_a_root_node_failure_does_not_explain() -> None:
    from opsbrain.detection.detector import unexplained_nodes

    root = "pod0/node38"
    assert unexplained_nodes(root, [*CRASH, LINK]) == ["pod0/node36"]  # a lone link on another node
    wholly = [_uplink(11, p) for p in range(PLANES)]
    assert unexplained_nodes(root, [*CRASH, *wholly]) == ["pod0/node11"]  # another node dark on all its L1 chips
    chip = [_uplink(n, 2, chip=9) for n in range(20)]  # one L2 chip's links of many nodes: the chip's event
    assert unexplained_nodes(root, [*CRASH, *chip]) == []
    assert unexplained_nodes(root, CRASH) == []


SCENARIO = f"""\
apiVersion: opsbrain/v1
kind: ChaosScenario
metadata: {{name: link-beside-crash, description: a link goes down on node36 as node38 crashes}}
spec:
  duration: 3600
  seed: 5
  noise: false
  topology: {{pods: 1, spares: 2}}
  workloads:
    - {{name: train, kind: training, first_node: 32, nodes: 14}}
  faults:
    - {{at: 600, kind: node_crash, target: pod0/node38}}
    - {{at: 600, kind: link_down, target: {LINK}}}
"""


def test_the_link_is_diagnosed_and_taken_out_of_service(tmp_path: Any) -> None:
    from opsbrain import chaos
    from opsbrain.scenario.loader import load_scenario
    from opsbrain.scenario.plan import build_plan

    path = tmp_path / "s.yaml"
    path.write_text(SCENARIO)
    sc, p = load_scenario(str(path))
    j = chaos.run(build_plan(sc, str(p)))
    faults = {i["injected"]["kind"]: i for i in j["incidents"] if i["injected"]}
    link = faults["link_down"]
    assert link["detected_at_s"] is not None and link["correct"], link["diagnosis"]
    done = {(a["action"], a["target"]) for a in link["actions"] if a["status"] == "succeeded"}
    assert ("isolate_link", LINK) in done, done
    assert faults["node_crash"]["correct"]


def test_a_workload_report_is_a_consequence_only_while_a_fault_hurts_its_workload() -> None:
    from opsbrain.runner.scoring import consequence_of

    train = {f"pod0/node{n}" for n in range(32, 46)}
    harms = [("f1", 600.0, 668.4, train), ("f2", 660.0, 668.4, train)]
    assert consequence_of({"pod0/node32"}, 663.8, harms) == "f2"  # the fault that began last before it
    assert consequence_of({"pod0/node32"}, 630.0, harms) == "f1"
    assert consequence_of({"pod0/node32"}, 700.0, harms) is None  # its workloads had recovered: noise
    assert consequence_of({"pod0/node3"}, 663.8, harms) is None  # not a workload the faults touched
    assert consequence_of({"pod0/node32"}, 599.0, harms) is None  # before any fault


def test_a_failed_restarts_collective_error_is_the_link_faults_consequence_not_a_false_positive(
        tmp_path: Any) -> None:
    """The link goes down while the crash's restart is under way: the restart fails and rank 0 prints EI0006 (a
    socket set-up timeout); its incident names rank 0's NPU, not the link, and was scored a false positive."""
    from opsbrain import chaos
    from opsbrain.scenario.loader import load_scenario
    from opsbrain.scenario.plan import build_plan

    path = tmp_path / "s60.yaml"
    path.write_text(SCENARIO.replace("{at: 600, kind: link_down", "{at: 660, kind: link_down"))
    sc, p = load_scenario(str(path))
    j = chaos.run(build_plan(sc, str(p)))
    link = next(i for i in j["incidents"] if i["injected"] and i["injected"]["kind"] == "link_down")
    others = [i for i in j["incidents"] if not i["injected"]]
    assert any(i.get("consequence_of") == link["id"] for i in others), others
    assert not [i for i in others if i["false_positive"]]
    assert j["summary"]["false_positives"] == 0


def test_a_consequence_is_no_noise_incident_in_a_campaigns_record() -> None:
    from opsbrain.campaign.summary import seed_record

    journal = {"seed": 0, "policy": "auto", "incidents": [
        {"injected": None, "consequence_of": "f0002", "false_positive": False, "actions": []},
        {"injected": None, "false_positive": True, "actions": []}]}
    rec = seed_record(journal)
    assert rec["noise_incidents"] == 1 and rec["false_positives"] == 1
