"""Run each fault kind briefly in the twin (no background noise) and collect what an operator would see.

Shared by the telemetry content tests and the exclusive-signal count (``python -m tests.twin_emissions``):
the lines and job events a fault emits, and the signal kinds :func:`opsbrain.ingest.parse_line` makes of them.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from faultlib import ids
from faultlib.engine import Simulation
from faultlib.faults.catalog import CATALOG
from faultlib.injection.selectors import TargetIndex
from faultlib.injection.spec import FaultSpec
from faultlib.params import apply_overrides
from faultlib.simparams import SimParams
from faultlib.telemetry import JobEvent, LogLine
from faultlib.telemetry.noise import start_background_noise
from faultlib.topology import Topology
from faultlib.workloads.inference import InferenceService, paper_layout
from faultlib.workloads.training import TrainingJob

ONSET_S = 600.0
RUN_AFTER_S = 2400.0  # past the 30 min HCCL timeout, so timeout lines are collected too
TRAINING_NODES = [ids.node(0, n) for n in range(32, 46)]


@dataclass
class Emission:
    kind: str
    target: str
    lines: list[LogLine] = field(default_factory=list)
    events: list[JobEvent] = field(default_factory=list)


@lru_cache(maxsize=1)
def topology() -> Topology:
    return Topology.build()


def _world(seed: int, noise: bool, sim_params: dict[str, Any] | None = None) -> Simulation:
    params = apply_overrides(SimParams(), sim_params) if sim_params else SimParams()
    sim = Simulation(params, seed=seed, topology=topology())
    pre, dec = paper_layout(sim.topology)
    sim.add_workload(InferenceService("serve", pre, dec))
    sim.add_workload(TrainingJob("train", list(TRAINING_NODES)))
    if noise:
        start_background_noise(sim)
    return sim


def target_for(kind: str, seed: int = 0, where: str = "training") -> str:
    """A target of ``kind`` inside the training job's nodes (``where="inference"``: the serving nodes 0-31) when the
    kind allows, so that workload sees it."""
    index = TargetIndex(topology())
    cands = [c for t in CATALOG[kind].targets for c in index.candidates(t)]
    nodes = set(TRAINING_NODES) if where == "training" else {ids.node(0, n) for n in range(32)}
    inside = [c for c in cands if c.node in nodes] or cands
    rng = np.random.default_rng([seed, 17])
    return inside[int(rng.integers(len(inside)))].id


def emit(kind: str, seed: int = 0, noise: bool = False, params: dict[str, Any] | None = None,
         duration_s: float | None = None, where: str = "training", sim_params: dict[str, Any] | None = None
         ) -> Emission:
    """What ``kind`` shows from onset on (lines and job events after the onset; the fault alone when no noise);
    ``sim_params`` overrides simulator parameters (``{"telemetry.torch_npu_messages": "error_codes"}``)."""
    sim = _world(seed, noise, sim_params)
    target = target_for(kind, seed, where)
    spec = FaultSpec(at_s=ONSET_S, kind=kind, target=target, params=params or {}, duration_s=duration_s)
    sim.inject(spec)
    sim.run(ONSET_S + RUN_AFTER_S)
    out = Emission(kind, target)
    out.lines = [ln for ln in sim.telemetry.logs if ln.t >= ONSET_S]
    out.events = [ev for ev in sim.telemetry.events if ev.t >= ONSET_S]
    return out


def noise_lines(seed: int = 0, days: float = 0.5) -> list[LogLine]:
    """A fault-free pod's lines over ``days``."""
    sim = _world(seed, noise=True)
    sim.run(days * 86400.0)
    return list(sim.telemetry.logs)


def signal_kinds(lines: list[LogLine], events: list[JobEvent] = ()) -> set[str]:  # type: ignore[assignment]
    from opsbrain.ingest import parse_job_event, parse_line

    kinds = {s.kind for ln in lines for s in parse_line(ln.text, ln.t, ln.origin, ln.source, ln.level)}
    for ev in events:
        kinds |= {s.kind for s in parse_job_event(ev.job, ev.kind, ev.detail, ev.t, {})}
    return kinds


IGNORED_KINDS = ("level:",)


def exclusive_kinds(seed: int = 0) -> dict[str, set[str]]:
    """Per fault kind, the signal kinds no other fault kind and no background noise shows."""
    per: dict[str, set[str]] = {}
    for kind in sorted(CATALOG):
        per[kind] = set()
        for where in ("training", "inference"):
            e = emit(kind, seed, where=where)
            per[kind] |= {k for k in signal_kinds(e.lines, e.events) if not k.startswith(IGNORED_KINDS)}
    background = signal_kinds(noise_lines(seed))
    owners: dict[str, set[str]] = defaultdict(set)
    for kind, ks in per.items():
        for k in ks:
            owners[k].add(kind)
    return {kind: {k for k in ks if owners[k] == {kind} and k not in background} for kind, ks in per.items()}


if __name__ == "__main__":
    excl = exclusive_kinds()
    n = sum(1 for v in excl.values() if v)
    for kind, ks in excl.items():
        print(f"{kind:24s} {' '.join(sorted(ks)) or '-'}")
    print(f"classes with an exclusive signal kind: {n} of {len(excl)}")
