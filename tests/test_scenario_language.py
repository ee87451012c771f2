"""The scenario language (issue 17): typed fault params, event triggers, noise scale, starting states, symptoms,
run-level expectations. Each behaviour is shown by a small scenario."""

from __future__ import annotations

import ast
import copy
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from faultlib.faults.catalog import CATALOG
from faultlib.faults.models import MODELS
from opsbrain.cli import cli
from opsbrain.scenario.fault_params import params_model
from opsbrain.scenario.loader import parse_scenario, scenario_errors
from opsbrain.scenario.plan import build_plan

REPO = Path(__file__).resolve().parents[1]
LINK = "pod0/node36/l1sw2~pod0/l2plane2/sw05"


def base(name: str = "link-flap-training") -> dict[str, Any]:
    return yaml.safe_load((REPO / "scenarios" / f"{name}.yaml").read_text())


def with_faults(*faults: dict[str, Any], **spec: Any) -> dict[str, Any]:
    data = base()
    data["spec"]["faults"] = list(faults)
    data["spec"]["expectations"] = []
    data["spec"].update(spec)
    return data


def errors(data: dict[str, Any]) -> list[str]:
    return [str(e) for e in scenario_errors(data, "x.yaml")]


def plan_of(data: dict[str, Any]) -> Any:
    return build_plan(parse_scenario(data, "x.yaml"), "x.yaml")


def run_journal(data: dict[str, Any]) -> dict[str, Any]:
    from opsbrain.kb.training import load_engine
    from opsbrain.runner.run import run_plan

    return run_plan(plan_of(data), load_engine(None))


# ---- typed fault params --------------------------------------------------------------------------------------
@pytest.mark.parametrize(("fault", "path", "words"), [
    ({"at": 600, "kind": "link_flap", "target": LINK, "params": {"flapz": 3}}, "spec.faults[0].params.flapz",
     "unknown field"),
    ({"at": 600, "kind": "hbm_ce_storm", "target": "pod0/node36/npu1/hbm", "params": {"rate_per_s": -1}},
     "spec.faults[0].params.rate_per_s", "greater than 0"),
    ({"at": 600, "kind": "optical_degradation", "target": LINK, "params": {"dbm_per_hour": 0}},
     "spec.faults[0].params.dbm_per_hour", "greater than 0"),
    ({"at": 600, "kind": "link_down", "target": LINK, "params": {"flaps": 3}}, "spec.faults[0].params.flaps",
     "unknown field"),
    ({"at": 600, "kind": "npu_fail_slow", "target": "pod0/node36/npu1", "params": {"factor": 0.5}},
     "spec.faults[0].params.factor", "greater than 1"),
    ({"at": 600, "kind": "no_such", "target": LINK}, "spec.faults[0].kind", "unknown fault kind 'no_such'"),
    ({"at": 600, "kind": "link_down", "selector": {"node": 36}, "mode": "fixed", "value": 2.5}, "spec.faults[0]",
     "integer"),
])
def test_fault_params_are_typed_per_kind(fault: dict[str, Any], path: str, words: str) -> None:
    got = errors(with_faults(fault))
    assert len(got) == 1 and f"x.yaml: {path}: " in got[0] and words in got[0], got


def test_bad_params_are_one_line_exit_2(tmp_path: Path) -> None:
    f = tmp_path / "bad.yaml"
    f.write_text(yaml.safe_dump(with_faults({"at": 600, "kind": "link_flap", "target": LINK,
                                             "params": {"flaps": -2}})))
    res = CliRunner().invoke(cli, ["chaos", "validate", str(f)], env={"OPSBRAIN_HOME": str(tmp_path)})
    assert res.exit_code == 2 and "Traceback" not in res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "spec.faults[0].params.flaps" in lines[0]


def test_mode_fixed_takes_an_integer_count() -> None:
    plan = plan_of(with_faults({"at": 600, "kind": "link_down", "selector": {"node": 36}, "mode": "fixed",
                                "value": 2}))
    assert len(plan.timeline) == 2 and all("node36" in s.target for s in plan.timeline)


def _params_read(cls: type) -> set[str]:
    """The names a fault model reads with ``self.param("name", ...)``."""
    tree = ast.parse(Path(__import__(cls.__module__, fromlist=["x"]).__file__).read_text())
    node = next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == cls.__name__)
    return {c.args[0].value for c in ast.walk(node) if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute)
            and c.func.attr == "param" and c.args and isinstance(c.args[0], ast.Constant)}


@pytest.mark.parametrize("kind", sorted(CATALOG))
def test_each_kinds_params_model_is_what_its_fault_model_reads(kind: str) -> None:
    assert set(params_model(kind).model_fields) == _params_read(MODELS[kind])


def test_json_schema_has_a_params_model_per_kind() -> None:
    res = CliRunner().invoke(cli, ["chaos", "schema"])
    assert res.exit_code == 0
    schema = yaml.safe_load(res.stdout)
    defs = schema["$defs"]
    assert "LinkFlapFault" in defs and "flaps" in defs["LinkFlapParams"]["properties"]
    assert "EventTrigger" in defs and "InitialState" in defs and "NoiseSpec" in defs


# ---- event triggers --------------------------------------------------------------------------------------------
def test_a_fault_fires_relative_to_a_checkpoint_write() -> None:
    data = with_faults({"at": {"event": "checkpoint_write_start", "workload": "train", "after_s": 5},
                        "kind": "qingtian_failure", "target": "pod0/node36/qingtian"}, duration=1800)
    data["spec"]["workloads"][1]["params"] = {"ckpt_interval_s": 600}
    plan = plan_of(data)
    assert len(plan.timeline) == 0 and len(plan.triggered) == 1
    j = run_journal(data)
    fired = j["triggers"]
    assert len(fired) == 1 and fired[0]["at_s"] == pytest.approx(fired[0]["event_at_s"] + 5)
    entry = next(i for i in j["incidents"] if i["injected"])
    assert entry["injected"]["kind"] == "qingtian_failure"
    assert entry["injected"]["at_s"] == pytest.approx(fired[0]["at_s"])
    assert fired[0]["event_at_s"] >= 600  # the first write starts at the first checkpoint interval


def test_a_fault_fires_during_a_recovery_and_after_another_fault() -> None:
    data = with_faults({"at": 600, "kind": "node_crash", "target": "pod0/node38"},
                       {"at": {"event": "recovery_start", "workload": "train", "after_s": 10}, "kind": "link_down",
                        "target": LINK},
                       {"at": {"event": "fault_start", "fault": 1, "after_s": 30}, "kind": "hbm_ce_storm",
                        "target": "pod0/node40/npu2/hbm"}, duration=2400)
    j = run_journal(data)
    fired = {t["fault"]: t for t in j["triggers"]}
    assert set(fired) == {1, 2}
    assert fired[1]["event_at_s"] > 600  # the job's restart after the crash
    assert fired[2]["at_s"] == pytest.approx(fired[1]["at_s"] + 30)


def test_triggers_refer_to_existing_jobs_and_faults_without_cycles() -> None:
    bad = with_faults({"at": {"event": "checkpoint_write_start", "workload": "serve"}, "kind": "link_down",
                       "target": LINK})
    assert "spec.faults[0].at.workload: 'serve' is not a training workload" in errors(bad)[0]
    loop = with_faults({"at": {"event": "fault_start", "fault": 1}, "kind": "link_down", "target": LINK},
                       {"at": {"event": "fault_start", "fault": 0}, "kind": "link_down", "target": LINK})
    assert "cycle" in errors(loop)[0]
    assert "fault_start needs 'fault'" in errors(with_faults({"at": {"event": "fault_start"}, "kind": "link_down",
                                                              "target": LINK}))[0]


# ---- noise scale, starting state -------------------------------------------------------------------------------
def test_noise_scale_multiplies_the_noise_event_rates() -> None:
    default = plan_of(with_faults()).params.noise
    tripled = plan_of(with_faults(noise={"scale": 3})).params.noise
    assert tripled.flap_per_link_day == pytest.approx(3 * default.flap_per_link_day)
    assert tripled.hbm_ce_bursts_per_day == pytest.approx(3 * default.hbm_ce_bursts_per_day)
    assert tripled.flap_down_mean_s == default.flap_down_mean_s  # durations are not rates
    assert "spec.noise.scale" in errors(with_faults(noise={"scale": -1}))[0]


def _noise_flaps(scale: float) -> int:
    """Noise flaps in one hour of a pod with the scenario's noise (the world starts noise only when scale > 0)."""
    from faultlib.engine import Simulation
    from faultlib.telemetry.noise import start_background_noise

    plan = plan_of(with_faults(noise={"scale": scale}))
    sim = Simulation(plan.params, seed=plan.seed, topology=plan.topology)
    if plan.scenario.spec.noise_scale > 0:
        start_background_noise(sim)
    sim.run(3600)
    return sum(1 for e in sim.trace.of_kind("health") if str(e.detail.get("cause", "")).startswith("noise")
               and e.detail.get("new") == "failed")


def test_noise_scale_changes_how_many_noise_flaps_happen() -> None:
    assert _noise_flaps(0) == 0
    assert _noise_flaps(50) > 3 * max(1, _noise_flaps(1))


def test_initial_state_sets_health_lanes_rx_power_and_taken_spares() -> None:
    from faultlib.engine import Simulation
    from opsbrain.runner.triggers import apply_initial_state

    other = "pod0/node37/l1sw3~pod0/l2plane3/sw05"
    data = with_faults(initial_state={"spares_taken": ["pod0/node47"], "components": [
        {"id": LINK, "health": "isolated"}, {"id": other, "lanes_down": 1, "rx_dbm": -8.0}]})
    plan = plan_of(data)
    assert plan.spares == ["pod0/node46"]
    sim = Simulation(plan.params, seed=plan.seed, topology=plan.topology)
    apply_initial_state(sim, plan)
    assert str(sim.state.health(LINK)) == "isolated" and sim.state.lanes_down(other) == 1
    for m in sim.dom.modules_of(other):
        rx = sim.dom.read_module(m, 0.0, noise=False)["rx_dbm"]
        assert sorted(rx)[1:] == pytest.approx([-8.0] * (len(rx) - 1))  # the lost lane reads dark
    bad = with_faults(initial_state={"spares_taken": ["pod0/node3"], "components": [{"id": "pod0/nodeX"}]})
    assert "spec.initial_state.components[0]" in errors(bad)[0]
    with pytest.raises(Exception, match="spares_taken"):
        plan_of(with_faults(initial_state={"spares_taken": ["pod0/node3"]}))


def test_a_degraded_module_fails_sooner() -> None:
    """A module that starts at -8 dBm reaches the -12 dBm loss of lock hours before a healthy one."""
    fault = {"at": 60, "kind": "optical_degradation", "target": LINK, "params": {"dbm_per_hour": 2.0}}
    healthy = run_journal(with_faults(fault, duration=4 * 3600, noise=False))
    worn = run_journal(with_faults(fault, duration=4 * 3600, noise=False,
                                   initial_state={"components": [{"id": LINK, "rx_dbm": -8.0}]}))
    down = [next(i for i in j["incidents"] if i["injected"])["link_down_at_s"] for j in (healthy, worn)]
    assert down[1] is not None and (down[0] is None or down[1] < down[0] - 3600)


# ---- symptoms and run-level expectations ----------------------------------------------------------------------
def test_a_symptom_is_scored_with_its_cause_not_as_a_miss() -> None:
    faults = [{"at": 600, "kind": "node_crash", "target": "pod0/node38"},
              {"at": 600, "kind": "link_down", "target": "pod0/node38/l1sw2~pod0/l2plane2/sw05"}]
    plain = run_journal(with_faults(*copy.deepcopy(faults), duration=1800))
    faults[1]["symptom_of"] = 0
    marked = run_journal(with_faults(*faults, duration=1800))
    assert plain["summary"]["incidents"] == 2
    assert marked["summary"]["incidents"] == 1
    entry = next(i for i in marked["incidents"] if i["injected"] and i["injected"]["kind"] == "link_down")
    root = next(i for i in marked["incidents"] if i["injected"] and i["injected"]["kind"] == "node_crash")
    assert entry["symptom_of"] == [root["id"]]


def test_run_level_expectations_are_checked_with_a_verdict() -> None:
    fault = {"at": 600, "kind": "link_down", "target": LINK}
    ok = run_journal(with_faults(fault, duration=1800, expectations=[
        {"false_alarms_max": 0}, {"degraded_operation": {"workload": "train", "max_down_s": 120, "min_share": 0.9}},
        {"report_contains": ["Isolate the link"]}, {"fault": 0, "actions_any": ["isolate_link"]}]))
    assert ok["verdict"] == "passed", ok["expectations"]
    assert [e["met"] for e in ok["expectations"]] == [True] * 4
    bad = run_journal(with_faults(fault, duration=1800, expectations=[
        {"report_contains": ["spares exhausted"]}, {"fault": 0, "actions_any": ["scale_instance"]}]))
    assert bad["verdict"] == "failed"
    assert "the report does not say 'spares exhausted'" in bad["expectations"][0]["problems"]
    assert not bad["expectations"][1]["met"]


def test_degraded_operation_sees_a_job_waiting_down() -> None:
    """A node crash with no spare left: the job does no work for many minutes; max_down_s says so."""
    data = with_faults({"at": 600, "kind": "node_crash", "target": "pod0/node38"}, duration=3600,
                       expectations=[{"degraded_operation": {"workload": "train", "max_down_s": 60}}])
    data["spec"]["topology"]["spares"] = 0
    j = run_journal(data)
    e = j["expectations"][0]
    assert not e["met"] and "train did no work for" in e["problems"][0]
    assert j["verdict"] == "failed"


def test_expectation_scope_is_checked() -> None:
    assert "need 'fault'" in errors(with_faults(expectations=[{"ttr_max_s": 10}]))[0]
    assert "whole run" in errors(with_faults({"at": 1, "kind": "link_down", "target": LINK},
                                             expectations=[{"fault": 0, "false_alarms_max": 1}]))[0]


def test_longest_down_stretch() -> None:
    from opsbrain.runner.expectations import longest_down_s

    pts = [(0.0, 1.0), (100.0, 0.0), (150.0, 0.0), (400.0, 1.0), (500.0, 0.0)]
    assert longest_down_s(pts, 0.0, 600.0) == 300.0
    assert longest_down_s(pts, 200.0, 600.0) == 200.0
    assert longest_down_s(pts, 0.0, 450.0) == 300.0


def test_a_ttr_bound_on_an_unrecovered_fault_says_so() -> None:
    """The ttr bound's problem text: one decimal when the fault recovered late, "not recovered" when it never did
    (it printed ``ttr None s`` before)."""
    from opsbrain.runner.expectations import _fault_problems
    from opsbrain.scenario.schema import Expectation

    e = Expectation(fault=0, ttr_max_s=10)
    late = {"diagnosis": None, "ttr_s": 17.019200479847655, "actions": []}
    never = {"diagnosis": None, "ttr_s": None, "actions": []}
    assert _fault_problems(e, [late]) == (["ttr 17.0 s exceeds 10 s"], [])
    assert _fault_problems(e, [never]) == (["not recovered"], [])


@pytest.mark.parametrize(("probe", "words"), [
    ({"name": "x", "metric": "tpot_ms", "workload": "train", "op": "<=", "value": 50},
     "tpot_ms is a metric of an inference workload; the probe names 'train', a training workload"),
    ({"name": "x", "metric": "step_rate", "op": ">=", "of_baseline": 0.9},
     "step_rate is a metric of a training workload; the probe names no workload"),
])
def test_a_probe_on_a_metric_its_workload_does_not_give_is_refused_before_the_run(probe: dict[str, Any],
                                                                                 words: str) -> None:
    """Before, a tpot_ms probe on a training job passed validation and the run stopped with an internal error."""
    data = base()
    data["spec"]["steady_state"] = {"probes": [probe]}
    got = errors(data)
    assert len(got) == 1 and words in got[0], got


def test_a_fail_slow_eviction_onto_the_last_spare_restarts_the_job_there() -> None:
    """rb-npu-fail-slow: the swap takes the pod's one spare; the restart then asks whether a spare was taken, not
    whether one is left (before, it was skipped and the straggler slowed the job for the fault's hour)."""
    data = base()
    data["spec"].update(duration=7200, seed=1, noise=False, topology={"pods": 1, "spares": 1},
                        workloads=[{"name": "train", "kind": "training", "first_node": 32, "nodes": 14}],
                        steady_state={"probes": []}, expectations=[], guards=[],
                        faults=[{"at": 600, "kind": "npu_fail_slow", "target": "pod0/node40/npu3", "duration": 3600}])
    j = run_journal(data)
    acts = [(a["action"], a["status"]) for i in j["incidents"] for a in i["actions"]]
    assert ("swap_spare", "succeeded") in acts and ("restart_job", "succeeded") in acts, acts


def test_what_a_run_would_silently_drop_is_refused_before_it() -> None:
    """An inference workload of another size than the paper's (32 nodes were placed anyway), a spare taken twice,
    and one fault given twice (the second was scored missed)."""
    data = base()
    data["spec"]["workloads"] = [{"name": "serve", "kind": "inference", "first_node": 0, "nodes": 3}]
    data["spec"]["steady_state"] = {"probes": []}
    data["spec"]["faults"], data["spec"]["expectations"] = [], []
    assert any("takes the paper's 32 nodes" in e for e in errors(data))
    data = with_faults({"at": 600, "kind": "link_down", "target": LINK}, {"at": 600, "kind": "link_down",
                                                                          "target": LINK})
    assert any("spec.faults[1]: repeats faults[0]" in e for e in errors(data))
    data = base()
    data["spec"]["topology"] = {"pods": 1, "spares": 2}
    data["spec"]["initial_state"] = {"spares_taken": ["pod0/node47", "pod0/node47"]}
    got = [str(e) for e in [_plan_error(data)] if e]
    assert got and "spares_taken[1]" in got[0] and "listed twice" in got[0]


def _plan_error(data: dict[str, Any]) -> Exception | None:
    from opsbrain.errors import ScenarioError

    try:
        plan_of(data)
    except ScenarioError as exc:
        return exc
    return None
