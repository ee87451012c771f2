"""``opsbrain runbooks``: list, show, validate."""

from __future__ import annotations

import sys

import click

from opsbrain.cli.base import _emit_json, cli, echo_errors, json_option
from opsbrain.cli.output import Table, emit, output_option, resolve_format


# ---- runbooks (issue 6) ---------------------------------------------------------------------------------
@cli.group()
def runbooks() -> None:
    """Runbooks: list, show, validate."""


@runbooks.command("list")
@output_option
@json_option
def runbooks_list(output: str | None, as_json: bool) -> None:
    """List the runbooks."""
    from opsbrain.recovery.loader import list_runbooks

    fmt = resolve_format(output, as_json)
    data = list_runbooks()
    rbs = data.get("runbooks", [])
    table = Table.of(["runbook", "applies to"], title=f"runbooks ({len(rbs)})", wrap=["applies to"])
    for rb in rbs:
        table.add(rb.get("id", ""), ", ".join(rb.get("applies_to", [])))
    emit(table, fmt, data)


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
    from opsbrain.cli.output import yaml_text

    click.echo(yaml_text(data))


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
    echo_errors(msgs if not as_json else [])
    if msgs:
        sys.exit(2)
