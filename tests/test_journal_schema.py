"""The journal's JSON Schema (issue 19): ``chaos schema --journal`` publishes it, every built-in scenario's journal
validates against it, and it refuses journals that break what readers rely on."""

from __future__ import annotations

import copy
import json
from functools import lru_cache
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner

from opsbrain import __version__
from opsbrain.cli import cli
from opsbrain.runner.journal_schema import SCHEMA_VERSION, journal_schema
from opsbrain.scenario.builtin import builtin_names
from opsbrain.scenario.loader import load_scenario
from opsbrain.scenario.plan import build_plan

LONGEST_S = 86400.0  # reason: test time; a longer built-in (the week) runs its first day, same journal structure


@lru_cache(maxsize=1)
def _validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(journal_schema())


@lru_cache(maxsize=4)
def _journal(name: str) -> dict[str, Any]:
    from opsbrain import chaos

    sc, path = load_scenario(name)
    if sc.spec.duration > LONGEST_S:
        sc = sc.model_copy(update={"spec": sc.spec.model_copy(update={"duration": LONGEST_S})})
    if sc.spec.superpod is not None:  # reason: test time; the superpod block's journal has the same shape per seed
        sp = sc.spec.superpod.model_copy(update={"seeds": 1})
        sc = sc.model_copy(update={"spec": sc.spec.model_copy(update={"superpod": sp})})
    return json.loads(json.dumps(chaos.run(build_plan(sc, str(path)))))  # as stored: plain JSON


def _errors(journal: dict[str, Any]) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message[:200]}" for e in _validator().iter_errors(journal)]


def test_the_cli_publishes_a_valid_draft_2020_12_schema() -> None:
    res = CliRunner().invoke(cli, ["chaos", "schema", "--journal"])
    assert res.exit_code == 0, res.output
    schema = json.loads(res.stdout)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema == journal_schema() and schema["properties"]["schema_version"] == {"const": SCHEMA_VERSION}
    assert json.loads(CliRunner().invoke(cli, ["chaos", "schema"]).stdout) != schema  # the scenario schema


@pytest.mark.parametrize("name", builtin_names())
def test_every_builtin_scenarios_journal_validates(name: str) -> None:
    j = _journal(name)
    assert _errors(j) == []
    assert j["schema_version"] == SCHEMA_VERSION and j["tool"] == {"name": "opsbrain", "version": __version__}
    assert j["started_at"] <= j["finished_at"] and j["scenario_definition"]["metadata"]["name"] == name


def test_the_embedded_scenario_is_the_one_that_ran() -> None:
    j = _journal("hbm-uce-training")
    sc, _ = load_scenario("hbm-uce-training")
    assert j["scenario_definition"] == json.loads(json.dumps(sc.model_dump(mode="json")))
    assert j["scenario_definition"]["spec"]["duration"] == j["duration_s"]


@pytest.mark.parametrize("break_it, where", [
    (lambda j: j.pop("schema_version"), "schema_version"),
    (lambda j: j.update(schema_version=SCHEMA_VERSION + 1), "schema_version"),
    (lambda j: j.update(started_at="yesterday"), "started_at"),
    (lambda j: j.update(verdict="ok"), "verdict"),
    (lambda j: j["incidents"][0].update(ttr_s="12 s"), "incidents/0/ttr_s"),
    (lambda j: j["incidents"][0]["actions"][0].pop("status"), "incidents/0/actions/0"),
    (lambda j: j["incidents"][0]["diagnosis"].update(confidence=1.5), "incidents/0/diagnosis"),
    (lambda j: j.pop("scenario_definition"), "scenario_definition"),
])
def test_a_broken_journal_is_refused_where_it_breaks(break_it: Any, where: str) -> None:
    j = copy.deepcopy(_journal("hbm-uce-training"))
    assert j["incidents"] and j["incidents"][0]["actions"] and j["incidents"][0]["diagnosis"]
    break_it(j)
    errs = _errors(j)
    assert errs and any(where in e for e in errs), errs


def test_extra_fields_are_allowed_where_the_journal_grows() -> None:
    j = copy.deepcopy(_journal("hbm-uce-training"))
    j["checkpoints"] = [{"t_s": 1.0}]
    j["incidents"][0]["spare"] = {"node": "pod0/node46"}
    j["incidents"][0]["actions"][0]["rung"] = {"name": "restart", "level": 2}
    assert _errors(j) == []


def _cli_policies() -> list[str]:
    """The policies ``chaos run --policy`` accepts, read from the command itself."""
    from opsbrain.cli.chaos_cmds import chaos_run

    opt = next(p for p in chaos_run.params if p.name == "policy")
    return list(opt.type.choices)  # type: ignore[attr-defined]


@pytest.mark.parametrize("policy", _cli_policies())
def test_a_journal_of_every_policy_the_cli_accepts_validates(policy: str) -> None:
    """Tester D11: 'chaos run node-crash-training --policy vendor-default --json' failed 'chaos schema --journal'
    (the schema's policy enum held only auto and manual)."""
    from opsbrain import chaos

    j = json.loads(json.dumps(chaos.run(chaos.plan("node-crash-training", policy=policy))))
    assert j["policy"] == policy and _errors(j) == []


def test_the_schema_names_every_policy_the_cli_accepts() -> None:
    from opsbrain.cli.chaos_cmds import chaos_campaign

    campaign = next(p for p in chaos_campaign.params if p.name == "policy").type.choices  # type: ignore[attr-defined]
    enum = journal_schema()["properties"]["policy"]["enum"]
    assert sorted(enum) == sorted(_cli_policies()) == sorted(set(campaign) - {"both", "all"})
