"""The held-out protocol (issue 15): axes disjoint from training, worlds built from them, collection gaps and line
formats, scoring (fault-only, predicted-class localization, confident-wrong), near-copies, grouped CV, kb eval."""

from __future__ import annotations

import json
from dataclasses import replace
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from faultlib.topology import Topology
from opsbrain.ingest import Signal, parse_line
from opsbrain.kb import cases as case_lib
from opsbrain.kb import heldout, heldout_eval, nearcopy
from opsbrain.verdict import UNKNOWN, Diagnosis


def test_axes_are_disjoint_from_training_and_a_shared_value_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    heldout.check_disjoint()
    for a in heldout.AXES:
        assert a.training and a.held_out and not set(a.training) & set(a.held_out)
    bad = {**heldout.FAULT_PARAMS, "low": (("link_flap", "flaps", 5, 7),)}  # covers training's 6 flaps
    monkeypatch.setattr(heldout, "FAULT_PARAMS", bad)
    with pytest.raises(ValueError, match="covers training"):
        heldout.check_disjoint()
    monkeypatch.setattr(heldout, "FAULT_PARAMS", {"high": (("optical_degradation", "dbm_per_hour", 2.0, 4.0),)})
    with pytest.raises(ValueError, match="overlaps training"):
        heldout.check_disjoint()


def test_the_training_column_describes_the_training_world() -> None:
    for a in heldout.AXES:  # every training value of every axis maps onto the world training runs
        for v in a.training:
            w = heldout.world_for({a.name: v})
            assert replace(w, noise_scale=1.0) == case_lib.TRAIN_WORLD, (a.name, v)
    assert {heldout.world_for({"noise": v}).noise_scale for v in ("x1", "x3")} == {1.0, 3.0}


def test_every_held_out_run_differs_from_training_on_every_axis() -> None:
    train = case_lib.TRAIN_WORLD
    plan = heldout.plan_heldout(2)
    assert len(plan) == 2 * len(case_lib.KINDS) and len({a[0] for a, _v in plan}) == len(plan)
    for args, values in plan:
        w = args[-1]
        assert w is not None
        assert set(values) == {a.name for a in heldout.AXES}
        assert w.pods == 2 and w.fault_params != train.fault_params
        placement = (w.inference_node[1], tuple(n for _p, n in w.training_nodes))
        assert placement != (train.inference_node[1], tuple(n for _p, n in train.training_nodes))
        assert w.onset_s[0] > train.onset_s[1] and w.noise_scale not in (1.0, 3.0)
        assert (w.drop_lines, w.missing_hosts, w.missing_sources) != (0.0, 0.0, ())
        assert w.line_format != train.line_format
        assert (w.prefill, w.decode_nodes) != (train.prefill, train.decode_nodes)
        assert w.counters_age_s[0] >= 86400.0 and train.counters_age_s == (0.0, 0.0)
        assert args[0] in case_lib.EVAL_SEEDS
    assert heldout.plan_heldout(2) == plan  # fixed by the seeds


def test_default_world_is_the_training_world(topo1: Topology) -> None:
    a = case_lib.run_case(5, "link_down", topo=topo1)
    b = case_lib.run_case(5, "link_down", topo=topo1, world=case_lib.TRAIN_WORLD)
    assert [(c.label, c.incident, c.features) for c in a] == [(c.label, c.incident, c.features) for c in b]


def test_fault_parameters_are_drawn_from_the_world() -> None:
    rng = np.random.default_rng(0)
    high = heldout.FAULT_PARAMS["high"]
    assert 10 <= case_lib._params_for("link_flap", rng, high)["flaps"] <= 14
    assert isinstance(case_lib._params_for("link_flap", rng, high)["flaps"], int)
    assert case_lib._params_for("link_flap", rng) == {}  # training: faultlib's default
    assert 0.3 <= case_lib._params_for("optical_degradation", rng)["dbm_per_hour"] <= 3.0


def _recorded(world: case_lib.World, topo: Topology, seconds: float = 900.0, kind: str = "node_crash",
              target: str = "pod0/node40") -> list[Any]:
    from faultlib.injection.spec import FaultSpec

    sim = case_lib.build_world(11, topo, world=world)
    sim.inject(FaultSpec(at_s=100.0, kind=kind, target=target))
    got: list[Any] = []
    ctl = case_lib.CollectedController(sim, case_lib.Recorder(), world, np.random.default_rng(3))
    feed = ctl.detector.feed

    def record(sig: Signal) -> None:
        got.append(sig)
        feed(sig)

    ctl.detector.feed = record  # type: ignore[method-assign]
    sim.run(seconds)
    return got


def test_a_held_out_pod_has_counted_for_days_before_the_run(topo1: Topology) -> None:
    w = heldout.world_for({"counters_age": "14-30 days"})
    sim = case_lib.build_world(3, topo1, world=w)
    assert 14 * 86400.0 <= sim.params.noise.counters_age_s <= 30 * 86400.0
    assert case_lib.build_world(3, topo1, world=w).params.noise.counters_age_s == sim.params.noise.counters_age_s
    ce = [sim.telemetry.metrics.read("hbm_ce_total", h, 0.0) for h in topo1.by_kind["hbm"]]
    assert np.median(ce) > 14  # ~2 errors a day per stack (noise.hbm_ce_per_day) before t=0
    fresh = case_lib.build_world(3, topo1)
    assert fresh.params.noise.counters_age_s == 0.0
    assert all(fresh.telemetry.metrics.read("hbm_ce_total", h, 0.0) == 0.0 for h in topo1.by_kind["hbm"])


def test_collection_gaps_drop_lines_and_hosts(topo1: Topology) -> None:
    full = _recorded(case_lib.TRAIN_WORLD, topo1)
    assert any(not s.kind.startswith("job:") for s in full)
    none = _recorded(replace(case_lib.TRAIN_WORLD, drop_lines=1.0), topo1)
    assert all(s.kind.startswith("job:") for s in none)  # every line lost; scheduler events still arrive
    w = replace(case_lib.TRAIN_WORLD, missing_hosts=0.5)
    sim = case_lib.build_world(11, topo1, world=w)
    ctl = case_lib.CollectedController(sim, case_lib.Recorder(), w, np.random.default_rng(3))
    assert len(ctl.missing) == 24 and all(n.startswith("pod0/node") for n in ctl.missing)


def test_a_collection_can_lack_a_whole_source(topo1: Topology) -> None:
    """A crashed node shows through the L2 chips' port-downs, a failed L2 chip through its peers' L1 ends and their
    device plugins' switch-fault lines; a collection without the communication racks' switch logs, or without a
    device plugin, lacks exactly those."""
    def l2(s: Signal) -> bool:
        return bool(s.host) and "/l2plane" in s.host and "/node" not in s.host

    crash = _recorded(case_lib.TRAIN_WORLD, topo1)
    assert any(l2(s) for s in crash)
    no_l2 = _recorded(replace(case_lib.TRAIN_WORLD, missing_sources=("l2_switch",)), topo1)
    assert no_l2 and not any(l2(s) for s in no_l2)
    assert {s.kind for s in no_l2} == {s.kind for s in crash if not l2(s)}
    chip = ("l2_switch_failure", "pod0/l2plane3/sw09")
    full = _recorded(case_lib.TRAIN_WORLD, topo1, 900.0, *chip)
    assert any(s.kind.startswith("swfault:") for s in full)
    no_plugin = _recorded(replace(case_lib.TRAIN_WORLD, missing_sources=("device_plugin",)), topo1, 900.0, *chip)
    assert no_plugin and not any(s.kind.startswith("swfault:") for s in no_plugin)
    values = {v["collection"] for _a, v in heldout.plan_heldout(4)}
    assert {"L2 switch logs not collected", "no device-plugin log", "no device-os log"} <= values


def test_a_collection_without_device_logs_shows_a_fatal_chip_through_host_plugin_and_runtime(topo1: Topology) -> None:
    """Device-os logs reach a bundle only through msnpureport: without them a fatal HBM temperature shows through
    the device plugin, the rank's runtime and the job, never through a device event."""
    hot = ("hbm_overtemp", "pod0/node40/npu3/hbm")
    full = _recorded(case_lib.TRAIN_WORLD, topo1, 900.0, *hot)
    assert any(s.kind.startswith("dev:") for s in full)
    no_dev = _recorded(replace(case_lib.TRAIN_WORLD, missing_sources=("device_os",)), topo1, 900.0, *hot)
    assert no_dev and not any(s.kind.startswith("dev:") for s in no_dev)
    assert "plugin:80E0020B" in {s.kind for s in no_dev}  # the plugin's fault callback line (it prints no level)


@pytest.mark.parametrize("fmt", ["syslog", "syslog_pri_year"])
def test_syslog_variants_read_as_the_emitted_lines(topo1: Topology, fmt: str) -> None:
    from faultlib.injection.selectors import TargetIndex
    from faultlib.injection.spec import FaultSpec

    sim = case_lib.build_world(3, topo1)
    rng, index = np.random.default_rng(5), TargetIndex(topo1)
    for i, kind in enumerate(("node_crash", "hbm_uce", "link_flap", "qingtian_failure", "aicore_hang",
                              "collective_timeout_sw", "roce_port_down", "npu_off_bus")):
        sim.inject(FaultSpec(at_s=100.0 + 200 * i, kind=kind, target=case_lib._pick(index, kind, rng, set())))
    lines: list[Any] = []
    sim.telemetry.subscribe(lambda r: lines.append(r) if hasattr(r, "text") else None)
    sim.run(2400.0)
    assert len({r.source for r in lines}) >= 4 and len(lines) > 50
    for r in lines:
        text = case_lib.reformat(r.text, r.t, r.origin, r.source, fmt)
        assert text != r.text and text.endswith(r.text)
        same = [(s.kind, s.component) for s in parse_line(r.text, r.t, r.origin, r.source, r.level)]
        assert [(s.kind, s.component) for s in parse_line(text, r.t, r.origin, r.source, r.level)] == same
    with pytest.raises(ValueError, match="line format"):
        case_lib.reformat("x", 0.0, "pod0/node1", "syslog", "json")


class _Model:
    def __init__(self, probs: dict[str, float]) -> None:
        self.classes = sorted(probs)
        self.p = np.asarray([probs[c] for c in self.classes])

    def predict_one(self, _feats: dict[str, float]) -> np.ndarray:
        return self.p


def _engine(probs: dict[str, float], answer: str | None = None) -> Any:
    model = _Model(probs)
    best = model.classes[int(model.p.argmax())]
    return SimpleNamespace(model=model, decide=lambda f, s, t: Diagnosis(answer or best, None, 0.0, at_s=t))


LINK = "pod0/node3/l1sw2~pod0/l2plane2/sw05"


def _case(label: str, component: str | None, injected: bool = True, seed: int = 1) -> case_lib.Case:
    sigs = [Signal(10.0, "sw:down", LINK, "pod0-node3-l1sw2", 1, "")]
    return case_lib.Case({"n:sw:down": 0.69}, label, component, seed, "i1", 10.0, sigs, injected)


def test_localization_follows_the_predicted_class_and_skips_cases_without_target() -> None:
    c = _case("link_down", LINK)
    right = heldout_eval.score_case(_engine({"link_down": 0.9, "node_crash": 0.1}), c, {})
    assert right.located is True and right.top1 == "link_down"
    wrong = heldout_eval.score_case(_engine({"link_down": 0.3, "node_crash": 0.7}), c, {})
    assert wrong.located is False  # the node rule names the node, not the link
    no_target = heldout_eval.score_case(_engine({"link_down": 0.9, "node_crash": 0.1}), _case("link_down", None), {})
    assert no_target.located is None
    s = heldout_eval.score([right, wrong, no_target])
    assert s["with_target_n"] == 2 and s["localization"] == 0.5 and s["n"] == 3


def test_scores_confident_wrong_abstention_and_macro_f1() -> None:
    S = heldout_eval.Scored
    rows = [S(_case("a", "x"), {}, "a", 0.9, "a", True), S(_case("a", "x"), {}, "b", 0.85, "b", False),
            S(_case("b", "x", seed=2), {}, "b", 0.5, UNKNOWN, True),
            S(_case("b", "x", seed=2), {}, "a", 0.79, "a", True)]
    s = heldout_eval.score(rows)
    assert s["top1"] == 0.5 and s["confident_wrong"] == 0.25 and s["abstention"] == 0.25
    assert s["macro_f1"] == 0.5 and s["accuracy_with_abstention"] == 0.25
    per_run = heldout_eval.run_weighted(rows[:3])  # run 1: 1 of 2 right; run 2: 1 of 1 right
    assert per_run["runs"] == 2 and per_run["top1"] == 0.75
    assert heldout_eval.macro_f1(["a", "a", "b"], ["a", "b", "c"]) == pytest.approx((2 / 3 + 0) / 2)


def test_per_axis_table_groups_fault_incidents_by_value() -> None:
    S = heldout_eval.Scored
    rows = [S(_case("a", "x"), {"noise": "x6"}, "a", 0.9, "a", True),
            S(_case("a", "x"), {"noise": "x0.5"}, "b", 0.9, "b", False)]
    table = heldout_eval.per_axis(rows)
    noise = {r["value"]: r for r in table if r["axis"] == "noise"}
    assert noise["x6"]["top1"] == 1.0 and noise["x0.5"]["top1"] == 0.0 and noise["x0.5"]["runs"] == 1
    assert len(table) == sum(len(a.held_out) for a in heldout.AXES)
    worst = heldout_eval.hurts_most(table)
    assert worst is not None and worst["axis"] == "noise" and worst["worst_value"] == "x0.5"


def test_per_axis_rows_weigh_each_run_once() -> None:
    S = heldout_eval.Scored
    split = [S(_case("a", "x", seed=1), {"noise": "x6"}, "b", 0.5, "b", False) for _ in range(5)]
    rows = [*split, S(_case("a", "x", seed=2), {"noise": "x6"}, "a", 0.9, "a", True)]
    row = next(r for r in heldout_eval.per_axis(rows) if r["value"] == "x6")
    assert row["runs"] == 2 and row["n"] == 6 and row["top1"] == 0.5 and row["top1_per_incident"] == round(1 / 6, 4)
    assert row["near_copy"] is None  # no training signatures given


def test_per_axis_rows_carry_each_values_near_copy_rate() -> None:
    S = heldout_eval.Scored
    seen, new = _case("a", "x", seed=1), _case("a", "x", seed=2)
    new.features = {**new.features, "n:sw:down": 9.0}
    pairs = nearcopy.pairs_of([seen.features], ["a"])
    rows = [S(seen, {"noise": "x6"}, "a", 0.9, "a", True), S(new, {"noise": "x6"}, "a", 0.9, "a", True),
            S(_case("a", "x", seed=3), {"noise": "x0.5"}, "a", 0.9, "a", True)]
    by = {r["value"]: r for r in heldout_eval.per_axis(rows, pairs) if r["axis"] == "noise"}
    assert by["x6"]["near_copy"] == 0.5 and by["x0.5"]["near_copy"] == 1.0


def test_near_copies_are_counted_per_class() -> None:
    S = heldout_eval.Scored
    seen, new, other = _case("a", "x", seed=1), _case("a", "x", seed=2), _case("b", "x", seed=3)
    new.features = {**new.features, "n:sw:down": 9.0}
    pairs = nearcopy.pairs_of([seen.features, other.features], ["a", "a"])  # b's features seen, but as class a
    rows = [S(c, {}, c.label, 0.9, c.label, True) for c in (seen, new, other)]
    assert heldout_eval.near_copy_by_class(rows, pairs) == {"a": {"n": 2, "near_copies": 1, "rate": 0.5},
                                                            "b": {"n": 1, "near_copies": 0, "rate": 0.0}}


def test_near_copy_needs_equal_discrete_features_and_the_same_label() -> None:
    a = {"n:sw:down": 0.693, "links_down": 0.693, "span_s": 3.0}
    b = {**a, "span_s": 7.5, "max_temp_c": 80.0, "rank_slowdown": 1.37}  # continuous readings differ: a near-copy
    c = {**a, "links_down": 1.09}
    train = nearcopy.pairs_of([a], ["link_flap"])
    assert nearcopy.near_copy_rate([b, c, b], ["link_flap", "link_flap", "link_down"], train) == pytest.approx(1 / 3)
    arrays = nearcopy.signature_arrays([a, c], ["link_flap", "link_down"], ["link_down", "link_flap"])
    assert nearcopy.stored_pairs(arrays, ["link_down", "link_flap"]) == nearcopy.pairs_of([a, c], ["link_flap",
                                                                                                  "link_down"])
    assert nearcopy.stored_pairs({}, ["x"]) is None


def test_cross_validation_is_grouped_by_run() -> None:
    from sklearn.model_selection import GroupKFold

    from opsbrain.diagnosis.model import grouped_cv

    rng = np.random.default_rng(0)
    groups = [f"twin-{i // 4}" for i in range(80)]  # 20 runs of 4 rows
    labels = [f"c{(i // 4) % 2}" for i in range(80)]
    feats = [{"x": float(rng.random()), "g": float(i // 4)} for i in range(80)]
    _acc, folds, how = grouped_cv(feats, labels, groups, 0)
    assert how == "GroupKFold by run" and folds == 5
    for train_idx, test_idx in GroupKFold(5).split(feats, labels, groups):
        assert not {groups[i] for i in train_idx} & {groups[i] for i in test_idx}


def test_kb_eval_json_has_the_headline_block(monkeypatch: pytest.MonkeyPatch, runner: Any) -> None:
    """A one-run-per-class evaluation through the CLI (training signatures stubbed: regenerating the training
    library takes minutes); the JSON carries near_copy_rate and the fault-only block the acceptance check reads."""
    from opsbrain.cli import cli
    from opsbrain.kb import training

    monkeypatch.setattr(training, "training_signatures", lambda *a, **k: set())
    small = [p for p in heldout.plan_heldout(3, text_views=True) if p[0][1] in ("link_down", "node_crash", "hbm_uce")]
    monkeypatch.setattr(heldout, "plan_heldout", lambda per_kind, text_views=False: small[:3])
    res = runner.invoke(cli, ["kb", "eval", "--runs-per-class", "1", "--noise-days", "0.02", "--json"])
    assert res.exit_code in (0, 1), res.output
    out = json.loads(res.stdout)
    assert out["near_copy_rate"] == 0.0  # nothing matches an empty training set
    assert set(out["faults"]) >= {"top1", "macro_f1", "localization", "confident_wrong", "abstention"}
    assert out["faults"]["n"] >= 1 and 0.0 <= out["faults"]["top1"] <= 1.0
    assert {r["axis"] for r in out["per_axis"]} == {a.name for a in heldout.AXES}
    assert out["passed"] == (not out["short"])
    text = runner.invoke(cli, ["kb", "eval", "--runs-per-class", "1", "--noise-days", "0.02"])
    assert "near-copy rate" in text.output and "confusion" in text.output and "hurts most" in text.output



def test_training_signatures_ride_with_the_saved_model(tmp_path: Any) -> None:
    from opsbrain.diagnosis.model import DiagnosisModel
    from opsbrain.kb.training import training_signatures

    feats = [{"n:a": float(i % 3), "span_s": float(i)} for i in range(30)]
    labels = [f"c{i % 3}" for i in range(30)]
    model = DiagnosisModel.train(feats, labels, "h", groups=[f"run-{i // 3}" for i in range(30)])
    model.arrays.update(nearcopy.signature_arrays(feats, labels, model.classes))
    model.save(tmp_path / "m.npz")
    loaded = DiagnosisModel.load(tmp_path / "m.npz", "h")
    pairs = nearcopy.pairs_of(feats, labels)
    assert training_signatures(loaded) == pairs and len(pairs) == 3
    assert loaded.predict_one(feats[0]).argmax() == model.predict_one(feats[0]).argmax()
