"""Runbook files: the built-ins validate and cover every fault class; bad files fail with file + YAML path."""

from __future__ import annotations

from pathlib import Path

import pytest

import runbooks as runbook_data
from faultlib.faults.catalog import CATALOG
from opsbrain.errors import InputError, RunbookError
from opsbrain.recovery import (
    RUNGS,
    list_runbooks,
    load_runbooks,
    runbook_errors,
    show_runbook,
    spares_needed,
    validate_runbooks,
)
from opsbrain.recovery.params import DOC_PATH, doc_block, render_markdown

GOOD = """\
id: rb-test
title: a test runbook
applies_to: [link_down]
steps:
  - {action: isolate_link, target: diagnosis.component}
  - {action: reroute, target: nodes_of_link}
  - {action: ticket, target: diagnosis.component}
"""


def write(tmp_path: Path, text: str, name: str = "rb-test") -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def first_error(path: Path) -> RunbookError:
    with pytest.raises(RunbookError) as info:
        load_runbooks([path])
    return info.value


# ---- the built-in runbooks ------------------------------------------------------------------------------------
def test_builtin_runbooks_validate_and_cover_every_fault_class() -> None:
    rbs, errors = runbook_errors()
    assert errors == []
    assert rbs.classes_without_runbook() == []
    assert set(CATALOG) <= {c for rb in rbs.runbooks.values() for c in rb.applies_to}
    assert rbs.for_class("unknown")[0].id == "rb-unknown"
    assert {Path(f).stem for f in rbs.files.values()} == set(rbs.runbooks)
    assert len(runbook_data.files()) == len(rbs)


def test_builtin_runbooks_follow_the_recovery_practice() -> None:
    rbs = load_runbooks()

    def actions(rb_id: str) -> list[str]:
        return [s.action for s in rbs.runbooks[rb_id].steps]

    for cls in ("link_down", "link_flap"):  # re-route and take the link out, no job restart
        rb = rbs.for_class(cls)[0]
        assert {"isolate_link", "reroute"} <= set(actions(rb.id))
        # only a job whose HCCL re-executions ran out before the re-route converged is recomputed in place
        assert all(s.when is not None and s.when.workload_down for s in rb.steps
                   if s.action in ("restart_job", "restart_process"))
        assert "restart_job" not in actions(rb.id)
    assert actions("rb-link-down")[0] == "reroute"  # a dark link is routed around first, isolated once confirmed
    assert actions("rb-hbm-uce")[:2] == ["isolate_hbm_rows", "restart_process"]
    assert rbs.runbooks["rb-hbm-uce"].repeat.count == 2  # MindCluster: twice in 24 h => isolate
    assert rbs.runbooks["rb-hbm-uce"].repeat.then == "rb-hbm-uce-repeat"
    assert actions("rb-hbm-row-exhaustion") == ["isolate", "swap_spare", "restart_job", "ticket"]
    assert actions("rb-l2-switch-failure")[:2] == ["isolate", "reroute"]
    assert rbs.runbooks["rb-l2-switch-failure"].steps[1].target == "affected_nodes"
    assert actions("rb-node-crash") == ["isolate", "swap_spare", "restart_job"]
    rb = rbs.for_class("hbm_ce_storm")[0]  # watch only
    assert actions(rb.id)[-1] == "none" and rb.repeat is not None
    assert all(s.when is not None and s.when.link_down for s in rb.steps if s.action != "none")
    rb = rbs.for_class("dirty_connector")[0]  # damping: drained for a hold-down, then back; repeats escalate
    # a job down before the drain is recovered in place (only then: workload_down; session 42)
    assert actions(rb.id) == ["drain_link", "restart_process", "none", "wait", "undrain_link"] and rb.repeat is not None
    assert rb.steps[1].when is not None and rb.steps[1].when.workload_down
    assert rb.steps[3].typed_params().seconds >= 300
    for rb in rbs.runbooks.values():  # the ladder only climbs; scale-in needs a human's approval
        order = [RUNGS.index(r) for r, _s, _b in rb.ladder()]
        assert order == sorted(set(order))
        for _rung, steps, _b in rb.ladder():
            for s in steps:
                assert s.action != "scale_instance" or s.approval == "required", rb.id


def test_cli_views_are_plain_dicts() -> None:
    listed = list_runbooks()
    ids = [r["id"] for r in listed["runbooks"]]
    assert "rb-link-down" in ids and listed["classes_without_runbook"] == []
    shown = show_runbook("rb-node-crash")
    assert shown["id"] == "rb-node-crash" and shown["steps"][1]["action"] == "swap_spare"
    assert shown["file"].endswith("rb-node-crash.yaml")
    assert show_runbook("hbm_uce")["id"] == "rb-hbm-uce"  # a class name shows its first runbook
    with pytest.raises(RunbookError, match="no runbook"):
        show_runbook("rb-nope")
    summary = validate_runbooks()
    assert summary["valid"] and "rb-unknown" in summary["runbooks"]


# ---- errors name the file and the YAML path --------------------------------------------------------------------
def test_unknown_action_is_reported_with_its_yaml_path(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace("action: ticket", "action: tikcet"))
    err = first_error(path)
    assert isinstance(err, InputError) and err.path == "steps[2].action"
    assert err.file == str(path) and "unknown action 'tikcet'" in err.reason
    assert str(err).startswith(f"{path}: steps[2].action: ")
    with pytest.raises(RunbookError):
        validate_runbooks([path])


@pytest.mark.parametrize("change,path,words", [
    (("target: nodes_of_link", "target: npu_of(component)"), "steps[1].target", "cannot act on"),
    (("target: nodes_of_link", "target: nodes_of_everything"), "steps[1].target", "unknown target expression"),
    (("[link_down]", "[link_dwon]"), "applies_to", "unknown fault class"),
    (("title: a test runbook", "title: a test runbook\nstepz: []"), "stepz", "unknown field"),
    (("{action: reroute, target: nodes_of_link}", "{action: reroute, target: nodes_of_link, retries: -1}"),
     "steps[1].retries", "greater than or equal"),
    (("{action: ticket, target: diagnosis.component}",
      "{action: restart_job, target: affected_workloads, params: {source: disk}}"), "steps[2].params.source",
     "'memory' or 'persistent'"),
    (("{action: ticket, target: diagnosis.component}",
      "{action: restart_job, target: affected_workloads, params: {replace: {node_of(component): npu_of(component)}}}"),
     "steps[2].params.replace", "not a node expression"),
    (("id: rb-test", "id: rb-other"), "id", "must match the file name"),
])
def test_malformed_runbooks_fail_with_path(tmp_path: Path, change: tuple[str, str], path: str, words: str) -> None:
    assert change[0] in GOOD
    err = first_error(write(tmp_path, GOOD.replace(*change)))
    assert err.path == path and words in err.reason, str(err)


def test_escalation_must_climb_the_ladder_and_repeat_must_exist(tmp_path: Path) -> None:
    text = GOOD.replace("steps:\n", "rung: job_reschedule\nsteps:\n", 1) + (
        "escalation:\n  - rung: online_recovery\n    steps: [{action: restart_process}]\n"
        "repeat: {count: 2, then: rb-missing, source: test}\n")
    _rbs, errors = runbook_errors([write(tmp_path, text)])
    assert [e.path for e in errors] == ["escalation[0].rung"]
    fixed = text.replace("rung: online_recovery", "rung: scale_in")
    _rbs, errors = runbook_errors([write(tmp_path, fixed)])
    assert [(e.path, "does not exist" in e.reason) for e in errors] == [("repeat.then", True)]


def test_yaml_syntax_errors_and_non_mappings(tmp_path: Path) -> None:
    err = first_error(write(tmp_path, "id: [unclosed\n"))
    assert "not valid YAML" in err.reason and err.path and err.path.startswith("line ")
    err = first_error(write(tmp_path, "- just\n- a list\n"))
    assert "must be a YAML mapping" in err.reason
    _rbs, errors = runbook_errors([tmp_path / "nope.yaml"])
    assert errors and errors[0].reason == "no such file"


def test_all_errors_of_a_file_are_collected(tmp_path: Path) -> None:
    text = GOOD.replace("action: ticket", "action: tikcet").replace("[link_down]", "[nope]")
    _rbs, errors = runbook_errors([write(tmp_path, text)])
    assert {e.path for e in errors} == {"steps[2].action", "applies_to"}


# ---- policies and docs --------------------------------------------------------------------------------------
def test_spare_policy_covers_the_p99_of_simultaneous_losses() -> None:
    assert spares_needed(0.0, 3600.0) == 0
    assert spares_needed(1 / 86400, 4 * 3600) == 2  # Poisson(1/6): P(<= 1) = 0.987, P(<= 2) = 0.9994
    assert spares_needed(1 / 3600, 4 * 3600) == 9  # Poisson(4): P(<= 9) = 0.992, P(<= 8) = 0.979
    with pytest.raises(ValueError):
        spares_needed(1.0, 1.0, quantile=1.0)


def test_docs_recovery_md_lists_the_current_parameters() -> None:
    assert doc_block(DOC_PATH.read_text(encoding="utf-8")) == render_markdown(), \
        "docs/recovery.md is stale: run python -m opsbrain.recovery.params"


def test_link_classes_pool_their_confidence_other_classes_do_not() -> None:
    from opsbrain.recovery.orchestrator import same_part_confidence
    from opsbrain.verdict import Diagnosis

    link = Diagnosis("link_down", "pod0/node3/l1sw2~pod0/l2plane2/sw05", 0.45, [], 0.0, "rb-link-down",
                     [("optical_degradation", 0.2), ("dirty_connector", 0.1), ("hbm_uce", 0.1)])
    assert abs(same_part_confidence(link) - 0.75) < 1e-9  # the same link whatever the cause: act on it
    hbm = Diagnosis("hbm_uce", "pod0/node3/npu1/hbm", 0.45, [], 0.0, "rb-hbm-uce", [("hbm_ce_storm", 0.3)])
    assert same_part_confidence(hbm) == 0.45
    unsure = Diagnosis("unknown", link.component, 0.38, [], 0.0, None,
                       [("dirty_connector", 0.38), ("link_down", 0.26), ("hbm_uce", 0.2), ("link_down", 0.1)])
    assert abs(same_part_confidence(unsure) - 0.64) < 1e-9  # an abstention's best guess and alternatives (once each)
    assert same_part_confidence(Diagnosis("unknown", None, 0.3, alternatives=[("hbm_uce", 0.3)])) == 0.0
