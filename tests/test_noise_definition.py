"""One definition of a noise incident (an incident with no injected fault that is no fault's consequence): the run
store's Prometheus gauge, campaign records and campaign reports count the same incidents (``verdict.is_noise``)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from opsbrain.campaign.summary import seed_record
from opsbrain.report.campaign import build_campaign_report
from opsbrain.store import STORE_VERSION, RunStore
from opsbrain.verdict import is_noise

INJ = {"kind": "link_down", "component": "pod0/l1-0/link3", "at_s": 600.0}
JOURNAL: dict[str, Any] = {
    "scenario": "noise-def", "seed": 1, "policy": "auto", "verdict": "passed", "workloads": [],
    "incidents": [
        {"id": "i1", "injected": INJ, "correct": True, "diagnosis": {"fault_class": "link_down"}, "ttr_s": 30.0},
        {"id": "i2", "injected": None, "consequence_of": "i1", "diagnosis": {"fault_class": "node_crash"}},
        {"id": "i3", "injected": None, "false_positive": False, "diagnosis": {"fault_class": "dirty_connector"}},
    ]}


def _gauge(store: RunStore) -> int:
    return sum(store.run_figures()["noise"].values())


def test_is_noise_excludes_injected_faults_and_their_consequences() -> None:
    assert [is_noise(i) for i in JOURNAL["incidents"]] == [False, False, True]


def test_the_store_gauge_counts_what_campaign_figures_count(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    rid = store.begin_run("noise-def", 1, "auto")
    store.finish(rid, JOURNAL)
    assert _gauge(store) == 1 == store.run_figures()["noise"][("false",)]
    assert seed_record(JOURNAL)["noise_incidents"] == 1
    assert build_campaign_report([JOURNAL])["noise_incidents"] == 1


def test_an_older_store_is_counted_the_same_after_migration(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    rid = store.begin_run("noise-def", 1, "auto")
    store.finish(rid, JOURNAL)
    db = sqlite3.connect(store.path)  # as a version-2 store wrote it: no noise column, user_version 2
    db.executescript("ALTER TABLE incidents DROP COLUMN noise; PRAGMA user_version=2;")
    db.close()
    again = RunStore(tmp_path)
    assert sqlite3.connect(again.path).execute("PRAGMA user_version").fetchone()[0] == STORE_VERSION
    assert _gauge(again) == 1
    assert json.loads(json.dumps(again.get_journal(rid)))["incidents"][1]["consequence_of"] == "i1"
