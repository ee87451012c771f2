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
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from opsbrain import __version__
from opsbrain.errors import InputError

if TYPE_CHECKING:
    from faultlib.simparams import SimParams

# Errors that mean "the user gave bad input": exit 2 with one line on stderr. Library modules are imported by
# the commands that need them (a short command does not pay for the simulator): faultlib's error types are
# looked up once their module is loaded, which it must be for one of them to have been raised.
_NO_ARGS: tuple[type[click.UsageError], ...] = tuple(
    c for c in (getattr(click.exceptions, "NoArgsIsHelpError", None),) if c is not None)
_LAZY_BAD_INPUT = (("faultlib.params", "ParamError"), ("faultlib.state", "UnknownComponent"))


def bad_input_types() -> tuple[type[BaseException], ...]:
    """InputError, faultlib's ParamError and UnknownComponent (when loaded) and ValueError."""
    lazy = tuple(getattr(sys.modules[mod], name) for mod, name in _LAZY_BAD_INPUT if mod in sys.modules)
    return (InputError, *lazy, ValueError)


def _one_line(exc: BaseException) -> str:
    """A one-line message for an error, whatever shape its ``str()`` has."""
    pydantic = sys.modules.get("pydantic")  # not loaded: exc cannot be one of its errors
    if pydantic is not None and isinstance(exc, pydantic.ValidationError):
        err = exc.errors()[0]
        loc = ".".join(str(x) for x in err["loc"])
        msg = f"{loc}: {err['msg']}" if loc else err["msg"]
    else:
        msg = str(exc) or type(exc).__name__
    return " ".join(msg.split())


def _fail(message: str, code: int = 2) -> NoReturn:
    line = " ".join(message.split())
    if len(line) > 1000:  # an error line never echoes kilobytes of input
        line = f"{line[:1000]}... ({len(line) - 1000} more characters)"
    click.echo(f"opsbrain: error: {line}", err=True)
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
        except Exception as exc:
            if os.environ.get("OPSBRAIN_DEBUG"):
                raise
            if isinstance(exc, OSError):  # a file the library did not expect to fail (name too long, disk full)
                name = f"{str(exc.filename)[:300]}: " if exc.filename is not None else ""
                _fail(f"{name}{exc.strerror or exc}")
            if not isinstance(exc, bad_input_types()):
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
    from faultlib.params import apply_overrides
    from faultlib.simparams import SimParams

    params: SimParams = apply_overrides(SimParams(), parse_params(pairs))
    return params


def _emit_json(data: Any) -> None:
    from opsbrain.fsio import strict_json

    click.echo(strict_json(data, indent=2, default=str))


def _write_atomic(path: Path, write: Any, option: str, force: bool = False) -> None:
    """Write a file through the output policy and atomic writer of :mod:`opsbrain.fsio` (no half-written file)."""
    import io

    from opsbrain.fsio import check_target, write_atomic

    check_target(path, option, force)
    buf = io.BytesIO()
    write(buf)
    try:
        write_atomic(path, buf.getvalue(), option=option, force=force)
    except OSError as exc:
        raise InputError(exc.strerror or str(exc), file=str(path), path=option) from None


class _Finite(click.FloatRange):
    """A float range that also refuses NaN (click's range lets NaN through: every comparison with it is false)."""

    name = "finite float"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        rv = super().convert(value, param, ctx)
        if rv != rv:  # NaN
            self.fail(f"{str(value)[:40]!r} is not a number", param, ctx)
        return rv


SEED = click.IntRange(0, 2**63 - 1)  # the run store keeps seeds as SQLite INTEGER (signed 64 bits)
MAX_SPEED = 1e6  # reason: a wall second is then 11.6 simulated days; the twin cannot simulate a pod that fast
MAX_WALL_S = 10 * 365 * 86400.0  # reason: ten years; beyond it a wall-clock bound is no bound (and overflows)

param_option = click.option(
    "--param", "params", multiple=True, metavar="KEY=VALUE",
    help="Override a simulator parameter (see 'opsbrain params'), e.g. fabric.ub_link_gbytes_s=25.")
json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON only, on stdout.")
force_option = click.option("--force", is_flag=True, help="Allow the output to replace an SQLite database (the run "
                            "store) or the package's own data (never a link or a non-regular file).")


@click.group(cls=_Root, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="opsbrain", message="%(prog)s %(version)s")
def cli() -> None:
    """Fault injection and operations automation for a simulated CloudMatrix384-class superpod."""


# ---- topology ---------------------------------------------------------------------------------------
@cli.command()
@click.option("--pods", default=1, show_default=True, type=int, help="Number of superpods in the cluster.")
@click.option("--export-graphml", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the component/link graph as GraphML to this file.")
@force_option
@param_option
@json_option
def topology(pods: int, export_graphml: Path | None, force: bool, params: tuple[str, ...], as_json: bool) -> None:
    """Build the superpod topology and print component counts and bandwidths."""
    from faultlib.topology import Topology

    if export_graphml is not None:  # the output policy before building anything
        from opsbrain.fsio import check_target

        check_target(export_graphml, "--export-graphml", force)
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
        _write_atomic(export_graphml, lambda fh: nx.write_graphml(graph, fh), "--export-graphml", force)
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
    from faultlib.params import iter_params
    from faultlib.simparams import SimParams

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


# ---- chaos ------------------------------------------------------------------------------------------
def _store(data_dir: Path | None) -> Any:
    from opsbrain.store import RunStore

    return RunStore(data_dir)


data_dir_option = click.option("--data-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
                               envvar="OPSBRAIN_HOME", help="Run store and caches (default: $OPSBRAIN_HOME or "
                               "~/.local/share/opsbrain).")


@cli.group()
def chaos() -> None:
    """Chaos scenarios: list, validate, schema, run, replay."""


@chaos.command("list")
@json_option
def chaos_list(as_json: bool) -> None:
    """List the built-in scenarios."""
    from opsbrain import chaos as lib

    rows = lib.list_scenarios()
    if as_json:
        _emit_json({"scenarios": rows})
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"Built-in scenarios ({len(rows)})")
    table.add_column("name", no_wrap=True)
    table.add_column("policy")
    table.add_column("description", overflow="fold")
    for r in rows:
        table.add_row(r["name"], r["policy"], r["description"])
    Console().print(table)


@chaos.command("validate")
@click.argument("files", nargs=-1, required=True)
@json_option
def chaos_validate(files: tuple[str, ...], as_json: bool) -> None:
    """Validate scenario files (names of built-ins work too); every error with file, YAML path and reason."""
    from opsbrain import chaos as lib

    errors = lib.validate(list(files))
    if as_json:
        _emit_json({"valid": not errors, "errors": errors, "files": list(files)})
    elif not errors:
        click.echo(f"{len(files)} scenario file(s) valid")
    for e in errors if not as_json else []:
        click.echo(f"opsbrain: error: {e}", err=True)
    if errors:
        sys.exit(2)


@chaos.command("schema")
def chaos_schema() -> None:
    """Print the JSON Schema of scenario files (for editors)."""
    from opsbrain import chaos as lib

    _emit_json(lib.schema())


@chaos.command("run")
@click.argument("scenario")
@click.option("--seed", type=SEED, default=None, help="Override the scenario's seed.")
@click.option("--policy", type=click.Choice(["auto", "manual"]), default=None, help="Override the policy.")
@click.option("--dry-run", is_flag=True, help="Validate and print the plan; run nothing.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Also write the journal as JSON into this directory.")
@data_dir_option
@json_option
def chaos_run(scenario: str, seed: int | None, policy: str | None, dry_run: bool, out_dir: Path | None,
              data_dir: Path | None, as_json: bool) -> None:
    """Run a scenario (built-in name or file): inject, detect, diagnose, recover, score, journal."""
    from opsbrain import chaos as lib

    plan = lib.plan(scenario, seed=seed, policy=policy)
    if dry_run:
        desc = lib.dry_run(plan)
        if as_json:
            _emit_json(desc)
        else:
            _print_plan(desc)
        return
    store = _store(data_dir)
    journal = _run_with_progress(lib, plan, store, out_dir, data_dir, quiet=as_json)
    if as_json:
        _emit_json(journal)
    else:
        _print_journal(journal)
    if journal["verdict"] != "passed":
        sys.exit(1)


def _run_with_progress(lib: Any, plan: Any, store: Any, out_dir: Path | None, data_dir: Path | None,
                       quiet: bool) -> dict[str, Any]:
    def say(msg: str) -> None:
        click.echo(msg, err=True)

    if quiet or not sys.stderr.isatty():
        return dict(lib.run(plan, store, out_dir, say=say, home=data_dir))
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), TextColumn("{task.fields[sim]}"),
                  TimeElapsedColumn(), transient=True) as bar:
        task = bar.add_task(plan.scenario.metadata.name, total=plan.scenario.spec.duration, sim="")

        def progress(now: float, total: float) -> None:
            bar.update(task, completed=now, sim=f"sim {now:,.0f}/{total:,.0f} s")

        return dict(lib.run(plan, store, out_dir, progress=progress, say=say, home=data_dir))


def _print_plan(desc: dict[str, Any]) -> None:
    click.echo(f"scenario {desc['scenario']} (seed {desc['seed']}, policy {desc['policy']}, "
               f"{desc['duration_s']:.0f} s, {desc['pods']} pod(s)) -- dry run, nothing executed")
    for w in desc["workloads"]:
        click.echo(f"  workload {w['name']} ({w['kind']}): {w['nodes']} nodes {w['first']} .. {w['last']}")
    click.echo(f"  spares: {', '.join(desc['spares']) or 'none'}")
    for f in desc["faults"]:
        rbs = ", ".join(f.get("eligible_runbooks", [])) or "none"
        click.echo(f"  t={f['at_s']:>9.1f}s  {f['kind']:<24} {f['target']}  runbooks: {rbs}")


def _num(v: float | None) -> str:
    return "-" if v is None else f"{v:.1f}"


def _print_journal(j: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    s = j["summary"]
    colour = {"passed": "green", "failed": "red", "aborted": "yellow"}.get(j["verdict"], "white")
    console.print(f"[bold]{j['scenario']}[/] seed {j['seed']} policy {j['policy']}: "
                  f"[bold {colour}]{j['verdict'].upper()}[/]" + (f" ({j['abort_reason']})" if j.get(
                      "abort_reason") else "") + (f"  run id {j['run_id']}" if j.get("run_id") else ""))
    table = Table()
    for col in ("fault", "component", "diagnosis", "conf", "ttd s", "ttdiag s", "ttr s", "ok"):
        table.add_column(col)
    for i in j["incidents"]:
        inj = i["injected"]
        d = i["diagnosis"] or {}
        table.add_row(inj["kind"] if inj else "(noise)", inj["component"] if inj else str(d.get("component")),
                      str(d.get("fault_class", "-")), f"{d.get('confidence', 0):.2f}" if d else "-",
                      _num(i["ttd_s"]), _num(i["ttdiag_s"]), _num(i["ttr_s"]),
                      "yes" if i["correct"] else ("FP" if i.get("false_positive") else "no"))
    console.print(table)
    console.print(f"{s['incidents']} faults, {s['diagnosed_correctly']} diagnosed correctly, {s['recovered']} "
                  f"recovered, {s['false_positives']} false positives; steady state deviated: "
                  f"{j['steady_state']['deviated']}")
    for e in j.get("expectations", []):
        if not e["met"]:
            console.print(f"  expectation on faults[{e['fault']}] not met: {'; '.join(e['problems'])}")


@chaos.command("replay")
@click.argument("trace")
@click.option("--time-unit", type=click.Choice(["s", "min", "h", "days"]), default="s", show_default=True,
              help="Unit of the trace's times (the InfiniteHBD trace uses days).")
@click.option("--mapping", default=None, help="YAML or CSV rules mapping trace rows to fault kinds, tried before "
              "the shipped table (opsbrain/scenario/replay_mapping.yaml).")
@click.option("--pods", type=click.IntRange(1, 64), default=None, help="Pods to replay on (default: the fewest that hold every trace "
              "server on its own node).")
@click.option("--fold", is_flag=True, help="Allow several trace servers on one node when --pods is too small.")
@click.option("--noise", is_flag=True, help="Add the twin's background noise (off: the trace is the fault record).")
@click.option("--run", "do_run", is_flag=True, help="Also run the replayed faults (journal in the run store).")
@click.option("--policy", type=click.Choice(["auto", "manual"]), default="auto", show_default=True)
@click.option("--seed", type=SEED, default=0, show_default=True)
@data_dir_option
@json_option
def chaos_replay(trace: str, time_unit: str, mapping: str | None, pods: int | None, fold: bool, noise: bool,
                 do_run: bool, policy: str, seed: int, data_dir: Path | None, as_json: bool) -> None:
    """Map a fault event trace (JSON or CSV) onto pods: what mapped, what did not, the trace's statistics;
    --run runs it and prints ETTR and interruptions per node-day beside the trace's."""
    import time

    from opsbrain.scenario import replay as rp

    t0, c0 = time.perf_counter(), time.process_time()
    plan, rep = rp.replay_plan(trace, time_unit=time_unit, mapping=mapping, seed=seed, policy=policy, pods=pods,
                               fold=fold, noise=noise)
    out = rp.summary(rep, plan)
    out["notes"] = rp.notes(rep)
    journal = None
    if do_run:
        from opsbrain import chaos as lib

        journal = _run_with_progress(lib, plan, _store(data_dir), None, data_dir, quiet=as_json)
        out["run"] = rp.replay_statistics(plan, rep, journal) | {"run_id": journal.get("run_id")}
    out["wall_s"] = round(time.perf_counter() - t0, 3)
    out["cpu_s"] = round(time.process_time() - c0, 3)  # the wall time also counts other programs' use of the cores
    if as_json:
        _emit_json(out | ({"journal": journal} if journal is not None else {}))
    else:
        click.echo("\n".join(rp.summary_lines(out)))
    if journal is not None and journal["verdict"] != "passed":
        sys.exit(1)


# ---- runs ---------------------------------------------------------------------------------------------
@cli.group()
def runs() -> None:
    """The run store: past runs and their journals."""


@runs.command("list")
@click.option("--limit", type=click.IntRange(1, 1_000_000), default=50, show_default=True)
@data_dir_option
@json_option
def runs_list(limit: int, data_dir: Path | None, as_json: bool) -> None:
    """List stored runs, newest first."""
    rows = _store(data_dir).list_runs(limit)
    if as_json:
        _emit_json({"runs": rows})
        return
    for r in rows:
        click.echo(f"{r['id']:<48} {r['status']:<11} {str(r['verdict']):<8} {r['policy']:<6} {r['started_at']}")


@runs.command("show")
@click.argument("run_id")
@data_dir_option
@json_option
def runs_show(run_id: str, data_dir: Path | None, as_json: bool) -> None:
    """Show one run's journal."""
    store = _store(data_dir)
    row = store.get_run(run_id)
    if row is None:
        raise InputError(f"no run {run_id!r} in the run store (see 'opsbrain runs list')")
    journal = store.get_journal(run_id)
    if as_json:
        _emit_json(journal if journal is not None else row)
        return
    if journal is None:
        click.echo(f"{run_id}: {row['status']} (no journal: the run did not finish)")
        return
    _print_journal(journal)


# ---- knowledge base (issue 5) --------------------------------------------------------------------------
@cli.group()
def kb() -> None:
    """The fault knowledge base: classes, vendor imports, the diagnosis model (train, eval)."""


@kb.command("list")
@json_option
def kb_list_cmd(as_json: bool) -> None:
    """List the fault classes."""
    from opsbrain.kb import kb_list

    rows = kb_list()
    if as_json:
        _emit_json({"classes": rows})
        return
    for r in rows:
        click.echo(f"{r.get('id', ''):<24} {r.get('level', r.get('handling', '')):<16} {r.get('title', '')}")


@kb.command("show")
@click.argument("class_id")
@json_option
def kb_show_cmd(class_id: str, as_json: bool) -> None:
    """Show one fault class."""
    from opsbrain.kb import kb_show

    data = kb_show(class_id)
    if as_json:
        _emit_json(data)
        return
    import yaml

    click.echo(yaml.safe_dump(data, sort_keys=False, width=110).rstrip())


@kb.command("validate")
@click.argument("path", required=False)
@json_option
def kb_validate_cmd(path: str | None, as_json: bool) -> None:
    """Validate the knowledge base (or the classes at PATH); every error with file and path."""
    from opsbrain.kb import validate_kb

    errors = [str(e) for e in validate_kb(path)]
    if as_json:
        _emit_json({"valid": not errors, "errors": errors})
    elif not errors:
        click.echo("knowledge base valid")
    for e in errors if not as_json else []:
        click.echo(f"opsbrain: error: {e}", err=True)
    if errors:
        sys.exit(2)


@kb.command("import")
@click.argument("fmt", metavar="FORMAT", type=click.Choice(["mindcluster-faultcode", "mindcluster-kg"]))
@click.argument("path")
@data_dir_option
@json_option
def kb_import_cmd(fmt: str, path: str, data_dir: Path | None, as_json: bool) -> None:
    """Import vendor knowledge (MindCluster fault-level file or fault knowledge graph)."""
    from opsbrain.kb import kb_import

    rep = kb_import(fmt, path, data_dir=(data_dir / "kb_imports") if data_dir else None)
    if as_json:
        _emit_json(rep)
        return
    click.echo(f"{path}: {rep.get('imported')} imported, {rep.get('refused')} refused")
    for reason, n in (rep.get("refused_reasons") or {}).items():
        click.echo(f"  refused {n}: {reason}")


@kb.command("train")
@click.option("--runs-per-class", default=30, show_default=True, type=int, help="Case runs per fault class.")
@click.option("--workers", default=2, show_default=True, type=int)
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Where to write the model, a .npz name (its sidecar: the same name with .json; default: the "
              "shipped model in the package).")
@force_option
@json_option
def kb_train_cmd(runs_per_class: int, workers: int, out: Path | None, force: bool, as_json: bool) -> None:
    """Generate the case library (training seeds) and train the diagnosis model with its sidecar."""
    from opsbrain.diagnosis.model import sidecar
    from opsbrain.fsio import check_target
    from opsbrain.kb.training import shipped_model_path, train_model

    if not 2 <= runs_per_class <= 10_000 or not 1 <= workers <= 256:
        raise InputError("--runs-per-class must be 2..10000 and --workers 1..256")
    path = out or shipped_model_path()
    force = force or out is None  # the default target is the shipped model: package data on purpose
    if out is not None and out.suffix != ".npz":
        raise InputError(f"give a model name ending in .npz (its sidecar is the .json beside it), got "
                         f"{str(out)[:200]!r}", path="--out")
    for target in (path, sidecar(path)):  # refuse before minutes of training, not after
        check_target(target, "--out", force)
    model = train_model(per_kind=runs_per_class, workers=workers,
                        progress=None if as_json else _counter("case runs"))
    model.save(path, force=force)
    meta = {k: v for k, v in model.meta.items() if k != "features"} | {"path": str(path)}
    if as_json:
        _emit_json(meta)
        return
    click.echo(f"trained on {meta['cases']} cases, cross-validated accuracy {meta['cv_accuracy']}; wrote {path}")


def _counter(what: str) -> Any:
    def progress(done: int, total: int) -> None:
        if sys.stderr.isatty():
            click.echo(f"\r{what}: {done}/{total}", err=True, nl=done == total)

    return progress


@kb.command("eval")
@click.option("--runs-per-class", default=8, show_default=True, type=click.IntRange(1, 10_000),
              help="Held-out case runs per class.")
@click.option("--noise-days", default=1.0, show_default=True, type=_Finite(0, 3650, min_open=True),
              help="Noise-only pod-days for FPs.")
@click.option("--quick", is_flag=True, help="A smaller run (3 runs per class, 0.25 noise-only pod-days).")
@click.option("--workers", default=2, show_default=True, type=click.IntRange(1, 256))
@click.option("--real", "real", default=None, metavar="DIR|FILE",
              help="Score the real-log corpus instead (tests/data/real_logs in a checkout); with --split.")
@click.option("--split", type=click.Choice(["dev", "test", "all"]), default="dev", show_default=True,
              help="Which part of the real-log corpus to score (the test part only when the work is done).")
@data_dir_option
@json_option
def kb_eval_cmd(runs_per_class: int, noise_days: float, quick: bool, workers: int, real: str | None, split: str,
                data_dir: Path | None, as_json: bool) -> None:
    """Evaluate the diagnosis on held-out worlds (axes training never saw); exit 1 below the bar (near-copy
    <= .20, fault-only top-1 .93, macro-F1 .90, localization .90, confident-wrong <= 2%).
    With --real: agreement on real log excerpts (exit 1 below 85% agreement or above 3% confident-wrong)."""
    from opsbrain.kb.heldout_eval import evaluate_heldout, shortfalls
    from opsbrain.kb.heldout_report import print_report
    from opsbrain.kb.training import load_engine

    if real is not None:
        _kb_eval_real(real, split, data_dir, as_json)
        return
    if quick:
        runs_per_class, noise_days = 3, 0.25
    if runs_per_class < 1 or noise_days <= 0 or workers < 1:
        raise InputError("--runs-per-class must be >= 1, --noise-days > 0 and --workers >= 1")
    engine = load_engine(data_dir, say=lambda m: click.echo(m, err=True))
    res = evaluate_heldout(engine, per_kind=runs_per_class, workers=workers, noise_days=noise_days,
                           progress=None if as_json else _counter("held-out runs"),
                           say=lambda m: click.echo(m, err=True), home=data_dir)
    short = shortfalls(res)
    res["passed"] = not short
    res["short"] = short
    if as_json:
        _emit_json(res)
    else:
        print_report(res, click.echo)
    if short:
        sys.exit(1)


def _matcher(data_dir: Path | None) -> Any:
    """The knowledge matcher with whatever vendor knowledge was imported (an unreadable import is skipped)."""
    from opsbrain.kb import SignatureMatcher, load_imported, load_kb

    try:
        imported = load_imported((data_dir / "kb_imports") if data_dir else None, strict=False)
    except InputError:
        imported = None
    return SignatureMatcher(load_kb(), imported)


def _kb_eval_real(real: str, split: str, data_dir: Path | None, as_json: bool) -> None:
    from opsbrain.kb.realeval import evaluate_real
    from opsbrain.kb.training import load_engine

    root = Path(real)
    if not root.exists():
        raise InputError("no such file or directory", file=real)
    engine = load_engine(data_dir, say=lambda m: click.echo(m, err=True))
    res = evaluate_real(engine, _matcher(data_dir), root, split=split)
    head = res["firm_or_likely"]
    ok = (head.get("agreement") or 0) >= 0.85 and head.get("confident_wrong", 1) <= 0.03
    if as_json:
        _emit_json(res)
    else:
        for name in ("firm_or_likely", "all", "symptom_only"):
            b = res[name]
            click.echo(f"{name}: n {b['n']}, agreement {b.get('agreement')}, abstention {b.get('abstention')}, "
                       f"confident-wrong {b.get('confident_wrong')}, evidence cited {b.get('evidence_cited')}, "
                       f"root device {b.get('root_device')}, traps right {b.get('traps_right')}")
        click.echo(f"{'class':24} {'n':>3} {'right':>5} {'unknown':>7}  wrong")
        for c, v in res["per_class"].items():
            click.echo(f"{c:24} {v['n']:>3} {v['right']:>5} {v['unknown']:>7}  {v['wrong'] or ''}")
    if not ok:
        raise SystemExit(1)


# ---- diagnose (issue 5) ---------------------------------------------------------------------------------
@cli.command()
@click.argument("incident_file", required=False)
@click.option("--logs", "logs", default=None, metavar="FILE|DIR|-",
              help="Diagnose raw log text: a file, a directory of logs, or - for stdin (paste, then Ctrl-D).")
@click.option("--bundle", "bundle", default=None, metavar="DIR",
              help="Diagnose a log bundle directory in the Ascend layout (simulated or collected; issue 9).")
@data_dir_option
@json_option
def diagnose(incident_file: str | None, logs: str | None, bundle: str | None, data_dir: Path | None,
             as_json: bool) -> None:
    """Diagnose an exported incident file, raw logs or a log bundle: class, component, confidence, evidence."""
    from opsbrain.diagnosis import oneclick
    from opsbrain.kb.training import load_engine

    if sum(x is not None for x in (incident_file, logs, bundle)) != 1:
        raise InputError("give exactly one of INCIDENT_FILE, --logs FILE or --bundle DIR")
    engine = load_engine(data_dir, say=lambda m: click.echo(m, err=True))
    matcher = _matcher(data_dir)
    if bundle is not None:
        _diagnose_bundle(bundle, engine, matcher, as_json)
        return
    res = (oneclick.diagnose_logs(logs, engine, matcher) if logs is not None
           else oneclick.diagnose_incident_file(str(incident_file), engine, matcher))
    if as_json:
        _emit_json(res)
        return
    d = res["diagnosis"]
    root = d.get("root") or {}
    where = ", ".join(f"{k} {root[k]}" for k in ("host", "device") if root.get(k) is not None) or root.get(
        "name") or d["component"]
    click.echo(f"diagnosis: {d['fault_class']} at {where} (confidence {d['confidence']:.2f})"
               + (f", runbook {d['runbook']}" if d.get("runbook") else ""))
    for ev in d["evidence"]:
        click.echo(f"  - {ev}")
    _echo_root_cluster(d)
    for e in d.get("evidence_lines", [])[:8]:
        click.echo(f"  {e['file']}:{e['line']}: {e['text'][:150]}")
    for k in res.get("vendor_entries", [])[:3]:
        click.echo(f"  vendor: {k['entry']} -> {k['class'] or 'no class'}: {k['cause']}")
    for k in [k for k in res["knowledge"] if k["source"] != "imported"][:3]:
        click.echo(f"  kb: {k['code'] or k['entry']} [{k['handling']}] {k['cause']}")
    for note in res.get("limits", []):
        click.echo(f"  note: {note}")


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


# ---- sweep (issue 7): add the 'sweep' group here ------------------------------------------------------
@cli.group()
def sweep() -> None:
    """Health sweeps: one sweep at a point of a scenario, or a scheduled service with Prometheus metrics."""


@sweep.command("once")
@click.option("--scenario", default="noise-only-day", show_default=True, help="Built-in scenario name or file.")
@click.option("--at", "at_s", type=_Finite(0), default=3600.0, show_default=True,
              help="Simulated seconds into the scenario (0 .. its duration); only that much is simulated.")
@click.option("--seed", type=SEED, default=None, help="Override the scenario's seed.")
@click.option("--source", "source", type=click.Choice(["twin", "prometheus", "prometheus-api", "commands"]),
              default="twin", show_default=True, help="What to sweep: the twin's scenario, npu-exporter pages, a "
              "Prometheus server's query API, or collected npu-smi/hccn_tool outputs (docs/real-cluster.md).")
@click.option("--url", "urls", multiple=True, metavar="URL", help="An exporter page (repeat for one per node), "
              "e.g. http://HOST:8082/metrics (--source prometheus), or the server (--source prometheus-api).")
@click.option("--dir", "cmd_dir", default=None, metavar="DIR", help="Collected command outputs (--source commands).")
@data_dir_option
@json_option
def sweep_once_cmd(scenario: str, at_s: float, seed: int | None, source: str, urls: tuple[str, ...],
                   cmd_dir: str | None, data_dir: Path | None, as_json: bool) -> None:
    """One sweep of SCENARIO's pod at --at, or of a real cluster's telemetry (--source). Exit 0: no finding is
    Alarm or worse; 1: at least one is."""
    if source != "twin":
        if scenario != "noise-only-day" or at_s != 3600.0 or seed is not None:
            raise InputError("--scenario, --at and --seed belong to --source twin", path="--source")
        _sweep_real_once(source, urls, cmd_dir, as_json)
        return
    if urls or cmd_dir:
        raise InputError("--url/--dir need --source prometheus or commands", path="--source")
    from opsbrain.sweeps.once import sweep_once

    res = sweep_once(scenario, at_s, seed=seed, home=data_dir)
    data = res.as_dict()
    if as_json:
        _emit_json(data)
    else:
        _print_sweep(data)
    if res.failed:
        sys.exit(1)


def _sweep_real_once(kind: str, urls: tuple[str, ...], cmd_dir: str | None, as_json: bool) -> None:
    from opsbrain.sources import open_source, sweep_source
    from opsbrain.sweeps.once import verdict

    src = open_source(kind, urls, cmd_dir)
    report = sweep_source(src)
    data = {"source": src.name, "coverage": src.coverage(), "exit_code": verdict(report), **report.as_dict()}
    if as_json:
        _emit_json(data)
    else:
        _print_sweep(data)
    if data["exit_code"]:
        sys.exit(1)


def _print_sweep(d: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    c = d["counts"]
    colour = {"OK": "green", "Warning": "yellow", "Alarm": "red", "Critical": "bold red"}
    where = f"{d['scenario']}[/] seed {d['seed']} at t={d['at_s']:g} s" if "scenario" in d else f"{d['source']}[/]"
    console.print(f"[bold]{where}: [{colour[d['severity']]}]"
                  f"{d['severity']}[/]  ({c['Critical']} critical, {c['Alarm']} alarm, {c['Warning']} warning; "
                  f"{c['OK']:,} component-checks OK; {d['duration_ms']:.0f} ms)")
    if not d["findings"]:
        return
    table = Table(show_lines=False)
    for col in ("severity", "check", "component", "evidence", "suggested action"):
        table.add_column(col, overflow="fold")
    for f in d["findings"]:
        table.add_row(f"[{colour[f['severity']]}]{f['severity']}[/]", f["check"], f["component"], f["evidence"],
                      f["suggested_action"])
    console.print(table)


@sweep.command("run")
@click.option("--scenario", default=None, help="Built-in scenario name or file: the live pod's world (--source twin).")
@click.option("--interval", default=None, help="Wall-clock interval, e.g. 30s, 5m, 1h (default: the stored "
              "schedule's trigger, else 5m).")
@click.option("--cron", default=None, help="5-field crontab expression, UTC (e.g. '*/5 * * * *').")
@click.option("--speed", type=_Finite(0, MAX_SPEED, min_open=True), default=1.0, show_default=True,
              help="Simulated seconds per wall second.")
@click.option("--metrics-port", type=click.IntRange(0, 65535), default=None,
              help="Serve Prometheus metrics on 127.0.0.1:PORT "
              "(0: any free port, printed on stderr).")
@click.option("--max-runtime", "max_runtime", type=_Finite(0, MAX_WALL_S, min_open=True), default=None,
              help="Stop after this many wall seconds.")
@click.option("--seed", type=SEED, default=None, help="Override the scenario's seed.")
@click.option("--source", "source", type=click.Choice(["twin", "prometheus", "prometheus-api", "commands"]),
              default="twin", show_default=True, help="Sweep the scenario's live pod, npu-exporter pages, a "
              "Prometheus server's query API or collected outputs.")
@click.option("--url", "urls", multiple=True, metavar="URL", help="An exporter page (--source prometheus; repeat).")
@click.option("--dir", "cmd_dir", default=None, metavar="DIR", help="Collected command outputs (--source commands).")
@click.option("--name", "name", default=None, help="The cluster's name for the schedule id (real sources).")
@data_dir_option
@json_option
def sweep_run_cmd(scenario: str | None, interval: str | None, cron: str | None, speed: float,
                  metrics_port: int | None, max_runtime: float | None, seed: int | None, source: str,
                  urls: tuple[str, ...], cmd_dir: str | None, name: str | None, data_dir: Path | None,
                  as_json: bool) -> None:
    """Scheduled sweeps of a live simulated pod (or of a real source) until SIGINT/SIGTERM or --max-runtime
    (schedule kept in the run store: a restart without --interval/--cron resumes it)."""
    from opsbrain.service.scheduler import TriggerSpec, run_service

    trigger = TriggerSpec.from_options(interval, cron)
    pod = None
    if source != "twin":
        from opsbrain.sources import open_source
        from opsbrain.sources.service import SourcePod

        if scenario is not None or speed != 1.0 or seed is not None:
            raise InputError("--scenario, --speed and --seed belong to --source twin", path="--source")

        pod = SourcePod(open_source(source, urls, cmd_dir), name=name or f"{source}-cluster")
        scenario = pod.name
    elif scenario is None:
        raise InputError("give --scenario (the live pod's world) or --source prometheus|commands", path="--scenario")

    def on_start(svc: Any) -> None:
        url = f"; metrics {svc.server.url}" if svc.server is not None else ""
        click.echo(f"opsbrain: sweeping {svc.pod.name} {svc.trigger}, speed {svc.pod.speed:g}x; schedule "
                   f"{svc.schedule_id} in {svc.store.path}{url}", err=True)

    def on_sweep(d: dict[str, Any]) -> None:
        if as_json:
            return
        c = d["counts"]
        pro = "".join(f"; proactive {i['id']}: drain {i['component']}" for i in d["proactive_new"])
        click.echo(f"t={d['t_s']:>10.0f} s  {d['severity']:<8} {c['Critical']} critical, {c['Alarm']} alarm, "
                   f"{c['Warning']} warning  ({d['duration_ms']:.0f} ms){pro}")

    summary = run_service(scenario, trigger, speed=speed, metrics_port=metrics_port, home=data_dir,
                          max_runtime_s=max_runtime, seed=seed, on_sweep=on_sweep, on_start=on_start, pod=pod)
    if as_json:
        _emit_json(summary)
        return
    click.echo(f"stopped ({summary['stopped_by']}) after {summary['wall_s']:.1f} s: {summary['sweeps']} sweeps to "
               f"t={summary['sim_time_s']:.0f} s, {len(summary['proactive'])} proactive incidents, "
               f"{len(summary['errors'])} errors")


# ---- watch (issue 20) ---------------------------------------------------------------------------------
@cli.command("watch")
@click.option("--logs", "logs", required=True, metavar="DIR", help="A directory of logs to follow (DIR/<host>/... "
              "names the host of lines that name none).")
@click.option("--webhook", default=None, metavar="URL", help="POST each incident report as JSON to this URL.")
@click.option("--max-runtime", "max_runtime", type=_Finite(0, MAX_WALL_S, min_open=True), default=None,
              help="Stop after this many wall seconds.")
@click.option("--poll", "poll_s", type=_Finite(0.01, 3600), default=0.25, show_default=True, help="Seconds between polls.")
@click.option("--from-start", is_flag=True, help="Read the files already there from their start (default: their end).")
@click.option("--url", "urls", multiple=True, metavar="URL", help="Also sweep these npu-exporter pages and report "
              "new Alarm-or-worse findings.")
@click.option("--sweep-interval", "sweep_s", type=_Finite(0.1, 366 * 86400.0), default=300.0, show_default=True,
              help="Seconds between sweeps of --url.")
@data_dir_option
@json_option
def watch_cmd(logs: str, webhook: str | None, max_runtime: float | None, poll_s: float, from_start: bool,
              urls: tuple[str, ...], sweep_s: float, data_dir: Path | None, as_json: bool) -> None:
    """Follow log files, group signals into incidents, diagnose each and show the runbook it would run (a dry
    run: advisory, nothing is executed). Stops on SIGINT/SIGTERM or --max-runtime."""
    import signal
    import threading

    from opsbrain.kb.training import load_engine
    from opsbrain.sources.watch import Watcher

    if max_runtime is not None and not max_runtime > 0:
        raise InputError(f"must be > 0, got {max_runtime:g}", path="--max-runtime")

    def report(d: dict[str, Any]) -> None:
        if as_json:
            click.echo(json.dumps(d, default=str))
            return
        if "finding" in d:
            f = d["finding"]
            click.echo(f"sweep at +{d['reported_s']:.1f} s: {f['severity']} {f['check']} {f['component']}: "
                       f"{f['evidence']}\n  advised (not executed): {f['suggested_action']}")
            return
        root = d.get("root") or {}
        where = ", ".join(f"{k} {root[k]}" for k in ("host", "device") if root.get(k) is not None) or d["component"]
        click.echo(f"{d['incident']}{' (update)' if d['update'] else ''} at +{d['reported_s']:.1f} s: "
                   f"{d['fault_class']} at {where} (confidence {d['confidence']:.2f}, {d['signals']} signals)")
        for e in d["evidence_lines"][:3]:
            click.echo(f"  {e['file']}:{e['line']}: {e['text'][:140]}")
        adv = d["advice"]
        click.echo(f"  advised (dry run, not executed): {adv['runbook'] or '-'} {adv['title']}")
        for st in adv["steps"]:
            cond = f" when {st['when']}" if st.get("when") else ""
            how = st["command"] or f"{st['action']} {st['target'] or '(target not in the logs)'}"
            click.echo(f"    - {st['name']}: {how}{cond}")

    source = None
    if urls:
        from opsbrain.sources import open_source

        source = open_source("prometheus", urls)
    watcher = Watcher(logs, load_engine(data_dir, say=lambda m: click.echo(m, err=True)), report, webhook=webhook,
                      poll_s=poll_s, from_start=from_start, source=source, sweep_every_s=sweep_s)
    stop = threading.Event()
    why = {"by": "max-runtime"}

    def on_signal(signum: int, _frame: Any) -> None:
        why["by"] = signal.Signals(signum).name
        stop.set()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)} \
        if threading.current_thread() is threading.main_thread() else {}
    click.echo(f"opsbrain: watching {logs} (advisory: runbooks are shown as dry runs)", err=True)
    try:
        summary = watcher.run(stop, max_runtime)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    summary["stopped_by"] = why["by"]
    if as_json:
        click.echo(json.dumps({"summary": summary}, default=str))
    else:
        click.echo(f"stopped ({summary['stopped_by']}) after {summary['wall_s']:.1f} s: {summary['incidents']} "
                   f"incidents from {summary['lines']} lines in {summary['files']} files"
                   + (f"; {len(summary['webhook_errors'])} webhook errors" if summary["webhook_errors"] else ""),
                   err=True)


# ---- report (issue 8): add the 'report' command here --------------------------------------------------
@cli.command("report")
@click.argument("sources", nargs=-1, required=True, metavar="RUN_ID|JOURNAL_FILE...")
@click.option("--format", "fmt", type=click.Choice(["html", "md", "json"]), default=None,
              help="Report format (default: from the --out suffix, else html).")
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
                   f"{res['incidents']} incident(s)) to {res['path']}")
        if sys.stdout.isatty() and not open_it:
            click.echo(f"open it: {res['url']}  (or add --open)")
    if open_it and res.get("url"):
        import webbrowser

        webbrowser.open(res["url"])


def _echo_root_cluster(d: dict[str, Any]) -> None:
    """The multi-rank root cluster of a diagnosis: root devices, wait chain, dead ends (issue 14)."""
    rc = d.get("root_cluster")
    if not rc or not rc.get("root"):
        return
    click.echo(f"  root cluster ({rc['what']}): root {rc['root']}" + (f"; chain {rc['chain']}" if rc["chain"] else ""))
    click.echo(f"    rule: {rc['rule']}" + (f"; class from {rc['class_from']}" if rc.get("class_from") else ""))
    for x in rc.get("dead_ends", [])[:3]:
        click.echo(f"    {x['waiter']} waited for {x['remote']}: {x['why']}")


# ---- bundles (issue 9): add 'runs bundle' / 'diagnose --bundle' support here --------------------------
def _diagnose_bundle(bundle: str, engine: Any, matcher: Any, as_json: bool) -> None:
    """``diagnose --bundle DIR``: every incident of the bundle, the primary one's diagnosis, what the knowledge
    base and imported vendor knowledge matched, and what was skipped or refused."""
    from opsbrain.bundle import diagnose_bundle

    res = diagnose_bundle(bundle, engine, matcher)
    if as_json:
        _emit_json(res)
        return
    ln = res["lines"]
    click.echo(f"bundle {bundle}: {res['files']['read']} files read, {len(res['skipped'])} skipped, "
               f"{len(res['refused'])} refused; {ln['read']} lines ({ln['malformed']} malformed, {ln['untimed']} "
               f"without a time stamp); {len(res['workers'])} workers; {res['signals']} signals; "
               f"{len(res['incidents'])} incidents")
    for w in res["workers"]:
        click.echo(f"  worker {w['dir']} -> {w['node']} ({w['named_by']})")
    for x in res["skipped"][:10]:
        click.echo(f"  skipped {x['path']}: {x['reason']}")
    for x in res["refused"][:10]:
        click.echo(f"  refused {x['path']}: {x['reason']}")
    for inc in res["incidents"]:
        d = inc["diagnosis"] or {}
        where = ", ".join(f"{n} ({real})" if real != n else n for n, real in inc["nodes"].items()) or "-"
        click.echo(f"incident {inc['id']} opened {inc['opened_at']} on {where}: {d.get('fault_class')} at "
                   f"{d.get('component')} (confidence {d.get('confidence', 0):.2f})"
                   + (f", runbook {d['runbook']}" if d.get("runbook") else ""))
        for ev in d.get("evidence", []):
            click.echo(f"  - {ev}")
    d = res["diagnosis"]
    root = d.get("root") or {}
    where = ", ".join(f"{k} {root[k]}" for k in ("host", "device") if root.get(k) is not None) or root.get(
        "name") or d["component"]
    click.echo(f"diagnosis: {d['fault_class']} at {where} (confidence {d['confidence']:.2f})"
               + (f", runbook {d['runbook']}" if d.get("runbook") else "")
               + (f", incident {res['primary']}" if res.get("primary") and not d.get("decided_by") else ""))
    _echo_root_cluster(d)
    for k in res["knowledge"][:8]:
        who = "vendor" if k["source"] == "imported" else "kb"
        click.echo(f"  {who}: {k['code'] or k['entry']} [{k['handling']}] x{k['lines']} (first {k['first']}) "
                   f"{k['cause']} -> {k['suggestion']}")


@runs.command("bundle")
@click.argument("run_id")
@click.option("--incident", default=None, help="Only this journal incident (default: every incident).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Write each bundle into OUT/<incident id>/.")
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
        raise InputError(f"run {run_id!r} did not finish: it has no journal to re-run")
    rep = regenerate(journal, out_dir, incident=incident, scenario=scenario, home=data_dir)
    if as_json:
        _emit_json(rep)
    else:
        click.echo(f"re-ran {rep['scenario']} seed {rep['seed']} policy {rep['policy']}: "
                   + ("reproduced the stored journal" if rep["reproduced"] else "DIFFERS from the stored journal"))
        for diff in rep["differences"]:
            click.echo(f"  {diff}")
        for b in rep["bundles"]:
            click.echo(f"  {b['incident']}: " + (f"error: {b['error']}" if "error" in b else
                                                 f"{b['path']} ({b['files']} files, {b['lines']} lines)"))
    if not rep["reproduced"]:
        sys.exit(1)


# ---- campaign (issue 10): add 'chaos campaign' here ---------------------------------------------------
@chaos.command("campaign")
@click.option("--pods", default=1, show_default=True, type=click.IntRange(1, 64), help="Superpods in the cluster.")
@click.option("--days", default=30.0, show_default=True, type=_Finite(0, 90, min_open=True),
              help="Simulated days per run.")
@click.option("--seeds", default=4, show_default=True, type=click.IntRange(1, 10_000), help="Seeds (runs per policy).")
@click.option("--first-seed", default=0, show_default=True, type=click.IntRange(0), help="Seeds are FIRST..FIRST+K-1.")
@click.option("--profile", default="llama3", show_default=True, help="Random fault profile.")
@click.option("--policy", type=click.Choice(["auto", "manual", "both"]), default="auto", show_default=True,
              help="Recovery policy; 'both' runs auto and manual on the same seeds and compares them.")
@click.option("--layout", type=click.Choice(["auto", "mixed", "cluster"]), default="auto", show_default=True,
              help="mixed: inference + training on one pod; cluster: one training job across all pods.")
@click.option("--spares-per-pod", default=2, show_default=True, type=click.IntRange(0, 16))
@click.option("--bursty", is_flag=True, help="Bursty interruption arrivals.")
@click.option("--lemons", is_flag=True, help="Lemon nodes carry a share of node faults.")
@click.option("--sweeps/--no-sweeps", default=False, show_default=True, help="In-run health sweeps.")
@click.option("--noise/--no-noise", default=True, show_default=True, help="Background noise in every pod.")
@click.option("--cheap-noise", is_flag=True, help="Re-draw chip temperatures every 48 h instead of 12 h (a third "
              "of the cost at 27 pods; all noise stays on in every pod).")
@click.option("--workers", default=None, type=click.IntRange(1), help="Parallel runs (default: CPUs, at most runs).")
@click.option("--executor", type=click.Choice(["local", "dask"]), default="local", show_default=True)
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Dask scheduler address (default with --executor dask: a local cluster of --workers processes).")
@click.option("--no-journals", is_flag=True, help="Store only each run's compact record, not its full journal.")
@param_option
@data_dir_option
@json_option
def chaos_campaign(pods: int, days: float, seeds: int, first_seed: int, profile: str, policy: str, layout: str,
                   spares_per_pod: int, bursty: bool, lemons: bool, sweeps: bool, noise: bool, cheap_noise: bool,
                   workers: int | None,
                   executor: str, scheduler: str | None, no_journals: bool, params: tuple[str, ...],
                   data_dir: Path | None, as_json: bool) -> None:
    """Monte Carlo campaign: K seeds (x policies) of a cluster under a fault profile; resumable; summary."""
    from opsbrain.campaign.runner import Options, default_workers, run_campaign
    from opsbrain.campaign.spec import CampaignSpec

    if scheduler and executor != "dask":
        raise InputError("--scheduler needs --executor dask", path="--scheduler")
    policies = ("auto", "manual") if policy == "both" else (policy,)
    spec = CampaignSpec(pods=pods, days=days, seeds=seeds, first_seed=first_seed, profile=profile,
                        policies=policies, layout=layout, spares_per_pod=spares_per_pod, bursty=bursty,
                        lemons=lemons, sweeps=sweeps, noise=noise, cheap_noise=cheap_noise,
                        params=parse_params(params))
    sim_params(params)  # validate --param overrides now (exit 2 on a bad one)
    opts = Options(workers=workers or default_workers(seeds * len(policies)), executor=executor,
                   scheduler=scheduler, keep_journals=not no_journals)

    def say(msg: str) -> None:
        click.echo(msg, err=True)

    store = _store(data_dir)
    if as_json or not sys.stderr.isatty():
        out = run_campaign(spec, store, opts, home=data_dir, say=say)
    else:
        out = _campaign_with_progress(run_campaign, spec, store, opts, data_dir, say)
    if as_json:
        _emit_json(out)
    else:
        _print_campaign(out)
    if not out["complete"]:
        click.echo(f"opsbrain: campaign interrupted after {out['runs']['finished']} of {out['runs']['total']} runs; "
                   "run the same command again to resume", err=True)
        sys.exit(130)


def _campaign_with_progress(run: Any, spec: Any, store: Any, opts: Any, data_dir: Path | None,
                            say: Any) -> dict[str, Any]:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    # no refresh thread (auto_refresh=False): worker processes are forked while the bar is up
    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("{task.fields[info]}"), TimeElapsedColumn(), transient=True,
                  auto_refresh=False) as bar:
        task = bar.add_task(spec.campaign_id, total=None, info="")

        def progress(done: int, total: int, rec: dict[str, Any] | None) -> None:
            info = f"seed {rec['seed']} {rec['policy']} done in {rec.get('wall_s', 0):.0f} s" if rec else ""
            bar.update(task, completed=done, total=total, info=info)
            bar.refresh()

        def sim_progress(seed: int, policy: str, now: float, total: float) -> None:
            bar.update(task, info=f"seed {seed} {policy}: day {now / 86400:.1f}/{total / 86400:g}")
            bar.refresh()

        return dict(run(spec, store, opts, home=data_dir, progress=progress, say=say, sim_progress=sim_progress))


def _print_campaign(out: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    con = Console()
    sp, runs, ex = out["spec"], out["runs"], out["execution"]
    con.print(f"[bold]{out['campaign']}[/]: {sp['pods']} pod(s) = {out['npus']:,} NPUs, {sp['days']:g} days, "
              f"profile {sp['profile']}; {runs['finished']}/{runs['total']} runs ({runs['reused']} reused), "
              f"{ex['wall_s']:.1f} s wall on {ex['workers']} {ex['executor']} worker(s)")
    jobs = Table(title="jobs (mean over seeds; min-max)")
    for col in ("policy", "job", "ETTR", "goodput", "downtime s", "stalled s", "ckpt stall s", "restarts"):
        jobs.add_column(col)
    for pol, s in out["by_policy"].items():
        for name, j in s["jobs"].items():
            e, g = j.get("ettr") or {}, j["goodput"]
            jobs.add_row(pol, name, _rng(e), _rng(g), _num(j.get("downtime_s")), _num(j.get("stalled_s")),
                         _num(j.get("ckpt_stall_s")), _num(j.get("restarts")))
    con.print(jobs)
    for pol, s in out["by_policy"].items():
        it, dg = s["interruptions"], s["diagnosis"]
        cats = ", ".join(f"{c} {v['count']}" for c, v in it["by_category"].items())
        con.print(f"[bold]{pol}[/]: {it['total']} interruptions ({it['per_run']} per run, expected "
                  f"{it['expected_per_run']}): {cats or 'none'}; {it['background_faults']} background faults")
        con.print(f"  diagnosis: {dg['correct']}/{dg['faults']} correct ({dg['accuracy']}), {dg['noise_incidents']} "
                  f"noise incidents, {dg['false_positives']} acted on; hands-off share "
                  f"{s['recovery']['handled_without_human']}; spare swaps {s['spares']['swaps']}, runs out of "
                  f"spares {s['spares']['runs_exhausted']}")
        ttr = Table(title=f"{pol}: time to recover by fault class (s)")
        for col in ("class", "n", "recovered", "p50", "p90", "max", "ttd p50", "ttdiag p50"):
            ttr.add_column(col)
        for k, v in s["ttr_by_class"].items():
            d = v["ttr_s"]
            ttr.add_row(k, str(v["n"]), str(v["recovered"]), _num(d["p50"]), _num(d["p90"]), _num(d["max"]),
                        _num(v["ttd_s_p50"]), _num(v["ttdiag_s_p50"]))
        con.print(ttr)
    cmp_ = out.get("auto_vs_manual")
    if cmp_:
        for name, j in cmp_["jobs"].items():
            if "ettr_auto" in j:
                con.print(f"auto vs manual, {name}: ETTR {j['ettr_auto']} vs {j['ettr_manual']} (gain "
                          f"{j['ettr_gain']}), lost NPU-s reduced by {j['lost_npu_s_reduction']}")
            else:
                con.print(f"auto vs manual, {name}: lost tokens reduced by {j['lost_tokens_reduction']}, SLO "
                          f"violation {j['slo_violation_s_auto']} s vs {j['slo_violation_s_manual']} s")
        t = cmp_["ttr_s"]
        con.print(f"auto vs manual, ttr on the same {t['pairs']} faults: median {t['auto']['p50']} s vs "
                  f"{t['manual']['p50']} s")


def _rng(d: dict[str, Any]) -> str:
    if not d or d.get("mean") is None:
        return "-"
    return f"{d['mean']:.4f} ({d['min']:.4f}-{d['max']:.4f})"



def main(argv: Sequence[str] | None = None) -> None:
    """Console-script entry point (``opsbrain``, ``python -m opsbrain``); exits with the command's code."""
    cli.main(args=list(argv) if argv is not None else None, prog_name="opsbrain")
