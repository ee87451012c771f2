"""``opsbrain report``: HTML, Markdown or JSON reports of runs and campaigns."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from opsbrain.cli.base import _emit_json, cli, data_dir_option, force_option, json_option
from opsbrain.report.text import count


# ---- report (issue 8): add the 'report' command here --------------------------------------------------
@cli.command("report")
@click.argument("sources", nargs=-1, required=True, metavar="RUN_ID|JOURNAL_FILE...")
@click.option("--format", "fmt", type=click.Choice(["html", "md", "json"]), default=None,
              help="Report format (default: from the --out suffix, else html; a .html/.md/.json suffix naming "
                   "another format is refused).")
@click.option("--out", "out", required=True, metavar="PATH",
              help="File to write (its directory must exist); '-' prints md/json on stdout.")
@click.option("--baseline", default=None, metavar="RUN_ID|FILE",
              help="A manual-policy journal of the same faults, shown beside this run's numbers.")
@click.option("--campaign", is_flag=True, help="A campaign report even for one journal (several inputs imply it).")
@click.option("--open", "open_it", is_flag=True, help="Open the written report in the default browser.")
@force_option
@data_dir_option
@json_option
def report_cmd(sources: tuple[str, ...], fmt: str | None, out: str, baseline: str | None, campaign: bool,
               open_it: bool, force: bool, data_dir: Path | None, as_json: bool) -> None:
    """Diagnosis report of a run (or a campaign of runs): HTML with plots, Markdown or JSON."""
    from opsbrain.report import make_report

    res = make_report(list(sources), out, fmt=fmt, baseline=baseline, campaign=campaign, data_dir=data_dir,
                      force=force)
    text = res.pop("text", None)
    if as_json:
        _emit_json(res)
    elif text is not None:
        click.echo(text, nl=False)
    else:
        click.echo(f"wrote {res['kind']} report ({res['format']}, {res['bytes'] / 1024:.0f} KiB, "
                   f"{count(res['incidents'], 'incident')}) to {res['path']}")
        if sys.stdout.isatty() and not open_it:
            click.echo(f"open it: {res['url']}  (or add --open)")
    if open_it and res.get("url"):
        import webbrowser

        webbrowser.open(res["url"])
