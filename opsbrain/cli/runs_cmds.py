"""``opsbrain runs``: list, show, bundle."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from opsbrain.cli.base import _emit_json, _store, cli, data_dir_option, json_option
from opsbrain.cli.journal_view import print_journal
from opsbrain.cli.output import Table, emit, output_option, resolve_format
from opsbrain.errors import InputError


# ---- runs ---------------------------------------------------------------------------------------------
@cli.group()
def runs() -> None:
    """The run store: past runs and their journals."""


@runs.command("list")
@click.option("--limit", type=click.IntRange(1, 1_000_000), default=50, show_default=True,
              help="At most this many runs, the newest.")
@click.option("--campaign", "campaign", default=None, metavar="CAMPAIGN_ID",
              help="Only the runs of this campaign (ids: 'opsbrain chaos campaign' prints them).")
@data_dir_option
@output_option
@json_option
def runs_list(limit: int, campaign: str | None, data_dir: Path | None, output: str | None, as_json: bool) -> None:
    """List stored runs, newest first, with the campaign each belongs to."""
    from opsbrain.verdict import TONE_STYLE, run_outcome

    fmt = resolve_format(output, as_json)
    store = _store(data_dir)
    if campaign is not None and store.get_campaign(campaign) is None:
        raise InputError(f"no campaign {campaign!r} in the run store {store.path}", path="--campaign")
    rows = store.list_runs(limit, campaign=campaign)
    table = Table.of(["run id", "status", "verdict", "policy", "started", "campaign"],
                     title=f"runs ({len(rows)}, newest first)")
    for r in rows:
        word, tone = run_outcome(r["verdict"]) if r["verdict"] else ("-", "neutral")
        table.add(r["id"], r["status"], word, r["policy"], r["started_at"], r.get("campaign_id") or "-",
                  styles=[None, None, TONE_STYLE[tone], None, None, None])
    emit(table, fmt, {"runs": rows})


@runs.command("show")
@click.argument("run_id")
@click.option("--all", "show_all", is_flag=True, help="List every noise incident (default: ignored ones are one row).")
@data_dir_option
@output_option
@json_option
def runs_show(run_id: str, show_all: bool, data_dir: Path | None, output: str | None, as_json: bool) -> None:
    """Show one run's journal."""
    fmt = resolve_format(output, as_json)
    as_json = fmt == "json"
    store = _store(data_dir)
    row = store.get_run(run_id)
    if row is None:
        raise InputError(f"no run {run_id!r} in the run store (see 'opsbrain runs list')")
    journal = store.get_journal(run_id)
    if as_json:
        _emit_json(journal if journal is not None else row)
        return
    if journal is None:
        from opsbrain.report.output import no_journal_words

        click.echo(f"{run_id}: {row['status']} (no journal: {no_journal_words(row)})")
        return
    print_journal(journal, fmt, show_all)


@runs.command("bundle")
@click.argument("run_id")
@click.option("--incident", default=None, help="Only this journal incident (default: every incident).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Write each bundle into OUT/b0001/, ... (the journal's order; OUT/b0001.sim.json names its "
                   "incident).")
@click.option("--scenario", default=None, help="The scenario file the run used, if it was not a built-in.")
@data_dir_option
@json_option
def runs_bundle(run_id: str, incident: str | None, out_dir: Path, scenario: str | None, data_dir: Path | None,
                as_json: bool) -> None:
    """Write log bundles of a stored run's incidents: re-runs the scenario with the run's seed and policy (runs
    are deterministic; the store keeps journals, not logs) and exits 1 if the re-run differs from the journal."""
    from opsbrain.bundle import regenerate

    store = _store(data_dir)
    if store.get_run(run_id) is None:
        raise InputError(f"no run {run_id!r} in the run store (see 'opsbrain runs list')")
    journal = store.get_journal(run_id)
    if journal is None:
        from opsbrain.report.output import no_journal_words

        raise InputError(f"run {run_id!r} has no journal to re-run: {no_journal_words(store.get_run(run_id))}")
    rep = regenerate(journal, out_dir, incident=incident, scenario=scenario, home=data_dir)
    if as_json:
        _emit_json(rep)
    else:
        click.echo(f"re-ran {rep['scenario']} seed {rep['seed']} policy {rep['policy']}: "
                   + ("reproduced the stored journal" if rep["reproduced"] else "DIFFERS from the stored journal"))
        for diff in rep["differences"]:
            click.echo(f"  {diff}")
        for note in rep.get("notes", []):
            click.echo(f"  note: {note}")
        for b in rep["bundles"]:
            click.echo(f"  {b['incident']}: " + (f"error: {b['error']}" if "error" in b else
                                                 f"{b['path']} ({b['files']} files, {b['lines']} lines)"))
    if not rep["reproduced"]:
        sys.exit(1)


# ---- campaign (issue 10): add 'chaos campaign' here ---------------------------------------------------
