"""The ``opsbrain`` command line: a thin click layer over the library (the only module importing click).

Conventions (DESIGN.md, "Contracts"): every reporting command takes ``--json`` and then prints only JSON on
stdout. Exit codes: 0 ok / verdict passed; 1 verdict failed (a command calls ``ctx.exit(1)``); 2 bad input or
usage, reported as ONE line ``opsbrain: error: ...`` on stderr, never a traceback. Library code raises
:mod:`opsbrain.errors` (or ParamError / UnknownComponent / ValueError for bad values); :class:`_Root` turns them
into that line. Set ``OPSBRAIN_DEBUG=1`` to see the traceback instead.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

import click
from pydantic import ValidationError

from faultlib.params import ParamError, apply_overrides, iter_params
from faultlib.simparams import SimParams
from faultlib.state import UnknownComponent
from opsbrain import __version__
from opsbrain.errors import InputError

# Errors that mean "the user gave bad input": exit 2 with one line on stderr.
_NO_ARGS: tuple[type[click.UsageError], ...] = tuple(
    c for c in (getattr(click.exceptions, "NoArgsIsHelpError", None),) if c is not None)
BAD_INPUT: tuple[type[BaseException], ...] = (InputError, ParamError, UnknownComponent, ValueError)


def _one_line(exc: BaseException) -> str:
    """A one-line message for an error, whatever shape its ``str()`` has."""
    if isinstance(exc, ValidationError):
        err = exc.errors()[0]
        loc = ".".join(str(x) for x in err["loc"])
        msg = f"{loc}: {err['msg']}" if loc else err["msg"]
    else:
        msg = str(exc) or type(exc).__name__
    return " ".join(msg.split())


def _fail(message: str, code: int = 2) -> NoReturn:
    click.echo(f"opsbrain: error: {' '.join(message.split())}", err=True)
    sys.exit(code)


class _Root(click.Group):
    """The root group: runs a command and maps expected errors to exit codes (see module docstring)."""

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True, **extra: Any) -> Any:
        try:
            rv = super().main(args, prog_name or "opsbrain", complete_var, standalone_mode=False, **extra)
        except _NO_ARGS as exc:  # bare ``opsbrain``: show the help (click >= 8.2 raises for it)
            click.echo(exc.format_message(), err=True)
            sys.exit(2)
        except click.UsageError as exc:
            hint = f" (see '{exc.ctx.command_path} --help')" if exc.ctx is not None else ""
            _fail(exc.format_message() + hint, exc.exit_code)
        except click.ClickException as exc:
            _fail(exc.format_message(), exc.exit_code)
        except click.Abort:
            _fail("aborted", 130)
        except BrokenPipeError:  # stdout closed early (``opsbrain params | head``): no traceback
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(1)
        except BAD_INPUT as exc:
            if os.environ.get("OPSBRAIN_DEBUG"):
                raise
            _fail(_one_line(exc))
        # standalone_mode=False returns the exit code of ctx.exit()/--help/--version, or the command's
        # return value (commands return None).
        code = rv if isinstance(rv, int) else 0
        if standalone_mode:
            sys.exit(code)
        return code


def parse_params(pairs: Sequence[str]) -> dict[str, Any]:
    """``["fabric.ub_link_gbytes_s=25"]`` -> ``{"fabric.ub_link_gbytes_s": "25"}`` (pydantic converts the value).

    A value starting with ``[`` or ``{`` is read as JSON (lists, tables).
    """
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise InputError(f"expected KEY=VALUE, got {pair!r}", path="--param")
        value = value.strip()
        if value and value[0] in "[{":
            try:
                out[key] = json.loads(value)
            except json.JSONDecodeError as exc:
                raise InputError(f"{key}: not valid JSON: {exc.msg}", path="--param") from None
        else:
            out[key] = value
    return out


def sim_params(pairs: Sequence[str]) -> SimParams:
    """Embedded defaults with ``--param`` overrides applied and validated."""
    params: SimParams = apply_overrides(SimParams(), parse_params(pairs))
    return params


def _emit_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, default=str))


def _write_atomic(path: Path, write: Any, option: str) -> None:
    """Write a file via a temporary file in the same directory and ``os.replace`` (no half-written file)."""
    directory = path.parent
    if not directory.is_dir():
        raise InputError(f"directory {str(directory)!r} does not exist", path=option)
    tmp: str | None = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
        with os.fdopen(fd, "wb") as fh:
            write(fh)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; give the file the usual mode
        os.replace(tmp, path)
        tmp = None
    except OSError as exc:
        raise InputError(exc.strerror or str(exc), file=str(path), path=option) from None
    finally:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)


param_option = click.option(
    "--param", "params", multiple=True, metavar="KEY=VALUE",
    help="Override a simulator parameter (see 'opsbrain params'), e.g. fabric.ub_link_gbytes_s=25.")
json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON only, on stdout.")


@click.group(cls=_Root, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="opsbrain", message="%(prog)s %(version)s")
def cli() -> None:
    """Fault injection and operations automation for a simulated CloudMatrix384-class superpod."""


# ---- topology ---------------------------------------------------------------------------------------
@cli.command()
@click.option("--pods", default=1, show_default=True, type=int, help="Number of superpods in the cluster.")
@click.option("--export-graphml", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the component/link graph as GraphML to this file.")
@param_option
@json_option
def topology(pods: int, export_graphml: Path | None, params: tuple[str, ...], as_json: bool) -> None:
    """Build the superpod topology and print component counts and bandwidths."""
    from faultlib.topology import Topology

    prm = sim_params(params)
    max_pods = prm.topology.max_pods
    if not 1 <= pods <= max_pods:
        raise InputError(f"pod count must be between 1 and {max_pods} (topology.max_pods), got {pods}",
                         path="--pods")
    topo = Topology.build(prm.topology, pods)
    counts = topo.counts()
    fab = prm.fabric
    bandwidth = {
        "npu_ub_gbytes_s": fab.npu_ub_gbytes_s,
        "l1_l2_link_gbytes_s": fab.ub_link_gbytes_s,
        "die_ub_link_gbytes_s": fab.die_link_gbytes_s,
        "npu_rdma_gbits_s": fab.rdma_port_gbits_s * prm.topology.dies_per_npu,
        "node_vpc_gbits_s": fab.vpc_gbits_s,
    }
    if export_graphml is not None:
        import networkx as nx

        graph = topo.graph()
        _write_atomic(export_graphml, lambda fh: nx.write_graphml(graph, fh), "--export-graphml")
    if as_json:
        _emit_json({**counts, "bandwidth": bandwidth,
                    "graphml": str(export_graphml) if export_graphml is not None else None})
        return
    _print_topology(counts, bandwidth, export_graphml)


def _print_topology(counts: dict[str, int], bandwidth: dict[str, float], graphml: Path | None) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    table = Table(title=f"Superpod topology ({counts['pods']} pod{'s' if counts['pods'] != 1 else ''})")
    table.add_column("component")
    table.add_column("count", justify="right")
    for key, value in counts.items():
        table.add_row(key.replace("_", " "), f"{value:,}")
    console.print(table)
    bw = Table(title="Bandwidth")
    bw.add_column("path")
    bw.add_column("value", justify="right")
    labels = {
        "npu_ub_gbytes_s": ("UB per NPU (unidirectional)", "GB/s"),
        "l1_l2_link_gbytes_s": ("UB per L1-L2 link", "GB/s"),
        "die_ub_link_gbytes_s": ("UB per die link", "GB/s"),
        "npu_rdma_gbits_s": ("RDMA (RoCE) per NPU", "Gb/s"),
        "node_vpc_gbits_s": ("VPC per node", "Gb/s"),
    }
    for key, rate in bandwidth.items():
        label, unit = labels.get(key, (key, ""))
        bw.add_row(label, f"{rate:g} {unit}")
    console.print(bw)
    if graphml is not None:
        console.print(f"graph written to {graphml}")


# ---- params -----------------------------------------------------------------------------------------
@cli.command("params")
@param_option
@json_option
def params_cmd(params: tuple[str, ...], as_json: bool) -> None:
    """List every simulator parameter: path, value, unit and source."""
    prm = sim_params(params)
    overridden = set(parse_params(params))
    rows = []
    for path, default, unit, source, description in iter_params(SimParams):
        value: Any = prm
        for part in path.split("."):
            value = getattr(value, part)
        rows.append({"path": path, "value": value, "default": default, "unit": unit,
                     "source": "override (--param)" if path in overridden else source,
                     "description": description})
    if as_json:
        _emit_json({"parameters": rows})
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"Simulator parameters ({len(rows)})")
    table.add_column("parameter", no_wrap=True)
    table.add_column("value", max_width=24, overflow="fold")
    table.add_column("unit", max_width=14)
    table.add_column("source", overflow="fold")
    for row in rows:
        table.add_row(row["path"], str(row["value"]), row["unit"], row["source"])
    Console().print(table)


# ---- command groups still to come (each a thin wrapper over its library package) --------------------
# chaos    list | validate FILE... | run SCENARIO | campaign | replay TRACE   -> opsbrain.chaos
# kb       list | show CLASS | validate | train | eval | import FORMAT PATH   -> opsbrain.kb / knowledge_base
# diagnose INCIDENT_FILE | --logs FILE                                        -> opsbrain.diagnosis
# sweep    once | run                                                         -> opsbrain.service
# report   RUN_ID | JOURNAL_FILE --format html|md|json --out PATH            -> opsbrain.report
# runs     list | show RUN_ID                                                 -> opsbrain.store
# Register them here with @cli.group() / @cli.command(); raise opsbrain.errors for bad input.


def main(argv: Sequence[str] | None = None) -> None:
    """Console-script entry point (``opsbrain``, ``python -m opsbrain``); exits with the command's code."""
    cli.main(args=list(argv) if argv is not None else None, prog_name="opsbrain")
