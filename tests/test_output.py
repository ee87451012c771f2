"""Output that survives any width (issue 19): every table of the CLI rendered at 60, 80 and 200 columns and piped
(plain), with every component id found whole on one line; plain output is tab-separated; --json and --output json
agree; ignored noise is one row unless --all and a false positive is named; one outcome vocabulary."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import pytest

from opsbrain.cli import cli
from opsbrain.cli.journal_view import journal_tables
from opsbrain.cli.output import Table, resolve_format
from opsbrain.cli.sweep_cmds import sweep_table
from opsbrain.verdict import ETTR_BAR, ettr_outcome, incident_outcome, probe_outcome, run_outcome

WIDTHS = (60, 80, 200)
ID = re.compile(r"pod\d+/[A-Za-z0-9_/~.\-]+")


@pytest.fixture(scope="module")
def journal() -> dict[str, Any]:
    """A real one-hour run, plus noise incidents copied from its own incidents (the long switch-link ids), one of
    them acted on (a false positive)."""
    from opsbrain import chaos

    j = dict(chaos.run(chaos.plan("link-down-training")))
    fault = next(i for i in j["incidents"] if i["injected"])
    link = "pod0/node26/l1sw0~pod0/l2plane0/sw00"
    for n in range(12):
        noise = copy.deepcopy(fault)
        noise |= {"id": f"n{n:04d}", "injected": None, "correct": False, "false_positive": n == 0}
        noise["diagnosis"] = dict(noise["diagnosis"] or {}, fault_class="link_flap", component=f"{link}{n % 3}")
        j["incidents"].append(noise)
    return j


@pytest.fixture(scope="module")
def sweep_data() -> dict[str, Any]:
    from opsbrain.sweeps.once import sweep_once

    data = sweep_once("optical-degradation", 7200.0).as_dict()
    assert data["findings"], "the degraded module must give findings to render"
    return data


def _ids_whole(table: Table, text: str) -> None:
    ids = {m for row in table.rows for cell in row for m in ID.findall(cell)}
    lines = text.splitlines()
    for x in ids:
        assert any(x in ln for ln in lines), f"{x} is cut or split in:\n{text}"


def check_ids_whole(table: Table) -> None:
    assert any(ID.search(c) for r in table.rows for c in r), "the table must show component ids"
    for w in WIDTHS:
        text = table.render("table", width=w, colour=False)
        _ids_whole(table, text)
    plain = table.plain()
    _ids_whole(table, plain)
    lines = plain.splitlines()
    assert len(lines) == len(table.rows) + 1
    assert all(ln.count("\t") == len(table.columns) - 1 for ln in lines)


def test_journal_and_sweep_tables_keep_ids_whole_at_every_width(journal: dict[str, Any],
                                                                  sweep_data: dict[str, Any]) -> None:
    incidents, _probes = journal_tables(journal, show_all=True)
    check_ids_whole(incidents)
    check_ids_whole(sweep_table(sweep_data))


def test_table_fits_or_falls_back_to_blocks() -> None:
    t = Table.of(["component", "evidence"], wrap=["evidence"])
    long_id = "pod12/node47/l1sw3~pod12/l2plane6/sw15/osfp33"
    t.add(long_id, "Rx power -8.55 dBm on lane 0 below the -6.5 dBm warn threshold " * 3)
    for w in (30, 60, 80, 200):
        text = t.render("table", width=w, colour=False)
        assert any(long_id in ln for ln in text.splitlines())
        if w >= 80:  # the grid: no line wider than the terminal
            assert max(len(ln) for ln in text.splitlines()) <= w
    assert "-- 1/1 --" in t.render("table", width=30, colour=False)  # too narrow for columns: one block per row


def test_noise_collapsed_unless_all_and_false_positive_named(journal: dict[str, Any]) -> None:
    ignored = sum(1 for i in journal["incidents"] if not i["injected"] and not i.get("false_positive"))
    assert ignored >= 11
    collapsed, _ = journal_tables(journal)
    outcomes = [r[-1] for r in collapsed.rows]
    assert outcomes.count("ignored") == 1  # every ignored noise incident in one row
    assert "acted: false positive" in outcomes
    fp_row = next(r for r in collapsed.rows if r[-1] == "acted: false positive")
    assert fp_row[2] == "link_flap" and fp_row[1].startswith("pod0/node26/l1sw0~")
    summary = next(r for r in collapsed.rows if r[-1] == "ignored")
    assert summary[1] == f"{ignored} incidents"
    full, _ = journal_tables(journal, show_all=True)
    assert [r[-1] for r in full.rows].count("ignored") == ignored


@pytest.mark.parametrize("cmd", [["chaos", "list"], ["kb", "list"], ["runbooks", "list"], ["params", "fabric."],
                                 ["topology"]])
def test_list_commands_plain_and_json(runner: Any, cmd: list[str], tmp_path: Any) -> None:
    env = {"OPSBRAIN_HOME": str(tmp_path), "COLUMNS": "60"}
    table = runner.invoke(cli, cmd, env=env)
    assert table.exit_code == 0, table.output
    assert max(len(ln) for ln in table.output.splitlines()) <= 60 or "-- 1/" in table.output
    plain = runner.invoke(cli, [*cmd, "--output", "plain"], env=env)
    assert plain.exit_code == 0 and "\t" in plain.output.splitlines()[0]
    a = runner.invoke(cli, [*cmd, "--json"], env=env)
    b = runner.invoke(cli, [*cmd, "--output", "json"], env=env)
    assert a.exit_code == b.exit_code == 0 and json.loads(a.output) == json.loads(b.output)


def test_json_and_other_output_contradict(runner: Any) -> None:
    res = runner.invoke(cli, ["chaos", "list", "--json", "--output", "plain"])
    assert res.exit_code == 2
    assert resolve_format(None, False) == "table" and resolve_format("json", True) == "json"


def test_params_is_compact_by_default(runner: Any) -> None:
    compact = runner.invoke(cli, ["params"], env={"COLUMNS": "80"})
    full = runner.invoke(cli, ["params", "--sources"], env={"COLUMNS": "80"})
    assert compact.exit_code == full.exit_code == 0
    n = len(json.loads(runner.invoke(cli, ["params", "--json"]).output)["parameters"])
    assert len(compact.output.splitlines()) < 1.5 * n  # about a line a parameter (with sources: ~13 a parameter)
    assert len(full.output.splitlines()) > len(compact.output.splitlines())
    assert runner.invoke(cli, ["params", "no-such-group"]).exit_code == 2


def test_one_outcome_vocabulary() -> None:
    assert probe_outcome(23 * 60.0, 300.0, True) == ("deviated", "bad")  # past tolerance is never ok
    assert probe_outcome(60.0, 300.0, False) == ("not recovered", "bad")
    assert probe_outcome(60.0, 300.0, True) == ("ok", "ok")
    assert incident_outcome({"injected": None, "false_positive": False}) == ("ignored", "ok")
    assert incident_outcome({"injected": None, "false_positive": True})[0] == "acted: false positive"
    fault = {"injected": {"kind": "link_down"}, "correct": False, "diagnosis": {"fault_class": "link_down"}}
    assert incident_outcome(fault)[0] == "wrong component"
    assert run_outcome("passed", 0.52) == (f"passed, ETTR below {ETTR_BAR:.2f}", "bad")
    assert run_outcome("passed", 0.95) == ("passed", "ok")
    assert run_outcome("failed")[1] == "bad"
    assert ettr_outcome(0.87)[1] == "warn" and ettr_outcome(None) == ("-", "neutral")


def test_kb_show_prints_unicode(runner: Any) -> None:
    res = runner.invoke(cli, ["kb", "show", "hbm_uce"])
    assert res.exit_code == 0 and "\\xA7" not in res.output and "\\u" not in res.output


def test_a_run_without_probes_prints_no_empty_probe_table(journal: dict[str, Any],
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    # tester T, session 30: a scenario without probes printed the probe table's header with no row under it
    from opsbrain.cli.journal_view import print_journal

    bare = {**journal, "steady_state": {**(journal.get("steady_state") or {}), "after": {}, "before": {},
                                        "baseline": {}, "longest_deviation_s": {}}}
    print_journal(bare)
    out = capsys.readouterr().out
    assert "): no probes" in out and "holds when" not in out
    print_journal(journal)  # link-down-training has probes: their table is still printed
    assert "holds when" in capsys.readouterr().out
