"""The chaos library behind ``opsbrain chaos``: list, validate, schema, plan (dry run), run, replay."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from opsbrain.errors import InputError, ScenarioError
from opsbrain.fsio import write_json_atomic
from opsbrain.scenario.loader import builtin_dir, builtin_names, load_scenario, read_yaml, validate_files
from opsbrain.scenario.plan import Plan, build_plan
from opsbrain.scenario.schema import MAX_DURATION_S, Scenario
from opsbrain.store import RunStore

Say = Callable[[str], None]


def list_scenarios() -> list[dict[str, Any]]:
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
    return [str(e) for e in validate_files(paths)]


def schema() -> dict[str, Any]:
    return Scenario.model_json_schema()


def plan(name_or_path: str, seed: int | None = None, policy: str | None = None) -> Plan:
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
    With ``bundle_dir``, a log bundle per incident is written into ``bundle_dir/<incident id>/`` (issue 9)."""
    from opsbrain.kb.training import load_engine
    from opsbrain.runner.run import run_plan

    engine = load_engine(home, say=say)
    run_id = None
    if store is not None:
        run_id = store.begin_run(p.scenario.metadata.name, p.seed, p.policy)
    journal = run_plan(p, engine, progress=progress, bundle_dir=bundle_dir)
    journal["run_id"] = run_id
    if store is not None and run_id is not None:
        store.finish(run_id, journal)
    if out_dir is not None:
        write_json_atomic(out_dir / f"{run_id or p.scenario.metadata.name}.json", journal)
    return journal


def replay(trace: str, time_unit: str = "s", mapping: str | None = None, seed: int = 0) -> dict[str, Any]:
    """Map a fault event trace onto one pod: the timeline, and what mapped to nothing (never dropped silently)."""
    from faultlib.injection.replay import replay_trace
    from faultlib.injection.spec import FaultPlanError
    from faultlib.topology import Topology

    path = Path(trace)
    if not path.exists():
        raise InputError("no such file", file=trace)
    for f in (trace, mapping):  # the one input reader's checks first (regular file, size, depth, aliases)
        if f is not None:
            _precheck(f)
    try:
        rep = replay_trace(path, Topology.build(), np.random.default_rng(seed), time_unit=time_unit,
                           mapping=mapping)
    except FaultPlanError as exc:
        path = (exc.path or "").removeprefix(trace).lstrip(": ") or None  # the error may name the file itself
        raise ScenarioError(exc.reason, file=trace, path=path) from None
    return {"trace": trace, "events": rep.events, "faults": rep.timeline.to_list(), "mapped": rep.mapped,
            "unmapped": rep.unmapped, "unmapped_total": sum(rep.unmapped.values()), "by_kind": rep.kinds,
            "node_map": rep.node_map, "orphan_ends": rep.orphan_ends, "open_faults": rep.open_faults}


MAX_TRACE_BYTES = 64 << 20  # reason: the public InfiniteHBD trace is 0.3 MB; a year of a large cluster is tens of MB


def _precheck(file: str) -> None:
    """Refuse a trace or mapping file the one input reader would refuse, before faultlib parses it."""
    from opsbrain.yamlio import decode, parse_json, parse_yaml, read_bytes

    text = decode(read_bytes(file, ScenarioError, MAX_TRACE_BYTES), file, ScenarioError)
    suffix = Path(file).suffix.lower()
    if suffix == ".json":
        try:
            json.loads(text)
        except json.JSONDecodeError:
            return  # a syntax error: the trace reader names it ("bad JSON ...")
        except (RecursionError, ValueError):
            pass
        parse_json(text, file, ScenarioError)
    elif suffix in (".yaml", ".yml"):
        parse_yaml(text, file, ScenarioError)


def replay_plan(trace: str, time_unit: str = "s", mapping: str | None = None, seed: int = 0,
                policy: str = "auto", tail_s: float = 3600.0) -> tuple[Plan, dict[str, Any]]:
    """A runnable plan from a trace: the standard pod (noise-only-day's workloads, spares and probes) with the
    trace's faults as its timeline, long enough for the last fault plus ``tail_s``."""
    from faultlib.injection.spec import Timeline

    rep = replay(trace, time_unit=time_unit, mapping=mapping, seed=seed)
    base = plan("noise-only-day", seed=seed, policy=policy)
    specs = [s for s in _timeline_from(rep)]
    end = max((s.at_s for s in specs), default=0.0) + tail_s
    if not end <= MAX_DURATION_S:  # model_copy does not validate: the bound of Spec.duration is checked here
        raise ScenarioError(f"the trace's last fault is at {end - tail_s:g} s; a replayed run lasts at most "
                            f"{MAX_DURATION_S:g} s (90 days); use --time-unit or cut the trace", file=trace)
    sc = base.scenario.model_copy(update={"metadata": base.scenario.metadata.model_copy(update={
        "name": "replay", "description": f"fault trace {trace} replayed on one pod"}),
        "spec": base.scenario.spec.model_copy(update={"duration": end})})
    base.scenario = sc
    base.timeline = Timeline(specs)
    return base, rep


def _timeline_from(rep: dict[str, Any]) -> list[Any]:
    from faultlib.injection.spec import FaultSpec

    return [FaultSpec.from_dict(f) for f in rep["faults"]]
