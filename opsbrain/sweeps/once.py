"""``opsbrain sweep once``: one health sweep at a point of a chaos scenario.

The scenario's world is built as a chaos run would build it (pod, workloads, noise, faults, the controller that
detects, diagnoses and recovers) and simulated up to ``at_s`` only; then one sweep runs, cold (no kept history:
the trend window is re-read from the DOM store, as a one-off query to a TSDB would). The run's own in-run sweeps
are left off, so the sweep shows what the pod looks like to an operator who has not drained anything yet.

Exit-code rule of the CLI: 0 when no finding is Alarm or worse, 1 otherwise (see :func:`verdict`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from opsbrain.errors import InputError
from opsbrain.sweeps.checks import LEVEL
from opsbrain.sweeps.params import SweepParams
from opsbrain.sweeps.sweep import SweepReport, run_sweep

DEFAULT_SCENARIO = "noise-only-day"
DEFAULT_AT_S = 3600.0


@dataclass
class OnceResult:
    scenario: str
    seed: int
    at_s: float
    report: SweepReport

    @property
    def failed(self) -> bool:
        """Whether the sweep found an Alarm or worse (exit code 1)."""
        return verdict(self.report) == 1

    def as_dict(self) -> dict[str, Any]:
        return {"scenario": self.scenario, "seed": self.seed, "at_s": self.at_s, "exit_code": verdict(self.report),
                **self.report.as_dict()}


def verdict(report: SweepReport) -> int:
    """0 when nothing is Alarm or worse, 1 otherwise."""
    return int(any(f.level >= LEVEL["Alarm"] for f in report.findings))


def sweep_once(scenario: str = DEFAULT_SCENARIO, at_s: float = DEFAULT_AT_S, seed: int | None = None,
               params: SweepParams | None = None, home: Path | None = None) -> OnceResult:
    """Simulate ``scenario`` up to ``at_s`` simulated seconds and sweep the pod there.

    Raises :class:`~opsbrain.errors.InputError` for a time outside ``[0, duration]`` and the scenario errors of
    :func:`opsbrain.chaos.plan`.
    """
    from opsbrain import chaos
    from opsbrain.kb.training import load_engine
    from opsbrain.runner.world import build_world
    from opsbrain.scenario.schema import SweepSpec

    at = float(at_s)
    plan = chaos.plan(scenario, seed=seed)
    duration = plan.scenario.spec.duration
    if not 0.0 <= at <= duration:  # also refuses NaN
        raise InputError(f"must be between 0 and the scenario's duration ({duration:g} s), got {at_s:g}", path="--at")
    spec = plan.scenario.spec.model_copy(update={"sweeps": SweepSpec(enabled=False, interval=None)})
    plan.scenario = plan.scenario.model_copy(update={"spec": spec})
    world = build_world(plan, load_engine(home))
    world.sim.run(at)
    return OnceResult(plan.scenario.metadata.name, plan.seed, at, run_sweep(world.sim, params=params))
