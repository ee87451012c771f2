"""Build the simulated world of a plan: the pod, its workloads and spares, noise, and the controller."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from faultlib.engine import Simulation
from faultlib.injection.spec import FaultSpec
from faultlib.telemetry.noise import start_background_noise
from faultlib.workloads.inference import InferenceParams, InferenceService, paper_layout
from faultlib.workloads.training import TrainingJob, TrainingParams
from opsbrain.controller import Controller
from opsbrain.diagnosis.engine import Engine
from opsbrain.recovery.orchestrator import Orchestrator
from opsbrain.recovery.params import RecoveryParams
from opsbrain.runner.triggers import Triggers, apply_initial_state
from opsbrain.scenario.plan import Plan, origin_index
from opsbrain.sweeps.inrun import InrunSweeper, start_inrun_sweeps


@dataclass
class World:
    sim: Simulation
    controller: Controller
    orchestrator: Orchestrator
    sweeper: InrunSweeper | None = None
    """In-run health sweeps (scenario ``spec.sweeps``; None when disabled)."""
    triggers: Triggers | None = None
    """Event-triggered faults, and the scenario index of every scripted fault injected."""


def launch_params(plan: Plan, name: str, recovery: RecoveryParams | None = None) -> TrainingParams:
    """A training job's parameters as the plan's policy launches it: the auto policy sets its HCCL operator-retry
    configuration (``RecoveryParams.job_launch_overrides``) unless the scenario sets those for the job; the manual
    policy keeps the job's own (CANN defaults)."""
    params: Any = plan.workload_params.get(name) or plan.params.training
    assert isinstance(params, TrainingParams)
    if plan.policy != "auto":
        return params
    own = next((set(w.params) for w in plan.scenario.spec.workloads if w.name == name), set())
    policy = {k: v for k, v in (recovery or RecoveryParams()).job_launch_overrides().items() if k not in own}
    return params.model_copy(update=policy)  # what the scenario sets for its job wins over the policy's default


def build_world(plan: Plan, engine: Engine, dry_run: bool = False,
                on_inject: Callable[[FaultSpec], None] | None = None) -> World:
    """The world of a plan; ``on_inject`` is told of each event-triggered fault as it is injected."""
    sim = Simulation(plan.params, seed=plan.seed, topology=plan.topology)
    recovery = RecoveryParams()
    for w in plan.scenario.spec.workloads:
        params: Any = plan.workload_params.get(w.name)
        if w.kind == "training":
            sim.add_workload(TrainingJob(w.name, plan.placements[w.name], launch_params(plan, w.name, recovery)))
        else:
            assert params is None or isinstance(params, InferenceParams)
            pre, dec = paper_layout(plan.topology, w.first_node, params)
            sim.add_workload(InferenceService(w.name, pre, dec, params))
    sim.control.set_spares(plan.spares)
    apply_initial_state(sim, plan)
    if plan.scenario.spec.noise_scale > 0:
        start_background_noise(sim)
    orch = Orchestrator(sim, policy=plan.policy, dry_run=dry_run, params=recovery)  # type: ignore[arg-type]
    ctl = Controller(sim, engine, orch)
    triggers = Triggers(sim, plan, on_inject)
    for spec in plan.timeline:
        triggers.inject(spec, origin_index(spec))
    sw = plan.scenario.spec.sweeps
    sweeper = start_inrun_sweeps(sim, ctl.adopt, sw.interval) if sw.enabled else None
    return World(sim, ctl, orch, sweeper, triggers)
