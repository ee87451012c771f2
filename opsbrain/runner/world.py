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


def _as_launched(plan: Plan, name: str, params: Any, overrides: dict[str, float]) -> Any:
    """``params`` with the auto policy's launch ``overrides``, except those the scenario sets for the workload (what
    the scenario sets wins over the policy's default); the other policies keep the workload's own (CANN defaults)."""
    if plan.policy != "auto":
        return params
    own = next((set(w.params) for w in plan.scenario.spec.workloads if w.name == name), set())
    return params.model_copy(update={k: v for k, v in overrides.items() if k not in own})


def inference_launch_params(plan: Plan, name: str, recovery: RecoveryParams | None = None) -> InferenceParams:
    """An inference service's parameters as the plan's policy launches it: under the auto policy with its HCCL
    operator-retry configuration (``RecoveryParams.inference_launch_overrides``)."""
    params: Any = plan.workload_params.get(name) or plan.params.inference
    assert isinstance(params, InferenceParams)
    return _as_launched(plan, name, params, (recovery or RecoveryParams()).inference_launch_overrides())


def launch_params(plan: Plan, name: str, recovery: RecoveryParams | None = None) -> TrainingParams:
    """A training job's parameters as the plan's policy launches it: under the auto policy with its HCCL
    operator-retry configuration and checkpoint interval (``RecoveryParams.job_launch_overrides``)."""
    params: Any = plan.workload_params.get(name) or plan.params.training
    assert isinstance(params, TrainingParams)
    return _as_launched(plan, name, params, (recovery or RecoveryParams()).job_launch_overrides())


def build_world(plan: Plan, engine: Engine, dry_run: bool = False,
                on_inject: Callable[[FaultSpec], None] | None = None) -> World:
    """The world of a plan; ``on_inject`` is told of each event-triggered fault as it is injected."""
    sim = Simulation(plan.params, seed=plan.seed, topology=plan.topology)
    recovery = RecoveryParams()
    for w in plan.scenario.spec.workloads:
        if w.kind == "training":
            sim.add_workload(TrainingJob(w.name, plan.placements[w.name], launch_params(plan, w.name, recovery)))
        else:
            launched = inference_launch_params(plan, w.name, recovery)
            pre, dec = paper_layout(plan.topology, w.first_node, launched)
            sim.add_workload(InferenceService(w.name, pre, dec, launched))
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
