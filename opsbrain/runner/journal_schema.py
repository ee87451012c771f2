"""The JSON Schema of a run journal (``opsbrain chaos schema --journal``), version :data:`SCHEMA_VERSION`.

Written by hand from the journal :func:`opsbrain.runner.run.run_plan` builds, and checked against every built-in
scenario's journal in the tests. It pins what readers rely on (the keys reports, the run store and bundles read,
with their types) and stays open where the journal grows: objects allow further properties (checkpoint, spare and
rung records, per-fault parameters, recovery details), so a new field is no schema break; a changed meaning or type
of an existing field is, and bumps :data:`SCHEMA_VERSION`. The embedded scenario is checked only as an object here
(its own schema: ``opsbrain chaos schema``).
"""

from __future__ import annotations

from typing import Any

from opsbrain.policies import POLICIES

SCHEMA_VERSION = 9  # 2: ttr's bar includes the latency SLO; impact is each fault's share; 3: folded faults are
# detected by the incident that covers them (covered_by), a fault touching no workload recovers only once its part is
# back; 4: a link only drained or routed around and still down at the end is not recovered, workloads or not
# (still_out_of_service); 5: ttr and impact come from the dips a fault owns (not another cause's), an inference
# fault's instances count, impact_measurable / impact_note; recovery (before or after detection) and the
# summary's median over recoveries after detection; detection (censored: too late in the run to detect); 6: a folded
# fault's human_steps count its covering incident's steps only when they are counted with it (human_steps_folded),
# so that each step is counted once (docs/architecture.md); 7: an expectation on a censored fault is not judged
# (met null, unjudged says why); 8: recovery.job_launch is per training job, the settings it was launched with
# (the scenario's own win over the policy's; it was the auto policy's defaults, whatever the jobs ran with); 9: a
# probe out of band at the end only since censored faults began is not judged (after.ok null, steady_state.unjudged)
SCHEMA_ID = "https://opsbrain.invalid/schemas/journal-v1.json"  # an identifier, not a download address

_NUM = {"type": "number"}
_OPT_NUM = {"type": ["number", "null"]}
_OPT_STR = {"type": ["string", "null"]}
_OBJ = {"type": "object"}


def _obj(props: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required or [], "additionalProperties": True}


_ACTION = _obj({
    "action": {"type": "string"}, "target": _OPT_STR, "status": {"type": "string"}, "kind": _OPT_STR,
    "start_s": _OPT_NUM, "end_s": _OPT_NUM, "rung": {}, "step": {}, "detail": {"type": ["object", "null"]},
}, ["action", "status"])

_DIAGNOSIS = _obj({
    "fault_class": {"type": "string"}, "component": _OPT_STR, "confidence": {"type": "number", "minimum": 0,
                                                                           "maximum": 1},
    "evidence": {"type": "array", "items": {"type": "string"}}, "runbook": _OPT_STR, "at_s": _OPT_NUM,
    "alternatives": {"type": "array"}, "also": {"type": "array", "items": {"type": "string"}},
    "named_first": _OPT_STR,
}, ["fault_class", "confidence"])

_INCIDENT = _obj({
    "id": {"type": "string"},
    "injected": {"oneOf": [{"type": "null"}, _obj({"kind": {"type": "string"}, "component": {"type": "string"},
                                                   "at_s": _NUM, "params": _OBJ, "duration_s": _OPT_NUM,
                                                   "duration_is": {"enum": ["heals_after", "repair_time"]}},
                                                  ["kind", "component", "at_s"])]},
    "incident_ids": {"type": "array", "items": {"type": "string"}},
    "detected_at_s": _OPT_NUM, "diagnosis": {"oneOf": [{"type": "null"}, _DIAGNOSIS]},
    "runbook": _OPT_STR, "actions": {"type": "array", "items": _ACTION},
    "affected_workloads": {"type": "array", "items": {"type": "string"}},
    "recovered_at_s": _OPT_NUM, "ttd_s": _OPT_NUM, "ttdiag_s": _OPT_NUM, "ttr_s": _OPT_NUM,
    "recovery": {"enum": ["after_detection", "before_detection", "not_recovered"]},
    "detection": {"enum": ["detected", "missed", "censored"]}, "detection_note": _OPT_STR,
    "correct": {"type": "boolean"}, "class_correct": {"type": "boolean"}, "localized": {"type": "boolean"},
    "false_positive": {"type": "boolean"}, "consequence_of": {"type": "string"}, "covered_by": {"type": "string"},
    "human_steps": {"type": "integer", "minimum": 0},
    "human_steps_folded": _obj({"into": {"type": "string"}, "steps": {"type": "integer", "minimum": 0},
                                "counted_with": {"type": "string"}}, ["into", "steps", "counted_with"]),
    "impact": _OBJ, "impact_shared_with": _OBJ, "impact_measurable": {"type": "boolean"}, "impact_note": _OPT_STR,
    "detected_by": _OPT_STR, "lead_time_s": _OPT_NUM,
    "link_down_at_s": _OPT_NUM,
    "still_out_of_service": _obj({"since_s": _NUM, "drained": {"type": "boolean"}, "reason": {"type": "string"}},
                                 ["since_s", "drained", "reason"]),
    "signals": {"type": "array", "items": _obj({"t_s": _NUM, "host": _OPT_STR, "severity": {"enum": [0, 1, 2]},
                                                "kinds": {"type": "array", "items": {"type": "string"}},
                                                "text": {"type": "string"}, "file": _OPT_STR,
                                                "line": {"type": "integer", "minimum": 1}}, ["t_s", "text"])},
    "signals_total": {"type": "integer", "minimum": 0},
}, ["id", "injected", "detected_at_s", "diagnosis", "actions", "ttd_s", "ttdiag_s", "ttr_s", "correct"])

_ISO = {"type": "string", "pattern": r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d"}


def journal_schema() -> dict[str, Any]:
    """The journal's JSON Schema (draft 2020-12)."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID,
        "title": "opsbrain run journal",
        "description": "One chaos run: what was injected, detected, diagnosed and done, scored against the "
                       "injected truth. Times ending in _s are simulated seconds from the run's start; started_at "
                       "and finished_at are the run's wall-clock (UTC); sim_epoch is the simulated clock at t=0.",
        **_obj({
            "schema_version": {"const": SCHEMA_VERSION},
            "tool": _obj({"name": {"const": "opsbrain"}, "version": {"type": "string"}}, ["name", "version"]),
            "started_at": _ISO, "finished_at": _ISO, "sim_epoch": _ISO,
            "scenario_definition": _obj({"metadata": _OBJ, "spec": _OBJ}, ["metadata", "spec"]),
            "scenario": {"type": "string"}, "description": _OPT_STR, "seed": {"type": "integer", "minimum": 0},
            "policy": {"enum": list(POLICIES)},
            "verdict": {"enum": ["passed", "failed", "aborted", "inconclusive"]}, "verdict_reason": _OPT_STR,
            "expected_verdict": {"enum": ["passed", "failed"]}, "expected_reason": _OPT_STR,
            "status": {"enum": ["finished", "aborted", "interrupted"]}, "abort_reason": _OPT_STR,
            "duration_s": _NUM, "ended_at_s": _NUM, "run_id": _OPT_STR, "campaign_id": _OPT_STR,
            "steady_state": _obj({"before": _OBJ, "after": _OBJ, "deviated": {"type": "boolean"},
                                  "unjudged": {"type": "object", "additionalProperties": {"type": "string"}},
                                  "tolerance_s": _OPT_NUM}, ["before", "after", "deviated"]),
            "expectations": {"type": "array", "items": _obj({"fault": {"type": ["integer", "null"]},  # null: run-level
                                                             "check": {"type": ["string", "null"]},
                                                             "met": {"type": ["boolean", "null"]},  # null: 7
                                                             "unjudged": {"type": "array",
                                                                          "items": {"type": "string"}},
                                                             "problems": {"type": "array",
                                                                          "items": {"type": "string"}}},
                                                            ["fault", "met", "problems"])},
            "launch_config": _OBJ,
            "incidents": {"type": "array", "items": _INCIDENT},
            "workloads": {"type": "array", "items": _obj({"name": {"type": "string"}, "kind": {"type": "string"},
                                                          "unattributed": _OBJ}, ["name"])},
            "recovery": _OBJ, "sweeps": _OBJ,
            "summary": _obj({"incidents": {"type": "integer"}, "diagnosed_correctly": {"type": "integer"},
                             "recovered": {"type": "integer"}, "false_positives": {"type": "integer"},
                             "wall_s": _NUM, "triggers_never_fired": {"type": "array"},
                             "faults_not_reached": {"type": "array"}},
                            ["incidents", "diagnosed_correctly", "recovered", "false_positives"]),
            "series": _OBJ, "bundles": {"type": "array"},
        }, ["schema_version", "tool", "started_at", "finished_at", "scenario", "scenario_definition", "seed",
            "policy", "verdict", "status", "duration_s", "steady_state", "incidents", "workloads", "summary"]),
    }
