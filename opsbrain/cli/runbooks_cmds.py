"""``opsbrain runbooks``: list, show, validate."""

from __future__ import annotations

import sys

import click

from opsbrain.cli.base import _emit_json, cli, json_option


# ---- runbooks (issue 6) ---------------------------------------------------------------------------------
@cli.group()
def runbooks() -> None:
    """Runbooks: list, show, validate."""


@runbooks.command("list")
@json_option
def runbooks_list(as_json: bool) -> None:
    """List the runbooks."""
    from opsbrain.recovery.loader import list_runbooks

    data = list_runbooks()
    if as_json:
        _emit_json(data)
        return
    for rb in data.get("runbooks", []):
        click.echo(f"{rb.get('id', ''):<28} {', '.join(rb.get('applies_to', []))}")


@runbooks.command("show")
@click.argument("runbook_id")
@json_option
def runbooks_show(runbook_id: str, as_json: bool) -> None:
    """Show one runbook (by id or fault class)."""
    from opsbrain.recovery.loader import show_runbook

    data = show_runbook(runbook_id)
    if as_json:
        _emit_json(data)
        return
    import yaml

    click.echo(yaml.safe_dump(data, sort_keys=False, width=110).rstrip())


@runbooks.command("validate")
@click.argument("files", nargs=-1)
@json_option
def runbooks_validate(files: tuple[str, ...], as_json: bool) -> None:
    """Validate runbook files (default: the built-in ones); every error with file and YAML path."""
    from opsbrain.recovery.loader import runbook_errors

    _, errors = runbook_errors(list(files) or None)
    msgs = [str(e) for e in errors]
    if as_json:
        _emit_json({"valid": not msgs, "errors": msgs})
    elif not msgs:
        click.echo("runbooks valid")
    for m in msgs if not as_json else []:
        click.echo(f"opsbrain: error: {m}", err=True)
    if msgs:
        sys.exit(2)
