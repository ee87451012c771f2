"""Digests of what a few training-heavy runs produce, to prove a refactor changes no behaviour.

``python -m tests.parity_digest > before.txt`` on one tree, the same on the other, then ``diff``: one line per
run with the sha256 of its scored journal (the wall-clock fields removed: start and end time, run id, measured
wall seconds and milliseconds), of its event trace (:meth:`faultlib.trace.Trace.digest`), of its log lines, of
its job events and of its workload accounting. The runs: built-in chaos scenarios that exercise the training
job's paths (crash, hang timeout, HCCL operator retry, online recovery, checkpoint write failure, scale-in and
-out, fail-slow, the day/night switch), plus two direct simulations with a random ``llama3`` fault timeline and
background noise: one pod, and a job spanning two pods (its data-parallel traffic crosses the RDMA plane).
Needs ``OPSBRAIN_HOME`` set to a scratch directory (the runs use the shipped diagnosis model, store nothing).
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from typing import Any
from unittest import mock

from faultlib import ids
from faultlib.engine import Simulation
from faultlib.injection.profiles import draw_timeline
from faultlib.telemetry.noise import start_background_noise
from faultlib.workloads.inference import InferenceService, paper_layout
from faultlib.workloads.training import TrainingJob

SCENARIOS = (
    "node-crash-training", "node-crash-manual", "link-down-training", "link-down-manual", "link-flap-training",
    "hbm-uce-training", "aicore-hang-training", "collective-timeout-software", "dpu-failure-during-checkpoint",
    "fault-during-recovery", "npu-fail-slow-training", "qingtian-failure-training", "silent-data-corruption",
    "node-hang-training", "hbm-row-exhaustion", "scale-out-after-repair", "spare-returns-during-repair-wait",
    "concurrent-faults", "day-night-switch",
)
POLICY_VARIANTS = (("link-down-training", "vendor-default"), ("node-crash-training", "vendor-default"))
WALL_KEYS = ("started_at", "finished_at", "run_id")
"""Top-level journal keys that hold wall-clock time or an id made from it."""
WALL_TIMES = re.compile(r"(^|_)wall(_|$)|_ms(_|$)")
"""Keys, at any depth, of measured wall time (``summary.wall_s``, ``summary.diagnosis_ms_mean``,
``sweeps.duration_ms_max``)."""


def _without_wall_times(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _without_wall_times(v) for k, v in x.items() if not WALL_TIMES.search(str(k))}
    if isinstance(x, list):
        return [_without_wall_times(v) for v in x]
    return x


def _sha(obj: Any) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()[:16]


def _sim_digests(sim: Simulation) -> dict[str, str]:
    tel = sim.telemetry
    return {"trace": sim.trace.digest()[:16],
            "logs": _sha([(ln.t, ln.origin, ln.source, ln.level, ln.text) for ln in tel.logs]),
            "events": _sha([[e.t, e.job, e.kind, e.detail] for e in tel.events]),
            "accounting": _sha({name: w.accounting() for name, w in sim.workloads.items()})}


def scenario_digests(name: str, policy: str | None = None) -> dict[str, str]:
    """Run one built-in scenario as ``opsbrain chaos run`` does (no run store) and digest it."""
    from opsbrain import chaos
    from opsbrain.runner import run as runner

    worlds: list[Any] = []
    build = runner.build_world

    def capture(*args: Any, **kwargs: Any) -> Any:
        worlds.append(build(*args, **kwargs))
        return worlds[-1]

    with mock.patch.object(runner, "build_world", capture):  # keep the world to digest its simulation
        journal = chaos.run(chaos.plan(name, policy=policy))
    stable = _without_wall_times({k: v for k, v in journal.items() if k not in WALL_KEYS})
    return {"journal": _sha(stable), "verdict": journal["verdict"], **_sim_digests(worlds[0].sim)}


def random_run_digests(seed: int, pods: int, days: float) -> dict[str, str]:
    """A training job (14 nodes on one pod; with two pods, 24 nodes on each) beside the paper's inference layout,
    under background noise and a random llama3 fault timeline."""
    sim = Simulation(seed=seed, pods=pods)
    prefill, decode = paper_layout(sim.topology)
    sim.add_workload(InferenceService("inf", prefill, decode))
    nodes = ([ids.node(0, n) for n in range(32, 46)] if pods == 1
             else [ids.node(p, n) for p in (0, 1) for n in range(24, 48)])
    sim.add_workload(TrainingJob("train", nodes))
    start_background_noise(sim)
    for spec in draw_timeline("llama3", sim.topology, days, sim.rng("injection")):
        sim.inject(spec)
    sim.run(days * 86400)
    return _sim_digests(sim)


def main() -> int:
    rows: list[tuple[str, dict[str, str]]] = []
    for name in SCENARIOS:
        rows.append((name, scenario_digests(name)))
    for name, policy in POLICY_VARIANTS:
        rows.append((f"{name} --policy {policy}", scenario_digests(name, policy)))
    rows.append(("random llama3 1 pod 4 d seed 6", random_run_digests(6, 1, 4.0)))
    rows.append(("random llama3 2 pods 2 d seed 3", random_run_digests(3, 2, 2.0)))
    for label, d in rows:
        print(label + "\t" + "\t".join(f"{k}={v}" for k, v in d.items()), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
