"""``opsbrain chaos``: list, validate, schema, run, replay, campaign."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from opsbrain.cli.base import (
    SEED,
    LazyChoice,
    _emit_json,
    _Finite,
    _store,
    cli,
    data_dir_option,
    echo_errors,
    exit_unless_passed,
    fault_profiles,
    json_option,
    param_option,
    parse_params,
    sim_params,
)
from opsbrain.cli.journal_view import count, num, print_journal, print_plan
from opsbrain.cli.output import Table, emit, output_option, resolve_format
from opsbrain.errors import InputError
from opsbrain.policies import POLICIES


@cli.group()
def chaos() -> None:
    """Chaos scenarios: list, validate, schema, run, replay, campaign."""


@chaos.command("list")
@output_option
@json_option
def chaos_list(output: str | None, as_json: bool) -> None:
    """List the built-in scenarios."""
    from opsbrain import chaos as lib

    fmt = resolve_format(output, as_json)
    rows = lib.list_scenarios()
    table = Table.of(["name", "policy", "duration s", "description"], title=f"Built-in scenarios ({len(rows)})",
                     wrap=["description"], right=["duration s"])
    for r in rows:
        table.add(r["name"], r["policy"], f"{r['duration_s']:g}", " ".join(str(r["description"]).split()))
    emit(table, fmt, {"scenarios": rows})


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
        click.echo(f"{count(len(files), 'scenario file')} valid")
    echo_errors(errors if not as_json else [])
    if errors:
        sys.exit(2)


@chaos.command("schema")
@click.option("--journal", is_flag=True, help="The JSON Schema of run journals instead (what 'chaos run --json' "
              "prints and the run store keeps).")
def chaos_schema(journal: bool) -> None:
    """Print the JSON Schema of scenario files (for editors), or of run journals (--journal)."""
    if journal:
        from opsbrain.runner.journal_schema import journal_schema

        _emit_json(journal_schema())
        return
    from opsbrain import chaos as lib

    _emit_json(lib.schema())


def _plan_or_every_error(lib: Any, scenario: str, seed: int | None, policy: str | None) -> Any:
    """The scenario's plan; a file with several errors gets them all, one line each, as `chaos validate` prints them
    (session 42: `chaos run FILE --dry-run`, README's way to validate a scenario, printed the first only)."""
    try:
        return lib.plan(scenario, seed=seed, policy=policy)
    except InputError:
        errors = lib.validate([scenario])
        if len(errors) < 2:
            raise
        echo_errors(errors)
        sys.exit(2)


@chaos.command("run")
@click.argument("scenario")
@click.option("--seed", type=SEED, default=None, help="Override the scenario's seed.")
@click.option("--policy", type=click.Choice(list(POLICIES)), default=None,
              help="Override the policy (vendor-default: MindCluster's out-of-the-box fault handling).")
@click.option("--dry-run", is_flag=True, help="Validate and print the plan; run nothing.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Also write the journal as JSON into this directory.")
@click.option("--all", "show_all", is_flag=True, help="List every noise incident (default: the ignored ones are "
              "one summary row; false positives are always listed).")
@data_dir_option
@output_option
@json_option
def chaos_run(scenario: str, seed: int | None, policy: str | None, dry_run: bool, out_dir: Path | None,
              show_all: bool, data_dir: Path | None, output: str | None, as_json: bool) -> None:
    """Run a scenario (built-in name or file): inject, detect, diagnose, recover, score, journal. Exit 0: the
    verdict passed (or was inconclusive: nothing to check); 1: failed or aborted; 2: bad input; 130/143:
    interrupted (docs/scenarios.md)."""
    from opsbrain import chaos as lib

    fmt = resolve_format(output, as_json)
    as_json = fmt == "json"

    plan = _plan_or_every_error(lib, scenario, seed, policy)
    if dry_run:
        desc = lib.dry_run(plan)
        if as_json:
            _emit_json(desc)
        else:
            print_plan(desc)
        return
    store = _store(data_dir)
    journal = _run_with_progress(lib, plan, store, out_dir, data_dir, quiet=as_json)
    if as_json:
        _emit_json(journal)
    else:
        print_journal(journal, fmt, show_all)
    exit_unless_passed(journal)


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


@chaos.command("replay")
@click.argument("trace")
@click.option("--time-unit", type=click.Choice(["s", "min", "h", "days"]), default="s", show_default=True,
              help="Unit of the trace's times (the InfiniteHBD trace uses days).")
@click.option("--mapping", default=None, help="YAML or CSV rules mapping trace rows to fault kinds, tried before "
              "the shipped table (opsbrain/scenario/replay_mapping.yaml).")
@click.option("--pods", type=click.IntRange(1, 64), default=None,
              help="Pods to replay on (default: the fewest that hold every trace "
              "server on its own node).")
@click.option("--fold", is_flag=True, help="Allow several trace servers on one node when --pods is too small.")
@click.option("--rebase", is_flag=True, help="Shift the trace's times so that its first event is at 0 s (else times "
              "before 0 are an error).")
@click.option("--noise", is_flag=True, help="Add the twin's background noise (off: the trace is the fault record).")
@click.option("--run", "do_run", is_flag=True, help="Also run the replayed faults (journal in the run store).")
@click.option("--policy", type=click.Choice(["auto", "manual"]), default="auto", show_default=True,
              help="Recovery policy of the --run.")
@click.option("--seed", type=SEED, default=0, show_default=True,
              help="Seed of the mapping (which part of its node a fault hits: an NPU, an HBM stack, a link; servers "
                   "map onto nodes in order) and of the --run.")
@data_dir_option
@json_option
def chaos_replay(trace: str, time_unit: str, mapping: str | None, pods: int | None, fold: bool, rebase: bool,
                 noise: bool, do_run: bool, policy: str, seed: int, data_dir: Path | None, as_json: bool) -> None:
    """Map a fault event trace (JSON or CSV) onto pods: what mapped, what did not, the trace's statistics;
    --run runs it and prints ETTR and interruptions per node-day beside the trace's."""
    import time

    from opsbrain.scenario import replay as rp

    t0, c0 = time.perf_counter(), time.process_time()
    plan, rep = rp.replay_plan(trace, time_unit=time_unit, mapping=mapping, seed=seed, policy=policy, pods=pods,
                               fold=fold, noise=noise, rebase=rebase)
    out = rp.summary(rep, plan)
    out["notes"] = rp.notes(rep)
    journal = None
    if do_run and not plan.timeline:
        raise InputError(f"nothing to run: none of the trace's {count(len(rep.trace.faults), 'fault')} mapped to a "
                         "fault kind", file=trace, path="--run")
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
    if journal is not None:
        exit_unless_passed(journal)


@chaos.command("campaign")
@click.option("--pods", default=1, show_default=True, type=click.IntRange(1, 64), help="Superpods in the cluster.")
@click.option("--days", default=30.0, show_default=True, type=_Finite(0, 90, min_open=True),
              help="Simulated days per run.")
@click.option("--seeds", default=4, show_default=True, type=click.IntRange(1, 10_000), help="Seeds (runs per policy).")
@click.option("--first-seed", default=0, show_default=True, type=SEED, help="Seeds are FIRST..FIRST+K-1.")
@click.option("--profile", default="llama3", show_default=True, type=LazyChoice(fault_profiles),
              help="Random fault profile (faultlib/injection/profiles.py; docs/parameters.md).")
@click.option("--policy", type=click.Choice([*POLICIES, "both", "all"]), default="auto",
              show_default=True, help="Recovery policy; 'both' runs auto and manual on the same seeds and compares "
              "them, 'all' runs auto, vendor-default and manual.")
@click.option("--layout", type=click.Choice(["auto", "mixed", "cluster"]), default="auto", show_default=True,
              help="mixed: inference + training on one pod; cluster: one training job across all pods.")
@click.option("--spares-per-pod", default=2, show_default=True, type=click.IntRange(0, 16),
              help="Warm spare nodes per pod (its highest-numbered nodes), kept out of the jobs.")
@click.option("--bursty", is_flag=True, help="Bursty interruption arrivals.")
@click.option("--lemons", is_flag=True, help="Lemon nodes carry a share of node faults.")
@click.option("--sweeps/--no-sweeps", default=False, show_default=True, help="In-run health sweeps.")
@click.option("--noise/--no-noise", default=True, show_default=True, help="Background noise in every pod.")
@click.option("--cheap-noise", is_flag=True, help="Re-draw chip temperatures every 48 h instead of 12 h (a third "
              "of the cost at 27 pods; all noise stays on in every pod).")
@click.option("--workers", default=None, type=click.IntRange(1), help="Parallel runs (default: CPUs, at most runs).")
@click.option("--executor", type=click.Choice(["local", "dask"]), default="local", show_default=True,
              help="local: processes on this machine; dask: a Dask cluster (--scheduler).")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Dask scheduler address (default with --executor dask: a local cluster of --workers processes).")
@click.option("--no-journals", is_flag=True, help="Store only each run's compact record, not its full journal.")
@param_option
@data_dir_option
@output_option
@json_option
def chaos_campaign(pods: int, days: float, seeds: int, first_seed: int, profile: str, policy: str, layout: str,
                   spares_per_pod: int, bursty: bool, lemons: bool, sweeps: bool, noise: bool, cheap_noise: bool,
                   workers: int | None,
                   executor: str, scheduler: str | None, no_journals: bool, params: tuple[str, ...],
                   data_dir: Path | None, output: str | None, as_json: bool) -> None:
    """Monte Carlo campaign: K seeds (x policies) of a cluster under a fault profile; resumable; summary."""
    fmt = resolve_format(output, as_json)
    as_json = fmt == "json"
    from opsbrain.campaign.runner import Options, default_workers, run_campaign
    from opsbrain.campaign.spec import CampaignSpec
    from opsbrain.scenario.schema import MAX_SEED

    if scheduler and executor != "dask":
        raise InputError("--scheduler needs --executor dask", path="--scheduler")
    if first_seed + seeds - 1 > MAX_SEED:  # the run store keeps seeds as SQLite INTEGER
        raise InputError(f"seeds {first_seed}..{first_seed + seeds - 1} go past the largest seed, {MAX_SEED}",
                         path="--first-seed")
    policies = {"both": ("auto", "manual"), "all": ("auto", "vendor-default", "manual")}.get(policy, (policy,))
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
        _print_campaign(out, fmt)
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


def campaign_tables(out: dict[str, Any]) -> list[Table]:
    """The jobs table (ETTR coloured against the stated bar, opsbrain.verdict.ETTR_BAR) and one time-to-recover
    table per policy; the quantiles are opsbrain.stats' (the campaign report prints the same)."""
    from opsbrain import stats
    from opsbrain.verdict import ETTR_BAR, TONE_STYLE, ettr_outcome

    jobs = Table.of(["policy", "job", "ETTR", "goodput", "downtime s", "stalled s", "ckpt stall s", "restarts"],
                    title="jobs (mean over seeds; min-max)", wrap=["ETTR", "goodput"],
                    right=["downtime s", "stalled s", "ckpt stall s", "restarts"])
    for pol, s in out["by_policy"].items():
        for name, j in s["jobs"].items():
            e, g = j.get("ettr") or {}, j["goodput"]
            tone = ettr_outcome(e.get("mean"))[1] if e else "neutral"
            jobs.add(pol, name, _rng(e), _rng(g), num(j.get("downtime_s")), num(j.get("stalled_s")),
                     num(j.get("ckpt_stall_s")), num(j.get("restarts")),
                     styles=[None, None, TONE_STYLE[tone]] + [None] * 5)
    jobs.note(f"ETTR bar {ETTR_BAR:.2f} (Llama 3 405B kept > 90% effective training time, arXiv 2407.21783): "
              "green at or above it, yellow 0.85-0.90, red below")
    tables = [jobs]
    for pol, s in out["by_policy"].items():
        cols = ["faults", "recovered", "before det.", *(f"{m} {q}" for m in ("ttr", "ttd", "ttdiag")
                                                          for q in ("n", "p50", "p90", "p99"))]
        ttr = Table.of(["class", *cols], title=f"{pol}: time to recover, detect and diagnose by fault class (s; "
                       "quantiles: numpy linear)", right=cols)
        marked = False
        for k, v in s["ttr_by_class"].items():
            d = v["ttr_s"]  # a summary from before the ttd/ttdiag distributions has their medians only
            dd, dg = v.get("ttd_s") or {"p50": v.get("ttd_s_p50")}, v.get("ttdiag_s") or {"p50": v.get("ttdiag_s_p50")}
            cells = [c for x in (d, dd, dg) for c in _dist_cells(x)]
            marked = marked or any(c.endswith("*") for c in cells)
            ttr.add(k, v["n"], v["recovered"], v.get("recovered_before_detection", "-"), *cells)
        if not s["ttr_by_class"]:
            ttr.note("no fault in these runs: nothing to time")
        ttr.note("ttr: over the faults recovered after their detection; 'before det.' were back before it (healed "
                 "by themselves or needing no action) and are counted apart")
        if marked:
            ttr.note(stats.UNSUPPORTED_NOTE)
        tables.append(ttr)
    return tables


def _print_campaign(out: dict[str, Any], fmt: str = "table") -> None:
    tables = campaign_tables(out)
    if fmt == "plain":
        for t in tables:
            click.echo(t.plain())
        return
    sp, runs, ex = out["spec"], out["runs"], out["execution"]
    click.echo(f"{out['campaign']}: {count(sp['pods'], 'pod')} = {out['npus']:,} NPUs, "
               f"{count(sp['days'], 'day', spec='g')}, "
               f"profile {sp['profile']}; {runs['finished']}/{runs['total']} runs ({runs['reused']} reused), "
               f"{ex['wall_s']:.1f} s wall on {count(ex['workers'], ex['executor'] + ' worker')}")
    click.echo(tables[0].render(fmt))
    for (pol, s), ttr in zip(out["by_policy"].items(), tables[1:], strict=True):
        it, dg = s["interruptions"], s["diagnosis"]
        cats = ", ".join(f"{c} {v['count']}" for c, v in it["by_category"].items())
        click.echo(f"{pol}: {count(it['total'], 'interruption')} ({it['per_run']} per run, expected "
                   f"{it['expected_per_run']}): {cats or 'none'}; {count(it['background_faults'], 'background fault')}")
        click.echo(f"  diagnosis: {dg['correct']}/{dg['faults']} correct ({share(dg['accuracy'])}), "
                   f"{dg['noise_incidents']} noise incidents, {dg['false_positives']} acted on (false positives); "
                   f"hands-off share {share(s['recovery']['handled_without_human'])}; spare swaps "
                   f"{s['spares']['swaps']}, runs out of spares {s['spares']['runs_exhausted']}")
        rec = s["recovery"]
        if "ttr_after_detection_s" in rec:  # the headline over the faults that needed a response
            a = rec["ttr_after_detection_s"]
            click.echo(f"  ttr of the faults recovered after detection: median {secs(a.get('p50'))} (n {a['n']}); "
                       f"{rec['recovered_before_detection']} back before detection (self-healed or no action "
                       "needed), counted apart")
        click.echo(ttr.render(fmt))
    cmp_ = out.get("auto_vs_manual")
    if cmp_:
        for name, j in cmp_["jobs"].items():
            if "ettr_auto" in j:
                click.echo(f"auto vs manual, {name}: ETTR {ratio(j['ettr_auto'])} vs {ratio(j['ettr_manual'])} "
                           f"(gain {ratio(j['ettr_gain'])}), lost NPU-s reduced by "
                           f"{share(j['lost_npu_s_reduction'])}")
            else:
                click.echo(f"auto vs manual, {name}: lost tokens reduced by {share(j['lost_tokens_reduction'])}, "
                           f"SLO violation {secs(j['slo_violation_s_auto'])} vs {secs(j['slo_violation_s_manual'])}")
        t = cmp_["ttr_s"]
        click.echo(f"auto vs manual, ttr on the same {t['pairs']} faults recovered after detection: median "
                   f"{secs(t['auto']['p50'])} vs {secs(t['manual']['p50'])}"
                   + (f" ({t['pairs_before_detection']} pairs back before detection left out)"
                      if t.get("pairs_before_detection") else ""))


def share(v: float | None) -> str:
    """A share or fraction (0..1) for prose: a percentage with one decimal, or "-" where there is none (no fault
    scored, no baseline loss): never a raw None."""
    return "-" if v is None else f"{v:.1%}"


def ratio(v: float | None) -> str:
    """An ETTR or goodput for prose, with the jobs table's four decimals; "-" where there is none."""
    return "-" if v is None else f"{v:.4f}"


def secs(v: float | None) -> str:
    """Seconds for prose, with their unit and the tables' one decimal; "-" (no unit) where there is none."""
    return "-" if v is None else f"{v:.1f} s"


def _dist_cells(d: dict[str, Any]) -> list[str]:
    """n, p50, p90, p99 of a campaign distribution; a quantile its n cannot support marked ``*`` (opsbrain.stats)."""
    from opsbrain import stats

    n = d.get("n")
    qs = [num(d.get(k)) if n is None else stats.mark(num(d.get(k)), q, int(n))
          for k, q in (("p50", 0.5), ("p90", 0.9), ("p99", 0.99))]
    return ["-" if n is None else str(n), *qs]


def _rng(d: dict[str, Any]) -> str:
    if not d or d.get("mean") is None:
        return "-"
    return f"{d['mean']:.4f} ({d['min']:.4f}-{d['max']:.4f})"
