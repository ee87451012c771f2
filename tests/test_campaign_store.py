"""Campaigns stored with their runs (issue 19): the schema migration of an older store, ``runs list --campaign``,
``report CAMPAIGN_ID`` and ``report`` of the campaign's own ``--json`` output."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from opsbrain.cli import cli
from opsbrain.store import STORE_VERSION, RunStore

# The run store's schema before issue 19 (runs without campaign_id, incidents without false_positive, campaigns
# without summary), as the campaign runner created it then.
OLD_SCHEMA = """
CREATE TABLE runs (id TEXT PRIMARY KEY, scenario TEXT NOT NULL, seed INTEGER NOT NULL, policy TEXT NOT NULL,
    status TEXT NOT NULL, verdict TEXT, pid INTEGER, started_at TEXT NOT NULL, finished_at TEXT, journal TEXT);
CREATE TABLE incidents (run_id TEXT NOT NULL REFERENCES runs(id), id TEXT NOT NULL, kind TEXT, component TEXT,
    at_s REAL, diagnosis TEXT, correct INTEGER, ttd_s REAL, ttdiag_s REAL, ttr_s REAL, PRIMARY KEY (run_id, id));
CREATE TABLE campaigns (id TEXT PRIMARY KEY, spec TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE campaign_runs (campaign_id TEXT NOT NULL, seed INTEGER NOT NULL, policy TEXT NOT NULL, run_id TEXT,
    record TEXT NOT NULL, finished_at TEXT NOT NULL, PRIMARY KEY (campaign_id, seed, policy));
INSERT INTO runs VALUES ('r1', 'campaign-x', 0, 'auto', 'finished', 'passed', 1, '2026-01-01T00:00:00+00:00',
    '2026-01-01T00:01:00+00:00', '{"scenario": "campaign-x", "incidents": []}');
INSERT INTO runs VALUES ('r2', 'solo', 0, 'auto', 'finished', 'failed', 1, '2026-01-01T00:02:00+00:00', NULL, NULL);
INSERT INTO incidents VALUES ('r1', 'f1', 'hbm_uce', 'pod0/node1/npu0', 10.0, 'hbm_uce', 1, 1.0, 2.0, 30.0);
INSERT INTO campaigns VALUES ('camp-old', '{}', '2026-01-01T00:00:00+00:00', '2026-01-01T00:00:00+00:00');
INSERT INTO campaign_runs VALUES ('camp-old', 0, 'auto', 'r1', '{"seed": 0}', '2026-01-01T00:01:00+00:00');
"""


def _old_store(home: Path) -> Path:
    home.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(home / "runs.sqlite")
    db.executescript(OLD_SCHEMA)
    db.close()
    return home


def test_an_older_store_is_migrated_in_place_and_keeps_its_rows(tmp_path: Path) -> None:
    store = RunStore(_old_store(tmp_path))
    assert sqlite3.connect(store.path).execute("PRAGMA user_version").fetchone()[0] == STORE_VERSION
    assert {r["id"]: r["campaign_id"] for r in store.list_runs()} == {"r1": "camp-old", "r2": None}
    assert [r["id"] for r in store.list_runs(campaign="camp-old")] == ["r1"]
    camp = store.get_campaign("camp-old")
    assert camp is not None and camp["run_ids"] == ["r1"] and camp["summary"] is None
    fig = store.run_figures()
    assert fig["faults"] == {("diagnosed_correctly",): 1} and fig["ttr"] == {("hbm_uce",): (1, 30.0)}
    assert store.get_journal("r1") == {"scenario": "campaign-x", "incidents": []}
    RunStore(tmp_path)  # opening again is a no-op
    assert len(RunStore(tmp_path).list_runs()) == 2


def test_two_processes_opening_an_old_store_both_succeed(tmp_path: Path) -> None:
    import subprocess
    import sys

    _old_store(tmp_path)
    code = "import sys; from opsbrain.store import RunStore; print(len(RunStore(sys.argv[1]).list_runs()))"
    procs = [subprocess.Popen([sys.executable, "-c", code, str(tmp_path)], stdout=subprocess.PIPE, text=True)
             for _ in range(3)]
    assert [p.communicate(timeout=60)[0].strip() for p in procs] == ["2", "2", "2"]


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    """A tiny campaign (2 seeds, half a day) run through the CLI, with its --json output file."""
    home = tmp_path_factory.mktemp("campaign")
    res = CliRunner().invoke(cli, ["chaos", "campaign", "--days", "0.5", "--seeds", "2", "--workers", "1", "--json",
                                   "--data-dir", str(home)])
    assert res.exit_code == 0, res.output
    (home / "campaign.json").write_text(res.stdout)
    return home, json.loads(res.stdout)


def _run(args: list[str], home: Path) -> tuple[int, str, str]:
    res = CliRunner().invoke(cli, [*args, "--data-dir", str(home)])
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    return res.exit_code, res.stdout, res.stderr


def test_runs_list_shows_campaign_membership(campaign: tuple[Path, dict]) -> None:
    home, out = campaign
    cid = out["campaign"]
    code, text, err = _run(["runs", "list", "--campaign", cid, "--json"], home)
    assert code == 0, err
    runs = json.loads(text)["runs"]
    assert len(runs) == 2 and {r["campaign_id"] for r in runs} == {cid}
    code, text, _ = _run(["runs", "list", "--output", "plain"], home)
    rows = [line.split("\t") for line in text.splitlines()[1:]]  # tab-separated, after the header
    assert code == 0 and len(rows) == 2 and all(r[-1] == cid for r in rows)
    code, _, err = _run(["runs", "list", "--campaign", "no-such"], home)
    assert code == 2 and "no campaign 'no-such'" in err


@pytest.mark.parametrize("source", ["id", "file"])
def test_report_of_a_campaign_id_or_its_json_output(campaign: tuple[Path, dict], source: str,
                                                     tmp_path: Path) -> None:
    home, out = campaign
    arg = out["campaign"] if source == "id" else str(home / "campaign.json")
    code, text, err = _run(["report", arg, "--out", str(tmp_path / "c.json"), "--json"], home)
    assert code == 0, err
    assert json.loads(text)["kind"] == "campaign"
    model = json.loads((tmp_path / "c.json").read_text())
    assert model["kind"] == "campaign" and len(model["runs"]) == 2
    code, _, err = _run(["report", arg, "--out", str(tmp_path / "c.html")], home)
    assert code == 0 and (tmp_path / "c.html").stat().st_size > 1000, err


def test_report_of_a_campaign_summary_from_another_store_is_one_line(campaign: tuple[Path, dict],
                                                                     tmp_path: Path) -> None:
    home, _ = campaign
    code, _, err = _run(["report", str(home / "campaign.json"), "--out", str(tmp_path / "c.md")], tmp_path / "empty")
    lines = [x for x in err.splitlines() if x.strip()]
    assert code == 2 and len(lines) == 1 and "not in the run store" in lines[0], err
