"""Bundles of a run's incidents: one bundle per journal incident (:func:`write_incident_bundle`,
:func:`write_run_bundles`), its ``.sim.json`` sidecar (:func:`sim_sidecar`), and ``opsbrain runs bundle``'s re-run
(:func:`regenerate`). One bundle of a time window is written by :mod:`opsbrain.bundle.export` (split out in session
40; its names are re-exported here).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from opsbrain.bundle import layout as L
from opsbrain.bundle.export import NODE_IN, crash_dump_path, host_of, placement_of, qualify, reachable, write_bundle
from opsbrain.errors import InputError
from opsbrain.fsio import check_output_dir, write_atomic

if TYPE_CHECKING:
    from opsbrain.detection import Incident
    from opsbrain.runner.world import World

__all__ = ["bundle_names", "compare_journals", "crash_dump_path", "host_of", "incident_scope", "placement_of",
           "qualify", "reachable", "regenerate", "sim_sidecar", "write_bundle", "write_incident_bundle",
           "write_run_bundles"]


def incident_scope(world: World, entry: Mapping[str, Any]) -> tuple[list[Incident], set[str], set[str]]:
    """The controller incidents behind a journal entry, and the nodes and L2 chips to collect: those the incidents
    touch (signals, jobs hit) plus the injected and diagnosed components' own."""
    want = set(entry.get("incident_ids") or [entry.get("id")])
    incs = [i for i in world.controller.incidents if i.id in want]
    nodes: set[str] = set()
    l2: set[str] = set()
    for inc in incs:
        nodes |= inc.nodes | inc.job_nodes
        l2 |= inc.l2
    for comp in ((entry.get("injected") or {}).get("component"), (entry.get("diagnosis") or {}).get("component")):
        if not comp:
            continue
        nodes.update(n for n in NODE_IN.findall(comp))
        l2.update(re.findall(r"pod\d+/l2plane\d+/sw\d+", comp))
    return incs, nodes, l2


def write_incident_bundle(world: World, entry: Mapping[str, Any], out_dir: str | Path,
                          params: L.BundleParams | None = None, meta: Mapping[str, Any] | None = None
                          ) -> dict[str, Any]:
    """One journal incident as a bundle: lines from ``margin`` before the onset (the injection, else the
    detection) to ``margin`` after the recovery (else the incident's last signal)."""
    p = params or L.BundleParams()
    incs, nodes, l2 = incident_scope(world, entry)
    inj = entry.get("injected") or {}
    starts = [x for x in (inj.get("at_s"), entry.get("detected_at_s")) if x is not None]
    starts += [i.opened_at for i in incs]
    onset = min(starts) if starts else 0.0
    ends = [onset] + [x for x in (entry.get("recovered_at_s"),) if x is not None] + [i.last_at for i in incs]
    ends += [a["end_s"] for a in entry.get("actions", []) if a.get("end_s") is not None]
    adopted = set(getattr(world.controller, "adopted", ()))  # opened by a health sweep, not by log signals
    diag_times = [i.diagnoses[-1].at_s for i in incs if i.diagnoses and i.id not in adopted]
    collect = max(diag_times) if diag_times else onset
    info = {"incident": {"id": entry.get("id"), "in_simulation": {
        "injected": entry.get("injected"), "diagnosis": entry.get("diagnosis"),
        "controller_incidents": [_controller_incident(i, adopted) for i in incs]}}, **dict(meta or {})}
    man = write_bundle(out_dir, world.sim, start_s=onset - p.window_margin_s, end_s=max(ends) + p.window_margin_s,
                       nodes=nodes, l2=l2, collect_s=collect, placement=world.controller.placement)
    write_atomic(sim_sidecar(out_dir), (json.dumps(info, indent=1, sort_keys=True, default=str) + "\n").encode(),
                 option="--bundle", force=True)
    return man


def sim_sidecar(bundle: str | Path) -> Path:
    """``<bundle>.sim.json`` beside a bundle the twin wrote: what the simulation injected and diagnosed (its run's
    scenario, seed and policy, the journal entry's fault and diagnosis, the controller's incidents). It is the round
    trip's expectation (:func:`opsbrain.bundle.roundtrip.check_bundle`) and lies outside the bundle: nothing inside a
    bundle says which fault was injected (no ground truth in a side channel a reader could find)."""
    b = Path(bundle)
    return b.with_name(b.name + ".sim.json")


def _controller_incident(inc: Incident, adopted: set[str]) -> dict[str, Any]:
    d = inc.diagnosis
    scheduler = bool(inc.signals) and all(x.kind.startswith("job:") for x in inc.signals)  # job events alone
    return {"id": inc.id, "opened_at_s": inc.opened_at, "signals": len(inc.signals), "sweep": inc.id in adopted,
            "scheduler": scheduler,
            "diagnosis": None if d is None else {"fault_class": d.fault_class, "component": d.component,
                                                 "confidence": round(d.confidence, 4), "at_s": d.at_s}}


def bundle_names(journal: Mapping[str, Any]) -> dict[str, str]:
    """Journal incident id -> the folder its bundle is written to: ``b0001``, ``b0002``, ... in the journal's
    order. The journal's own ids say what the simulation knew (``f0001`` an injected fault, ``i0004`` an incident of
    no fault); a bundle named so would hand its reader the ground truth in its name (session 33; before, the folder
    was the journal id). The sidecar (:func:`sim_sidecar`) keeps the journal id for the round trip."""
    return {str(e["id"]): f"b{n:04d}" for n, e in enumerate(journal.get("incidents", []), 1)}


def write_run_bundles(world: World, journal: Mapping[str, Any], bundle_dir: str | Path,
                      params: L.BundleParams | None = None) -> list[dict[str, Any]]:
    """A bundle per journal incident in ``bundle_dir/<bundle name>/`` (:func:`bundle_names`). Never raises for one
    incident: a failure is reported in its entry (the journal must be complete whatever happens)."""
    out: list[dict[str, Any]] = []
    meta = {"run": {"scenario": journal.get("scenario"), "seed": journal.get("seed"), "policy": journal.get("policy"),
                    "run_id": journal.get("run_id")}}
    names = bundle_names(journal)
    for entry in journal.get("incidents", []):
        name = names[str(entry["id"])]
        path = Path(bundle_dir) / name
        try:
            man = write_incident_bundle(world, entry, path, params, meta)
            out.append({"incident": entry["id"], "bundle": name, "path": str(path), "files": man["files"],
                        "lines": man["lines"]})
        except (OSError, InputError, ValueError) as exc:
            out.append({"incident": entry["id"], "bundle": name, "path": str(path), "error": str(exc)})
    return out


def regenerate(journal: Mapping[str, Any], out_dir: str | Path, incident: str | None = None,
               scenario: str | None = None, home: Path | None = None) -> dict[str, Any]:
    """``opsbrain runs bundle``: re-run a stored run's scenario with its seed and policy (runs are deterministic)
    and write its bundles into ``out_dir/<bundle name>/`` (:func:`bundle_names`); report whether the re-run
    reproduced the stored journal.
    """
    from opsbrain import chaos

    name = scenario or journal.get("scenario")
    if not name:
        raise InputError("the stored journal names no scenario; give --scenario FILE")
    try:
        plan = chaos.plan(str(name), seed=journal.get("seed"), policy=journal.get("policy"))
    except InputError as exc:
        raise InputError(f"cannot re-run scenario {name!r} ({exc.reason}); give --scenario FILE if the run "
                         "used a scenario file") from None
    ids_stored = [str(i["id"]) for i in journal.get("incidents", [])]
    if incident is not None and incident not in ids_stored:
        raise InputError(f"run has no incident {incident!r} (it has: {', '.join(ids_stored) or 'none'})")
    out = check_output_dir(out_dir, "--out")  # before the re-run, not after it
    targets = [incident] if incident else ids_stored
    names = bundle_names(journal)  # the stored run's names: a regenerated bundle lands where the run put it
    for t in targets:
        for path in (out / names[t], sim_sidecar(out / names[t])):
            if path.exists():
                raise InputError("exists; refusing to overwrite", file=str(path))
    made = not out.exists()
    out.mkdir(parents=True, exist_ok=True)
    try:
        rerun, bundles = _rerun_into(plan, out, names, targets, home)
    except KeyboardInterrupt:  # the temporary directory is gone with what the re-run wrote
        if made:
            with contextlib.suppress(OSError):
                out.rmdir()  # the directory this command made, empty again
        raise
    diffs = compare_journals(journal, rerun)
    return {"run_id": journal.get("run_id"), "scenario": name, "seed": journal.get("seed"),
            "policy": journal.get("policy"), "reproduced": not diffs, "differences": diffs, "bundles": bundles,
            "notes": _rerun_notes(journal, rerun)}


def _rerun_notes(stored: Mapping[str, Any], rerun: Mapping[str, Any]) -> list[str]:
    """What an operator should know of the re-run beyond its differences: a stored run stopped early (Ctrl-C, a
    guard) is re-run to the scenario's end, so its bundles may hold lines the stored run never reached (session 42;
    before, nothing said so)."""
    if stored.get("status") == "interrupted" or stored.get("verdict") == "aborted":
        end, full = stored.get("ended_at_s"), rerun.get("ended_at_s") or rerun.get("duration_s")
        if isinstance(end, (int, float)) and isinstance(full, (int, float)) and full > end:
            return [f"the stored run stopped at t={end:g} s ({stored.get('abort_reason') or stored.get('status')}); "
                    f"the re-run went on to t={full:g} s, so its bundles may hold lines the stored run never reached"]
    return []


def _rerun_into(plan: Any, out: Path, names: Mapping[str, str], targets: list[str],
                home: Path | None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Re-run ``plan`` writing its bundles into a temporary directory under ``out``, then move the ``targets``'
    into place. A re-run stopped by Ctrl-C or SIGTERM raises KeyboardInterrupt and moves nothing: it stops, scores
    and journals what ran, so its bundles hold the logs up to the stop, and moved into place they were cut bundles
    under exit 0 (session 42)."""
    from opsbrain import chaos

    with tempfile.TemporaryDirectory(prefix=".bundles.", dir=out) as tmp:
        rerun = chaos.run(plan, bundle_dir=Path(tmp), home=home)
        if rerun.get("status") == "interrupted":
            raise KeyboardInterrupt
        bundles = [b for b in rerun.get("bundles", []) if b["incident"] in targets]
        for b in bundles:
            if "error" not in b:
                dest = names.get(b["incident"], b["bundle"])
                os.replace(Path(tmp) / b["bundle"], out / dest)
                os.replace(sim_sidecar(Path(tmp) / b["bundle"]), sim_sidecar(out / dest))
                b["bundle"], b["path"] = dest, str(out / dest)
    return rerun, bundles


def compare_journals(stored: Mapping[str, Any], rerun: Mapping[str, Any]) -> list[str]:
    """Where a re-run's incidents differ from the stored journal's (ids, injected faults, diagnoses)."""
    def key(i: Mapping[str, Any]) -> tuple[Any, ...]:
        d = i.get("diagnosis") or {}
        inj = i.get("injected") or {}
        return (inj.get("kind"), inj.get("component"), d.get("fault_class"), d.get("component"))

    a = {str(i["id"]): key(i) for i in stored.get("incidents", [])}
    b = {str(i["id"]): key(i) for i in rerun.get("incidents", [])}
    diffs = [f"incident {k}: stored {_said(a.get(k))}; re-run {_said(b.get(k))}" for k in sorted(set(a) | set(b))
             if a.get(k) != b.get(k)]
    return diffs


def _said(key: tuple[Any, ...] | None) -> str:
    """One side of a journal difference in words: the injected fault and the diagnosis (never a tuple repr)."""
    if key is None:
        return "no such incident"
    kind, comp, cls, where = key
    fault = f"{kind} on {comp}" if kind else "noise (nothing injected)"
    return f"{fault}, diagnosed {f'{cls} at {where}' if cls else 'nothing'}"

