"""A fault's ttr and impact come from what it did (helper AD, D1): a dip is the fault's only when the fault (or its
response) owns the moment the dip began; background noise's dips are the noise's; an inference fault's instances
count (an NPU off the bus takes its prefill instance down while the other instances carry the demand); a fault whose
loss the service's figures cannot show says so (``impact_measurable``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from opsbrain import chaos
from opsbrain.runner import dips
from opsbrain.scenario.loader import load_scenario
from opsbrain.scenario.plan import build_plan


def test_a_noise_dip_hours_later_is_not_the_faults_recovery() -> None:
    """The repro's shape: the service's rate never moves while the fault's instance is down 600-1075 s; a 1 s
    noise flap 2.3 h later used to be the fault's 'dip' (ttr 8,401 s)."""
    series = [(0.0, 100.0), (600.0, 100.0), (9000.0, 0.0), (9001.0, 100.0)]
    assert dips.recover(series, 600.0, 21600.0).ttr == 8401.0  # every dip the fault's: the old rule
    units = [(0.0, 0.0), (600.0, 1.0), (1075.0, 0.0)]
    rec = dips.recover(series, 600.0, 21600.0, units=units, mine=lambda t: t < 9000.0)
    assert rec.ttr == 475.0
    assert rec.windows("f", 600.0, 21600.0) == [("f", 600.0, 1075.0)]


def test_other_causes_dips_inside_the_window_are_masked_and_its_later_own_dips_kept() -> None:
    series = [(0.0, 10.0), (100.0, 0.0), (200.0, 10.0), (210.0, 0.0), (211.0, 10.0), (500.0, 0.0), (550.0, 10.0)]
    own = {100.0, 500.0}  # the fault's dip and its response's later restart; the 1 s dip at 210 is noise's
    rec = dips.recover(series, 100.0, 1000.0, mine=lambda t: t in own)
    assert rec.ttr == 100.0 and rec.later == [(500.0, 550.0)]
    assert rec.windows("f", 100.0, 1000.0) == [("f", 100.0, 200.0), ("f", 500.0, 550.0)]
    assert rec.windows("f", 100.0, 1000.0, redo_until=lambda t: t + 5.0) == [("f", 100.0, 205.0),
                                                                            ("f", 500.0, 555.0)]
    assert dips.recover(series, 100.0, 1000.0).ttr == 111.0  # every dip the fault's: the noise's held it back


def test_a_dip_belongs_to_the_latest_cause_at_its_start() -> None:
    c = dips.Causes([(600.0, "f1"), (605.0, "f1"), (1318.3, dips.NOISE), (1400.0, "f2"), (1400.0, dips.NOISE)])
    assert c.owners_at(600.0) == {"f1"}
    assert c.owners_at(1318.3) == {dips.NOISE}
    assert c.owners_at(1390.0) == {dips.NOISE}
    assert c.owners_at(1400.0) == {"f2", dips.NOISE}  # at the same moment: shared
    assert c.owners_at(10.0) == set()


def test_a_faults_units_are_the_instances_whose_drop_it_owns() -> None:
    hist = [{"t": 0.0, "instances_up": ["p0", "p1", "d0"]}, {"t": 600.0, "instances_up": ["p0", "d0"]},
            {"t": 900.0, "instances_up": ["p0"]}, {"t": 901.0, "instances_up": ["p0", "d0"]},
            {"t": 1075.0, "instances_up": ["p0", "p1", "d0"]}]
    units = dips.unit_drops(hist, 600.0, lambda t: t == 600.0)  # d0's drop at 900 s is a noise stall
    assert units == {"p1": 600.0}
    out = dips.units_out(hist, units)
    assert [n for _t, n in out] == [0.0, 1.0, 1.0, 1.0, 0.0]
    assert dips.unit_seconds(out, [("f", 600.0, 1075.0)], 3600.0) == 475.0


def _scenario(tmp_path: Path, noise: Any) -> dict[str, Any]:
    spec = {"duration": 3600, "seed": 7, "noise": noise, "topology": {"pods": 1, "spares": 2},
            "workloads": [{"name": "serve", "kind": "inference", "first_node": 0},
                          {"name": "train", "kind": "training", "first_node": 32, "nodes": 14}],
            "faults": [{"at": 600, "kind": "npu_off_bus", "target": "pod0/node7/npu4"}]}
    f = tmp_path / "offbus.yaml"
    f.write_text(yaml.safe_dump({"apiVersion": "opsbrain/v1", "kind": "ChaosScenario",
                                 "metadata": {"name": "offbus", "description": "scoring test"}, "spec": spec}))
    sc, p = load_scenario(str(f))
    return chaos.run(build_plan(sc, str(p), seed=2))


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPSBRAIN_HOME", str(tmp_path / "home"))


def test_an_npu_off_the_bus_recovers_when_its_instance_serves_again_noise_or_not(tmp_path: Path) -> None:
    quiet = _scenario(tmp_path, False)
    f = next(i for i in quiet["incidents"] if i["injected"])
    serve = next(w for w in quiet["workloads"] if w["name"] == "serve")
    down = max(serve["instance_down_s"].values())
    assert down > 100 and f["ttr_s"] == pytest.approx(down)  # was 0.0: the rate never moved
    assert f["impact"]["serve"]["lost_tokens"] == 0.0
    assert f["impact"]["serve"]["instances_down_s"] == pytest.approx(down)
    assert f["impact_measurable"] is False and "other instances carried" in f["impact_note"]
    noisy = _scenario(tmp_path, {"scale": 5})
    g = next(i for i in noisy["incidents"] if i["injected"])
    assert g["ttr_s"] == pytest.approx(f["ttr_s"])  # was 719 s: the first noise flap's dip
    nserve = next(w for w in noisy["workloads"] if w["name"] == "serve")
    assert nserve["lost_tokens"] > 0 and g["impact"]["serve"]["lost_tokens"] == 0.0  # the flaps' loss: no fault's
    assert nserve["unattributed"]["lost_tokens"] == pytest.approx(nserve["lost_tokens"])
