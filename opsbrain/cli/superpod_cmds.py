"""``opsbrain superpod``: run a scenario's superpod-operations block (elastic serving, day/night, tenants)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from opsbrain.cli.base import _emit_json, _store, cli, data_dir_option, exit_unless_passed, json_option
from opsbrain.errors import InputError


def _floats(text: str | None, option: str) -> list[float] | None:
    if not text:
        return None
    try:
        vals = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise InputError(f"expected comma-separated numbers, got {text!r}", path=option) from None
    if not vals or any(not (0 < v <= 10) for v in vals):
        raise InputError(f"each value must be in (0, 10], got {text!r}", path=option)
    return vals


def _ints(text: str | None, option: str) -> list[int] | None:
    if not text:
        return None
    try:
        vals = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise InputError(f"expected comma-separated integers, got {text!r}", path=option) from None
    if not vals or any(not (0 <= v <= 50) for v in vals):
        raise InputError(f"each value must be in 0-50, got {text!r}", path=option)
    return vals


@cli.group()
def superpod() -> None:
    """Superpod operations beyond repair: autoscaling, day/night switches, tenant slices."""


@superpod.command("run")
@click.argument("scenario")
@click.option("--seed", type=click.IntRange(0, 2**31 - 1), default=None,
              help="First seed (default: the scenario's).")
@click.option("--seeds", type=click.IntRange(1, 100), default=None,
              help="Seeds per experiment (default: the scenario's spec.superpod.seeds, else 3).")
@click.option("--demand-scale", default=None, help="Campaign: peak demand multipliers, e.g. 0.8,0.9,1.")
@click.option("--tenant-faults", default=None, help="Campaign: random faults on tenant a per seed, e.g. 2,5.")
@click.option("--no-store", is_flag=True, help="Do not keep the run in the run store.")
@data_dir_option
@json_option
def superpod_run(scenario: str, seed: int | None, seeds: int | None, demand_scale: str | None,
                 tenant_faults: str | None, no_store: bool, data_dir: Path | None, as_json: bool) -> None:
    """Run the spec.superpod block of SCENARIO; print p50/p90 over seeds; keep the scored journal in the run store
    (``runs list``, ``report RUN_ID``: a page per tenant). Exit 0 when the verdict passed or is inconclusive, 1 when
    a bound was missed."""
    from opsbrain.ops.elastic_run import LayoutError
    from opsbrain.ops.scenario_run import OptionError, run_superpod
    from opsbrain.ops.superpod_journal import superpod_only_journal
    from opsbrain.runner.run import _clean, _utc_now
    from opsbrain.scenario.loader import load_scenario

    sc, path = load_scenario(scenario)
    sp = sc.spec.superpod
    if sp is None:
        raise InputError("the scenario has no spec.superpod block (built-ins with one: "
                         f"{', '.join(_superpod_builtins()) or 'none'})", file=str(path), path="spec.superpod")
    if seeds is not None:
        sp = sp.model_copy(update={"seeds": seeds})
    first = sc.spec.seed if seed is None else seed
    store = None if no_store else _store(data_dir)
    run_id = store.begin_run(sc.metadata.name, first, "auto") if store is not None else None
    started = _utc_now()
    try:
        out = run_superpod(sp, first, _floats(demand_scale, "--demand-scale"), _ints(tenant_faults, "--tenant-faults"))
    except BaseException as exc:
        if store is not None and run_id is not None:
            store.mark_interrupted(run_id)
        if isinstance(exc, OptionError):  # a campaign option's value the block cannot run: name the option
            raise InputError(str(exc), path=exc.option) from None
        if type(exc) is ValueError or isinstance(exc, LayoutError):  # refused only when it runs: name the block
            raise InputError(f"cannot run the block: {exc}", file=str(path), path="spec.superpod") from None
        raise
    journal = superpod_only_journal(sc.model_copy(update={"spec": sc.spec.model_copy(update={"superpod": sp})}),
                                    first, dict(_clean(out)), started)
    journal["run_id"] = run_id
    if store is not None and run_id is not None:
        store.finish(run_id, journal)
    out = {"scenario": sc.metadata.name, "run_id": run_id, "verdict": journal["verdict"],
           "expectations": journal["expectations"], **out}
    if as_json:
        _emit_json(out)
    else:
        _print(out)
    exit_unless_passed(journal)  # exit 1 on a bound missed, as chaos run (session 36: it exited 0)


def _fmt(p: dict[str, Any], unit: str = "", digits: int = 0) -> str:
    """p50 and p90 over seeds with n; a p90 fewer than 10 seeds cannot support is marked (opsbrain.stats)."""
    from opsbrain import stats

    if not p.get("n"):
        return "-"
    p90 = stats.mark(f"{p['p90']:.{digits}f}", 0.9, int(p["n"]))
    return (f"p50 {p['p50']:.{digits}f}{unit} p90 {p90}{unit} (n {p['n']}"
            + (", * too few for a p90)" if p90.endswith("*") else ")"))


def _print(out: dict[str, Any]) -> None:
    click.echo(f"{out['scenario']}: seeds {out['seeds'][0]}..{out['seeds'][-1]}")
    print_block(out)
    if "verdict" in out:
        click.echo(f"verdict {out['verdict'].upper()}" + (f"  run id {out['run_id']}" if out.get("run_id") else ""))


def print_block(out: dict[str, Any]) -> None:
    """The block's figures (also under ``chaos run``) and each bound not met."""
    for e in out.get("elastic", []):
        click.echo(f"elastic, demand x{e['demand_scale']:g} (peak {e['peak_tokens_per_s']:,.0f} tok/s); decode at the "
                   f"TPOT bound {e['decode_tokens_per_s_per_npu_at_slo_bound']:.1f} tok/s/NPU")
        for pol in ("autoscale", "static-peak", "static-paper"):
            if pol in e:
                m = e[pol]
                click.echo(f"  {pol:13s} SLO {_fmt(m['slo_attainment'], '', 4)}; time to SLO after fault "
                           f"{_fmt(m['time_to_slo_after_fault_s'], ' s')}; tok/s/NPU {_fmt(m['tokens_per_s_per_npu'])}"
                           f"; NPU-h {_fmt(m['npu_hours_allocated'])}; idle NPU-h {_fmt(m['npu_hours_idle'])}")
    for s in out.get("schedule", []):
        click.echo(f"schedule, demand x{s['demand_scale']:g}, {s.get('operation', 'sequential')}: per-node switch "
                   f"{_fmt(s['node_switch_s'], ' s')}; to training {_fmt(s['to_training_s'], ' s')}; to inference "
                   f"{_fmt(s['to_inference_s'], ' s')}")
        if "whole_switch_s" in s:
            click.echo(f"  whole switch (to the last node) {_fmt(s['whole_switch_s'], ' s')}; training nodes' own "
                       f"stages done {_fmt(s['training_node_ready_s'], ' s')}; group nodes left out by N + k "
                       f"{s['set_aside']}")
        if "faulted" in s:
            f = s["faulted"]
            click.echo(f"  without the injected faults (same seeds): per-node switch "
                       f"{_fmt(s['fault_free_node_switch_s'], ' s')}")
            click.echo(f"  with them: {f['faults']} faults; the faulted node's slot working again "
                       f"{_fmt(f['slot_working_after_fault_s'], ' s')} after the fault; its fault domain's per-node "
                       f"switch {_fmt(f['fault_domain_node_switch_s'], ' s')}; the other nodes of those switches "
                       f"{_fmt(f['outside_domain_node_switch_s'], ' s')}; never working {f['slots_never_working']}"
                       f"; hit after its own switch {f['switched_before_fault']}")
        click.echo(f"  hand-backs on time {s['handbacks_on_time']}/{s['handbacks']}; retries {s['retries']}; "
                   f"failed switches {len(s['failed_switches'])}; SLO {_fmt(s['slo_attainment'], '', 4)}")
        if s["late"]:
            click.echo(f"  late hand-back: {s['late'][0]}")
        p = s.get("plan") or {}
        if p.get("waited"):
            click.echo(f"  rule firings that waited for their group's switch under way {p['waited']} (longest "
                       f"{p['waited_max_s']:.0f} s)")
        if s.get("peer_fallbacks"):
            click.echo(f"  peer weight loads without a serving peer (read from the EMS pool): {s['peer_fallbacks']}")
    for t in out.get("tenants", []):
        click.echo(f"tenants, {t['random_faults']} random faults/seed: {t['incidents']} incidents on a; actions on a "
                   f"{t['actions_on_a']}, on b {t['actions_on_b']}; EMS reads of b {t['ems_reads_b']}; b out of "
                   f"service {t['blast_b']}; scope refusals {t['refusals']}")
    said: set[str] = set()
    for e in out.get("expectations", []):
        if not str(e.get("check", "")).startswith("superpod."):
            continue
        if e["met"] is False:
            click.echo(f"  not met: {'; '.join(e['problems'])}")
        elif e["met"] is None and e["unjudged"][0] not in said:  # one line per reason (a plan with no switch: 3 bounds)
            said.add(e["unjudged"][0])
            click.echo(f"  not judged: {e['unjudged'][0]}")


def _superpod_builtins() -> list[str]:
    """The built-in scenarios that have a ``spec.superpod`` block (read as YAML only: no schema, no simulator)."""
    from opsbrain.scenario.builtin import builtin_dir, read_yaml

    out = []
    for p in sorted(builtin_dir().glob("*.yaml")):
        doc = read_yaml(p)
        if isinstance(doc, dict) and isinstance(doc.get("spec"), dict) and doc["spec"].get("superpod") is not None:
            out.append(p.stem)
    return out
