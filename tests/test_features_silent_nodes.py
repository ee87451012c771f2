"""Whether a node's host still reports reaches the features: a failed L1 switch chip takes one plane's links of a
node down while the host and its chips keep reporting; a crashed host stops them all (issue 15: held-out
l1_switch_failure incidents without their device-os lines were read as node_crash)."""

from __future__ import annotations

from faultlib.injection.spec import FaultSpec
from faultlib.topology import Topology
from opsbrain.controller import Controller
from opsbrain.diagnosis.features import SILENT_AFTER_S, incident_features
from opsbrain.ingest import Signal
from opsbrain.kb import cases as case_lib
from opsbrain.kb.cases import Recorder

NODE = "pod0/node40"
LINK = NODE + "/l1sw3~pod0/l2plane3/sw05"


def _down(t: float) -> Signal:
    return Signal(t, "port:down", LINK, "pod0/l2plane3/sw05", 2, "")


def _ages(silent: set[str]) -> object:
    def metric(name: str, comp: str) -> float | None:
        if name != "npu_heartbeat_age_s" or not comp.startswith(NODE + "/npu") or int(comp.rsplit("npu", 1)[1]) > 7:
            return None
        return 2 * SILENT_AFTER_S if comp in silent else 0.0
    return metric


def test_a_node_is_silent_only_when_none_of_its_chips_reports() -> None:
    every = {f"{NODE}/npu{k}" for k in range(8)}
    assert round(incident_features([_down(10.0)], 12.0, metric=_ages(every))["silent_nodes"], 4) == 0.6931
    assert "silent_nodes" not in incident_features([_down(10.0)], 12.0, metric=_ages(every - {NODE + "/npu5"}))
    assert "silent_nodes" not in incident_features([_down(10.0)], 12.0, metric=_ages(set()))
    assert "silent_nodes" not in incident_features([_down(10.0)], 12.0, metric=lambda n, c: None)
    assert "silent_nodes" not in incident_features([_down(10.0)], 12.0)  # pasted text: no metrics


def _final_features(kind: str, target: str) -> dict[str, float]:
    sim = case_lib.build_world(5, Topology.build())
    rec = Recorder()
    Controller(sim, rec)
    sim.inject(FaultSpec(at_s=600.0, kind=kind, target=target))
    sim.run(660.0)
    mine = [(inc, feats) for inc, _now, feats, sigs in rec.moments if any(NODE in (s.component or "") for s in sigs)]
    assert mine, f"{kind}: no incident about {NODE}"
    return mine[-1][1]


def test_a_crashed_host_goes_silent_and_a_failed_l1_chip_leaves_it_reporting() -> None:
    crash = _final_features("node_crash", NODE)
    l1 = _final_features("l1_switch_failure", NODE + "/l1sw3")
    assert crash.get("silent_nodes", 0.0) > 0
    assert "silent_nodes" not in l1
    assert l1["planes_on_busiest_node"] == 1.0 and crash["planes_on_busiest_node"] == 7.0
