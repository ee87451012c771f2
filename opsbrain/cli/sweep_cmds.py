"""``opsbrain sweep`` (once, run) and ``opsbrain watch``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from opsbrain.cli.base import (
    MAX_SPEED,
    MAX_WALL_S,
    NON_EMPTY,
    SEED,
    _emit_json,
    _Finite,
    cli,
    data_dir_option,
    json_option,
)
from opsbrain.cli.http_opts import http_auth_options
from opsbrain.cli.output import Table, output_option, resolve_format
from opsbrain.errors import InputError

if TYPE_CHECKING:
    from opsbrain.sources.httpauth import HttpAuth

bind_option = click.option(
    "--bind", default="127.0.0.1", show_default=True, metavar="ADDRESS",
    help="Address the metrics endpoint listens on (0.0.0.0: every interface; mind who can reach it).")


def webhook_format_option(default: str) -> Any:
    return click.option("--webhook-format", type=click.Choice(["opsbrain", "alertmanager"]), default=default,
                        show_default=True, help="Webhook body: opsbrain's own report JSON, or an Alertmanager "
                        "webhook notification (version 4) for receivers written for Alertmanager.")


def _serve_metrics(registry: Any, port: int | None, bind: str) -> Any:
    """The metrics endpoint on ``bind:port`` (None: no endpoint); its URL on stderr."""
    if port is None:
        return None
    from opsbrain.service.metrics import serve

    try:
        server = serve(registry, port, bind)
    except OSError as exc:
        raise InputError(f"cannot serve metrics on {bind}:{port}: {exc.strerror or exc}", path="--metrics-port") \
            from None
    click.echo(f"opsbrain: metrics on {server.url}", err=True)
    return server


def _given(*names: str) -> bool:
    """Whether any of these options was given (on the command line or by its environment variable), whatever its
    value: `--scenario noise-only-day` is the default's value, still a twin option given with a real --source."""
    from click.core import ParameterSource

    ctx = click.get_current_context()
    return any(ctx.get_parameter_source(n) not in (None, ParameterSource.DEFAULT) for n in names)


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
              "e.g. http://HOST:8082/metrics or a saved page file:///path/node-1.prom (--source prometheus), or the "
              "server, or a saved range answer file:///path/range.json (--source prometheus-api).")
@click.option("--dir", "cmd_dir", type=NON_EMPTY, default=None, metavar="DIR",
              help="Collected command outputs (--source commands).")
@click.option("--name", "name", default=None, help="The cluster's name (real sources): the schedule of `sweep run "
              "--name` whose lock and kept history this sweep shares (default: SOURCE-cluster, as sweep run's).")
@http_auth_options
@data_dir_option
@output_option
@json_option
def sweep_once_cmd(scenario: str, at_s: float, seed: int | None, source: str, urls: tuple[str, ...],
                   cmd_dir: str | None, name: str | None, data_dir: Path | None, output: str | None,
                   as_json: bool, auth: HttpAuth) -> None:
    """One sweep of the --scenario's pod at --at, or of a real cluster's telemetry (--source; with the schedule's
    lock and kept history, as `sweep run` keeps them). Exit 0: no finding is Alarm or worse; 1: at least one is; 2: bad
    input, or the schedule is in use by a running `sweep run`."""
    fmt = resolve_format(output, as_json)
    as_json = fmt == "json"
    if source != "twin":
        if _given("scenario", "at_s") or seed is not None:  # also their default values, given (session 42)
            raise InputError("--scenario, --at and --seed belong to --source twin", path="--source")
        _sweep_real_once(source, urls, cmd_dir, fmt, name, data_dir, auth)
        return
    if auth.given:
        raise InputError("credentials and TLS options belong to --source prometheus or prometheus-api",
                         path="--source")
    if urls or cmd_dir or name:
        raise InputError("--url/--dir/--name need --source prometheus, prometheus-api or commands", path="--source")
    from opsbrain.sweeps.once import sweep_once

    res = sweep_once(scenario, at_s, seed=seed, home=data_dir)
    data = res.as_dict()
    if as_json:
        _emit_json(data)
    else:
        _print_sweep(data, fmt)
    if res.failed:
        sys.exit(1)


def _sweep_real_once(kind: str, urls: tuple[str, ...], cmd_dir: str | None, fmt: str, name: str | None,
                     data_dir: Path | None, auth: HttpAuth) -> None:
    from opsbrain.sources import open_source
    from opsbrain.sources.service import cluster_name, sweep_once_kept
    from opsbrain.sweeps.once import verdict

    src = open_source(kind, urls, cmd_dir, auth)
    report = sweep_once_kept(src, cluster_name(kind, name), data_dir)
    data = {"source": src.name, "coverage": src.coverage(), "exit_code": verdict(report), **report.as_dict()}
    if fmt == "json":
        _emit_json(data)
    else:
        _print_sweep(data, fmt)
    if data["exit_code"]:
        sys.exit(1)


def sweep_table(d: dict[str, Any]) -> Table:
    """The findings of one sweep (component ids whole; evidence and advice wrap at spaces)."""
    tone = {"OK": "green", "Warning": "yellow", "Alarm": "red", "Critical": "bold red"}
    table = Table.of(["severity", "check", "component", "evidence", "suggested action"], title="findings",
                     wrap=["component", "evidence", "suggested action"])
    for f in d["findings"]:
        table.add(f["severity"], f["check"], f["component"], f["evidence"], f["suggested_action"],
                  styles=[tone.get(f["severity"]), None, None, None, None])
    return table


MAX_COLLECTED_LINES = 10
"""Nodes whose collection time the table output shows (``--json`` has them all)."""


def _print_sweep(d: dict[str, Any], fmt: str = "table") -> None:
    from opsbrain.cli.output import colour_enabled, paint

    table = sweep_table(d)
    if fmt == "plain":
        click.echo(table.plain())
        return
    c = d["counts"]
    colour = {"OK": "green", "Warning": "yellow", "Alarm": "red", "Critical": "bold red"}
    where = f"{d['scenario']} seed {d['seed']} at t={d['at_s']:g} s" if "scenario" in d else f"{d['source']}"
    on = colour_enabled()
    click.echo(f"{paint(where, 'bold', on)}: {paint(d['severity'], colour[d['severity']], on)}  "
               f"({c['Critical']} critical, {c['Alarm']} alarm, {c['Warning']} warning; "
               f"{c['OK']:,} component-checks OK; {d['duration_ms']:.0f} ms)"
               + (f"; {n} from stale outputs (below)" if (n := sum(1 for f in d["findings"]
                                                              if f.get("data", {}).get("stale"))) else ""))
    if d["findings"]:
        click.echo(table.render(fmt))
    if said := d.get("coverage", {}).get("connection"):
        click.echo(f"  connection: {said}")
    collected = d.get("coverage", {}).get("collected", [])
    for x in collected[:MAX_COLLECTED_LINES]:
        age = x["age_s"]
        ago = f"{age / 86400:.1f} d" if age >= 86400 else f"{age / 3600:.1f} h" if age >= 3600 else f"{age:.0f} s"
        stale = (f"; STALE (older than {d['coverage']['stale_after_s']:g} s: its findings are at most a Warning)"
                 if x["stale"] else "")
        click.echo(f"  collected: {x['node'] or '(no host)'} at {x['at']}, {ago} ago (from {x['from']}){stale}")
    if len(collected) > MAX_COLLECTED_LINES:
        click.echo(f"  ... and {len(collected) - MAX_COLLECTED_LINES} more nodes (--json lists them)")
    for x in d.get("coverage", {}).get("not_read", []):
        click.echo(f"  not read (its components not swept): {x}")
    for check, why in d.get("coverage", {}).get("not_fed", {}).items():
        click.echo(f"  not fed (checked nothing): {check}: {why}")
    for x in d.get("coverage", {}).get("dropped", []):
        click.echo(f"  not used: {x}")


@sweep.command("run")
@click.option("--scenario", default=None, help="Built-in scenario name or file: the live pod's world (--source twin).")
@click.option("--interval", default=None, help="Wall-clock interval, e.g. 30s, 5m, 1h (default: the stored "
              "schedule's trigger, else 5m).")
@click.option("--cron", default=None, help="5-field crontab expression, UTC (e.g. '*/5 * * * *').")
@click.option("--speed", type=_Finite(0, MAX_SPEED, min_open=True), default=1.0, show_default=True,
              help="Simulated seconds per wall second.")
@click.option("--metrics-port", type=click.IntRange(0, 65535), default=None,
              help="Serve Prometheus metrics (sweeps and the run store's runs) on BIND:PORT "
              "(0: any free port, printed on stderr).")
@bind_option
@click.option("--max-runtime", "max_runtime", type=_Finite(0, MAX_WALL_S, min_open=True), default=None,
              help="Stop after this many wall seconds.")
@click.option("--seed", type=SEED, default=None, help="Override the scenario's seed.")
@click.option("--source", "source", type=click.Choice(["twin", "prometheus", "prometheus-api", "commands"]),
              default="twin", show_default=True, help="Sweep the scenario's live pod, npu-exporter pages, a "
              "Prometheus server's query API or collected outputs.")
@click.option("--url", "urls", multiple=True, metavar="URL", help="An exporter page (--source prometheus; repeat).")
@click.option("--dir", "cmd_dir", type=NON_EMPTY, default=None, metavar="DIR",
              help="Collected command outputs (--source commands).")
@click.option("--name", "name", default=None, help="The cluster's name for the schedule id (real sources).")
@click.option("--webhook", default=None, metavar="URL", help="POST each new Alarm-or-worse finding to this URL.")
@webhook_format_option("alertmanager")
@http_auth_options
@data_dir_option
@json_option
def sweep_run_cmd(scenario: str | None, interval: str | None, cron: str | None, speed: float,
                  metrics_port: int | None, bind: str, max_runtime: float | None, seed: int | None, source: str,
                  urls: tuple[str, ...], cmd_dir: str | None, name: str | None, webhook: str | None,
                  webhook_format: str, data_dir: Path | None, as_json: bool, auth: HttpAuth) -> None:
    """Scheduled sweeps of a live simulated pod (or of a real source) until SIGINT/SIGTERM or --max-runtime
    (schedule kept in the run store: a restart without --interval/--cron resumes it). Logs JSON lines on stderr
    (INFO unless -v/-q or OPSBRAIN_LOG_LEVEL choose)."""
    from opsbrain.logs import for_service
    from opsbrain.service.scheduler import TriggerSpec, run_service

    for_service()

    trigger = TriggerSpec.from_options(interval, cron)
    pod = None
    if source != "twin":
        from opsbrain.sources import open_source
        from opsbrain.sources.service import SourcePod, cluster_name

        if scenario is not None or _given("speed") or seed is not None:
            raise InputError("--scenario, --speed and --seed belong to --source twin", path="--source")

        pod = SourcePod(open_source(source, urls, cmd_dir, auth), name=cluster_name(source, name))
        scenario = pod.name
    elif auth.given:
        raise InputError("credentials and TLS options belong to --source prometheus or prometheus-api",
                         path="--source")
    elif scenario is None:
        raise InputError("give --scenario (the live pod's world) or --source prometheus|commands", path="--scenario")

    def on_start(svc: Any) -> None:  # stderr carries JSON lines only: the start is one of them
        import logging

        source: Any = getattr(svc.pod, "source", None)
        kept = source.kept.describe(source.history) if getattr(source, "kept", None) is not None else None
        logging.getLogger("opsbrain.service").info(
            f"sweeping {svc.pod.name} {svc.trigger}, speed {svc.pod.speed:g}x", extra={
                "schedule": svc.schedule_id, "store": str(svc.store.path),
                "metrics_url": svc.server.url if svc.server is not None else None,
                **({"history_restored": kept["restored"]} if kept is not None else {})})
        if kept is not None and not as_json:
            click.echo(f"history: {kept['restored']} collections over {kept['restored_span_s']:g} s restored from "
                       f"{kept['store']}; kept: {kept['bounds']}")

    def on_sweep(d: dict[str, Any]) -> None:
        if as_json:
            return
        c = d["counts"]
        pro = "".join(f"; proactive {i['id']}: drain {i['component']}" for i in d["proactive_new"])
        unread = d.get("not_read") or []
        pro += f"; {len(unread)} not read (their components not swept): {unread[0]}" if unread else ""
        click.echo(f"{when(d['t_s'])}  {d['severity']:<8} {c['Critical']} critical, {c['Alarm']} alarm, "
                   f"{c['Warning']} warning  ({d['duration_ms']:.0f} ms){pro}")

    def when(t: float, pad: bool = True) -> str:
        """A real source's sweep time is a Unix time: shown as ISO 8601 UTC; the twin's is simulated seconds."""
        if pod is not None:
            from opsbrain.sources.freshness import iso

            return iso(t) if t > 0 else "no sweep"
        return f"t={t:>10.0f} s" if pad else f"t={t:.0f} s"

    summary = run_service(scenario, trigger, speed=speed, metrics_port=metrics_port, home=data_dir,
                          max_runtime_s=max_runtime, seed=seed, on_sweep=on_sweep, on_start=on_start, pod=pod,
                          bind=bind, webhook=webhook, webhook_format=webhook_format)
    if as_json:
        _emit_json(summary)
        return
    click.echo(f"stopped ({summary['stopped_by']}) after {summary['wall_s']:.1f} s: {summary['sweeps']} sweeps to "
               f"{when(summary['sim_time_s'], pad=False)}, "
               f"{len(summary['proactive'])} proactive incidents, "
               f"{len(summary['errors'])} errors")
    src = summary.get("source_state") or {}
    if src.get("state") == "unauthorized":  # the last sweeps had no data because the credentials were refused
        from opsbrain.cli.journal_view import count

        refused = count(src["refused_sweeps"], "sweep")
        click.echo(f"source unauthorized: HTTP {src['status']} from {src['url']} ({refused} refused in a row): check "
                   "the token or password given")


# ---- watch (issue 20) ---------------------------------------------------------------------------------
@cli.command("watch")
@click.option("--logs", "logs", type=NON_EMPTY, required=True, metavar="DIR",
              help="A directory of logs to follow (DIR/<host>/... "
              "names the host of lines that name none).")
@click.option("--webhook", default=None, metavar="URL", help="POST each incident report as JSON to this URL.")
@webhook_format_option("opsbrain")
@click.option("--metrics-port", type=click.IntRange(0, 65535), default=None,
              help="Serve Prometheus metrics of the diagnoses made (and webhook posts) on BIND:PORT "
              "(0: any free port).")
@bind_option
@click.option("--max-runtime", "max_runtime", type=_Finite(0, MAX_WALL_S, min_open=True), default=None,
              help="Stop after this many wall seconds.")
@click.option("--poll", "poll_s", type=_Finite(0.01, 3600), default=0.25, show_default=True,
              help="Seconds between polls.")
@click.option("--from-start", is_flag=True, help="Read the files already there from their start (default: their end).")
@click.option("--url", "urls", multiple=True, metavar="URL", help="Also sweep these npu-exporter pages and report "
              "new Alarm-or-worse findings.")
@click.option("--sweep-interval", "sweep_s", type=_Finite(0.1, 366 * 86400.0), default=300.0, show_default=True,
              help="Seconds between sweeps of --url.")
@click.option("--follow-links", "follow_links", is_flag=True, default=False,
              help="Follow symbolic links under DIR (and DIR itself if it is one), each directory once.")
@click.option("--state", "state", type=NON_EMPTY, default=None, metavar="FILE",
              help="Keep each file's offset and the reported incidents in FILE; a watch started again with it "
              "continues where this one stopped.")
@http_auth_options
@data_dir_option
@json_option
def watch_cmd(logs: str, webhook: str | None, webhook_format: str, metrics_port: int | None, bind: str,
              max_runtime: float | None, poll_s: float, from_start: bool, urls: tuple[str, ...], sweep_s: float,
              follow_links: bool, state: str | None, data_dir: Path | None, as_json: bool, auth: HttpAuth) -> None:
    """Follow log files, group signals into incidents, diagnose each and show the runbook it would run (a dry
    run: advisory, nothing is executed). Stops on SIGINT/SIGTERM or --max-runtime."""
    import signal
    import threading

    from opsbrain.cli.journal_view import count
    from opsbrain.ingest import MAX_LINE
    from opsbrain.kb.training import load_engine
    from opsbrain.recovery.schema import conditions_text
    from opsbrain.sources.watch import Watcher

    if max_runtime is not None and not max_runtime > 0:
        raise InputError(f"must be > 0, got {max_runtime:g}", path="--max-runtime")

    def report(d: dict[str, Any]) -> None:
        if as_json:
            click.echo(json.dumps(d, default=str))
            return
        if "finding" in d:
            f = d["finding"]
            again = " (again)" if d["again"] else ""
            click.echo(f"sweep at +{d['reported_s']:.1f} s{again}: {f['severity']} {f['check']} {f['component']}: "
                       f"{f['evidence']}\n  advised (not executed): {f['suggested_action']}")
            return
        root = d.get("root") or {}
        where = ", ".join(f"{k} {root[k]}" for k in ("host", "device") if root.get(k) is not None) or d["component"]
        stop = " (at stop: collected for less than its window)" if d["at_stop"] else ""
        click.echo(f"{d['incident']}{' (update)' if d['update'] else ''} at +{d['reported_s']:.1f} s: "
                   f"{d['fault_class']} at {where} (confidence {d['confidence']:.2f}, {d['signals']} signals){stop}")
        for item in d["news"]:
            click.echo(f"  new: {item}")
        if (rep := d["repeat"]) is not None:
            rule = rep["rule"]
            click.echo(f"  repeat: {rep['count']} x {d['fault_class']} on {rep['part']} within {rep['within_s']:.0f} s"
                       + (f" (earlier: {', '.join(rep['earlier'])})" if rep["earlier"] else "")
                       + (f": {rule['source']}; advised {rule['to']} instead of {rule['from']}" if rule else ""))
        for e in d["evidence_lines"][:3]:
            click.echo(f"  {e['file']}:{e['line']}: {e['text'][:140]}")
        adv = d["advice"]
        click.echo(f"  advised (dry run, not executed): {adv['runbook'] or '-'} {adv['title']}")
        for st in adv["steps"]:
            cond = f" when {conditions_text(st['when'])}" if st.get("when") else ""
            how = st["command"] or f"{st['action']} {st['target'] or '(target not in the logs)'}"
            click.echo(f"    - {st['name']}: {how}{cond}")

    source = None
    if auth.given and not urls:
        raise InputError("credentials and TLS options apply to --url pages only", path="--url")
    if urls:
        from opsbrain.sources import open_source

        source = open_source("prometheus", urls, auth=auth)
    from opsbrain.service.metrics import DiagnosisMetrics

    metrics = DiagnosisMetrics()
    watcher = Watcher(logs, load_engine(data_dir, say=lambda m: click.echo(m, err=True)), report, webhook=webhook,
                      poll_s=poll_s, from_start=from_start, source=source, sweep_every_s=sweep_s,
                      webhook_format=webhook_format, metrics=metrics, follow_links=follow_links, state_file=state,
                      on_source_error=None if as_json else lambda m: click.echo(f"sweep: not read: {m}", err=True))
    server = _serve_metrics(metrics.registry, metrics_port, bind)
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
        if server is not None:
            server.close()
    summary["stopped_by"] = why["by"]
    if as_json:
        click.echo(json.dumps({"summary": summary}, default=str))
    else:
        click.echo(f"stopped ({summary['stopped_by']}) after {summary['wall_s']:.1f} s: "
                   f"{count(summary['incidents'], 'incident')} from {count(summary['lines'], 'line')} in "
                   f"{count(summary['files'], 'file')}"
                   + (f"; {count(len(summary['webhook_errors']), 'webhook error')}"
                      if summary["webhook_errors"] else "")
                   + (f"; {summary['reported_at_stop']} reported at the stop" if summary["reported_at_stop"] else ""),
                   err=True)
        if summary["lines_cut"]:
            click.echo(f"  {summary['lines_cut']} lines longer than {MAX_LINE} characters: scanned in their first "
                       "part only", err=True)
        if summary["binary_lines"]:
            click.echo(f"  {summary['binary_lines']} lines of binary content: not read", err=True)
        for item in summary["notes"]:
            click.echo(f"  note: {item}", err=True)
        click.echo(f"  state kept in {state}: a watch started with --state {state} continues where this one stopped"
                   if state else "  no --state FILE: a restart follows the files from their end (lines written "
                   "while stopped are not read)", err=True)
        for item in summary["not_read"]:
            click.echo(f"  not read: {item}", err=True)
        if urls:  # the pages' sweeps: how many, and what could not be read (session 41: before, not a word)
            failed = summary["failed_collections"]
            click.echo(f"  {count(summary['sweeps'], 'sweep')} of the --url pages"
                       + (f", {count(failed, 'collection')} that read none of them" if failed else ""), err=True)
            for item in summary["source_errors"]:
                click.echo(f"  not read (--url): {item}", err=True)
        if summary["not_read_n"] > len(summary["not_read"]):
            click.echo(f"  ... and {summary['not_read_n'] - len(summary['not_read'])} more not read (--json has the "
                       "first 20)", err=True)
