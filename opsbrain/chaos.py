"""The chaos library behind ``opsbrain chaos``: list, validate, schema, plan (dry run), run (trace replay:
:mod:`opsbrain.scenario.replay`)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from opsbrain.errors import InputError
from opsbrain.scenario.builtin import builtin_dir, builtin_names, read_yaml

if TYPE_CHECKING:  # the schema, the planner and the store are imported by the functions that need them
    from opsbrain.scenario.plan import Plan
    from opsbrain.store import RunStore

Say = Callable[[str], None]
log = logging.getLogger(__name__)


def list_scenarios() -> list[dict[str, Any]]:
    """Name, description, tags, policy and duration of every built-in scenario (read as YAML, not validated:
    ``chaos list`` answers without building the schema or the simulator)."""
    out = []
    for name in builtin_names():
        data = read_yaml(builtin_dir() / f"{name}.yaml")
        meta = data.get("metadata", {}) if isinstance(data, dict) else {}
        spec = data.get("spec", {}) if isinstance(data, dict) else {}
        out.append({"name": name, "description": meta.get("description", ""), "tags": meta.get("tags", []),
                    "policy": spec.get("policy", "auto"), "duration_s": spec.get("duration", 3600.0)})
    return out


def validate(paths: list[str]) -> list[str]:
    """One line per error ("FILE: PATH: reason"); empty when all files are valid."""
    from opsbrain.scenario.loader import validate_files

    return [str(e) for e in validate_files(paths)]


def schema() -> dict[str, Any]:
    from opsbrain.scenario.schema import Scenario

    return Scenario.model_json_schema()


def plan(name_or_path: str, seed: int | None = None, policy: str | None = None) -> Plan:
    from opsbrain.scenario.loader import load_scenario
    from opsbrain.scenario.plan import build_plan

    sc, path = load_scenario(name_or_path)
    return build_plan(sc, str(path), seed=seed, policy=policy)


def dry_run(p: Plan) -> dict[str, Any]:
    """What would be injected where, and which runbooks would be eligible, without running anything."""
    from opsbrain.recovery.loader import load_runbooks

    rbs = load_runbooks()
    desc = p.describe()
    for f in desc["faults"]:
        f["eligible_runbooks"] = [rb.id for rb in rbs.for_class(f["kind"])]
    desc["dry_run"] = True
    return desc


def run(p: Plan, store: RunStore | None = None, out_dir: Path | None = None,
        progress: Callable[[float, float], None] | None = None, say: Say | None = None,
        home: Path | None = None, bundle_dir: Path | None = None) -> dict[str, Any]:
    """Run a plan, store its journal (run store and, with ``out_dir``, a JSON file); return the journal.
    With ``bundle_dir``, a log bundle per incident is written into ``bundle_dir/b0001/``, ... in the journal's order
    (issue 9)."""
    from opsbrain.fsio import check_output_dir
    from opsbrain.kb.training import load_engine
    from opsbrain.runner.run import run_plan
    from opsbrain.stophold import StopHold

    if out_dir is not None:  # a path the write would refuse is refused before the run, not after it
        check_output_dir(out_dir, "--out")
    engine = load_engine(home, say=say)
    run_id = None
    if store is not None:
        run_id = store.begin_run(p.scenario.metadata.name, p.seed, p.policy)
    log.info("run started", extra={"run_id": run_id, "scenario": p.scenario.metadata.name, "seed": p.seed,
                                   "policy": p.policy})
    hold = StopHold("the run's journal")  # a stop after the simulation waits until the journal is stored (session 43)
    try:
        journal = run_plan(p, engine, progress=progress, bundle_dir=bundle_dir, hold=hold)  # long-run GC pace
    except BaseException as exc:  # the handlers go back whatever ended it (an error too: review43c)
        hold.release()
        if isinstance(exc, KeyboardInterrupt) and store is not None and run_id is not None:
            store.mark_interrupted(run_id)  # stopped before the simulation ran (run_plan journals a stop once it runs)
        raise
    noted = None
    cut: KeyboardInterrupt | None = None
    if p.scenario.spec.superpod is not None:  # a run of its own: a stop cuts it, and the chaos run's journal is kept
        noted = hold.release()
        if noted is None:
            try:
                journal = run_superpod_block(p, journal, say)
            except KeyboardInterrupt as exc:  # review43c: the run was left ``running`` without its journal
                cut = exc
                journal.update(status="interrupted", verdict="aborted",
                               abort_reason="interrupted by the operator while the spec.superpod block ran")
        else:
            journal.update(status="interrupted", verdict="aborted",
                           abort_reason="interrupted by the operator before the spec.superpod block ran")
        hold.start()
    journal["run_id"] = run_id
    try:
        log.info("run finished", extra={"run_id": run_id, "verdict": journal["verdict"],
                                        "faults": journal["summary"]["incidents"],
                                        "wall_s": round(journal["summary"]["wall_s"], 3)})
        _keep(journal, run_id, p, store, out_dir)
    finally:
        noted = hold.release() or noted
    if (noted is not None or cut is not None) and say and run_id:
        say(f"stopped: the run's journal ({journal['status']}) is stored as {run_id}")
    if cut is not None:
        raise cut
    hold.redeliver(noted)
    return journal


def _keep(journal: dict[str, Any], run_id: str | None, p: Plan, store: RunStore | None, out_dir: Path | None) -> None:
    """Store the journal in the run store and, with ``out_dir``, as ``out_dir/RUN_ID.json``."""
    from opsbrain.fsio import write_json_atomic

    if store is not None and run_id is not None:
        store.finish(run_id, journal)
    if out_dir is not None:
        target = out_dir / f"{run_id or p.scenario.metadata.name}.json"
        try:
            out_dir.mkdir(exist_ok=True)  # its parent was checked before the run
            write_json_atomic(target, journal)
        except OSError as exc:  # checked before the run, so rare (a disk filled, rights changed meanwhile)
            stored = f"; the run is stored as {run_id}" if run_id else ""
            raise InputError(f"cannot write the journal: {exc.strerror or exc}{stored}", file=str(target),
                             path="--out") from None


def run_superpod_block(p: Plan, journal: dict[str, Any], say: Say | None = None) -> dict[str, Any]:
    """Run the scenario's ``spec.superpod`` block (elastic serving, day/night switches, tenant campaigns) over its
    seeds from the plan's seed, and score and journal it with the run (:mod:`opsbrain.ops.superpod_journal`)."""
    from opsbrain.ops.scenario_run import run_superpod
    from opsbrain.ops.superpod_journal import attach
    from opsbrain.runner.run import _clean

    sp = p.scenario.spec.superpod
    assert sp is not None
    parts = [k for k in ("elastic", "schedule", "tenants") if getattr(sp, k) is not None]
    if say:
        say(f"superpod block: {', '.join(parts) or 'nothing'} over {sp.seeds} seed(s) from seed {p.seed}")
    out = _clean(run_superpod(sp, p.seed))
    return attach(journal, out)
