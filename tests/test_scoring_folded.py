"""Faults folded into one incident are each detected by it (tester T, s4 / s9), and a fault that touches no
workload is recovered only when its part is back in service or isolated and routed around (s12)."""

from __future__ import annotations

from pathlib import Path

import pytest

from opsbrain.runner import scoring
from opsbrain.verdict import incident_outcome
from tests.test_scoring_impact import _run, _write

L2 = "pod0/l2plane2/sw05"


def link(n: int) -> str:
    return f"pod0/node{n}/l1sw2~{L2}"


def test_links_folded_into_one_incident_are_each_covered_with_their_own_detection_time() -> None:
    faults = [("f1", "link_down", link(22), 600.0, 600.0), ("f2", "link_down", link(23), 600.125, 600.125),
              ("f3", "link_down", link(24), 600.25, 600.25), ("f4", "link_down", link(40), 600.25, 600.25)]
    sigs = [(600.0, link(22)), (600.0, "pod0/node22"), (600.125, link(23)), (600.25, link(24))]
    inc = ("i1", 600.0, 603.0, {link(22), link(23), link(24), "pod0/node22", "serve/decode0"}, sigs)
    cov = scoring.covered_faults(faults, [inc], 3600.0, skip={"f1"})
    assert cov == {"f2": ("i1", pytest.approx(603.125)), "f3": ("i1", pytest.approx(603.25))}  # f4: not named


def test_a_fault_alive_when_the_incident_opened_is_detected_at_its_opening() -> None:
    faults = [("f1", "link_down", link(22), 599.5, 599.5), ("f2", "link_down", link(23), 599.0, 599.0)]
    inc = ("i1", 600.0, 603.0, {link(22), link(23)}, [(600.0, link(22)), (600.0, link(23))])
    assert scoring.covered_faults(faults, [inc], 3600.0, skip={"f1"}) == {"f2": ("i1", 603.0)}


def test_a_nodes_own_line_does_not_cover_each_link_of_the_node() -> None:
    faults = [("f1", "link_down", link(32), 601.25, 601.25)]
    inc = ("i1", 601.0, 604.0, {"pod0/node32", "train"}, [(601.5, "pod0/node32"), (601.0, "train")])
    assert scoring.covered_faults(faults, [inc], 3600.0, skip=set()) == {}


def test_a_second_uce_on_the_same_hbm_is_covered_only_by_a_signal_after_its_onset() -> None:
    hbm, npu = "pod0/node3/npu1/hbm", "pod0/node3/npu1"
    faults = [("f1", "hbm_uce", hbm, 600.0, 600.0), ("f2", "hbm_uce", hbm, 601.0, 601.0)]
    before = ("i1", 600.0, 603.0, {npu}, [(600.0, npu), (600.5, npu)])
    assert scoring.covered_faults(faults, [before], 3600.0, skip={"f1"}) == {}
    after = ("i1", 600.0, 603.0, {npu}, [(600.0, npu), (601.5, npu)])
    assert scoring.covered_faults(faults, [after], 3600.0, skip={"f1"}) == {"f2": ("i1", 604.5)}


def test_a_later_fault_on_the_same_part_owns_its_own_signals() -> None:
    faults = [("f1", "link_flap", link(22), 100.0, 110.0), ("f2", "link_flap", link(22), 900.0, 910.0)]
    inc = ("i1", 900.0, 903.0, {link(22)}, [(900.0, link(22)), (905.0, link(22))])
    assert scoring.covered_faults(faults, [inc], 86400.0, skip={"f2"}) == {}


def test_a_part_without_workload_recovers_when_back_in_service_or_isolated_and_routed_around() -> None:
    down = [(300.0, "failed", "fault:f1")]
    assert scoring.back_in_service("f1", 300.0, down, [], link=True, end=900.0) == (True, None)  # still dark
    assert scoring.back_in_service("f1", 300.0, down + [(500.0, "healthy", "replace_part")], [], link=True,
                                   end=900.0) == (True, 500.0)
    iso = down + [(310.0, "isolated", "isolate_link")]
    assert scoring.back_in_service("f1", 300.0, iso, [], link=True, end=900.0) == (True, None)  # not routed around
    assert scoring.back_in_service("f1", 300.0, iso, [318.0], link=True, end=900.0) == (True, 318.0)
    assert scoring.back_in_service("f1", 300.0, iso, [], link=False, end=900.0) == (True, 310.0)
    assert scoring.back_in_service("f1", 300.0, [], [], link=True, end=900.0) == (False, None)  # never took it out


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPSBRAIN_HOME", str(tmp_path / "home"))


def test_24_link_downs_on_one_l2_chip_are_all_detected_and_the_decode_restart_is_their_consequence(
        tmp_path: Path) -> None:
    j = _run(_write(tmp_path, "many-links", {
        "duration": 3600, "seed": 2, "policy": "auto", "topology": {"pods": 1, "spares": 2},
        "workloads": [{"name": "serve", "kind": "inference", "first_node": 0},
                      {"name": "train", "kind": "training", "first_node": 32, "nodes": 14}],
        "faults": [{"at": 600.0 + 0.125 * k, "kind": "link_down", "target": link(22 + k)} for k in range(24)]}))
    faults = [i for i in j["incidents"] if i["injected"]]
    assert j["summary"]["detected"] == 24
    assert all(f["ttd_s"] is not None and f["ttd_s"] >= 0 for f in faults)
    folded = [f for f in faults if f.get("covered_by")]
    assert len(folded) >= 20 and all(not f["incident_ids"] for f in folded)
    assert all(incident_outcome(f)[0] != "missed" for f in faults)
    assert all(f["covered_by"] in incident_outcome(f)[0] for f in folded if not f["correct"])
    assert j["summary"]["false_positives"] == 0
    restart = [i for i in j["incidents"] if not i["injected"] and any(
        a["action"] == "restart_process" and a["target"].startswith("serve") for a in i["actions"])]
    assert restart and all(i.get("consequence_of") for i in restart)


def test_a_link_left_dark_on_a_node_without_workload_is_not_recovered(tmp_path: Path) -> None:
    j = _run(_write(tmp_path, "dark-link", {
        "duration": 900, "seed": 1, "noise": False, "topology": {"pods": 1, "spares": 2},
        "workloads": [{"name": "train", "kind": "training", "first_node": 32, "nodes": 14}],
        "faults": [{"at": 300, "kind": "link_down", "selector": {"node": 3}, "mode": "all"}]}))
    faults = [i for i in j["incidents"] if i["injected"]]
    assert faults and all(not f["affected_workloads"] for f in faults)
    still_down = [f for f in faults if not any(a["action"] in ("isolate_link", "restore_link", "replace_part")
                                               and a["status"] == "succeeded" for a in f["actions"])]
    assert still_down and all(f["ttr_s"] is None for f in still_down)


def test_the_part_index_finds_what_covers_accepts() -> None:
    comps = [link(22), link(23), "pod0/node22", "pod0/node3/npu1", "pod0/node3/npu1/hbm", L2, "serve/decode0",
             "pod0/node22/l1sw2", "pod0/node3"]
    idx = scoring.PartIndex((c, c) for c in comps)
    for target in [*comps, "pod0/node3/npu1/hbm", "pod0/node3/npu1/die0", "pod0/node22/qingtian", link(40)]:
        assert idx.naming(target) == sorted(c for c in comps if scoring.covers(target, {c})), target
