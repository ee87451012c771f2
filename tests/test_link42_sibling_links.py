"""Session 42 (link42): two links of one node down at the same instant (scen41's finding 5; docs/validation.md).

The diagnosis abstained (``unknown``, ~0.34 spread over the link classes) because no training case ever had two
dark links of one node: every case run injected one fault per node. Now a share of the link-fault case runs put the
same kind on one or two more uplinks of the node (``cases.sibling_specs``), a link class names the node's other
links that went down with it (``Diagnosis.also``), and each fault of the run reads its own link from it
(``responses.own_root``). The classification itself needs the model refit on those cases (``kb train``): the
scenario test below runs once the loaded model was trained with them (its sidecar's ``sibling_links``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from faultlib import ids
from faultlib.injection.spec import FaultSpec
from faultlib.topology import Topology
from opsbrain.diagnosis.engine import Engine
from opsbrain.ingest.signal import Signal
from opsbrain.kb import cases as case_lib
from opsbrain.runner.responses import own_root

NODE = "pod0/node20"
A = f"{NODE}/l1sw2~pod0/l2plane2/sw12"
B = f"{NODE}/l1sw4~pod0/l2plane4/sw06"


def _sibling_seed(kind: str, want: bool) -> int:
    return next(s for s in case_lib.TRAIN_SEEDS if case_lib.sibling_run(s, kind, case_lib.TRAIN_WORLD.sibling_links)
                is want)


def test_a_sibling_run_fails_more_links_of_the_same_node(topo1: Topology) -> None:
    seed = _sibling_seed("link_down", True)
    first = FaultSpec(at_s=500.0, kind="link_down", target=A)
    more = case_lib.sibling_specs(seed, first, topo1, case_lib.TRAIN_WORLD)
    assert 1 <= len(more) <= case_lib.SIBLINGS_MAX
    assert {s.kind for s in more} == {"link_down"}
    assert all(ids.node_of(s.target) == NODE for s in more)
    assert len({s.target for s in more} | {A}) == len(more) + 1  # other links, each once
    assert all(500.0 <= s.at_s <= 500.0 + case_lib.SIBLING_SPREAD_S for s in more)
    # a run without siblings, and a kind that is no single link's, are the runs they always were
    assert case_lib.sibling_specs(_sibling_seed("link_down", False), first, topo1, case_lib.TRAIN_WORLD) == []
    assert case_lib.sibling_specs(seed, FaultSpec(at_s=500.0, kind="l1_switch_failure", target=f"{NODE}/l1sw2"),
                                  topo1, case_lib.TRAIN_WORLD) == []


def test_the_case_library_holds_link_downs_of_several_dark_links_of_a_node(topo1: Topology) -> None:
    cases = [c for c in case_lib.run_case(_sibling_seed("link_down", True), "link_down", topo=topo1)
             if c.injected and c.label == "link_down"]
    assert cases and max(c.features.get("dark_links", 0.0) for c in cases) >= 1.0  # log1p(2) = 1.1: two or more


class _Says:
    """A model that answers one class (the engine's plumbing, not the model, is under test)."""

    def __init__(self, cls: str) -> None:
        self.classes = [cls, "dirty_connector"]

    def proba_one(self, feats: dict[str, float]) -> list[float]:
        return [0.9, 0.1]

    def novelty(self, feats: dict[str, float]) -> float:
        return 0.0


def _two_dark() -> list[Signal]:
    return [Signal(600.0, "sw:down", ln, ln.split("~")[0], 2, "down") for ln in (A, B)]


def test_a_link_class_names_the_other_links_of_its_node() -> None:
    d = Engine(_Says("link_down")).diagnose_signals(_two_dark(), 605.0)  # type: ignore[arg-type]
    assert d.fault_class == "link_down" and {d.component, *d.also} == {A, B} and len(d.also) == 1
    assert "also" in d.as_dict() and any("other link" in e for e in d.evidence)
    c = f"{NODE}/l1sw5~pod0/l2plane5/sw01"
    healed = _two_dark() + [Signal(600.0, "port:down", A, "pod0/l2plane2/sw12", 2, "down"),  # A: the most lines
                            Signal(600.0, "sw:down", c, c.split("~")[0], 2, "down"),
                            Signal(601.0, "sw:up", c, c.split("~")[0], 0, "up")]
    d = Engine(_Says("link_down")).diagnose_signals(healed, 605.0)  # type: ignore[arg-type]
    assert (d.component, d.also) == (A, [B])  # a link back up is no link_down
    assert Engine(_Says("link_flap")).diagnose_signals(healed, 605.0).also == [B, c]  # type: ignore[arg-type]
    chip = Engine(_Says("l1_switch_failure")).diagnose_signals(_two_dark(), 605.0)  # type: ignore[arg-type]
    assert chip.also == [] and "also" not in chip.as_dict()  # one root: the chip


def test_each_fault_reads_its_own_link_from_the_diagnosis() -> None:
    d = {"fault_class": "link_down", "component": B, "also": [A], "confidence": 0.64}
    assert own_root(d, A) == d | {"component": A, "also": [B], "named_first": B}  # the journal keeps who was named
    assert own_root(d, B) is d
    assert own_root(d, f"{NODE}/l1sw5~pod0/l2plane5/sw01") is d  # a link the diagnosis does not name


SCENARIO = """\
apiVersion: opsbrain/v1
kind: ChaosScenario
metadata: {name: two-links, description: 'Two links of one training node go down at once (scen41 finding 5)'}
spec:
  duration: 3600
  seed: 117
  topology: {pods: 1, spares: 2}
  workloads:
    - {name: train, kind: training, first_node: 0, nodes: 46}
  faults:
    - {at: 600, kind: link_down, selector: {node: 20}, mode: fixed, value: 2}
  expectations:
    - {fault: 0, diagnosis: link_down}
"""


def test_two_links_of_a_node_are_each_diagnosed_link_down_at_their_own_link(tmp_path: Path) -> None:
    from opsbrain import chaos
    from opsbrain.kb.training import load_engine
    from opsbrain.scenario.loader import load_scenario
    from opsbrain.scenario.plan import build_plan

    if not load_engine().model.meta.get("sibling_links"):
        pytest.skip("the loaded diagnosis model predates the sibling-link cases: refit it (opsbrain kb train)")
    path = tmp_path / "s.yaml"
    path.write_text(SCENARIO)
    sc, p = load_scenario(str(path))
    j: dict[str, Any] = chaos.run(build_plan(sc, str(p)))
    faults = [i for i in j["incidents"] if i["injected"]]
    assert len(faults) == 2
    for f in faults:
        d = f["diagnosis"]
        assert d["fault_class"] == "link_down" and d["component"] == f["injected"]["component"], d
        assert f["correct"]
    assert all(e["met"] for e in j["expectations"])


def test_a_saved_diagnosis_keeps_its_further_roots_when_rebuilt(monkeypatch: pytest.MonkeyPatch) -> None:
    """A diagnosis saved as a dict (a bundle's incident row) and rebuilt for the second look keeps ``also`` (session
    43: the bundle's second look rebuilt it without the other links)."""
    from opsbrain.bundle import secondlook
    from opsbrain.diagnosis import oneclick
    from opsbrain.verdict import Diagnosis

    d = Diagnosis("link_down", A, 0.5, ["two links dark"], 605.0, "rb-link-down", [("link_down", 0.5)], [B])
    assert Diagnosis.from_dict(d.as_dict()) == d
    seen: list[Diagnosis] = []

    def look(engine: Any, dd: Diagnosis, *_a: Any, **_k: Any) -> tuple[Diagnosis, list[Any]]:
        seen.append(dd)
        return dd, []

    class _Every:
        def feed(self, *_a: Any) -> None:
            return None

    monkeypatch.setattr(oneclick, "text_fallback", look)
    secondlook._text_look([], [], {"id": None, "diagnosis": d.as_dict()}, [], [], [], None, _Every())  # type: ignore[arg-type]
    assert seen and seen[0].also == [B], seen
