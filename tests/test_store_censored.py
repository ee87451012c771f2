"""The run store's Prometheus figures count a censored fault (injected too late in its run to be detected, journal
``detection: censored``) apart, not as missed (tester, session 32), as the run summary, the campaign figures and the
reports score it (``verdict.incident_outcome``)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from prometheus_client import CollectorRegistry, generate_latest

from opsbrain.service.metrics import RunStoreCollector
from opsbrain.store import STORE_VERSION, RunStore
from opsbrain.verdict import incident_outcome


def _fault(fid: str, at: float, **rest: Any) -> dict[str, Any]:
    return {"id": fid, "injected": {"kind": "link_down", "component": f"pod0/l1-0/link{fid}", "at_s": at},
            "diagnosis": None, "correct": False, "ttr_s": None} | rest


JOURNAL: dict[str, Any] = {
    "scenario": "censor", "seed": 1, "policy": "auto", "verdict": "passed", "workloads": [], "incidents": [
        _fault("1", 600.0, detection="detected", correct=True, diagnosis={"fault_class": "link_down"}, ttr_s=30.0),
        _fault("2", 1200.0, detection="missed"),
        _fault("3", 3599.0, detection="censored", detection_note="injected 1.0 s before the run's end"),
        _fault("4", 900.0, detection="detected", diagnosis={"fault_class": "dirty_connector"}),
    ]}
OUTCOMES = {("diagnosed_correctly",): 1, ("missed",): 1, ("censored",): 1, ("misdiagnosed",): 1}


def _stored(home: Path) -> tuple[RunStore, str]:
    store = RunStore(home)
    rid = store.begin_run("censor", 1, "auto")
    store.finish(rid, JOURNAL)
    return store, rid


def test_a_censored_fault_is_its_own_outcome_not_missed(tmp_path: Path) -> None:
    store, _ = _stored(tmp_path)
    assert store.run_figures()["faults"] == OUTCOMES  # before: ("missed",): 2
    assert [incident_outcome(i)[0] for i in JOURNAL["incidents"]] == [
        "correct", "missed", "censored: too late in the run to detect", "wrong class"]
    reg = CollectorRegistry()
    reg.register(RunStoreCollector(store))
    page = generate_latest(reg).decode()
    assert 'opsbrain_run_faults{outcome="censored"} 1.0' in page and 'opsbrain_run_faults{outcome="missed"} 1.0' in page


def test_an_older_store_is_counted_the_same_after_migration(tmp_path: Path) -> None:
    store, _ = _stored(tmp_path)
    db = sqlite3.connect(store.path)  # as a version-4 store wrote it: no detection column, user_version 4
    db.executescript("ALTER TABLE incidents DROP COLUMN detection; PRAGMA user_version=4;")
    db.close()
    again = RunStore(tmp_path)
    assert sqlite3.connect(again.path).execute("PRAGMA user_version").fetchone()[0] == STORE_VERSION == 5
    assert again.run_figures()["faults"] == OUTCOMES
